"""Lowering of the data-movement ops (ops/movement.py, STRIDED_SLICE, int16/int32 PAD): every
pure copy becomes one strided copy (mf_move) whose geometry is computed here; the rest are the
element-size generic kernels of runtime_c/include/mf_movement.h, and CUMSUM."""

from __future__ import annotations

import struct

import numpy as np

from ..errors import UnsupportedError
from ..ir import DType, Op, Tensor
from ..ops.movement import MOVE_TYPES, gather_axes, ints, slice_ranges
from ..ops.shape import strided_slice_ranges
from ..quant import quantize_multiplier
from .call import Call, ConstArray
from .kernels import KernelSpec, declare, make
from .registry import lowering

DIMS = 6  # mf_movement.h MF_MOVE_DIMS
I8, I16, I32, F32 = DType.INT8, DType.INT16, DType.INT32, DType.FLOAT32
CUMSUM_SHIFT = 20  # TFLM cumsum.cc kCumSumIntegerShift

_PAD = ("in_shape", "out_shape", "before", "value", "offset", "elem")
declare({"mf_move_params": ("shape", "stride", "offset", "elem"),
         "mf_pad_x_params": _PAD,
         "mf_gather_params": ("batches", "outer", "axis_size", "coords", "inner", "elem", "data", "indices"),
         "mf_embedding_dq_params": ("rows", "lookups", "inner", "scale", "data", "indices"),
         "mf_gather_nd_params": ("slices", "nd", "slice", "total", "elem", "count", "data", "indices"),
         "mf_update_slice_params": ("shape", "update", "start", "lead", "index_bytes", "elem"),
         "mf_cumsum_params": ("before", "depth", "after", "exclusive", "reverse", "input_offset", "output_offset",
                              "left_shift", "input_multiplier", "input_shift", "output_multiplier",
                              "output_shift", "act_min", "act_max")},
        KernelSpec("mf_move", "mf_move_params", "mf_movement.c"),
        KernelSpec("mf_pad_x", "mf_pad_x_params", "mf_movement.c"),
        KernelSpec("mf_mirror_pad", "mf_pad_x_params", "mf_movement.c"),
        KernelSpec("mf_gather", "mf_gather_params", "mf_movement.c"),
        KernelSpec("mf_gather_ki", "mf_gather_params", "mf_movement.c", "mf_gather", "ki"),
        KernelSpec("mf_gather_kd", "mf_gather_params", "mf_movement.c", "mf_gather", "kd"),
        KernelSpec("mf_embedding_dq", "mf_embedding_dq_params", "mf_movement.c"),
        KernelSpec("mf_embedding_dq_kd", "mf_embedding_dq_params", "mf_movement.c", "mf_embedding_dq", "kd"),
        KernelSpec("mf_embedding_dq_ki", "mf_embedding_dq_params", "mf_movement.c", "mf_embedding_dq", "ki"),
        KernelSpec("mf_gather_nd", "mf_gather_nd_params", "mf_movement.c"),
        KernelSpec("mf_gather_nd_ki", "mf_gather_nd_params", "mf_movement.c", "mf_gather_nd", "ki"),
        KernelSpec("mf_gather_nd_kd", "mf_gather_nd_params", "mf_movement.c", "mf_gather_nd", "kd"),
        KernelSpec("mf_update_slice", "mf_update_slice_params", "mf_movement.c"),
        KernelSpec("mf_update_slice_k", "mf_update_slice_params", "mf_movement.c", "mf_update_slice", "k"),
        KernelSpec("mf_cumsum_f32", "mf_cumsum_params", "mf_cumsum.c"),
        KernelSpec("mf_cumsum_s8", "mf_cumsum_params", "mf_cumsum.c"),
        defaults={"mf_pad_x_params": {"value": 0, "offset": 0},
                  "mf_gather_params": {"data": "NULL", "indices": "NULL"},
                  "mf_gather_nd_params": {"data": "NULL", "indices": "NULL"},
                  "mf_embedding_dq_params": {"data": "NULL", "indices": "NULL"},
                  "mf_update_slice_params": {"start": "{0}", "index_bytes": 4},
                  "mf_cumsum_params": {k: 0 for k in ("input_offset", "output_offset", "left_shift", "input_multiplier",
                                                     "input_shift", "output_multiplier", "output_shift", "act_min",
                                                     "act_max")}})


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _prod(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _strides(shape) -> list[int]:
    """Row-major element strides."""
    return [_prod(shape[k + 1:]) for k in range(len(shape))]


def _lead(values, fill: int) -> list[int]:
    return [fill] * (DIMS - len(values)) + [int(v) for v in values]


def _fail(op: Op, what: str) -> UnsupportedError:
    return UnsupportedError(f"{op.where} '{op.name}': {what}")


def _runtime(op: Op, t: Tensor, what: str) -> Tensor:
    if t.is_const:  # only a graph output keeps a constant op unfolded
        raise _fail(op, f"the {what} '{t.name}' is a constant (fold the op, or make its output no graph output)")
    return t


# -- the strided copy ------------------------------------------------------------------------

def move_geometry(op: Op, dims: list[tuple[int, int]], offset: int) -> dict[str, object]:
    """mf_move's params for output dims (size, input element stride), outermost first: size-1 dims
    dropped and contiguous neighbours merged so any rank that collapses to 6 fits."""
    merged: list[list[int]] = []
    for n, s in dims:
        if n == 1:
            continue
        if merged and merged[-1][1] == n * s:
            merged[-1] = [merged[-1][0] * n, s]
        else:
            merged.append([n, s])
    if _prod([n for n, _ in dims]) == 0:
        merged = [[0, 1]]
    if len(merged) > DIMS:
        raise _fail(op, f"the copy needs {len(merged)} dimensions after merging (at most {DIMS})")
    merged = [[1, 0]] * (DIMS - len(merged)) + merged
    return dict(shape=_c_array(n for n, _ in merged), stride=_c_array(s for _, s in merged), offset=int(offset),
                elem=op.outputs[0].dtype.size)


def _move(op: Op, src: Tensor, dims: list[tuple[int, int]], offset: int = 0) -> Call:
    return make("mf_move", move_geometry(op, dims, offset), [_runtime(op, src, "input")], op.outputs, [op])


def _transpose_dims(op: Op) -> list[tuple[int, int]]:
    x = op.inputs[0].shape
    st = _strides(x)
    return [(x[p], st[p]) for p in ints(op, 1)]


def _slice_dims(op: Op, ranges) -> tuple[list[tuple[int, int]], int]:
    st = _strides(op.inputs[0].shape)
    dims, offset = [], 0
    for k, r in enumerate(ranges):
        if isinstance(r, int):  # a shrunk axis: a fixed index
            offset += r * st[k]
            continue
        if len(r):
            offset += r.start * st[k]
        dims.append((len(r), r.step * st[k]))
    return dims, offset


def _reverse_dims(op: Op) -> tuple[list[tuple[int, int]], int]:
    x = op.inputs[0].shape
    st = _strides(x)
    axes = {a % len(x) for a in ints(op, 1)}
    dims = [(n, -s if k in axes else s) for k, (n, s) in enumerate(zip(x, st))]
    return dims, sum((n - 1) * s for k, (n, s) in enumerate(zip(x, st)) if k in axes)


def _d2s_dims(op: Op) -> list[tuple[int, int]]:
    n, h, w, c = op.inputs[0].shape
    b = op.attrs.block_size
    d = c // (b * b)
    # output viewed as [N, H, b, W, b, C/b^2]; input depth index (by * b + bx) * C/b^2 + c
    return [(n, h * w * c), (h, w * c), (b, b * d), (w, c), (b, d), (d, 1)]


def _s2d_dims(op: Op) -> list[tuple[int, int]]:
    n, h, w, c = op.inputs[0].shape
    b = op.attrs.block_size
    # output viewed as [N, H/b, W/b, b, b, C]: depth index (by * b + bx) * C + c
    return [(n, h * w * c), (h // b, b * w * c), (w // b, b * c), (b, w * c), (b, c), (c, 1)]


def _broadcast_dims(src_shape, out_shape) -> list[tuple[int, int]]:
    shape = (1,) * (len(out_shape) - len(src_shape)) + tuple(src_shape)
    st = _strides(shape)
    return [(o, 0 if s == 1 else stride) for o, s, stride in zip(out_shape, shape, st)]


@lowering("TRANSPOSE", I8, I16, F32)
def lower_transpose(op: Op, lw) -> Call:
    return _move(op, op.inputs[0], _transpose_dims(op))


@lowering("SLICE", *MOVE_TYPES)
def lower_slice(op: Op, lw) -> Call:
    return _move(op, op.inputs[0], *_slice_dims(op, slice_ranges(op)))


@lowering("STRIDED_SLICE", *DType)  # the registry takes any type (folded shape arithmetic too)
def lower_strided_slice(op: Op, lw) -> Call:
    strides = ints(op, 3) if len(op.inputs) > 3 else []
    if any(op.attrs.shrink_axis_mask >> k & 1 and s < 0 for k, s in enumerate(strides)):
        # TFLM walks such an axis from start to start + 1 backwards: nothing, the output stays unwritten
        raise _fail(op, "a shrunk axis with a negative stride is not supported (TFLM writes no output for it)")
    return _move(op, op.inputs[0], *_slice_dims(op, strided_slice_ranges(op)))


@lowering("REVERSE_V2", *MOVE_TYPES)
def lower_reverse(op: Op, lw) -> Call:
    return _move(op, op.inputs[0], *_reverse_dims(op))


@lowering("DEPTH_TO_SPACE", I8, F32)
def lower_depth_to_space(op: Op, lw) -> Call:
    return _move(op, op.inputs[0], _d2s_dims(op))


@lowering("SPACE_TO_DEPTH", I8, F32)
def lower_space_to_depth(op: Op, lw) -> Call:
    return _move(op, op.inputs[0], _s2d_dims(op))


@lowering("BROADCAST_TO", *MOVE_TYPES)
def lower_broadcast_to(op: Op, lw) -> Call:
    if ints(op, 1) is None:
        raise _fail(op, "the target shape is computed at run time")
    return _move(op, op.inputs[0], _broadcast_dims(op.inputs[0].shape, op.outputs[0].shape))


@lowering("FILL", DType.INT32, DType.INT64)
def lower_fill(op: Op, lw) -> Call:
    if ints(op, 0) is None:
        raise _fail(op, "the dims are computed at run time")
    return _move(op, op.inputs[1], [(n, 0) for n in op.outputs[0].shape])


@lowering("BROADCAST_ARGS", DType.INT32, DType.INT64)
def lower_broadcast_args(op: Op, lw) -> Call:
    raise _fail(op, "BROADCAST_ARGS is only supported on shapes known at compile time (it is then folded)")


# -- padding ---------------------------------------------------------------------------------

def _bits(t: Tensor, value) -> int:
    """An element's value as the int32 mf_pad_x fills with (float: its bit pattern)."""
    if t.dtype == F32:
        return struct.unpack("<i", struct.pack("<f", float(value)))[0]
    return int(value)


def _pad_params(op: Op) -> dict[str, object]:
    src, dst = op.inputs[0], op.outputs[0]
    pads = np.array(ints(op, 1)).reshape(-1, 2)
    return dict(in_shape=_c_array(_lead(src.shape, 1)), out_shape=_c_array(_lead(dst.shape, 1)),
                before=_c_array(_lead(pads[:, 0], 0)), elem=src.dtype.size)


@lowering("PADV2", I8, I16, I32, F32)
@lowering("PAD", I16, I32)
def lower_pad_x(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    value = op.inputs[2] if len(op.inputs) > 2 else None
    if value is not None:
        fill = _bits(src, np.asarray(value.data).reshape(-1)[0])
    else:  # TFLM pads int8 with the output zero point, every other type with 0 (pad.cc)
        fill = int(dst.quant.zero_point[0]) if dst.quant is not None and src.dtype == I8 else 0
    return make("mf_pad_x", dict(_pad_params(op), value=fill), [_runtime(op, src, "input")], [dst], [op])


@lowering("MIRROR_PAD", I8, F32)
def lower_mirror_pad(op: Op, lw) -> Call:
    params = dict(_pad_params(op), offset=int(op.attrs.mode == "REFLECT"))
    return make("mf_mirror_pad", params, [_runtime(op, op.inputs[0], "input")], op.outputs, [op])


# -- gathers ---------------------------------------------------------------------------------

def _gather_call(op: Op, kernel: str, params: dict, data: Tensor, index: Tensor) -> Call:
    """The call with a constant table or constant indices moved into the params (_kd / _ki)."""
    if data.is_const and index.is_const:
        _runtime(op, data, "input")
    if data.is_const:
        params = dict(params, data=ConstArray("data", np.asarray(data.data).astype(data.dtype.np)))
        return make(f"{kernel}_kd", params, [index], op.outputs, [op])
    if index.is_const:
        params = dict(params, indices=ConstArray("indices", np.asarray(index.data).astype(np.int32)))
        return make(f"{kernel}_ki", params, [data], op.outputs, [op])
    return make(kernel, params, [data, index], op.outputs, [op])


@lowering("GATHER", I8, F32)
def lower_gather(op: Op, lw) -> Call:
    x, idx = op.inputs
    axis, batch = gather_axes(op)
    params = dict(batches=_prod(x.shape[:batch]), outer=_prod(x.shape[batch:axis]), axis_size=x.shape[axis],
                  coords=_prod(idx.shape[batch:]), inner=_prod(x.shape[axis + 1:]), elem=x.dtype.size)
    return _gather_call(op, "mf_gather", params, x, idx)


@lowering("EMBEDDING_LOOKUP", I32)
def lower_embedding_lookup(op: Op, lw) -> Call:
    lookup, value = op.inputs
    if value.dtype == I8 and op.outputs[0].dtype == F32:  # hybrid: TFLM dequantizes the rows
        params = dict(rows=value.shape[0], lookups=lookup.shape[0], inner=_prod(value.shape[1:]),
                      scale=float(value.quant.scale[0]))
        if value.is_const:
            params["data"] = ConstArray("data", np.asarray(value.data).astype(np.int8))
            return make("mf_embedding_dq_kd", params, [_runtime(op, lookup, "lookup")], op.outputs, [op])
        if lookup.is_const:
            params["indices"] = ConstArray("indices", np.asarray(lookup.data).astype(np.int32))
            return make("mf_embedding_dq_ki", params, [value], op.outputs, [op])
        return make("mf_embedding_dq", params, [value, lookup], op.outputs, [op])
    params = dict(batches=1, outer=1, axis_size=value.shape[0], coords=lookup.shape[0],
                  inner=_prod(value.shape[1:]), elem=value.dtype.size)
    return _gather_call(op, "mf_gather", params, value, lookup)


@lowering("GATHER_ND", I8, F32)
def lower_gather_nd(op: Op, lw) -> Call:
    x, idx = op.inputs
    nd = idx.shape[-1]
    count = [_prod(x.shape[j + 1:]) for j in range(nd)]
    params = dict(slices=_prod(idx.shape[:-1]), nd=nd, slice=_prod(x.shape[nd:]), total=x.elements,
                  elem=x.dtype.size, count=_c_array(count + [0] * (5 - nd)))
    return _gather_call(op, "mf_gather_nd", params, x, idx)


# -- DYNAMIC_UPDATE_SLICE and CUMSUM ---------------------------------------------------------

@lowering("DYNAMIC_UPDATE_SLICE", I8, I32, F32)
def lower_update_slice(op: Op, lw) -> Call:
    x, u, idx = op.inputs
    shape, update = _lead(x.shape, 1), _lead(u.shape, 1)
    params = dict(shape=_c_array(shape), update=_c_array(update), lead=DIMS - len(x.shape), elem=x.dtype.size)
    ins = [_runtime(op, x, "operand"), _runtime(op, u, "update")]
    if idx.is_const:  # TFLM clamps each start to [0, operand - update]
        start = [min(max(0, v), n - m) for v, n, m in zip(_lead(ints(op, 2), 0), shape, update)]
        return make("mf_update_slice_k", dict(params, start=_c_array(start)), ins, op.outputs, [op])
    return make("mf_update_slice", dict(params, index_bytes=idx.dtype.size), [*ins, idx], op.outputs, [op])


def cumsum_multipliers(s_in: float, s_out: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """TFLM cumsum.cc Prepare: the input rescale (exactly 1/2) and the output rescale, both
    QuantizeMultiplierSmallerThanOneExp."""
    twice = 2 * s_in
    return quantize_multiplier(s_in / twice), quantize_multiplier(twice / ((1 << CUMSUM_SHIFT) * s_out))


@lowering("CUMSUM", I8, F32)
def lower_cumsum(op: Op, lw) -> Call:
    x = op.inputs[0]
    axis = ints(op, 1)[0] % len(x.shape)
    params = dict(before=_prod(x.shape[:axis]), depth=x.shape[axis], after=_prod(x.shape[axis + 1:]),
                  exclusive=int(op.attrs.exclusive), reverse=int(op.attrs.reverse))
    if x.dtype == F32:
        return make("mf_cumsum_f32", params, [_runtime(op, x, "input")], op.outputs, [op])
    s_in, s_out = float(x.quant.scale[0]), float(op.outputs[0].quant.scale[0])
    (mi, si), (mo, so) = cumsum_multipliers(s_in, s_out)
    if 2 * s_in >= (1 << CUMSUM_SHIFT) * s_out or so > 0:
        raise _fail(op, f"input scale {s_in:g} is too large for output scale {s_out:g} (TFLM needs a rescale below 1)")
    params.update(input_offset=-int(x.quant.zero_point[0]), output_offset=int(op.outputs[0].quant.zero_point[0]),
                  left_shift=CUMSUM_SHIFT, input_multiplier=mi, input_shift=si, output_multiplier=mo,
                  output_shift=so, act_min=-128, act_max=127)
    return make("mf_cumsum_s8", params, [_runtime(op, x, "input")], op.outputs, [op])


# -- CONCATENATION and PACK of other types: mf_concat_s8 copying bytes --------------------------

CONCAT_MAX = 16  # mf_data.h MF_CONCAT_MAX_INPUTS


def _byte_concat(op: Op, outer: int, chunks: list[int]) -> Call:
    dst = op.outputs[0]
    if dst.dtype in (I8, I16) and any(t.quant != dst.quant for t in op.inputs):
        raise _fail(op, f"{dst.dtype} inputs must share the output's scale and zero point (as TFLM requires)")
    if len(op.inputs) > CONCAT_MAX:
        raise _fail(op, f"{len(op.inputs)} inputs (at most {CONCAT_MAX})")
    ins = list(op.inputs)  # a constant piece is read from flash (emit/c.py)
    if all(t.is_const for t in ins):
        raise _fail(op, "every input is a constant (fold the op, or make its output no graph output)")
    params = dict(n_inputs=len(ins), outer=outer, chunk=_c_array(c * dst.dtype.size for c in chunks))
    return make("mf_concat_s8", params, ins, [dst], [op])


@lowering("CONCATENATION", I16, I32)
def lower_concat_bytes(op: Op, lw) -> Call:
    axis = op.attrs.axis % len(op.outputs[0].shape)
    return _byte_concat(op, _prod(op.outputs[0].shape[:axis]), [_prod(t.shape[axis:]) for t in op.inputs])


@lowering("PACK", *DType)
def lower_pack(op: Op, lw) -> Call:
    axis = op.attrs.axis % len(op.outputs[0].shape)
    return _byte_concat(op, _prod(op.outputs[0].shape[:axis]), [_prod(t.shape[axis:]) for t in op.inputs])
