"""Lowering of CAST to mf_cast (one kernel, the type pair in its params)."""

from __future__ import annotations

from ..ir import DType, Op
from ..ops.cast import CAST_FROM
from .call import Call
from .kernels import KernelSpec, declare, make
from .registry import lowering

# mf_cast.h's type codes
CODES = {DType.INT8: 0, DType.INT16: 1, DType.INT32: 2, DType.UINT32: 3, DType.FLOAT32: 4, DType.BOOL: 5}

# No access order: a widening cast in place would overwrite inputs not yet read.
declare({"mf_cast_params": ("size", "from", "to")}, KernelSpec("mf_cast", "mf_cast_params", "mf_cast.c"))


@lowering("CAST", *CAST_FROM)
def cast(op: Op, lw) -> Call:
    params = {"size": op.inputs[0].elements, "from": CODES[op.inputs[0].dtype], "to": CODES[op.outputs[0].dtype]}
    return make("mf_cast", params, op.inputs, op.outputs, [op])
