"""``python -m dealer``: the bundled dealer (see dealer.cli)."""

import sys

from .cli import main

sys.exit(main())
