"""Runs a planned graph inside one byte arena with kernels that follow inplace.py's contract.

The arithmetic is made up (wrapping integer sums, not TFLite's); what matters is the
access order: each kernel reads as late and writes as early as the contract allows,
so an unsafe overlap changes the result. `run_reference` runs the same kernels with a
separate array per tensor; a correct plan gives identical values.
"""

from __future__ import annotations

import numpy as np

from microfuse import ops
from microfuse.ir import Graph, Op, Tensor
from microfuse.ops.cascade import band_op
from microfuse.ops import cascade as casc
from microfuse.ops.common import window_pads
from microfuse.plan import Plan
from microfuse.plan.inplace import access


def _wrap(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    if like.dtype.kind == "f":
        return values.astype(like.dtype)
    info = np.iinfo(like.dtype)
    span = int(info.max) - int(info.min) + 1
    return ((values.astype(np.int64) - int(info.min)) % span + int(info.min)).astype(like.dtype)


def _units(n: int, backward: bool) -> range:
    return range(n - 1, -1, -1) if backward else range(n)


def _taps(o: int, stride: int, pad: int, k: int, dil: int, size: int) -> list[tuple[int, int]]:
    """(tap index, input position) of the in-image taps of output position o."""
    return [(i, o * stride - pad + i * dil) for i in range(k) if 0 <= o * stride - pad + i * dil < size]


def _pixel(op: Op, x: np.ndarray, b: int, rows, cols, cout: int, weights, like,
           k: slice = slice(None)) -> np.ndarray:
    """Output channels `k` of one pixel, reading its whole window from `x` now."""
    win = x[b][np.ix_([iy for _, iy in rows], [ix for _, ix in cols])]  # the reads (a copy)
    win = win.astype(np.float64 if like.dtype.kind == "f" else np.int64)
    if op.kind == "MAX_POOL_2D":
        return win.max(axis=(0, 1))[k]
    if op.kind == "AVERAGE_POOL_2D":
        return win.sum(axis=(0, 1))[k]
    taps = weights[:, [i for i, _ in rows]][:, :, [j for j, _ in cols]]
    if op.kind == "CONV_2D":
        return np.einsum("ijc,kijc->k", win, taps[k])
    spread = np.repeat(win, cout // win.shape[2], axis=2)  # depthwise: channel c' reads c'/mult
    return ((spread * taps[0]).sum(axis=(0, 1)) + 1)[k]


def _hits_own_window(x: np.ndarray, y: np.ndarray, b: int, rows, cols, u: int) -> bool:
    """Whether output pixel u's bytes intersect the bytes of its input window (by address)."""
    _, h, w, cin = x.shape
    row = cin * x.itemsize
    out_lo = y.ctypes.data + u * y.shape[3] * y.itemsize
    out_hi = out_lo + y.shape[3] * y.itemsize
    for _, iy in rows:
        for _, ix in cols:
            lo = x.ctypes.data + ((b * h + iy) * w + ix) * row
            if lo < out_hi and out_lo < lo + row:
                return True
    return False


def _windowed(op: Op, x: np.ndarray, y: np.ndarray, backward: bool, extra) -> None:
    n, h, w, _ = x.shape
    _, oh, ow, cout = y.shape
    a = op.attrs
    if op.kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        kh, kw = op.inputs[1].shape[1:3]
        weights = op.inputs[1].data.astype(np.int64)
    else:
        kh, kw, weights = a.filter_h, a.filter_w, None
    dh, dw = getattr(a, "dilation_h", 1), getattr(a, "dilation_w", 1)
    pt, _, pl, _ = window_pads(op)
    staged = access(op, 0).staged
    for u in _units(n * oh * ow, backward):
        b, oy, ox = u // (oh * ow), u // ow % oh, u % ow
        rows, cols = _taps(oy, a.stride_h, pt, kh, dh, h), _taps(ox, a.stride_w, pl, kw, dw, w)
        plus = extra(u * cout, (u + 1) * cout) if extra else np.zeros(cout, np.int64)
        if staged or not _hits_own_window(x, y, b, rows, cols, u):
            # staged: every read of the pixel, then all its stores; an unstaged channel loop
            # computes the same when no store of the pixel lands on its own window
            y[b, oy, ox, :] = _wrap(_pixel(op, x, b, rows, cols, cout, weights, y) + plus, y)
            continue
        for c in range(cout):  # the channel loop: re-read the window after each store
            value = _pixel(op, x, b, rows, cols, cout, weights, y, slice(c, c + 1)) + plus[c]
            y[b, oy, ox, c] = _wrap(value, y)[0]


def _fully_connected(op: Op, x: np.ndarray, y: np.ndarray, backward: bool, extra) -> None:
    units, depth = op.inputs[1].shape
    weights = op.inputs[1].data.astype(np.int64)
    xs, ys = x.reshape(-1, depth), y.reshape(-1, units)
    for b in _units(xs.shape[0], backward):
        for o in range(units):  # unstaged: the row is read again for every output
            acc = int(weights[o] @ xs[b].astype(np.int64))
            if extra:
                acc += int(extra(b * units + o, b * units + o + 1)[0])
            ys[b, o] = _wrap(np.array([acc]), ys)[0]


def _elementwise(op: Op, xs: list[np.ndarray], y: np.ndarray, backward: bool) -> None:
    views = [np.broadcast_to(x, y.shape).reshape(-1) if x.shape != y.shape else x.reshape(-1) for x in xs]
    flat = y.reshape(-1)
    for i in _units(flat.size, backward):
        vals = [float(v[i]) if y.dtype.kind == "f" else int(v[i]) for v in views]
        if len(vals) == 1:
            r = vals[0] * 3 + 1
        elif op.kind == "SUB":
            r = vals[0] - 2 * vals[1]
        elif op.kind == "MUL":
            r = vals[0] * vals[1] + vals[0]
        else:
            r = vals[0] + 2 * vals[1] + 1
        flat[i] = _wrap(np.array([r]), flat)[0]


def _extra(op: Op, operands: list[np.ndarray]):
    """Epilogue operands (inputs after the main ones): read element-wise with the output."""
    if not operands:
        return None
    flats = [o.reshape(-1) for o in operands]
    return lambda lo, hi: sum(f[lo:hi].astype(np.int64) for f in flats)


def _cascade(op: Op, values: dict[Tensor, np.ndarray], scratch: np.ndarray) -> None:
    """A CASCADE run as its program says: each band an ordinary windowed kernel on row views of
    the input, the output and the rings in `scratch` (its bytes), each ring move a memmove."""
    prog, ms = casc.program(op), casc.members(op)
    sums: dict[int, np.ndarray] = {}

    def rows(t: Tensor, lo: int, hi: int, base: dict) -> np.ndarray:
        ring = prog.rings.get(t)
        if ring is None:
            return values[t][:, lo:hi]
        at = ring.offset + (lo - base[t]) * ring.row_bytes
        n, _, w, c = t.shape
        return scratch[at:at + (hi - lo) * ring.row_bytes].view(t.dtype.np).reshape(n, hi - lo, w, c)

    for step in prog.steps:
        for act, base in step:
            if isinstance(act, casc.Fill):
                ring = prog.rings[act.t]
                value = np.array([casc.pad_value(act.t)], np.int64).astype(np.int8).view(np.uint8)[0]
                scratch[ring.offset + act.pos * ring.row_bytes:][:act.rows * ring.row_bytes] = value
                continue
            if isinstance(act, casc.Move):
                ring = prog.rings[act.t]
                src = scratch[ring.offset + act.src * ring.row_bytes:][:act.rows * ring.row_bytes].copy()
                scratch[ring.offset + act.dst * ring.row_bytes:][:act.rows * ring.row_bytes] = src
                continue
            if casc.is_reducer(ms[act.m]):  # a global pool: the sum of every row, stored after the last
                x = rows(act.reads[0].t, act.reads[0].lo, act.reads[0].hi, base)
                sums[act.m] = sums.get(act.m, 0) + x.astype(np.int64).sum(axis=(0, 1, 2))
                if act.b == casc.rows_out(ms[act.m]):
                    out = values[ms[act.m].outputs[0]]
                    out[...] = _wrap(sums[act.m], out).reshape(out.shape)
                continue
            band = band_op(ms[act.m], act)
            x = rows(act.reads[0].t, act.reads[0].lo, act.reads[0].hi, base)
            y = rows(ms[act.m].outputs[0], act.a, act.b, base)
            extra = [rows(rd.t, rd.lo, rd.hi, base) for rd in act.reads[1:]]
            _windowed(band, x, y, False, _extra(band, extra))


def execute(op: Op, values: dict[Tensor, np.ndarray], backward: bool, scratch: np.ndarray | None = None) -> None:
    d = ops.REGISTRY[op.kind]
    if d.alias:
        return
    if op.kind == casc.CASCADE:
        _cascade(op, values, scratch)
        return
    y = values[op.outputs[0]]
    acts = [values[t] for t in op.inputs if t is not None and not t.is_const]
    if op.kind in ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D"):
        first = 1 if "POOL" in op.kind else 3
        _windowed(op, values[op.inputs[0]], y, backward, _extra(op, [values[t] for t in op.inputs[first:]
                                                                   if t is not None and not t.is_const]))
    elif op.kind == "FULLY_CONNECTED":
        _fully_connected(op, values[op.inputs[0]], y, backward,
                         _extra(op, [values[t] for t in op.inputs[3:] if t is not None and not t.is_const]))
    else:
        _elementwise(op, acts, y, backward)


def _fill(t: Tensor, rng: np.random.Generator) -> np.ndarray:
    if t.dtype.np.kind == "f":
        return rng.standard_normal(t.shape).astype(t.dtype.np)
    info = np.iinfo(t.dtype.np)
    return rng.integers(int(info.min), int(info.max) + 1, size=t.shape).astype(t.dtype.np)


def run_reference(graph: Graph, seed: int = 0) -> dict[Tensor, np.ndarray]:
    """Every tensor in its own array, ops in the graph's order."""
    rng = np.random.default_rng(seed)
    values = {t: _fill(t, rng) for t in graph.inputs}
    for op in graph.ops:
        if ops.REGISTRY[op.kind].alias:
            values[op.outputs[0]] = values[op.inputs[0]].reshape(op.outputs[0].shape)
            continue
        values[op.outputs[0]] = np.zeros(op.outputs[0].shape, op.outputs[0].dtype.np)
        execute(op, values, backward=False)
    return values


def run_in_arena(graph: Graph, plan: Plan, seed: int = 0) -> dict[Tensor, np.ndarray]:
    """Every tensor a view into one arena at its planned offset, ops in the plan's order.

    Returns a copy of each op's output taken right after the op ran.
    """
    rng = np.random.default_rng(seed)
    arena = np.zeros(plan.arena_bytes, dtype=np.uint8)

    def view(t: Tensor) -> np.ndarray:
        o = plan.offsets[t]
        return arena[o:o + t.nbytes].view(t.dtype.np).reshape(t.shape)

    for t in graph.inputs:
        view(t)[...] = _fill(t, rng)
    seen = {}
    for op in plan.order:
        values = {t: view(t) for t in [*op.inputs, *op.outputs] if t is not None and not t.is_const}
        if op in plan.scratch:  # a kernel may scribble over all of its scratch
            o, size = plan.scratch[op]
            arena[o:o + size] = 0xA5
        scratch = arena[slice(*(lambda o, n: (o, o + n))(*plan.scratch[op]))] if op in plan.scratch else None
        execute(op, values, backward=op in plan.backward, scratch=scratch)
        for t in op.outputs:
            seen[t] = view(t).copy()
    return seen
