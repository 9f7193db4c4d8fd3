"""SIGTERM and SIGHUP handled like SIGINT: the stack unwinds (every cleanup runs), then the CLI exits."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
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


# The signals _on_signal took: C code (numpy's extension import) may swallow the exception it
# raised and fail with another one, which the CLI must still report as the interruption.
received: list[int] = []


def _on_signal(signum: int, frame) -> None:
    received.append(signum)
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
    received.clear()
    # A signal the parent set to be ignored (nohup, `cmd &` in a script) stays ignored.
    previous = {s: signal.signal(s, _on_signal) for s in _CAUGHT if signal.getsignal(s) is not signal.SIG_IGN}
    swallowed: list[BaseException] = []
    hook, sys.unraisablehook = sys.unraisablehook, _unraisable(sys.unraisablehook, swallowed)
    try:
        yield
        if swallowed:  # the work went on and is done; the signal still ends the command
            raise swallowed[0]
    finally:
        sys.unraisablehook = hook
        for s, handler in previous.items():
            signal.signal(s, handler)


def _unraisable(hook, swallowed: list[BaseException]):
    """A hook that keeps the exception _on_signal raised where Python cannot propagate it (a __del__
    or a weakref callback: Python would print "Exception ignored" and go on) for handled() to raise."""
    def keep(unraisable) -> None:
        if received and isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            swallowed.append(unraisable.exc_value)
        else:
            hook(unraisable)
    return keep


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within: a signal is only noted; on exit it takes effect as it would have (the handler before).
    For steps that must not be cut in two (a folder made and its path not yet kept). A signal mask
    cannot do this: numpy's threads leave it unblocked, and any thread may take a process signal."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: noted.append(signum))
                for s in _CAUGHT if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if noted:
            _deliver(noted[0], previous[noted[0]])


def _deliver(signum: int, handler) -> None:
    if callable(handler):
        handler(signum, None)
    elif handler is signal.SIG_DFL:
        os.kill(os.getpid(), signum)  # the default action, now that it is back in place
