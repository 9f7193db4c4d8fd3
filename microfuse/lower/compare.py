"""Lowering of the comparisons and logical ops (ops/compare.py) to runtime_c/src/mf_compare.c: one
kernel per input type, the op as a truth table, int8 rescaling constants as TFLM's Prepare."""

from __future__ import annotations

from ..ir import DType, Op
from ..ops.compare import COMPARE_TYPES
from ..quant import quantize_multiplier
from .common import qp
import numpy as np

from ..errors import UnsupportedError
from .call import Call, ConstArray
from .elementwise import broadcast_params
from .kernels import BINARY, KernelSpec, declare, make, variant_of
from .registry import lowering

F32, I8, I32, I64, BOOL = DType.FLOAT32, DType.INT8, DType.INT32, DType.INT64, DType.BOOL
# bit (lt | eq << 1 | gt << 2) of the table is the result; index 0 (unordered: NaN) is true only for !=
ORDER_TABLE = {"EQUAL": 0b0000100, "NOT_EQUAL": 0b0010011, "GREATER": 0b0010000,
               "GREATER_EQUAL": 0b0010100, "LESS": 0b0000010, "LESS_EQUAL": 0b0000110}
# bools: bit (a | b << 1)
BOOL_TABLE = {"EQUAL": 0b1001, "NOT_EQUAL": 0b0110, "LOGICAL_AND": 0b1000, "LOGICAL_OR": 0b1110}
KERNELS = {F32: "mf_compare_f32", I32: "mf_compare_i32", I64: "mf_compare_i64", I8: "mf_compare_s8", BOOL: "mf_logic_b"}
_QUANT = ("input1_offset", "input1_multiplier", "input1_shift", "input2_offset", "input2_multiplier",
          "input2_shift")
# the output (bool) is as wide as int8/bool inputs: it may overlap them element by element
_ACCESS = {F32: None, I32: None, I64: None, I8: BINARY, BOOL: BINARY}

declare({"mf_compare_params": ("b", "table", *_QUANT, "constant", "constant_index")},
        *(KernelSpec(name, "mf_compare_params", "mf_compare.c", access=_ACCESS[t]) for t, name in KERNELS.items()),
        *(KernelSpec(name + "_k", "mf_compare_params", "mf_compare.c", name, "k", access=_ACCESS[t])
          for t, name in KERNELS.items()),
        defaults={"mf_compare_params": {**{k: 0 for k in _QUANT}, "constant": "NULL", "constant_index": 0}})


def binary_call(op: Op, kernel: str, params: dict, operands=None) -> Call:
    """The call, with a constant operand moved into the params (the kernel's "k" variant; bools
    stored as bytes)."""
    a, b = operands or op.inputs
    consts = [i for i, t in enumerate((a, b)) if t.is_const]
    if len(consts) == 2:
        raise UnsupportedError(f"{op.where} '{op.name}': both operands are constants (not folded)")
    if not consts:
        return make(kernel, params, [a, b], op.outputs, [op])
    k = consts[0]
    data = np.asarray((a, b)[k].data).astype(a.dtype.np)
    data = data.astype(np.uint8) if a.dtype == BOOL else data
    params = dict(params, constant=ConstArray("constant", data), constant_index=k)
    return make(variant_of(kernel, "k").name, params, [(a, b)[1 - k]], op.outputs, [op])


def _scaled(t, op) -> tuple[int, int, int]:
    """TFLM: offset -zero_point, QuantizeMultiplierSmallerThanOneExp(scale) (scale < 1: shift <= 0)."""
    scale, zp = qp(t, op)
    mult, shift = quantize_multiplier(scale)
    return -zp, mult, shift


def lower_compare(op: Op, lw):
    a, b = op.inputs
    table = BOOL_TABLE[op.kind] if a.dtype == BOOL else ORDER_TABLE[op.kind]
    params = dict(b=broadcast_params(a, b, op.outputs[0], op), table=table)
    if a.dtype == I8:
        params.update(zip(_QUANT, (*_scaled(a, op), *_scaled(b, op))))
    return binary_call(op, KERNELS[a.dtype], params)


for _kind, _types in COMPARE_TYPES.items():
    lowering(_kind, *_types)(lower_compare)
