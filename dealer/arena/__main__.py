"""``python -m dealer.arena``: the same as ``acpc-match``."""

import sys

from .cli import main

sys.exit(main())
