"""Data-movement ops: TRANSPOSE, SLICE, REVERSE_V2, GATHER, GATHER_ND, EMBEDDING_LOOKUP,
DEPTH_TO_SPACE, SPACE_TO_DEPTH, MIRROR_PAD, PADV2, BROADCAST_TO, BROADCAST_ARGS, FILL,
DYNAMIC_UPDATE_SLICE and CUMSUM (the types each takes are TFLM's registrations)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..ir import DType, Op
from .attrs import Attrs, NoAttrs
from .common import quantized_if_int8
from .registry import OpDef, register

I8, I16, I32, I64, F32, BOOL = DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.FLOAT32, DType.BOOL
MAX_DIMS = 6  # TFLM's largest rank for TRANSPOSE and DYNAMIC_UPDATE_SLICE; our mf_movement.h limit


@dataclass(frozen=True)
class GatherAttrs(Attrs):
    axis: int = 0
    batch_dims: int = 0


@dataclass(frozen=True)
class BlockAttrs(Attrs):
    block_size: int = 0


@dataclass(frozen=True)
class MirrorPadAttrs(Attrs):
    ENUMS: ClassVar[dict[str, tuple[str, ...]]] = {"mode": ("REFLECT", "SYMMETRIC")}
    mode: str = "REFLECT"


@dataclass(frozen=True)
class CumsumAttrs(Attrs):
    exclusive: bool = False
    reverse: bool = False


def ints(op: Op, i: int) -> list[int] | None:
    """A constant integer operand, flattened (None: absent or computed at run time)."""
    t = op.inputs[i] if i < len(op.inputs) else None
    if t is None or t.data is None:
        return None
    data = np.asarray(t.data)
    if data.dtype.kind not in "iu":
        raise ValueError(f"'{t.name}' must hold integers, not {data.dtype}")
    return [int(v) for v in data.reshape(-1)]


def _file_shape(op: Op):
    return [(op.outputs[0].shape, None)]  # shape operand computed at run time: as the file says


def _same(op: Op):
    return [(op.inputs[0].shape, op.inputs[0].dtype)]


# -- shape rules ----------------------------------------------------------------------------

def _infer_transpose(op: Op):
    perm = ints(op, 1)
    return [(tuple(op.inputs[0].shape[p] for p in perm), op.inputs[0].dtype)]


def slice_ranges(op: Op) -> list[range]:
    """SLICE's kept range per axis (size -1: to the end)."""
    begin, size = ints(op, 1), ints(op, 2)
    return [range(b, d if s == -1 else b + s) for b, s, d in zip(begin, size, op.inputs[0].shape)]


def _infer_slice(op: Op):
    return [(tuple(len(r) for r in slice_ranges(op)), op.inputs[0].dtype)]


def _infer_gather(op: Op):
    x, idx = op.inputs[0].shape, op.inputs[1].shape
    axis, batch = gather_axes(op)
    return [(tuple(x[:axis]) + tuple(idx[batch:]) + tuple(x[axis + 1:]), op.inputs[0].dtype)]


def gather_axes(op: Op) -> tuple[int, int]:
    a = op.attrs
    axis = a.axis + len(op.inputs[0].shape) if a.axis < 0 else a.axis
    batch = a.batch_dims + len(op.inputs[1].shape) if a.batch_dims < 0 else a.batch_dims
    return axis, batch


def _infer_gather_nd(op: Op):
    x, idx = op.inputs[0].shape, op.inputs[1].shape
    return [(tuple(idx[:-1]) + tuple(x[idx[-1]:]), op.inputs[0].dtype)]


def _infer_embedding(op: Op):
    value = op.inputs[1].shape
    out = op.outputs[0].dtype if op.inputs[1].dtype == I8 else op.inputs[1].dtype
    return [((op.inputs[0].shape[0],) + tuple(value[1:]), out)]


def _infer_d2s(op: Op):
    n, h, w, c = op.inputs[0].shape
    b = op.attrs.block_size
    return [((n, h * b, w * b, c // (b * b)), op.inputs[0].dtype)]


def _infer_s2d(op: Op):
    n, h, w, c = op.inputs[0].shape
    b = op.attrs.block_size
    return [((n, h // b, w // b, c * b * b), op.inputs[0].dtype)]


def _infer_pad(op: Op):
    pads = np.array(ints(op, 1)).reshape(-1, 2)
    return [(tuple(int(d + lo + hi) for d, (lo, hi) in zip(op.inputs[0].shape, pads)), op.inputs[0].dtype)]


def _infer_broadcast_to(op: Op):
    shape = ints(op, 1)
    return _file_shape(op) if shape is None else [(tuple(shape), op.inputs[0].dtype)]


def _infer_broadcast_args(op: Op):
    a, b = ints(op, 0), ints(op, 1)
    if a is None or b is None:
        return _file_shape(op)
    return [((len(np.broadcast_shapes(tuple(a), tuple(b))),), op.inputs[0].dtype)]


def _infer_fill(op: Op):
    dims = ints(op, 0)
    return [(op.outputs[0].shape if dims is None else tuple(dims), op.inputs[1].dtype)]


# -- constraints (each text is the user's message) -------------------------------------------

def _types(*allowed: DType, operand: int = 0):
    names = ", ".join(str(t) for t in allowed)

    def check(op: Op) -> str | None:
        t = op.inputs[operand]
        return None if t.dtype in allowed else f"type {t.dtype} is not supported (TFLM takes {names})"
    return check


def _const(i: int, what: str):
    def check(op: Op) -> str | None:
        t = op.inputs[i] if i < len(op.inputs) else None
        if t is None:
            return f"the {what} operand is missing"
        return None if t.is_const else f"the {what} must be a constant"
    return check


def _int_operand(i: int, what: str, allowed=(I32, I64)):
    def check(op: Op) -> str | None:
        t = op.inputs[i]
        return None if t.dtype in allowed else f"the {what} must be {' or '.join(map(str, allowed))}, not {t.dtype}"
    return check


def _same_type(op: Op) -> str | None:
    """The copy ops keep the type; like TFLM they copy stored values whatever the quantization."""
    a, out = op.inputs[0], op.outputs[0]
    return None if a.dtype == out.dtype else f"output type {out.dtype} differs from the input's {a.dtype}"


def _rank(lo: int, hi: int, operand: int = 0):
    def check(op: Op) -> str | None:
        r = len(op.inputs[operand].shape)
        return None if lo <= r <= hi else f"rank {r} is not supported (TFLM takes {lo} to {hi})"
    return check


def _perm(op: Op) -> str | None:
    perm = ints(op, 1)
    return None if sorted(perm) == list(range(len(op.inputs[0].shape))) else \
        f"perm {perm} is not a permutation of the {len(op.inputs[0].shape)} axes"


def _slice_bounds(op: Op) -> str | None:
    begin, size = ints(op, 1), ints(op, 2)
    shape = op.inputs[0].shape
    if len(begin) != len(shape) or len(size) != len(shape):
        return f"begin and size must have {len(shape)} values"
    for b, s, d in zip(begin, size, shape):
        if b < 0 or b > d or (s != -1 and (s < 0 or b + s > d)):
            return f"begin {begin} / size {size} fall outside the input shape {list(shape)}"
    return None


def _reverse_axes(op: Op) -> str | None:
    axes, r = ints(op, 1), len(op.inputs[0].shape)
    if not 1 <= len(axes) <= r or any(not -r <= a < r for a in axes):
        return f"axes {axes} are not axes of a rank-{r} input"
    ordered = sorted(a % r for a in axes)
    if ordered != list(range(ordered[0], ordered[0] + len(ordered))):
        return f"axes {axes} are not contiguous (TFLM reverses contiguous axes only)"
    return None


def _gather_axes(op: Op) -> str | None:
    axis, batch = gather_axes(op)
    x, idx = op.inputs[0].shape, op.inputs[1].shape
    if not 0 <= axis < len(x):
        return f"axis {op.attrs.axis} is not an axis of the rank-{len(x)} input"
    if not 0 <= batch <= min(axis, len(idx)) or batch >= len(x) or tuple(x[:batch]) != tuple(idx[:batch]):
        return f"batch_dims {op.attrs.batch_dims} does not fit the input {list(x)} and indices {list(idx)}"
    return None


def _gather_nd_shape(op: Op) -> str | None:
    x, idx = op.inputs[0].shape, op.inputs[1].shape
    if not idx or not x or idx[-1] > len(x) or idx[-1] > 5:
        return f"indices {list(idx)} do not index the input {list(x)} (at most 5 index dimensions)"
    return None


def _embedding(op: Op) -> str | None:
    lookup, value, out = op.inputs[0], op.inputs[1], op.outputs[0]
    if len(lookup.shape) != 1 or len(value.shape) < 2:
        return "lookup must be 1-D and the value table at least 2-D"
    if value.dtype not in (F32, I8):
        return f"value type {value.dtype} is not supported (TFLM takes float32, int8)"
    if value.dtype == I8 and out.dtype == F32 and (value.quant is None or value.quant.per_axis or
                                                  value.quant.zero_point[0] != 0):
        return "a hybrid lookup (int8 table, float32 output) needs one scale and zero point 0 (as TFLM)"
    return None


def _blocks(op: Op) -> str | None:
    n, h, w, c = op.inputs[0].shape
    b = op.attrs.block_size
    if b < 1:
        return f"block size {b} must be at least 1"
    if op.kind == "DEPTH_TO_SPACE" and c % (b * b):
        return f"depth {c} is not a multiple of block size {b} squared"
    if op.kind == "SPACE_TO_DEPTH" and (h % b or w % b):
        return f"height {h} and width {w} must be multiples of block size {b}"
    return None


def _paddings(op: Op) -> str | None:
    pads, r = ints(op, 1), len(op.inputs[0].shape)
    if len(pads) != 2 * r or min(pads, default=0) < 0:
        return f"paddings must be [{r}, 2] non-negative values"
    if op.kind == "MIRROR_PAD":
        extra = 1 if op.attrs.mode == "REFLECT" else 0
        for d, (lo, hi) in zip(op.inputs[0].shape, np.array(pads).reshape(-1, 2)):
            if max(lo, hi) > d - extra:
                return f"{op.attrs.mode} padding {max(lo, hi)} is larger than the axis allows ({d - extra})"
    return None


def _pad_value(op: Op) -> str | None:
    v = op.inputs[2] if len(op.inputs) > 2 else None
    if v is None:
        return None
    if not v.is_const or v.elements != 1:
        return "the constant value must be a one-element constant"
    x = op.inputs[0]
    return None if v.dtype == x.dtype else f"the constant value has type {v.dtype}, the input {x.dtype}"


def _broadcast_to(op: Op) -> str | None:
    shape = ints(op, 1)
    if shape is None:
        return None  # folded from SHAPE later, or refused when lowered
    x = op.inputs[0].shape
    if len(shape) > 5 or len(x) > len(shape):
        return f"cannot broadcast {list(x)} to {shape} (TFLM: at most 5 dimensions)"
    if any(a not in (1, b) for a, b in zip(reversed(x), reversed(shape))):
        return f"cannot broadcast {list(x)} to {shape}"
    return None


def _fill_value(op: Op) -> str | None:
    v = op.inputs[1]
    if v.elements != 1:
        return "the value must have one element"
    if v.dtype not in (F32, I8, I32):
        return f"value type {v.dtype} is not supported (TFLM takes float32, int8, int32)"
    return None


def _update_slice(op: Op) -> str | None:
    x, u, idx = op.inputs
    if u.dtype != x.dtype or len(u.shape) != len(x.shape) or any(a > b for a, b in zip(u.shape, x.shape)):
        return f"update {list(u.shape)} {u.dtype} does not fit the operand {list(x.shape)} {x.dtype}"
    if idx.shape != (len(x.shape),):
        return f"start indices must be {len(x.shape)} values"
    return None


def _axis_scalar(op: Op) -> str | None:
    axis, r = ints(op, 1), len(op.inputs[0].shape)
    if axis is None or len(axis) != 1 or not -r <= axis[0] < r:
        return f"axis must be one constant axis of the rank-{r} input"
    return None


def seq(*checks):
    """The checks in order, stopping at the first failure (later ones assume the earlier hold)."""
    def check(op: Op) -> str | None:
        return next((msg for c in checks if (msg := c(op))), None)
    return (check,)


MOVE_TYPES = (F32, I8, I16, I32, BOOL)
_GATHER_TYPES = (F32, I8)
register(
    OpDef("TRANSPOSE", NoAttrs, _infer_transpose,
          seq(_types(F32, I8, I16), _const(1, "permutation"), _rank(1, 5), _perm, _same_type),
          dtypes=frozenset({F32, I8, I16})),
    OpDef("SLICE", NoAttrs, _infer_slice,
          seq(_types(F32, I8, I16, I32, BOOL), _const(1, "begin"), _const(2, "size"), _rank(1, 5), _slice_bounds,
           _same_type), dtypes=frozenset(MOVE_TYPES)),
    OpDef("REVERSE_V2", NoAttrs, _same, seq(_types(F32, I8, I16, I32, BOOL), _const(1, "axis"), _rank(1, 8),
                                          _reverse_axes, _same_type), dtypes=frozenset(MOVE_TYPES)),
    OpDef("GATHER", GatherAttrs, _infer_gather,
          seq(_types(*_GATHER_TYPES), _int_operand(1, "indices", (I32,)), _gather_axes, _same_type),
          dtypes=frozenset(_GATHER_TYPES)),
    OpDef("GATHER_ND", NoAttrs, _infer_gather_nd,
          seq(_types(*_GATHER_TYPES), _int_operand(1, "indices", (I32,)), _gather_nd_shape, _same_type),
          dtypes=frozenset(_GATHER_TYPES)),
    OpDef("EMBEDDING_LOOKUP", None, _infer_embedding, seq(_int_operand(0, "lookup", (I32,)), _embedding),
          dtypes=frozenset({I32})),
    OpDef("DEPTH_TO_SPACE", BlockAttrs, _infer_d2s, seq(_types(F32, I8), _rank(4, 4), _blocks, _same_type)),
    OpDef("SPACE_TO_DEPTH", BlockAttrs, _infer_s2d, seq(_types(F32, I8), _rank(4, 4), _blocks, _same_type)),
    OpDef("MIRROR_PAD", MirrorPadAttrs, _infer_pad,
          seq(_types(F32, I8), _const(1, "paddings"), _rank(1, MAX_DIMS), _paddings, _same_type)),
    OpDef("PADV2", NoAttrs, _infer_pad,
          seq(_types(F32, I8, I16, I32), _const(1, "paddings"), _rank(1, 5), _paddings, _pad_value, _same_type,
           quantized_if_int8), dtypes=frozenset({F32, I8, I16, I32})),
    OpDef("BROADCAST_TO", NoAttrs, _infer_broadcast_to, seq(_types(*MOVE_TYPES), _broadcast_to),
          dtypes=frozenset(MOVE_TYPES)),
    OpDef("BROADCAST_ARGS", NoAttrs, _infer_broadcast_args, seq(_types(I32, I64),), dtypes=frozenset({I32, I64})),
    OpDef("FILL", NoAttrs, _infer_fill, seq(_int_operand(0, "dims"), _fill_value), dtypes=frozenset({I32, I64})),
    OpDef("DYNAMIC_UPDATE_SLICE", NoAttrs, _same,
          seq(_types(F32, I8, I32), _rank(1, MAX_DIMS), _int_operand(2, "start indices"), _update_slice, _same_type),
          dtypes=frozenset({F32, I8, I32})),
    OpDef("CUMSUM", CumsumAttrs, _same,
          seq(_types(F32, I8), _const(1, "axis"), _int_operand(1, "axis", (I32,)), _axis_scalar, quantized_if_int8)),
)


def identity_copy(op: Op) -> bool:
    """The op copies its input unchanged, element for element (a RESHAPE in disguise): a TRANSPOSE
    moving only size-1 axes, a SLICE / STRIDED_SLICE keeping everything in order, a REVERSE_V2 or
    BROADCAST_TO of size-1 axes only, a block-1 DEPTH_TO_SPACE / SPACE_TO_DEPTH."""
    x, out = op.inputs[0], op.outputs[0]
    if x.is_const or x.elements != out.elements or x.dtype != out.dtype:
        return False
    if op.kind == "TRANSPOSE":
        kept = [p for p in ints(op, 1) if x.shape[p] != 1]
        return kept == sorted(kept)
    if op.kind in ("SLICE", "STRIDED_SLICE"):
        from .shape import strided_slice_ranges  # the sibling family's rule

        ranges = slice_ranges(op) if op.kind == "SLICE" else strided_slice_ranges(op)
        return all(isinstance(r, int) or len(r) < 2 or r.step == 1 for r in ranges)
    if op.kind == "REVERSE_V2":
        return all(x.shape[a] == 1 for a in ints(op, 1))
    if op.kind in ("DEPTH_TO_SPACE", "SPACE_TO_DEPTH"):
        return op.attrs.block_size == 1
    return op.kind == "BROADCAST_TO"
