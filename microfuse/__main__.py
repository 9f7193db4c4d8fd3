"""`python -m microfuse`: the same as the `microfuse` command."""

import sys

from .signals import Terminated, handled

try:
    with handled():  # from the first import on: a signal while Python imports is no traceback either
        from .cli import main

        status = main()
except KeyboardInterrupt:
    status = 130
except Terminated as e:
    status = e.exit_status
sys.exit(status)
