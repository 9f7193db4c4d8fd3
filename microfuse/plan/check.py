"""Proof of a memory plan by replay: every read finds the bytes its producer wrote.

Independent of the planner: it computes no lifetimes. It walks the plan's order over a
model of the arena that records, per byte, which value it holds, and checks before
each op that every input still holds its value, that scratch and outputs clobber
nothing the op still reads, and at the end that the graph outputs hold theirs. Where
an op's output overlaps an input, the op's declared access order (inplace.access, the
kernel contract) is replayed unit by unit, in the plan's direction, and each unit's
reads must come before any store to those bytes. A slice (microfuse/views.py) holds only its
own bytes of its base's storage: every CONCAT_VIEW input must sit exactly on the bytes the
concatenation gives it in the output (computed here from the shapes, not from the slice),
and the output's value is then the union of its slices. Failure raises PlanError naming
the first conflict.
"""

from __future__ import annotations

import numpy as np

from .. import ops as opdefs
from .. import views
from ..errors import PlanError
from ..ir import Graph, Op, Tensor
from ..ops import cascade
from .inplace import Access, access
from . import state
from .result import Plan


FREE = -1
Region = slice | np.ndarray  # the arena bytes of a tensor: a run, or (a slice) positions


def region(t: Tensor, plan: Plan) -> Region:
    """The arena bytes holding tensor t under the plan."""
    o = plan.offsets[t]
    if views.is_slice(t):
        return o + (t.byte_positions() - t.offset)
    return slice(o, o + t.nbytes)


def _span(r: Region) -> tuple[int, int]:
    """[lo, hi) of a region (empty: (0, 0))."""
    if isinstance(r, slice):
        return r.start, r.stop
    return (int(r.min()), int(r.max()) + 1) if len(r) else (0, 0)


class _Arena:
    """Which value (tensor or scratch) each byte holds."""

    def __init__(self, size: int):
        self.holder = np.full(size, FREE, dtype=np.int64)
        self.names: list[str] = []

    def write(self, name: str, where: Region) -> int:
        """Store a new value; return its id."""
        self.names.append(name)
        self.holder[where] = len(self.names) - 1
        return len(self.names) - 1

    def clobbered(self, vid: int, where: Region) -> str | None:
        """None if every byte of `where` holds `vid`, else what is there instead."""
        held = self.holder[where]
        bad = np.flatnonzero(held != vid)
        if len(bad) == 0:
            return None
        who = int(held[bad[0]])
        at = where.start + int(bad[0]) if isinstance(where, slice) else int(where[bad[0]])
        what = "nothing (never written)" if who == FREE else f"'{self.names[who]}'"
        return f"byte {at} holds {what}"


def _where(op: Op, step: int) -> str:
    return f"step {step} ({op.where}" + (f" '{op.name}')" if op.name else ")")


def _regions(graph: Graph, plan: Plan) -> None:
    """Every activation has an aligned offset inside the arena; aliases share storage."""
    for t in graph.activations():
        if t not in plan.offsets:
            raise PlanError(f"plan check: tensor '{t.name}' has no offset")
        o = plan.offsets[t]
        lo, hi = _span(region(t, plan))
        if (o % plan.align and not views.is_slice(t)) or lo < 0 or hi > plan.arena_bytes:
            raise PlanError(f"plan check: tensor '{t.name}' at {o} (+{t.nbytes}) is misaligned or "
                            f"outside the {plan.arena_bytes}-byte arena")
    for op, (o, size) in plan.scratch.items():
        if o % plan.align or o < 0 or o + size > plan.arena_bytes:
            raise PlanError(f"plan check: scratch of {op.where} at {o} (+{size}) is outside the arena")
    if sorted(map(id, plan.order)) != sorted(map(id, graph.ops)):
        raise PlanError("plan check: the order is not a permutation of the graph's ops")


def _store_times(acc: Access, when: np.ndarray, dst_at: int, arena: int) -> np.ndarray:
    """Per arena byte, the run position of the unit that stores it (n + 1: never stored)."""
    n = acc.units
    times = np.full(arena + 1, n + 1, dtype=np.int64)
    if n and acc.w_lo[0] == 0 and np.all(acc.w_lo[1:] == acc.w_hi[:-1]):
        per_byte = np.repeat(when, acc.w_hi - acc.w_lo)  # consecutive stores: vectorised
        times[dst_at:dst_at + len(per_byte)] = per_byte
        return times
    for u in range(n):
        lo, hi = dst_at + acc.w_lo[u], dst_at + acc.w_hi[u]
        times[lo:hi] = np.minimum(times[lo:hi], when[u])
    return times


def _replay(acc: Access, src_at: int, dst_at: int, backward: bool, arena: int) -> int | None:
    """First unit (in run order) whose reads follow a store to one of its bytes, else None."""
    n = acc.units
    when = np.arange(n)[::-1].copy() if backward else np.arange(n)  # run position of each unit
    store = _store_times(acc, when, dst_at, arena)
    reads = acc.r_lo < acc.r_hi
    if not reads.any():
        return None
    spans = np.empty(2 * int(reads.sum()), dtype=np.int64)
    spans[0::2], spans[1::2] = src_at + acc.r_lo[reads], src_at + acc.r_hi[reads]
    earliest = np.minimum.reduceat(store, spans)[0::2]  # first store into each unit's read span
    mine = when[reads]
    bad = earliest < mine if acc.staged else earliest <= mine
    if not bad.any():
        return None
    return int(np.flatnonzero(reads)[bad][np.argmin(mine[bad])])


def check(graph: Graph, plan: Plan) -> None:
    """Raise PlanError with the first conflict if any read could see overwritten data."""
    _regions(graph, plan)
    state.check(graph, plan.state_offsets, plan.state_bytes, plan.offsets, plan.align, plan.own_state)
    arena = _Arena(plan.arena_bytes)
    vid: dict[Tensor, int] = {}
    for t in graph.inputs:
        if t.in_arena:
            vid[t] = arena.write(t.name, region(t, plan))
    for step, op in enumerate(plan.order):
        _run_op(op, step, plan, arena, vid)
    for t in graph.outputs:
        if not t.in_arena:
            continue
        bad = arena.clobbered(vid[t], region(t, plan)) if t in vid else "it is never written"
        if bad:
            raise PlanError(f"plan check: graph output '{t.name}' is overwritten before the end: {bad}")


def _intact(op: Op, step: int, t: Tensor, plan: Plan, arena: _Arena, vid: dict, when: str) -> None:
    if t not in vid:
        raise PlanError(f"plan check: {_where(op, step)} reads '{t.name}' before it is written")
    bad = arena.clobbered(vid[t], region(t, plan))
    if bad:
        raise PlanError(f"plan check: {_where(op, step)} {when} input '{t.name}' "
                        f"[{plan.offsets[t]}, +{t.nbytes}) but {bad}")


def _run_op(op: Op, step: int, plan: Plan, arena: _Arena, vid: dict) -> None:
    inputs = [t for t in op.inputs if t is not None and t.in_arena]
    for t in inputs:
        _intact(op, step, t, plan, arena, vid, "reads")
    if op.kind == views.CONCAT_VIEW:
        _join_slices(op, step, plan, arena, vid)
        return
    d = opdefs.REGISTRY.get(op.kind)
    if d is not None and d.alias:
        src, out = op.inputs[0], op.outputs[0]
        if plan.offsets[out] != plan.offsets[src] or out.nbytes > src.nbytes:
            raise PlanError(f"plan check: {_where(op, step)} alias '{out.name}' does not share "
                            f"the storage of '{src.name}'")
        vid[out] = vid[src]
        return
    scratch = None
    if op in plan.scratch:
        o, size = plan.scratch[op]
        scratch = arena.write(f"scratch of {op.where}", slice(o, o + size))
        for t in inputs:
            _intact(op, step, t, plan, arena, vid, "needs its scratch apart from")
    if op.kind == cascade.CASCADE:
        _replay_rings(op, step, plan)
    replayed = _replay_overlaps(op, step, plan)
    for t in op.outputs:
        if t.in_arena:  # an output written into state (passes/state.py) is not in the arena
            vid[t] = arena.write(t.name, region(t, plan))
    if scratch is not None:
        o, size = plan.scratch[op]
        bad = arena.clobbered(scratch, slice(o, o + size))
        if bad:
            raise PlanError(f"plan check: {_where(op, step)} writes its output over its own scratch: {bad}")
    for t in inputs:
        if t not in replayed:
            _intact(op, step, t, plan, arena, vid, "keeps reading")


def _overlaps(a: int, an: int, b: int, bn: int) -> bool:
    return a < b + bn and b < a + an


def _concat_bytes(op: Op) -> list[np.ndarray]:
    """Per input of a concatenation, the bytes of the output it fills (from the output's start)
    in the input's element order: the op's meaning, computed from the shapes alone."""
    out = op.outputs[0]
    size = out.dtype.size
    axis = op.attrs.axis % len(out.shape)
    grid = np.arange(out.nbytes, dtype=np.int64).reshape(*out.shape, size)
    found, at = [], 0
    for t in op.inputs:
        n = t.shape[axis]
        found.append(np.take(grid, np.arange(at, at + n), axis=axis).reshape(-1))
        at += n
    return found


def _join_slices(op: Op, step: int, plan: Plan, arena: _Arena, vid: dict) -> None:
    """An eliminated concatenation: each input must hold exactly its part of the output's bytes
    (already checked intact); the output's value is their union."""
    out = op.outputs[0]
    if sum(t.nbytes for t in op.inputs) != out.nbytes:
        raise PlanError(f"plan check: {_where(op, step)} inputs do not add up to '{out.name}'")
    start = plan.offsets[out]
    for t, want in zip(op.inputs, _concat_bytes(op)):
        have = region(t, plan)
        have = np.arange(have.start, have.stop) if isinstance(have, slice) else have
        if len(have) != len(want) or np.any(have != start + want):
            k = int(np.flatnonzero(have != start + want)[0]) if len(have) == len(want) else 0
            raise PlanError(f"plan check: {_where(op, step)} slice '{t.name}' is not its part of "
                            f"'{out.name}' at {start}: its byte {k} is at {int(have[k])}, the "
                            f"concatenation puts it at {start + int(want[k])}")
    vid[out] = arena.write(out.name, region(out, plan))


def _replay_overlaps(op: Op, step: int, plan: Plan) -> set[Tensor]:
    """Replay the access order for each input the output overlaps; return those inputs."""
    if len(op.outputs) != 1 or not op.outputs[0].in_arena:
        return set()
    out = op.outputs[0]
    done: set[Tensor] = set()
    for slot, t in enumerate(op.inputs):
        if t is None or not t.in_arena:
            continue
        if not _overlaps(plan.offsets[t], t.nbytes, plan.offsets[out], out.nbytes):
            continue
        if views.is_slice(t) or views.is_slice(out):
            continue  # undeclared for slices: the input must stay intact, checked after the stores
        acc = access(op, slot, plan.access.get(op))
        if acc is None:
            continue  # undeclared: the input must stay intact, checked after the stores
        backward = op in plan.backward
        unit = _replay(acc, plan.offsets[t], plan.offsets[out], backward, plan.arena_bytes)
        if unit is not None:
            raise PlanError(
                f"plan check: {_where(op, step)} run {'backward' if backward else 'forward'}: "
                f"'{out.name}' at {plan.offsets[out]} overwrites bytes of input '{t.name}' at "
                f"{plan.offsets[t]} before {acc.pattern} unit {unit} reads them")
        done.add(t)
    # a tensor read through several slots is safe only if every slot was replayed
    for slot, t in enumerate(op.inputs):
        if t in done and access(op, slot, plan.access.get(op)) is None:
            done.discard(t)
    return done


def _replay_rings(op: Op, step: int, plan: Plan) -> None:
    """A CASCADE's rings, byte by byte: each ring lies inside the op's scratch; every band finds
    each row it reads of an intermediate at the position the program gives it (written by its
    producer, not yet overwritten, by any ring's writes, or moved away), and writes inside its
    ring. Rings may share bytes (ops/cascade.py _nest): a band whose output overlaps a ring it
    reads replays the access order of its kind (inplace.access of the band op: the contract,
    which lower/cascade.py requires of such a band's kernel) unit by unit. Positions are
    recomputed here from the moves, not taken from the program's bases."""
    prog = cascade.program(op)
    size = plan.scratch.get(op, (0, 0))[1]
    for r in prog.rings.values():
        if r.offset < 0 or r.offset + r.nbytes > size:
            raise PlanError(f"plan check: {_where(op, step)} ring '{r.t.name}' [{r.offset}, "
                            f"{r.offset + r.nbytes}) leaves the {size}-byte scratch")
    held = np.full(size, FREE, dtype=np.int64)  # per scratch byte: ring index << 32 | row + 2^16
    ids = {t: i for i, t in enumerate(prog.rings)}
    base = {t: r.first for t, r in prog.rings.items()}  # the row at position 0

    def at(t: Tensor, row: int) -> int:
        r = prog.rings[t]
        return r.offset + (row - base[t]) * r.row_bytes

    def rows(t: Tensor, lo: int, hi: int) -> np.ndarray:
        return np.repeat((ids[t] << 32) + (1 << 16) + np.arange(lo, hi, dtype=np.int64), prog.rings[t].row_bytes)

    def inside(t: Tensor, lo: int, hi: int) -> bool:
        r = prog.rings[t]
        return at(t, lo) >= r.offset and at(t, hi) <= r.offset + r.nbytes

    ms = cascade.members(op)
    for k, actions in enumerate(prog.steps):
        where = f"plan check: {_where(op, step)} cascade step {k}:"
        for act, _ in actions:
            if isinstance(act, cascade.Fill):
                lo = base[act.t] + act.pos
                if not inside(act.t, lo, lo + act.rows):
                    raise PlanError(f"{where} padding rows outside ring '{act.t.name}'")
                held[at(act.t, lo):at(act.t, lo + act.rows)] = rows(act.t, lo, lo + act.rows)
                continue
            if isinstance(act, cascade.Move):
                r = prog.rings[act.t]
                src = held[r.offset + act.src * r.row_bytes:][:act.rows * r.row_bytes].copy()
                held[r.offset + act.dst * r.row_bytes:][:len(src)] = src
                base[act.t] += act.src - act.dst
                continue
            spans = []
            for rd in act.reads:
                if rd.t in prog.rings and rd.hi > rd.lo:
                    lo, hi = at(rd.t, rd.lo), at(rd.t, rd.hi)
                    if not inside(rd.t, rd.lo, rd.hi) or np.any(held[lo:hi] != rows(rd.t, rd.lo, rd.hi)):
                        raise PlanError(f"{where} {ms[act.m].where} reads rows {rd.lo}..{rd.hi - 1} of ring "
                                        f"'{rd.t.name}', which does not hold them there")
                    spans.append((rd, lo, hi))
            t = ms[act.m].outputs[0]
            if t not in prog.rings:
                continue
            if not inside(t, act.a, act.b):
                raise PlanError(f"{where} {ms[act.m].where} writes rows {act.a}..{act.b - 1} outside ring "
                                f"'{t.name}'")
            lo, hi = at(t, act.a), at(t, act.b)
            overlapped = [(rd, a) for rd, a, b in spans if a < hi and lo < b]
            if overlapped:
                band = cascade.band_op(ms[act.m], act)
                for rd, a in overlapped:
                    acc = access(band, rd.slot) if rd.slot < len(band.inputs) else None
                    if acc is None or _replay(acc, a, lo, False, size) is not None:
                        raise PlanError(f"{where} {ms[act.m].where} writes rows {act.a}..{act.b - 1} of "
                                        f"'{t.name}' over rows of '{rd.t.name}' before it reads them")
            held[lo:hi] = rows(t, act.a, act.b)
