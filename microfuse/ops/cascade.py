"""CASCADE, the op kind passes/cascade.py creates: a chain or small DAG of windowed ops (conv,
depthwise, pool, with their fused epilogues, a residual add's skip included) run band by band in
output-row order, so every intermediate lives as a ring of a few rows instead of a whole tensor.

Everything here is geometry, derived from the members' shapes alone, and shared by the lowering
(lower/cascade.py: the band calls and their pointers), the planner (the rings' bytes, the access
order of the cascade's input and output: plan/inplace.py BAND) and the checker's row replay:

- `schedule(op)`: steps, one per `Shape.rows` output rows of the cascade; each step a list of
  Bands (a member computing output rows [a, b)), pulled on demand: a member computes the rows
  its consumers' next windows need, no row twice (line buffers, no recompute), in bands of at
  most `Shape.most` rows, the deepest member that can run a whole band first, so each row dies
  as early as it can. Shape(1, 1), one row at a time, needs the smallest rings; larger bands
  make fewer kernel calls and ring moves for larger rings (passes/cascade.py chooses).
- A global average pool may end a cascade (`is_reducer`): its bands are bands of its input's
  rows, summed into its scratch, and it writes its output after the last.
- `program(op)`: the steps with the rings laid out. A ring is a linear buffer of `rows` rows
  per intermediate tensor; row r is held at position r - base. Before a member writes rows past
  the ring's end, the rows its consumers still need are moved down to position 0 (mf_ring_keep,
  a memmove), so every kernel reads a window of consecutive rows at one pointer. A conv or depthwise reading
  a ring (`padded`) finds padding rows there, filled with its input's zero point, above and below
  the image: every band of it has one geometry (a tap on such a row adds nothing, as TFLite's
  padding), so one params struct. The ring a pointwise conv reads may lie inside the ring it
  writes (`_nest`: its bands then run in place, as a whole layer may), when that takes fewer bytes.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, replace

import numpy as np

from ..errors import PlanError
from ..ir import DType, Op, OpAttrs, Tensor, first_operand_slot
from .common import window_kernel, window_pads
from .registry import REGISTRY, OpDef, register

CASCADE = "CASCADE"
BAND = "BAND"  # its access order (plan/inplace.py): the input read row band by row band
WINDOWED = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")
RING_ALIGN = 16  # each ring starts aligned (the kernels' loads)


@dataclass(frozen=True)
class Shape:
    """A cascade's bands: a step computes `rows` output rows of its last member; a member before
    it computes at most `most` rows a band (0: all the rows the step needs, in one band)."""

    rows: int = 1
    most: int = 1

    def __post_init__(self):
        if self.rows < 1 or self.most < 0:
            raise ValueError(f"a cascade band shape takes rows >= 1 and most >= 0, not {self}")

    def __str__(self) -> str:
        return f"{self.rows} output row(s) a step, producers {self.most or 'all they need'} a band"


@dataclass(frozen=True, eq=False)
class CascadeAttrs(OpAttrs):
    """The members, in execution order (the last writes the cascade's output), and the bands'
    shape."""

    members: tuple[Op, ...]
    shape: Shape = Shape()


@dataclass(frozen=True)
class Read:
    """Rows [lo, hi) of tensor `t` a band reads; `slot` is the member's input slot."""

    t: Tensor
    slot: int
    lo: int
    hi: int


@dataclass(frozen=True)
class Band:
    """Member `m` (its index) computes output rows [a, b) reading `reads`."""

    m: int
    a: int
    b: int
    reads: tuple[Read, ...]


@dataclass(frozen=True)
class Move:
    """Ring `t`: rows at positions [src, src + rows) move down to position dst (mf_ring_keep)."""

    t: Tensor
    src: int
    dst: int
    rows: int


@dataclass(frozen=True)
class Fill:
    """Ring `t`: positions [pos, pos + rows) get padding rows (every byte pad_value(t): memset)."""

    t: Tensor
    pos: int
    rows: int


@dataclass
class Ring:
    t: Tensor
    rows: int  # capacity
    offset: int = 0  # bytes from the start of the cascade's scratch
    first: int = 0  # the row held first at position 0 (-n: n padding rows above the image)

    @property
    def row_bytes(self) -> int:
        return row_bytes(self.t)

    @property
    def nbytes(self) -> int:
        return self.rows * self.row_bytes


@dataclass
class Program:
    """The steps (each: Moves and Bands in run order) and the rings; `base[k][t]` is, for the
    action k of a step, the row held at position 0 of ring t when it runs."""

    steps: list[list[tuple[Move | Fill | Band, dict[Tensor, int]]]]
    rings: dict[Tensor, Ring]

    @property
    def scratch(self) -> int:
        return max((_align(r.offset + r.nbytes) for r in self.rings.values()), default=0)


def row_bytes(t: Tensor) -> int:
    _, _, w, c = t.shape
    return w * c * t.dtype.size


def _align(n: int) -> int:
    return -(-n // RING_ALIGN) * RING_ALIGN


def members(op: Op) -> tuple[Op, ...]:
    return op.attrs.members


def make(ops: list[Op], shape: Shape = Shape()) -> Op:
    """The CASCADE of `ops` (execution order) in bands of `shape`: its input is the one
    activation they read from outside, its output the last op's."""
    inner = {t for m in ops for t in m.outputs}
    outside = [t for m in ops for t in m.inputs if t is not None and t.in_arena and t not in inner]
    first = ops[0]
    return Op(CASCADE, list(dict.fromkeys(outside)), [ops[-1].outputs[0]], CascadeAttrs(tuple(ops), shape),
              first.name, first.index)


_MEMO: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # op -> its facts (ops are never changed)


def _memo(op: Op, what: str, make):
    facts = _MEMO.setdefault(op, {})
    if what not in facts:
        facts[what] = make(op)
    return facts[what]


def is_reducer(m: Op) -> bool:
    """A global average pool ending a cascade: it sums its input band by band (its rows are its
    input's rows) and writes its one pixel after the last."""
    if m.kind != "AVERAGE_POOL_2D" or tuple(m.outputs[0].shape[1:3]) != (1, 1) or m.inputs[0].shape[1] < 2:
        return False
    top, _, left, _ = window_pads(m)
    _, h, w, _ = m.inputs[0].shape
    return m.attrs.filter_h - top >= h and m.attrs.filter_w - left >= w


def rows_out(m: Op) -> int:
    """The rows a member computes, one band at a time."""
    return m.inputs[0].shape[1] if is_reducer(m) else m.outputs[0].shape[1]


def _window(m: Op) -> tuple:
    if is_reducer(m):
        return m.inputs[0], 1, 0, 1, ()
    kh, _, dh, _ = window_kernel(m)
    first = first_operand_slot(m)
    operands = tuple((k, t) for k, t in enumerate(m.inputs) if k >= first and t is not None and t.in_arena)
    return m.inputs[0], m.attrs.stride_h, window_pads(m)[0], (kh - 1) * dh + 1, operands


def reads(m: Op, a: int, b: int, pad: bool = False) -> tuple[Read, ...]:
    """The rows member m reads to compute its output rows [a, b): the window of its input
    (clipped to the image: the rest is padding; with `pad`, not clipped: its ring holds padding
    rows) and the same rows of each epilogue operand."""
    x, s, top, span, operands = _memo(m, "window", _window)
    lo, hi = a * s - top, (b - 1) * s - top + span
    if not pad:
        lo, hi = max(0, lo), min(x.shape[1], hi)
    return (Read(x, 0, lo, max(hi, lo)), *(Read(t, k, a, b) for k, t in operands))


PADDED = ("CONV_2D", "DEPTHWISE_CONV_2D")  # a tap on a row of the input's zero point adds nothing


def padded(op: Op) -> frozenset[int]:
    """The members reading a ring with padding rows above and below the image (filled with the
    input's zero point): every band of theirs has one geometry, so one params struct."""
    ms = members(op)
    inner = {m.outputs[0] for m in ms[:-1]}
    return frozenset(k for k, m in enumerate(ms) if m.kind in PADDED and m.inputs[0] in inner)


def pad_value(t: Tensor) -> int:
    """The byte a padding row is filled with: the zero point (int8), 0 (0.0 for float)."""
    return int(t.quant.zero_point[0]) if t.dtype == DType.INT8 and t.quant is not None else 0


def _overhang(ms: tuple[Op, ...], t: Tensor, pads: frozenset[int]) -> tuple[int, int]:
    """Padding rows of ring t above row 0 and below its last row its padded consumers read."""
    above = below = 0
    for k in pads:
        if ms[k].inputs[0] is t:
            n = rows_out(ms[k])
            above = max(above, -reads(ms[k], 0, 1, True)[0].lo)
            below = max(below, reads(ms[k], n - 1, n, True)[0].hi - t.shape[1])
    return above, below


def schedule(op: Op) -> list[list[Band]]:
    """Per output row of the cascade, the bands that run (see the module docstring)."""
    return _memo(op, "schedule", _schedule)


def _schedule(op: Op) -> list[list[Band]]:
    ms = members(op)
    pads = padded(op)
    done = [0] * len(ms)
    producer = {m.outputs[0]: k for k, m in enumerate(ms)}
    shape = op.attrs.shape
    most = [shape.most or rows_out(m) for m in ms[:-1]] + [shape.rows]

    def ready(k: int, b: int) -> bool:  # member k can compute its rows up to b now
        return all(done[producer[rd.t]] >= min(rd.hi, rd.t.shape[1])
                   for rd in reads(ms[k], done[k], b, k in pads) if rd.t in producer)

    steps = []
    for r in range(0, rows_out(ms[-1]), shape.rows):
        need = list(done)
        need[-1] = min(r + shape.rows, rows_out(ms[-1]))
        for k in range(len(ms) - 1, -1, -1):
            if need[k] <= done[k]:
                continue
            for rd in reads(ms[k], done[k], need[k], k in pads):
                if rd.t in producer:
                    need[producer[rd.t]] = max(need[producer[rd.t]], min(rd.hi, rd.t.shape[1]))
        step = []
        while True:  # the deepest member that can compute its next band whole first: rows die
            # early (the shallowest member with rows to compute always can: its producers are done)
            k = next((k for k in range(len(ms) - 1, -1, -1)
                      if done[k] < need[k] and ready(k, min(need[k], done[k] + most[k]))), None)
            if k is None:
                break
            b = min(need[k], done[k] + most[k])
            step.append(Band(k, done[k], b, reads(ms[k], done[k], b, k in pads)))
            done[k] = b
        if done[-1] < need[-1]:  # (cannot happen: the shallowest member with rows to compute can)
            raise PlanError(f"{op.where}: cascade step {len(steps)} stopped before its rows")
        steps.append(step)
    return steps


def _consumers(ms: tuple[Op, ...], t: Tensor) -> list[int]:
    return [k for k, m in enumerate(ms) if any(x is t for x in m.inputs)]


def _keep(ms: tuple[Op, ...], t: Tensor, done: list[int], consumers: list[int], pads: frozenset[int]) -> int:
    """The lowest row of t a consumer will still read (its next band's window)."""
    lows = []
    for k in consumers:
        if done[k] < rows_out(ms[k]):
            lows += [rd.lo for rd in reads(ms[k], done[k], done[k] + 1, k in pads) if rd.t is t]
    return min(lows, default=t.shape[1])


def _walk(op: Op, capacity: dict[Tensor, int] | None):
    """Run the schedule over rings (capacity None: unbounded, to size them); yield actions."""
    ms, pads = members(op), padded(op)
    inner = {m.outputs[0] for m in ms[:-1]}
    consumers = {t: _consumers(ms, t) for t in inner}
    over = {t: _overhang(ms, t, pads) for t in inner}
    base = {t: -over[t][0] for t in inner}  # the row at position 0
    top = dict(base)  # one past the highest row held
    done = [0] * len(ms)

    def write(t: Tensor, a: int, b: int, actions: list) -> None:
        keep = min(_keep(ms, t, done, consumers[t], pads), a)
        if capacity is None:
            actions.append(("need", t, b - keep))
        elif b - base[t] > capacity[t]:
            actions.append((Move(t, keep - base[t], 0, max(top[t] - keep, 0)), dict(base)))
            base[t] = keep
        top[t] = b

    def fill(t: Tensor, a: int, b: int, actions: list) -> None:
        write(t, a, b, actions)
        actions.append((Fill(t, a - base[t], b - a), dict(base)))

    below = set()
    for step in schedule(op):
        actions: list = []
        for band in step:
            for rd in band.reads:  # the padding rows below the image, when first read
                if rd.t in inner and rd.hi > rd.t.shape[1] and rd.t not in below:
                    below.add(rd.t)
                    fill(rd.t, rd.t.shape[1], rd.t.shape[1] + over[rd.t][1], actions)
            t = ms[band.m].outputs[0]
            if t in inner and band.a == 0 and over[t][0]:
                fill(t, -over[t][0], 0, actions)  # and above it, before the first row
            if t in inner:
                write(t, band.a, band.b, actions)
            actions.append((band, dict(base)))
            done[band.m] = band.b
        yield actions


def program(op: Op) -> Program:
    """The schedule with its rings sized and placed (see the module docstring)."""
    return _memo(op, "program", _program)


def _program(op: Op) -> Program:
    ms = members(op)
    need: dict[Tensor, int] = {m.outputs[0]: 1 for m in ms[:-1]}
    for actions in _walk(op, None):
        for act in actions:
            if act[0] == "need":
                need[act[1]] = max(need[act[1]], act[2])
    rings, at = {}, 0
    for m in ms[:-1]:
        t = m.outputs[0]
        above, below = _overhang(ms, t, padded(op))
        rings[t] = Ring(t, min(need[t], t.shape[1] + above + below), at, -above)
        at += _align(rings[t].nbytes)
    steps = [[a for a in actions if a[0] != "need"] for actions in _walk(op, {t: r.rows for t, r in rings.items()})]
    plain = Program(steps, rings)
    nested = _nest(op, plain)
    return nested if nested is not None and nested.scratch < plain.scratch else plain


def _pointwise_guest(ms: tuple[Op, ...], t: Tensor) -> int | None:
    """The member k if ring t's one consumer is a pointwise conv k (1x1, stride 1, no padding,
    no other arena operand) writing a ring itself: t may then lie inside k's output ring."""
    consumers = _consumers(ms, t)
    if len(consumers) != 1 or consumers[0] == len(ms) - 1:
        return None
    k = consumers[0]
    m = ms[k]
    if m.kind != "CONV_2D" or window_kernel(m)[:2] != (1, 1) or (m.attrs.stride_h, m.attrs.stride_w) != (1, 1):
        return None
    if any(window_pads(m)) or len(_memo(m, "window", _window)[4]) or m.inputs[0] is not t:
        return None
    return k


def _forward(ci: int, co: int, pixels: int) -> int:
    """plan/inplace.py's forward bound of a pointwise band of `pixels` (unstaged pixel units,
    ci bytes read, co written each): a store of pixel n lands below pixel n's own bytes and every
    later one's while out - in <= n ci - (n + 1) co, for every n < pixels."""
    return min(-co, (pixels - 1) * ci - pixels * co)


def _nest(op: Op, plain: Program) -> Program | None:
    """The program with each ring a pointwise member reads (its guest) placed inside the ring
    that member writes (its host), where every band still finds its rows (_clash), or None.

    A pointwise band can run over its own input as a whole layer runs in place (plan/inplace.py's
    pixel units): every store lands below the pixels still to read while the input starts far
    enough above the output (_forward; for VWW's 8 -> 16 channels, half the band's output bytes
    above its first row). The guest then takes no bytes of its own beyond its overhang past the
    host's end. Its producer writes it while the host still holds rows its consumers need (the
    row a stride-2 window shares with the next step's): the host's ring moves run first in their
    step (_hoist), and _clash replays the whole program over the scratch's bytes to prove that
    every read finds its row. The checker (plan/check.py) replays it again, independently."""
    ms = members(op)
    guests = {t: k for t in plain.rings if (k := _pointwise_guest(ms, t)) is not None}
    # a chain of pointwise convs: a ring is a guest or a host, not both (the host keeps its own bytes)
    guests = {t: k for t, k in guests.items() if t not in {ms[j].outputs[0] for j in guests.values()}}
    if not guests:
        return None
    hosts = {ms[k].outputs[0]: t for t, k in guests.items()}
    steps = [_hoist(actions, set(hosts), ms) for actions in plain.steps]
    shift: dict[Tensor, int] = {}  # guest offset less its host's offset, at least
    for t, k in guests.items():
        host = ms[k].outputs[0]
        ci, co = plain.rings[t].row_bytes, plain.rings[host].row_bytes
        w = t.shape[2]
        need = 0
        for actions in steps:
            for act, base in actions:
                if isinstance(act, Band) and act.m == k:
                    out = (act.a - base[host]) * co
                    inp = (act.reads[0].lo - base[t]) * ci
                    need = max(need, out - inp - _forward(ci // w, co // w, (act.b - act.a) * w))
        shift[t] = _align(need)
    rings, at = {}, 0
    for m in ms[:-1]:
        t = m.outputs[0]
        if t in guests:
            continue
        r = plain.rings[t]
        rings[t] = Ring(t, r.rows, at, r.first)
        end = at + r.nbytes
        if t in hosts:
            g = plain.rings[hosts[t]]
            rings[g.t] = Ring(g.t, g.rows, at + shift[g.t], g.first)
            end = max(end, at + shift[g.t] + g.nbytes)
        at = _align(end)
    rings = {m.outputs[0]: rings[m.outputs[0]] for m in ms[:-1]}
    prog = Program(steps, rings)
    return None if _clash(op, prog, guests) else prog


def _touches(act, t: Tensor, ms: tuple[Op, ...]) -> bool:
    if isinstance(act, (Move, Fill)):
        return act.t is t
    return ms[act.m].outputs[0] is t or any(rd.t is t for rd in act.reads)


def _hoist(actions: list, rings: set, ms: tuple[Op, ...]) -> list:
    """A step's moves of `rings` first: before the actions before them that do not use that ring
    (the consumers' next windows are the same there, so is what the move keeps)."""
    out: list = []
    for act, base in actions:
        k = len(out)
        if isinstance(act, Move) and act.t in rings:
            while k > 0 and not _touches(out[k - 1][0], act.t, ms):
                k -= 1
        out.insert(k, (act, base))
    return out


def _clash(op: Op, prog: Program, guests: dict[Tensor, int]) -> str | None:
    """Replay of `prog` over its scratch's bytes, each holding (ring, row): the first read that
    does not find its row, or a band whose output overlaps what it reads other than a guest's
    pointwise band within _forward's bound; None when every read finds its row."""
    ms = members(op)
    held = np.full(prog.scratch, -1, dtype=np.int64)
    ids = {t: i for i, t in enumerate(prog.rings)}

    def span(t: Tensor, pos: int, rows: int) -> tuple[int, int]:
        r = prog.rings[t]
        return r.offset + pos * r.row_bytes, r.offset + (pos + rows) * r.row_bytes

    def codes(t: Tensor, lo: int, hi: int) -> np.ndarray:
        return np.repeat((ids[t] << 32) + (1 << 16) + np.arange(lo, hi, dtype=np.int64), prog.rings[t].row_bytes)

    for k, actions in enumerate(prog.steps):
        for act, base in actions:
            if isinstance(act, Fill):
                lo, hi = span(act.t, act.pos, act.rows)
                held[lo:hi] = codes(act.t, base[act.t] + act.pos, base[act.t] + act.pos + act.rows)
                continue
            if isinstance(act, Move):
                lo, hi = span(act.t, act.src, act.rows)
                rows = base[act.t] + act.src
                if np.any(held[lo:hi] != codes(act.t, rows, rows + act.rows)):
                    return f"step {k}: ring '{act.t.name}' moves rows it does not hold"
                d, _ = span(act.t, act.dst, act.rows)
                held[d:d + hi - lo] = held[lo:hi].copy()
                continue
            reads = []
            for rd in act.reads:
                if rd.t in prog.rings and rd.hi > rd.lo:
                    lo, hi = span(rd.t, rd.lo - base[rd.t], rd.hi - rd.lo)
                    if lo < prog.rings[rd.t].offset or hi > prog.rings[rd.t].offset + prog.rings[rd.t].nbytes or \
                            np.any(held[lo:hi] != codes(rd.t, rd.lo, rd.hi)):
                        return f"step {k}: {ms[act.m].where} does not find rows {rd.lo}..{rd.hi - 1} of '{rd.t.name}'"
                    reads.append((rd.t, lo, hi))
            t = ms[act.m].outputs[0]
            if t not in prog.rings:
                continue
            lo, hi = span(t, act.a - base[t], act.b - act.a)
            for src, a, b in reads:
                if a < hi and lo < b:
                    ci, co = prog.rings[src].row_bytes, prog.rings[t].row_bytes
                    w = src.shape[2]
                    if guests.get(src) != act.m or lo - a > _forward(ci // w, co // w, (act.b - act.a) * w):
                        return f"step {k}: {ms[act.m].where} writes over rows it reads"
            held[lo:hi] = codes(t, act.a, act.b)
    return None


def row_tensor(t: Tensor, n: int, tag: str) -> Tensor:
    """Rows of t, n of them (a band's view of a tensor, named by its tag)."""
    return Tensor(f"{t.name}[{tag}]", (t.shape[0], n, *t.shape[2:]), t.dtype, t.quant)


def band_op(m: Op, band: Band, origin: dict[int, Tensor] | None = None) -> Op:
    """Member m computing its output rows [a, b) from the rows it reads (see the module docstring;
    a window reaching past the image reads padding rows of its ring: no padding field then)."""
    a, b, rd = band.a, band.b, band.reads
    win = rd[0]
    kh, _, dh, _ = window_kernel(m)
    top, _, left, right = window_pads(m)
    s = m.attrs.stride_h
    pad_top = win.lo - (a * s - top)
    pad_bottom = (b - a - 1) * s + (kh - 1) * dh + 1 - (win.hi - win.lo) - pad_top
    tag = f"{a}:{b}"
    cut = {win.t: row_tensor(win.t, win.hi - win.lo, f"{win.lo}:{win.hi}")}
    cut.update({r.t: row_tensor(r.t, b - a, tag) for r in rd[1:]})
    for step in m.fused:  # the epilogue's own tensors: the same rows as the output
        cut.setdefault(step.input, row_tensor(step.input, b - a, tag))
        cut.setdefault(step.output, row_tensor(step.output, b - a, tag))
    out = m.outputs[0]
    cut.setdefault(out, row_tensor(out, b - a, tag))
    if origin is not None:
        origin.update({id(c): t for t, c in cut.items()})
    inputs = [cut.get(t, t) if t is not None and t.in_arena else t for t in m.inputs]
    fused = [replace(st, input=cut[st.input], output=cut[st.output],
                     operand=cut.get(st.operand, st.operand)) for st in m.fused]
    attrs = replace(m.attrs, padding="EXPLICIT", pads=(pad_top, max(pad_bottom, 0), left, right))
    return Op(m.kind, inputs, [cut[out]], attrs, m.name, m.index, fused)


def whole_bytes(op: Op) -> int:
    """What the intermediates would take as whole tensors (the rings' saving is against this)."""
    return sum(m.outputs[0].nbytes for m in members(op)[:-1])


def _infer(op: Op):
    last = members(op)[-1]
    return REGISTRY[last.kind].infer(last)


register(OpDef(CASCADE, None, _infer, macs=lambda op: sum(REGISTRY[m.kind].macs(m) for m in members(op)),
               dtypes=frozenset({DType.INT8, DType.FLOAT32})))
