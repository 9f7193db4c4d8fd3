"""Chart axes for steps (x) and bytes (y): scales and tick marks with readable labels."""

from __future__ import annotations

from dataclasses import dataclass

from .fmt import human_bytes

PLOT_W = 1040  # target plot width in px; columns never get narrower than MIN_COL
MIN_COL = 6
MAX_COL = 240


@dataclass(frozen=True)
class Tick:
    pos: float
    text: str


@dataclass(frozen=True)
class StepAxis:
    """x = step: each step is one column of width `col` starting at x0."""

    x0: float
    steps: int
    col: float

    @classmethod
    def fit(cls, x0: float, steps: int, width: float = PLOT_W) -> StepAxis:
        col = min(MAX_COL, max(MIN_COL, width / max(steps, 1)))
        return cls(x0, max(steps, 1), col)

    @property
    def width(self) -> float:
        return self.steps * self.col

    def x(self, step: float) -> float:
        return self.x0 + step * self.col

    def ticks(self) -> list[Tick]:
        every = 1
        while every * self.col < 26:  # keep labels about 26 px apart
            every = _next_125(every)
        return [Tick(self.x(s + 0.5), str(s)) for s in range(0, self.steps, every)]


@dataclass(frozen=True)
class ByteAxis:
    """y = bytes, growing upwards from the plot's bottom edge y0 + height."""

    y0: float
    height: float
    top: int  # bytes at the plot's top edge
    step: int  # bytes between ticks

    @classmethod
    def fit(cls, y0: float, height: float, largest: int) -> ByteAxis:
        step = _nice_step(max(int(largest), 1))
        top = -(-int(max(largest, 1) * 1.06) // step) * step  # headroom for the peak label
        return cls(y0, height, max(top, step), step)

    def y(self, nbytes: float) -> float:
        return self.y0 + self.height - self.height * nbytes / self.top

    def ticks(self) -> list[Tick]:
        return [Tick(self.y(b), human_bytes(b) if b else "0") for b in range(0, self.top + 1, self.step)]


def _nice_step(largest: int) -> int:
    """A tick spacing giving 4 to 10 ticks: 1-2-5 decimal below 4 KiB, powers of two of KiB above."""
    if largest >= 4096:
        step = 1024
        while largest / step > 8:
            step *= 2
        return step
    step = 1
    while largest / step > 10:
        step = _next_125(step)
    return step


def _next_125(step: int) -> int:
    """The next value of the sequence 1, 2, 5, 10, 20, 50, ..."""
    return step * 5 // 2 if str(step)[0] == "2" else step * 2
