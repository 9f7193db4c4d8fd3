"""Lowering of the two-input arithmetic ops (ops/arith.py) to runtime_c/src/mf_arith.c; the int8
constants as TFLM's Prepare computes them (squared_difference.cc, prelu_common.cc)."""

from __future__ import annotations

import numpy as np

from .. import fixedpoint as fp
from ..ir import DType, Op
from ..ops.arith import ARITH
from ..quant import INT_RANGE, activation_range, activation_range_float, quantize_multiplier
from .call import ConstArray
from .common import qp
from .compare import binary_call
from .elementwise import broadcast_params
from .kernels import BINARY, KernelSpec, declare
from .registry import lowering

F32, I8, I32 = DType.FLOAT32, DType.INT8, DType.INT32
SUFFIX = {F32: "f32", I32: "i32", I8: "s8"}
KERNELS = {(k, t): f"mf_{k.lower()}_{SUFFIX[t]}" for k, (types, _) in ARITH.items() for t in types}
_INT = ("q_min", "q_max", "input1_offset", "input2_offset", "output_offset", "left_shift", "input1_multiplier",
        "input1_shift", "input2_multiplier", "input2_shift", "output_multiplier", "output_shift")

declare({"mf_arith_params": ("b", "act_min", "act_max", *_INT, "recip", "recip_shift", "constant",
                             "constant_index")},
        *(KernelSpec(name, "mf_arith_params", "mf_arith.c", access=BINARY) for name in KERNELS.values()),
        *(KernelSpec(name + "_k", "mf_arith_params", "mf_arith.c", name, "k", access=BINARY)
          for name in KERNELS.values()),
        defaults={"mf_arith_params": {"act_min": 0.0, "act_max": 0.0, **{k: 0 for k in _INT},
                                      "recip": "NULL", "recip_shift": "NULL", "constant": "NULL",
                                      "constant_index": 0}})
# int32 DIV's fused activation (CalculateActivationRange<int32_t>)
_INT32_ACT = {"NONE": INT_RANGE[I32], "RELU": (0, INT_RANGE[I32][1]), "RELU6": (0, 6), "RELU_N1_TO_1": (-1, 1)}


def _sqdiff_s8(op: Op) -> dict:
    """SquaredDifference PrepareQuantized with left shift 7."""
    (s1, z1), (s2, z2), (so, zo) = (qp(t, op) for t in (*op.inputs, op.outputs[0]))
    s1, s2, so = float(np.float32(s1)), float(np.float32(s2)), np.float32(so)
    twice_max = 2.0 * max(s1, s2)
    m1, sh1 = quantize_multiplier(s1 / twice_max)
    m2, sh2 = quantize_multiplier(s2 / twice_max)
    mo, sho = quantize_multiplier(twice_max * twice_max / float(np.float32(16384) * so))  # float product
    return dict(q_min=-128, q_max=127, input1_offset=-z1, input2_offset=-z2, output_offset=zo, left_shift=7,
                input1_multiplier=m1, input1_shift=sh1, input2_multiplier=m2, input2_shift=sh2,
                output_multiplier=mo, output_shift=sho)


def _reciprocals() -> tuple[np.ndarray, np.ndarray]:
    """GetReciprocal(v, 31) for every |divisor| v = 1..255 (entry 0: TFLM's undefined case, 0)."""
    recip, shift = np.zeros(256, np.int32), np.zeros(256, np.int8)
    for v in range(1, 256):
        recip[v], shift[v] = fp.get_reciprocal(v, 31)
    return recip, shift


RECIPROCALS = _reciprocals()


def _div_s8(op: Op) -> dict:
    """CalculateOpDataDiv: input1 / (input2 * output) scales, the product and quotient in float32."""
    (s1, z1), (s2, z2), (so, zo) = (qp(t, op) for t in (*op.inputs, op.outputs[0]))
    real = np.float32(s1) / (np.float32(s2) * np.float32(so))
    mult, shift = quantize_multiplier(float(real))
    lo, hi = activation_range(op.attrs.activation, op.outputs[0])
    recip, recip_shift = RECIPROCALS
    return dict(q_min=lo, q_max=hi, input1_offset=-z1, input2_offset=-z2, output_offset=zo, output_multiplier=mult,
                output_shift=shift, recip=ConstArray("recip", recip),
                recip_shift=ConstArray("recip_shift", recip_shift))


def _prelu_s8(op: Op) -> dict:
    """CalculatePreluParams: input/output for x >= 0, input*alpha/output below."""
    (si, zi), (sa, za), (so, zo) = (qp(t, op) for t in (*op.inputs, op.outputs[0]))
    si, sa, so = (float(np.float32(s)) for s in (si, sa, so))
    m1, sh1 = quantize_multiplier(si / so)
    m2, sh2 = quantize_multiplier(si * sa / so)
    return dict(q_min=-128, q_max=127, input1_offset=-zi, input2_offset=-za, output_offset=zo,
                input1_multiplier=m1, input1_shift=sh1, input2_multiplier=m2, input2_shift=sh2)


def lower_arith(op: Op, lw):
    a, b = op.inputs
    params = dict(b=broadcast_params(a, b, op.outputs[0], op))
    if op.kind == "DIV" and a.dtype == F32:
        params["act_min"], params["act_max"] = activation_range_float(op.attrs.activation)
    elif op.kind == "DIV" and a.dtype == I32:
        params["q_min"], params["q_max"] = _INT32_ACT[op.attrs.activation]
    elif op.kind == "DIV":
        params.update(_div_s8(op))
    elif a.dtype == I8:
        params.update(_sqdiff_s8(op) if op.kind == "SQUARED_DIFFERENCE" else _prelu_s8(op))
    return binary_call(op, KERNELS[(op.kind, a.dtype)], params)


for _kind, (_types, _) in ARITH.items():
    lowering(_kind, *_types)(lower_arith)
