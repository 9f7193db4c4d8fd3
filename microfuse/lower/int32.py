"""Lowering of int32 ADD, MUL, MAXIMUM and MINIMUM to runtime_c/src/mf_arith.c, as TFLM's int32 kernels."""

from __future__ import annotations

from ..ir import DType, Op
from ..quant import INT_RANGE
from .call import Call
from .compare import binary_call
from .elementwise import broadcast_params
from .kernels import BINARY, KernelSpec, declare
from .registry import lowering

I32 = DType.INT32
KERNELS = {"ADD": "mf_add_i32", "MUL": "mf_mul_i32", "MAXIMUM": "mf_maximum_i32", "MINIMUM": "mf_minimum_i32"}
# add.cc clamps int32 to the whole range whatever the fused activation; mul_common.cc applies
# CalculateActivationRange<int32_t>
_MUL_ACT = {"NONE": INT_RANGE[I32], "RELU": (0, INT_RANGE[I32][1]), "RELU6": (0, 6), "RELU_N1_TO_1": (-1, 1)}

declare({}, *(KernelSpec(name, "mf_arith_params", "mf_arith.c", access=BINARY) for name in KERNELS.values()),
        *(KernelSpec(name + "_k", "mf_arith_params", "mf_arith.c", name, "k", access=BINARY)
          for name in KERNELS.values()))


@lowering("ADD", I32)
@lowering("MUL", I32)
@lowering("MAXIMUM", I32)
@lowering("MINIMUM", I32)
def lower_int32(op: Op, lw) -> Call:
    a, b = op.inputs
    params = dict(b=broadcast_params(a, b, op.outputs[0], op))
    params["q_min"], params["q_max"] = _MUL_ACT[op.attrs.activation] if op.kind == "MUL" else INT_RANGE[I32]
    return binary_call(op, KERNELS[op.kind], params)
