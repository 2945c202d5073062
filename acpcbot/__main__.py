"""``python -m acpcbot HOST PORT``: the same as the ``acpcbot`` command."""

from .cli import main

raise SystemExit(main())
