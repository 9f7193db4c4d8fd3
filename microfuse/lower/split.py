"""Lowering of the byte-moving ops for any element type: STRIDED_SLICE (of an activation) and
SPLIT, SPLIT_V, UNPACK. The copies need only the geometry, computed here."""

from __future__ import annotations

import math

from ..errors import UnsupportedError
from ..ir import DType, Op
from ..ops import split as S
from ..ops.shape import strided_slice_ranges
from .call import Call
from .kernels import KernelSpec, declare, make
from .registry import lowering

RANK, SPLIT_MAX = 5, 16  # mf_slice.h limits

declare({"mf_strided_slice_params": ("out_shape", "in_stride", "start", "elem"),
         "mf_split_params": ("n_outputs", "outer", "chunk")},
        KernelSpec("mf_strided_slice", "mf_strided_slice_params", "mf_slice.c"),
        KernelSpec("mf_split", "mf_split_params", "mf_slice.c"))


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


@lowering("STRIDED_SLICE", *DType)
def lower_strided_slice(op: Op, lw) -> Call:
    # ops/shape.py's ranges are TensorFlow's (and the fold pass's). TFLM agrees except on a shrunk
    # axis with a negative stride, where it writes nothing (its end is start + 1 for any stride).
    src, dst = op.inputs[0], op.outputs[0]
    elem = src.dtype.size
    strides = [math.prod(src.shape[d + 1:]) * elem for d in range(len(src.shape))]
    start, dims = 0, []
    for r, stride in zip(strided_slice_ranges(op), strides):
        if isinstance(r, int):
            start += r * stride
            continue
        if len(r):
            start += r.start * stride
        dims.append((len(r), r.step * stride))
    if len(dims) > RANK:
        raise UnsupportedError(f"{op.where} '{op.name}': STRIDED_SLICE keeps {len(dims)} dimensions "
                               f"(the kernel handles at most {RANK})")
    if dst.elements == 0:
        start = 0
    dims = [(1, 0)] * (RANK - len(dims)) + dims
    params = dict(out_shape=_c_array(n for n, _ in dims), in_stride=_c_array(s for _, s in dims),
                  start=start, elem=elem)
    return make("mf_strided_slice", params, [src], [dst], [op])


@lowering("SPLIT", DType.INT32)  # SPLIT's first input is its axis
@lowering("SPLIT_V", *S.TYPES)
@lowering("UNPACK", *S.TYPES)
def lower_split(op: Op, lw) -> Call:
    src, axis = S.data_of(op), S.axis_of(op)
    if len(op.outputs) > SPLIT_MAX:
        raise UnsupportedError(f"{op.where} '{op.name}': {op.kind} into {len(op.outputs)} outputs "
                               f"(the kernel handles at most {SPLIT_MAX})")
    inner = math.prod(src.shape[axis + 1:]) * src.dtype.size
    params = dict(n_outputs=len(op.outputs), outer=math.prod(src.shape[:axis]),
                  chunk=_c_array(n * inner for n in S.sizes(op)))
    return make("mf_split", params, [src], list(op.outputs), [op])
