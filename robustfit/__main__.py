"""``python -m robustfit``: the same command as ``robustfit``."""

import sys

from .cli import main

sys.exit(main())
