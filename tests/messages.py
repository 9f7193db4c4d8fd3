"""Every MicrofuseError the suite makes is checked as it is made: no numpy repr may reach a user."""

from __future__ import annotations

import re

from microfuse.errors import MicrofuseError

# np.int64(4), np.float32(0.5), np.True_, array([...]), dtype('int8'): numpy 2 reprs in f-strings
NUMPY_REPR = re.compile(r"\bnp\.(?:[a-z_]+\d*\(|True_|False_)|\barray\(\[|\bdtype\('")
_original = MicrofuseError.__init__


def _checked_init(self, *args, **kwargs):
    for a in args:
        found = NUMPY_REPR.search(str(a))
        if found:
            raise AssertionError(f"a numpy repr ({found.group(0)}...) in a user message: {str(a)[:300]}")
    _original(self, *args, **kwargs)


def install() -> None:
    """Called once from conftest.py: every error raised while the suite runs is scanned."""
    MicrofuseError.__init__ = _checked_init
