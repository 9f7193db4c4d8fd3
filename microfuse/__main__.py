"""`python -m microfuse`: the same as the `microfuse` command."""

import sys

from .cli import main

sys.exit(main())
