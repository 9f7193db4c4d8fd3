"""`python -m microfuse`: the same as the `microfuse` command."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while Python imports: no traceback
    sys.exit(130)

sys.exit(main())
