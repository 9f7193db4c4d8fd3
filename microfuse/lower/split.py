"""Lowering of SPLIT, SPLIT_V and UNPACK for any element type (STRIDED_SLICE: lower/movement.py).
The copies need only the geometry, computed here."""

from __future__ import annotations

import math

from ..errors import UnsupportedError
from ..ir import DType, Op
from ..ops import split as S
from .call import Call
from .kernels import KernelSpec, declare, make
from .registry import lowering

SPLIT_MAX = 16  # mf_slice.h MF_SPLIT_MAX_OUTPUTS

declare({"mf_split_params": ("n_outputs", "outer", "chunk")},
        KernelSpec("mf_split", "mf_split_params", "mf_slice.c"))


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


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
