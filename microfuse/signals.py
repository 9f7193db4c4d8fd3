"""SIGTERM and SIGHUP handled like SIGINT: the stack unwinds (every cleanup runs), then the CLI exits."""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM/SIGHUP, like KeyboardInterrupt on SIGINT."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum  # the shell's convention: 143 for SIGTERM


_CAUGHT = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _on_signal(signum: int, frame) -> None:
    # One signal unwinds; more (an impatient Ctrl-C) must not break the cleanup it runs.
    for s in _CAUGHT:
        signal.signal(s, signal.SIG_IGN)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Within: SIGINT raises KeyboardInterrupt, SIGTERM/SIGHUP raise Terminated (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # A signal the parent set to be ignored (nohup, `cmd &` in a script) stays ignored.
    previous = {s: signal.signal(s, _on_signal) for s in _CAUGHT if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
