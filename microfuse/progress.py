"""Progress of long work on stderr, only when stderr is a terminal (pipes and logs stay clean)."""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Callable, Iterator, TextIO

MIN_INTERVAL_S = 0.1  # redraw at most this often (plus the first and the last update)

Tick = Callable[..., None]  # tick(n=1, note=None): n more items done; note replaces the detail text


def enabled(stream: TextIO) -> bool:
    """True when `stream` is an interactive terminal (progress lines would only pollute a pipe)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real file
        return False


@contextlib.contextmanager
def progress(label: str, total: int | None = None, stream: TextIO | None = None) -> Iterator[Tick]:
    """`with progress("verify", total=n) as tick: ... tick()` draws `\\rverify 3/52 (1.2 s)` on a
    terminal and erases it at the end; elsewhere (a pipe, a file, CI logs) it prints nothing."""
    out = stream if stream is not None else sys.stderr
    if not enabled(out):
        yield lambda n=1, note=None: None
        return
    line = _Line(out, label, total)
    line.draw(force=True)
    try:
        yield line.tick
    finally:
        line.erase()


class _Line:
    """One status line redrawn in place with a carriage return."""

    def __init__(self, out: TextIO, label: str, total: int | None):
        self.out, self.label, self.total = out, label, total
        self.done, self.note = 0, ""
        self.start = self.last = time.monotonic()
        self.width = 0

    def tick(self, n: int = 1, note: str | None = None) -> None:
        self.done += n
        if note is not None:
            self.note = note
        self.draw(force=note is not None or self.done == self.total)

    def text(self) -> str:
        count = f"{self.done}/{self.total}" if self.total is not None else (str(self.done) if self.done else "")
        parts = [self.label, count, self.note, f"({time.monotonic() - self.start:.1f} s)"]
        return " ".join(p for p in parts if p)

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < MIN_INTERVAL_S:
            return
        self.last = now
        text = self.text()
        # pad with spaces over a longer previous line rather than rely on ANSI escapes
        self.out.write("\r" + text.ljust(self.width))
        self.out.flush()
        self.width = len(text)

    def erase(self) -> None:
        self.out.write("\r" + " " * self.width + "\r")
        self.out.flush()
