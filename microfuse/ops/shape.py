"""Data-movement ops: the RESHAPE family (aliases), SHAPE/STRIDED_SLICE/PACK (folded),
CONCATENATION, PAD, MEAN, SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Op
from .registry import OpDef, register
from .attrs import (ConcatAttrs, NoAttrs, PackAttrs, ReducerAttrs, ReshapeAttrs, ShapeAttrs,
                    SqueezeAttrs, StridedSliceAttrs)
from .common import const_input, quantized_if_int8

ANY = frozenset(DType)
COPIED = frozenset({DType.INT8, DType.INT16, DType.INT32, DType.FLOAT32})  # byte-copying kernels (lower/movement.py)


def _const(op: Op, i: int) -> np.ndarray | None:
    """A constant shape-like operand (shape, axes, paddings, begins...) as int64, or None."""
    t = op.inputs[i] if i < len(op.inputs) else None
    if t is None or t.data is None:
        return None
    data = np.asarray(t.data)
    if data.dtype.kind not in "iu":
        raise ValueError(f"'{t.name}' must hold integers, not {data.dtype}")
    return data.reshape(-1).astype(np.int64)


def _elements(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _infer_reshape(op: Op):
    target = _const(op, 1)
    if target is None and op.attrs is not None and op.attrs.new_shape:
        target = np.array(op.attrs.new_shape)
    if target is None:  # TFLite then takes the output tensor's own shape
        return [(op.outputs[0].shape, None)]
    dims = [int(d) for d in target]
    if dims.count(-1) == 1:
        known = _elements([d for d in dims if d != -1])
        dims[dims.index(-1)] = _elements(op.inputs[0].shape) // known if known else 0
    return [(tuple(dims), op.inputs[0].dtype)]


def _same_elements(op: Op) -> str | None:
    a, b = _elements(op.inputs[0].shape), _elements(op.outputs[0].shape)
    return None if a == b else f"reshapes {a} elements into {b}"


def _infer_squeeze(op: Op):
    shape = op.inputs[0].shape
    dims = {d % len(shape) for d in op.attrs.squeeze_dims} if op.attrs.squeeze_dims else \
        {i for i, d in enumerate(shape) if d == 1}
    return [(tuple(d for i, d in enumerate(shape) if i not in dims), op.inputs[0].dtype)]


def _infer_expand(op: Op):
    shape = list(op.inputs[0].shape)
    axis = int(_const(op, 1)[0])
    shape.insert(axis if axis >= 0 else len(shape) + 1 + axis, 1)
    return [(tuple(shape), op.inputs[0].dtype)]


def _infer_shape(op: Op):
    return [((len(op.inputs[0].shape),), DType.INT64 if op.attrs.out_type == 4 else DType.INT32)]


def strided_slice_ranges(op: Op) -> list[range | int]:
    """Per input dimension: the range it keeps, or an int index where the axis shrinks."""
    shape, a = op.inputs[0].shape, op.attrs
    begin, end = _const(op, 1), _const(op, 2)
    strides = _const(op, 3) if len(op.inputs) > 3 else np.ones(len(begin), np.int64)
    out: list[range | int] = []
    for i, dim in enumerate(shape):
        if i >= len(begin):
            out.append(range(dim))
            continue
        b = None if a.begin_mask >> i & 1 else int(begin[i])
        e = None if a.end_mask >> i & 1 else int(end[i])
        if a.offset and b is not None and e is not None:
            e = b + e
        if a.shrink_axis_mask >> i & 1:
            out.append(range(dim)[b if b is not None else 0])
        else:
            out.append(range(dim)[slice(b, e, int(strides[i]))])
    return out


def _infer_strided_slice(op: Op):
    kept = tuple(len(r) for r in strided_slice_ranges(op) if isinstance(r, range))
    return [(kept, op.inputs[0].dtype)]


def _slice_masks(op: Op) -> str | None:
    if op.attrs.ellipsis_mask or op.attrs.new_axis_mask:
        return "ellipsis and new-axis masks are not supported"
    if any(_const(op, i) is None for i in (1, 2)):
        return "begin and end must be constants"
    return None


def _infer_pack(op: Op):
    shape = list(op.inputs[0].shape)
    axis = op.attrs.axis % (len(shape) + 1)
    shape.insert(axis, len(op.inputs))
    return [(tuple(shape), op.inputs[0].dtype)]


def _infer_concat(op: Op):
    shape = list(op.inputs[0].shape)
    axis = op.attrs.axis % len(shape)
    shape[axis] = sum(t.shape[axis] for t in op.inputs)
    return [(tuple(shape), op.inputs[0].dtype)]


def _concat_compatible(op: Op) -> str | None:
    first = op.inputs[0].shape
    axis = op.attrs.axis % len(first)
    for t in op.inputs[1:]:
        if len(t.shape) != len(first) or any(x != y for i, (x, y) in enumerate(zip(t.shape, first)) if i != axis):
            return f"input {list(t.shape)} does not concatenate with {list(first)} on axis {axis}"
    if op.attrs.activation != "NONE":
        return f"fused activation {op.attrs.activation} on CONCATENATION is not supported"
    return None


def _infer_pad(op: Op):
    pads = _const(op, 1).reshape(-1, 2)
    return [(tuple(int(d + lo + hi) for d, (lo, hi) in zip(op.inputs[0].shape, pads)), op.inputs[0].dtype)]


def _pad_shape(op: Op) -> str | None:
    pads = _const(op, 1)
    if pads.size != 2 * len(op.inputs[0].shape) or (pads < 0).any():
        return f"paddings must be [{len(op.inputs[0].shape)}, 2] non-negative values"
    return None


def _mean_axes(op: Op) -> set[int]:
    r = len(op.inputs[0].shape)
    return {int(a) % r for a in _const(op, 1)}


def _infer_mean(op: Op):
    axes = _mean_axes(op)
    shape = op.inputs[0].shape
    if op.attrs.keep_dims:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return [(out, op.inputs[0].dtype)]


def _infer_s2b(op: Op):
    n, h, w, c = op.inputs[0].shape
    (bh, bw), pads = _const(op, 1), _const(op, 2).reshape(2, 2)
    return [((n * int(bh * bw), int(h + pads[0].sum()) // int(bh), int(w + pads[1].sum()) // int(bw), c),
             op.inputs[0].dtype)]


def _infer_b2s(op: Op):
    n, h, w, c = op.inputs[0].shape
    (bh, bw), crops = _const(op, 1), _const(op, 2).reshape(2, 2)
    return [((n // int(bh * bw), int(h * bh - crops[0].sum()), int(w * bw - crops[1].sum()), c),
             op.inputs[0].dtype)]


def _always(op: Op, known) -> bool:
    """(shapes are static)"""
    return True


def _constant_inputs(op: Op, known) -> bool:
    """on constant inputs"""
    return all(t is None or known(t) for t in op.inputs)


def _rank4(op: Op) -> str | None:
    return None if len(op.inputs[0].shape) == 4 else "only 4-D NHWC input is supported"


def _blocks(op: Op) -> str | None:
    block = _const(op, 1)
    if block.size != 2 or (block < 1).any():
        return "block shape must be two values >= 1"
    return None


register(
    OpDef("RESHAPE", ReshapeAttrs, _infer_reshape, (_same_elements,), dtypes=ANY, alias=True),
    OpDef("SQUEEZE", SqueezeAttrs, _infer_squeeze, (_same_elements,), dtypes=ANY, alias=True),
    OpDef("EXPAND_DIMS", NoAttrs, _infer_expand, (const_input(1, "axis"), _same_elements), dtypes=ANY, alias=True),
    OpDef("SHAPE", ShapeAttrs, _infer_shape, (), dtypes=frozenset(), folds=_always),
    OpDef("STRIDED_SLICE", StridedSliceAttrs, _infer_strided_slice, (_slice_masks,), dtypes=ANY,
          folds=_constant_inputs),
    OpDef("PACK", PackAttrs, _infer_pack, (), dtypes=ANY, folds=_constant_inputs),
    OpDef("CONCATENATION", ConcatAttrs, _infer_concat, (_concat_compatible, quantized_if_int8), dtypes=COPIED),
    OpDef("PAD", NoAttrs, _infer_pad, (const_input(1, "paddings"), _pad_shape, quantized_if_int8), dtypes=COPIED),
    OpDef("MEAN", ReducerAttrs, _infer_mean, (const_input(1, "axes"), quantized_if_int8),
          dtypes=frozenset({DType.INT8, DType.INT16, DType.FLOAT32})),
    OpDef("SPACE_TO_BATCH_ND", NoAttrs, _infer_s2b,
          (_rank4, const_input(1, "block shape"), const_input(2, "paddings"), _blocks)),
    OpDef("BATCH_TO_SPACE_ND", NoAttrs, _infer_b2s,
          (_rank4, const_input(1, "block shape"), const_input(2, "crops"), _blocks)),
)
