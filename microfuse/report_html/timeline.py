"""The memory timeline: one rectangle per buffer, x = kernel-call step, y = offset in the arena."""

from __future__ import annotations

from dataclasses import dataclass

from .axes import ByteAxis, StepAxis, Tick
from .fmt import clip, count, num, shape, short_name

LEFT = 78  # room for the byte labels
RIGHT = 150  # room for the level labels, right of the plot where no buffer is drawn
TOP = 24
PLOT_H = 420
BOTTOM = 46
# the drawn width (the page scales the chart down to its column, so it fits a 900 px window at
# about 0.8 and is not stretched on a wide one)
PLOT_W = 740
LABEL_LINE = 16  # px between a level label's two lines (12 px text)
CHAR_W = 6.6  # px per character of a buffer label (10.5 px font), for clipping and collisions


@dataclass(frozen=True)
class Block:
    x: str
    y: str
    w: str
    h: str
    css: str  # fixed class names only
    label: str
    tooltip: str


@dataclass(frozen=True)
class Shared:
    """Arena bytes two buffers share during a step: an output written over an input that dies there."""

    x: str
    y: str
    w: str
    h: str
    pattern: str  # "inplace" (same offset and size) or "partial"
    tooltip: str


@dataclass(frozen=True)
class Column:
    x: str
    w: str
    css: str
    tooltip: str


@dataclass(frozen=True)
class Level:
    """A horizontal marker line across the plot (the peak, the whole-tensor bound), labelled in
    the right margin: a name and a value, one line each."""

    y: str
    css: str
    label: str
    label_y: str
    value: int
    value_text: str = ""

    @property
    def value_y(self) -> str:
        return num(float(self.label_y) + LABEL_LINE)


@dataclass(frozen=True)
class Timeline:
    width: str
    height: str
    plot_x0: str
    plot_x1: str
    plot_y0: str
    plot_y1: str
    columns: tuple[Column, ...]
    blocks: tuple[Block, ...]
    shared: tuple[Shared, ...]
    levels: tuple[Level, ...]
    xticks: tuple[Tick, ...]
    yticks: tuple[Tick, ...]
    alive_path: str  # step line of the bytes alive at each step, '' when unknown
    peak: int
    lower_bound: int
    steps: int
    warnings: tuple[str, ...]


def _kind_css(entry: dict, inputs: set, outputs: set) -> str:
    names = {entry.get("tensor"), *(entry.get("aliases") or [])}
    if entry.get("kind") == "scratch":
        return "tl-scratch"
    if entry.get("kind") == "ring":
        return "tl-ring"
    if names & inputs:
        return "tl-in"
    if names & outputs:
        return "tl-out"
    return "tl-act"


def _tooltip(entry: dict, tensors: dict) -> str:
    name = str(entry.get("tensor", ""))
    info = tensors.get(name) or {}
    lines = [name]
    if info:
        lines.append(f"{shape(info.get('shape'))} {info.get('dtype', '')}")
    start, size = int(entry.get("offset", 0)), int(entry.get("bytes", 0))
    lines.append(f"{count(size)} bytes at offset {count(start)}..{count(start + size)}")
    lines.append(f"steps {entry.get('first_step')}..{entry.get('last_step')} ({entry.get('kind', 'activation')})")
    if entry.get("kind") == "ring":
        lines.append(f"a cascade's ring: {entry.get('rows')} of its {entry.get('of_rows')} rows at a time")
    if entry.get("overlaps"):
        lines.append(f"overlap: {entry['overlaps']}")
    if entry.get("aliases"):
        lines.append("shares its buffer with: " + ", ".join(map(str, entry["aliases"])))
    return "\n".join(lines)


def build(report: dict) -> Timeline:
    entries = list(report.get("timeline") or [])
    steps = list(report.get("steps") or [])
    arena = int(report.get("arena_bytes") or 0)
    bound = int(report.get("lower_bound_bytes") or 0)
    n = max([len(steps), int(report.get("kernel_calls") or 0), 1]
            + [int(e.get("last_step", 0)) + 1 for e in entries])
    ends = [int(e.get("offset", 0)) + int(e.get("bytes", 0)) for e in entries]
    alive = [int(s.get("alive_bytes", 0)) for s in steps]
    xs = StepAxis.fit(LEFT, n, PLOT_W)
    ys = ByteAxis.fit(TOP, PLOT_H, max([arena, bound, 1, *ends, *alive]))
    blocks = _blocks(report, entries, xs, ys)
    shared = _shared(entries, xs, ys)
    warnings = []
    if ends and max(ends) > arena:
        warnings.append(f"buffers reach {count(max(ends))} bytes, beyond the arena's {count(arena)} bytes")
    return Timeline(
        width=num(LEFT + xs.width + RIGHT), height=num(TOP + PLOT_H + BOTTOM),
        plot_x0=num(LEFT), plot_x1=num(LEFT + xs.width), plot_y0=num(TOP), plot_y1=num(TOP + PLOT_H),
        columns=_columns(report, steps, xs, n), blocks=tuple(blocks), shared=tuple(shared),
        levels=_levels(arena, bound, ys),
        xticks=tuple(Tick(num(t.pos), t.text) for t in xs.ticks()),
        yticks=tuple(Tick(num(t.pos), t.text) for t in ys.ticks()),
        alive_path=_alive_path(alive, xs, ys), peak=arena, lower_bound=bound, steps=n,
        warnings=tuple(warnings))


def _blocks(report: dict, entries: list, xs: StepAxis, ys: ByteAxis) -> list[Block]:
    tensors = (report.get("graph") or {}).get("tensors") or {}
    inputs = {t.get("name") for t in report.get("inputs") or []}
    outputs = {t.get("name") for t in report.get("outputs") or []}
    blocks, taken = [], []  # taken: label boxes already placed (x0, y0, x1, y1)
    # big buffers first so that small ones drawn later stay visible and hoverable
    for e in sorted(entries, key=lambda e: (-int(e.get("bytes", 0)), int(e.get("offset", 0)),
                                             int(e.get("first_step", 0)), str(e.get("tensor")))):
        first, last = int(e.get("first_step", 0)), int(e.get("last_step", 0))
        start, size = int(e.get("offset", 0)), int(e.get("bytes", 0))
        x0, x1 = xs.x(first) + 1, xs.x(last + 1) - 1
        y_top, y_bottom = ys.y(start + size), ys.y(start)
        h = max(y_bottom - y_top, 1.5)  # a tiny tensor stays visible
        w = max(x1 - x0, 2)
        label = clip(short_name(e.get("tensor", "")), int((w - 8) / CHAR_W)) if w >= 44 and h >= 13 else ""
        box = (x0 + 4, y_bottom - h + 1, x0 + 4 + len(label) * CHAR_W, y_bottom - h + 14)
        if label and any(_meet(box, other) for other in taken):
            label = ""  # another buffer's label is there (buffers written over dying inputs share bytes)
        if label:
            taken.append(box)
        blocks.append(Block(num(x0), num(y_bottom - h), num(w), num(h), _kind_css(e, inputs, outputs),
                            label, _tooltip(e, tensors)))
    return blocks


def _meet(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _span(e: dict) -> tuple[int, int, int, int]:
    start = int(e.get("offset", 0))
    return int(e.get("first_step", 0)), int(e.get("last_step", 0)), start, start + int(e.get("bytes", 0))


def _shared(entries: list, xs: StepAxis, ys: ByteAxis) -> list[Shared]:
    """Every region where two buffers alive at the same step share bytes, found from the geometry
    itself (a correct plan allows this only where a kernel writes over an input it is done with)."""
    entries = [e for e in entries if e.get("kind") != "ring"]  # rings lie inside their cascade's scratch
    spans = [_span(e) for e in entries]
    found = []
    for i, (f1, l1, a1, b1) in enumerate(spans):
        for j in range(i + 1, len(spans)):
            f2, l2, a2, b2 = spans[j]
            first, last, low, high = max(f1, f2), min(l1, l2), max(a1, a2), min(b1, b2)
            if first > last or low >= high:
                continue
            old, new = (i, j) if (f1, i) <= (f2, j) else (j, i)
            same = (a1, b1) == (a2, b2)
            how = "in place" if same else f"partial overlap of {count(high - low)} bytes"
            tip = (f"{entries[new].get('tensor')} is written over {entries[old].get('tensor')} "
                   f"at step {first}{'' if first == last else f'..{last}'} ({how})")
            y_top = ys.y(high)
            found.append(Shared(num(xs.x(first) + 1), num(y_top), num(max(xs.x(last + 1) - xs.x(first) - 2, 2)),
                                num(max(ys.y(low) - y_top, 1.5)), "inplace" if same else "partial", tip))
    return found


def _columns(report: dict, steps: list, xs: StepAxis, n: int) -> tuple[Column, ...]:
    calls = report.get("calls") or []
    by_step = {int(s.get("step", i)): s for i, s in enumerate(steps)}
    cols = []
    for step in range(n):
        s = by_step.get(step, {})
        call_index = s.get("call", step)
        call = calls[call_index] if isinstance(call_index, int) and 0 <= call_index < len(calls) else {}
        text = f"step {step}"
        if call:
            text += f": call {call.get('index', call_index)} {call.get('kind', '')}"
        if "alive_bytes" in s:
            text += f"\n{count(s['alive_bytes'])} bytes alive"
        cols.append(Column(num(xs.x(step)), num(xs.col), "col-even" if step % 2 == 0 else "col-odd", text))
    return tuple(cols)


def _levels(arena: int, bound: int, ys: ByteAxis) -> tuple[Level, ...]:
    """The peak and the whole-tensor bound; one label when they are equal, else two kept at least
    two lines apart (the upper one moved up, the lower one down)."""
    if arena == bound:
        y = ys.y(arena)
        return (Level(num(y), "level-peak", "arena = bound", num(y - 4), arena, f"{count(arena)} B"),)
    hi, lo = (arena, bound) if arena > bound else (bound, arena)
    y_hi, y_lo = ys.y(hi), ys.y(lo)
    gap = 2 * LABEL_LINE + 2
    label_hi, label_lo = y_hi - 4, y_lo - 4
    if label_lo - label_hi < gap:
        middle = (label_hi + label_lo) / 2
        label_hi, label_lo = middle - gap / 2, middle + gap / 2
    names = {arena: ("level-peak", "peak = arena"), bound: ("level-bound", "whole-tensor bound")}
    return tuple(Level(num(ys.y(v)), names[v][0], names[v][1], num(at), v, f"{count(v)} B")
                 for v, at in ((lo, label_lo), (hi, label_hi)))


def _alive_path(alive: list[int], xs: StepAxis, ys: ByteAxis) -> str:
    if not alive:
        return ""
    parts = [f"M{num(xs.x(0))} {num(ys.y(alive[0]))}"]
    for step, value in enumerate(alive):
        parts.append(f"V{num(ys.y(value))} H{num(xs.x(step + 1))}")
    return " ".join(parts)
