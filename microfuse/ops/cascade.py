"""CASCADE, the op kind passes/cascade.py creates: a chain or small DAG of windowed ops (conv,
depthwise, pool, with their fused epilogues, a residual add's skip included) run band by band in
output-row order, so every intermediate lives as a ring of a few rows instead of a whole tensor.

Everything here is geometry, derived from the members' shapes alone, and shared by the lowering
(lower/cascade.py: the band calls and their pointers), the planner (the rings' bytes, the access
order of the cascade's input and output: plan/inplace.py BAND) and the checker's row replay:

- `schedule(op)`: steps, one per output row of the cascade; each step a list of Bands (a member
  computing output rows [a, b)), pulled on demand: a member computes the rows its consumers'
  next windows need, no row twice (line buffers, no recompute), one row at a time and the
  deepest member that can run first, so each row dies as early as it can.
- A global average pool may end a cascade (`is_reducer`): its bands are bands of its input's
  rows, summed into its scratch, and it writes its output after the last.
- `program(op)`: the steps with the rings laid out. A ring is a linear buffer of `rows` rows
  per intermediate tensor; row r is held at position r - base. Before a member writes rows past
  the ring's end, the rows its consumers still need are moved down to position 0 (a memmove),
  so every kernel reads a window of consecutive rows at one pointer.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from ..ir import DType, Op, OpAttrs, Tensor, first_operand_slot
from .common import window_kernel, window_pads
from .registry import REGISTRY, OpDef, register

CASCADE = "CASCADE"
BAND = "BAND"  # its access order (plan/inplace.py): the input read row band by row band
WINDOWED = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")
RING_ALIGN = 16  # each ring starts aligned (the kernels' loads)


@dataclass(frozen=True, eq=False)
class CascadeAttrs(OpAttrs):
    """The members, in execution order (the last writes the cascade's output)."""

    members: tuple[Op, ...]


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
    """Ring `t`: rows at positions [src, src + rows) move down to position dst (memmove)."""

    t: Tensor
    src: int
    dst: int
    rows: int


@dataclass
class Ring:
    t: Tensor
    rows: int  # capacity
    offset: int = 0  # bytes from the start of the cascade's scratch

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

    steps: list[list[tuple[Move | Band, dict[Tensor, int]]]]
    rings: dict[Tensor, Ring]

    @property
    def scratch(self) -> int:
        return sum(_align(r.nbytes) for r in self.rings.values())


def row_bytes(t: Tensor) -> int:
    _, _, w, c = t.shape
    return w * c * t.dtype.size


def _align(n: int) -> int:
    return -(-n // RING_ALIGN) * RING_ALIGN


def members(op: Op) -> tuple[Op, ...]:
    return op.attrs.members


def make(ops: list[Op]) -> Op:
    """The CASCADE of `ops` (execution order): its input is the one activation they read from
    outside, its output the last op's."""
    inner = {t for m in ops for t in m.outputs}
    outside = [t for m in ops for t in m.inputs if t is not None and t.in_arena and t not in inner]
    first = ops[0]
    return Op(CASCADE, list(dict.fromkeys(outside)), [ops[-1].outputs[0]], CascadeAttrs(tuple(ops)),
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
    return m.kind == "AVERAGE_POOL_2D" and tuple(m.outputs[0].shape[1:3]) == (1, 1) and m.inputs[0].shape[1] > 1


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


def reads(m: Op, a: int, b: int) -> tuple[Read, ...]:
    """The rows member m reads to compute its output rows [a, b): the window of its input
    (clipped to the image: the rest is padding) and the same rows of each epilogue operand."""
    x, s, top, span, operands = _memo(m, "window", _window)
    lo = max(0, a * s - top)
    hi = min(x.shape[1], (b - 1) * s - top + span)
    return (Read(x, 0, lo, max(hi, lo)), *(Read(t, k, a, b) for k, t in operands))


def schedule(op: Op) -> list[list[Band]]:
    """Per output row of the cascade, the bands that run (see the module docstring)."""
    return _memo(op, "schedule", _schedule)


def _schedule(op: Op) -> list[list[Band]]:
    ms = members(op)
    done = [0] * len(ms)
    producer = {m.outputs[0]: k for k, m in enumerate(ms)}
    steps = []
    for r in range(rows_out(ms[-1])):
        need = list(done)
        need[-1] = r + 1
        for k in range(len(ms) - 1, -1, -1):
            if need[k] <= done[k]:
                continue
            for rd in reads(ms[k], done[k], need[k]):
                if rd.t in producer:
                    need[producer[rd.t]] = max(need[producer[rd.t]], rd.hi)
        step = []
        while True:  # one row at a time, the deepest member that can run first: rows die early
            k = next((k for k in range(len(ms) - 1, -1, -1) if done[k] < need[k] and all(
                done[producer[rd.t]] >= rd.hi for rd in reads(ms[k], done[k], done[k] + 1)
                if rd.t in producer)), None)
            if k is None:
                break
            step.append(Band(k, done[k], done[k] + 1, reads(ms[k], done[k], done[k] + 1)))
            done[k] += 1
        steps.append(step)
    return steps


def _consumers(ms: tuple[Op, ...], t: Tensor) -> list[int]:
    return [k for k, m in enumerate(ms) if any(x is t for x in m.inputs)]


def _keep(ms: tuple[Op, ...], t: Tensor, done: list[int], consumers: list[int]) -> int:
    """The lowest row of t a consumer will still read (its next band's window)."""
    lows = []
    for k in consumers:
        if done[k] < rows_out(ms[k]):
            lows += [rd.lo for rd in reads(ms[k], done[k], done[k] + 1) if rd.t is t]
    return min(lows, default=t.shape[1])


def _walk(op: Op, capacity: dict[Tensor, int] | None):
    """Run the schedule over rings (capacity None: unbounded, to size them); yield actions."""
    ms = members(op)
    inner = {m.outputs[0] for m in ms[:-1]}
    consumers = {t: _consumers(ms, t) for t in inner}
    base = {t: 0 for t in inner}
    top = {t: 0 for t in inner}  # one past the highest row held
    done = [0] * len(ms)
    for step in schedule(op):
        actions = []
        for band in step:
            t = ms[band.m].outputs[0]
            if t in inner:
                keep = min(_keep(ms, t, done, consumers[t]), band.a)
                if capacity is not None and band.b - base[t] > capacity[t]:
                    actions.append((Move(t, keep - base[t], 0, max(top[t] - keep, 0)), dict(base)))
                    base[t] = keep
                else:
                    actions.append(("need", t, band.b - keep))
                top[t] = band.b
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
        rings[t] = Ring(t, min(need[t], t.shape[1]), at)
        at += _align(rings[t].nbytes)
    steps = [[a for a in actions if a[0] != "need"] for actions in _walk(op, {t: r.rows for t, r in rings.items()})]
    return Program(steps, rings)


def whole_bytes(op: Op) -> int:
    """What the intermediates would take as whole tensors (the rings' saving is against this)."""
    return sum(m.outputs[0].nbytes for m in members(op)[:-1])


def _infer(op: Op):
    last = members(op)[-1]
    return REGISTRY[last.kind].infer(last)


register(OpDef(CASCADE, None, _infer, macs=lambda op: sum(REGISTRY[m.kind].macs(m) for m in members(op)),
               dtypes=frozenset({DType.INT8, DType.FLOAT32})))
