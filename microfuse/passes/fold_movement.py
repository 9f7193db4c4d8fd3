"""Compile-time evaluation of the data-movement ops (ops/movement.py) on constant operands: they
only copy stored values, so numpy gives TFLM's result exactly (fold.py uses these)."""

from __future__ import annotations

import numpy as np

from ..ir import Op
from ..ops.movement import gather_axes, ints, slice_ranges


def _data(op: Op, i: int = 0) -> np.ndarray:
    return np.asarray(op.inputs[i].data)


def _transpose(op: Op) -> np.ndarray:
    return np.transpose(_data(op), ints(op, 1))


def _slice(op: Op) -> np.ndarray:
    return _data(op)[tuple(slice(r.start, r.stop) for r in slice_ranges(op))]


def _reverse(op: Op) -> np.ndarray:
    return np.flip(_data(op), axis=tuple(a % _data(op).ndim for a in ints(op, 1)))


def _gather(op: Op) -> np.ndarray:
    x, idx = _data(op), _data(op, 1)
    axis, batch = gather_axes(op)
    if batch == 0:
        return np.take(x, idx, axis=axis)
    lead = x.shape[:batch]
    flat_x = x.reshape((-1,) + x.shape[batch:])
    flat_i = idx.reshape((-1,) + idx.shape[batch:])
    parts = [np.take(a, i, axis=axis - batch) for a, i in zip(flat_x, flat_i)]
    return np.stack(parts).reshape(lead + parts[0].shape)


def _gather_nd(op: Op) -> np.ndarray:
    x, idx = _data(op), _data(op, 1)
    return x[tuple(np.moveaxis(idx, -1, 0))]


def _embedding(op: Op) -> np.ndarray:
    rows = np.take(_data(op, 1), _data(op, 0), axis=0)
    value, out = op.inputs[1], op.outputs[0]
    if value.dtype != out.dtype:  # hybrid: TFLM's Dequantize, (q - 0) * scale in float32
        return rows.astype(np.float32) * np.float32(value.quant.scale[0])
    return rows


def _d2s(op: Op) -> np.ndarray:
    x, b = _data(op), op.attrs.block_size
    n, h, w, c = x.shape
    return x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, c // (b * b))


def _s2d(op: Op) -> np.ndarray:
    x, b = _data(op), op.attrs.block_size
    n, h, w, c = x.shape
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c)


def _pads(op: Op) -> list[tuple[int, int]]:
    return [tuple(p) for p in np.array(ints(op, 1)).reshape(-1, 2)]


def _padv2(op: Op) -> np.ndarray:
    value = _data(op, 2).reshape(-1)[0] if len(op.inputs) > 2 and op.inputs[2] is not None else 0
    return np.pad(_data(op), _pads(op), constant_values=value)


def _mirror_pad(op: Op) -> np.ndarray:
    return np.pad(_data(op), _pads(op), mode="reflect" if op.attrs.mode == "REFLECT" else "symmetric")


def _broadcast_to(op: Op) -> np.ndarray:
    return np.broadcast_to(_data(op), tuple(ints(op, 1)))


def _broadcast_args(op: Op) -> np.ndarray:
    return np.array(np.broadcast_shapes(tuple(ints(op, 0)), tuple(ints(op, 1))))


def _fill(op: Op) -> np.ndarray:
    return np.full(tuple(ints(op, 0)), _data(op, 1).reshape(-1)[0])


def _update_slice(op: Op) -> np.ndarray:
    x, u = _data(op).copy(), _data(op, 1)
    start = [min(max(0, s), n - m) for s, n, m in zip(ints(op, 2), x.shape, u.shape)]  # TFLM clamps
    x[tuple(slice(s, s + m) for s, m in zip(start, u.shape))] = u
    return x


MOVEMENT = {
    "TRANSPOSE": _transpose, "SLICE": _slice, "REVERSE_V2": _reverse, "GATHER": _gather,
    "GATHER_ND": _gather_nd, "EMBEDDING_LOOKUP": _embedding, "DEPTH_TO_SPACE": _d2s, "SPACE_TO_DEPTH": _s2d,
    "PADV2": _padv2, "MIRROR_PAD": _mirror_pad, "BROADCAST_TO": _broadcast_to, "BROADCAST_ARGS": _broadcast_args,
    "FILL": _fill, "DYNAMIC_UPDATE_SLICE": _update_slice,
}
