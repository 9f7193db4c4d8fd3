"""Kernels of 16-bit activation ("16x8") models: QUANTIZE between integer types, float32 <-> int16,
ADD/SUB/MUL, LEAKY_RELU, RELU/RELU6, LOGISTIC/TANH on int16. Constants follow TFLM's Prepare() of each op's int16 path."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Op
from ..quant import _tf_round, activation_range, quantize_multiplier
from .call import Call, ConstArray
from .common import qp
from .elementwise import REQUANTIZE, _binary_call, addsub_params, broadcast_params
from .kernels import BINARY, ELEMENT, KernelSpec, declare, make
from .int16_tables import SIGMOID_TABLE
from .registry import lowering

INT16 = DType.INT16
ADDSUB_S16 = {"ADD": "mf_add_s16", "SUB": "mf_sub_s16"}
INT16_LEFT_SHIFT = 15  # add_common.cc / sub_common.cc: 15 for int16 (65535 << 15 fits in int32), 20 for int8

declare({"mf_requantize_params": ("size", "input_zero_point", "output_zero_point", "multiplier", "shift"),
         "mf_mul_s16_params": ("b", "output_multiplier", "output_shift", "act_min", "act_max", "constant",
                               "constant_index"),
         "mf_relu_s16_params": ("size", "multiplier", "shift", "act_min", "act_max"),
         "mf_sigmoid_s16_params": ("size", "multiplier", "shift", "table"),
         "mf_leaky_relu_s16_params": ("size", "input_zero_point", "output_zero_point", "identity_multiplier",
                                      "identity_shift", "alpha_multiplier", "alpha_shift")},
        *(KernelSpec(name, "mf_requantize_params", "mf_requantize.c", access=ELEMENT) for name in REQUANTIZE.values()),
        KernelSpec("mf_quantize_f32_s16", "mf_affine_params", "mf_quantize_f32.c", access=ELEMENT),
        KernelSpec("mf_dequantize_s16_f32", "mf_affine_params", "mf_dequantize_f32.c", access=ELEMENT),
        KernelSpec("mf_add_s16", "mf_addsub_params", "mf_binary_s16.c", access=BINARY),
        KernelSpec("mf_sub_s16", "mf_addsub_params", "mf_binary_s16.c", access=BINARY),
        KernelSpec("mf_add_s16_k", "mf_addsub_params", "mf_binary_s16.c", "mf_add_s16", "k", access=BINARY),
        KernelSpec("mf_sub_s16_k", "mf_addsub_params", "mf_binary_s16.c", "mf_sub_s16", "k", access=BINARY),
        KernelSpec("mf_leaky_relu_s16", "mf_leaky_relu_s16_params", "mf_unary_s16.c", access=ELEMENT),
        KernelSpec("mf_mul_s16", "mf_mul_s16_params", "mf_binary_s16.c", access=BINARY),
        KernelSpec("mf_mul_s16_k", "mf_mul_s16_params", "mf_binary_s16.c", "mf_mul_s16", "k", access=BINARY),
        KernelSpec("mf_relu_s16", "mf_relu_s16_params", "mf_unary_s16.c", access=ELEMENT),
        KernelSpec("mf_relu6_s16", "mf_relu_s16_params", "mf_unary_s16.c", access=ELEMENT),
        KernelSpec("mf_logistic_s16", "mf_sigmoid_s16_params", "mf_sigmoid_s16.c", access=ELEMENT),
        KernelSpec("mf_tanh_s16", "mf_sigmoid_s16_params", "mf_sigmoid_s16.c", access=ELEMENT),
        defaults={"mf_mul_s16_params": {"constant": "NULL", "constant_index": 0}})


@lowering("ADD", INT16)
@lowering("SUB", INT16)
def lower_addsub_s16(op: Op, lw) -> Call:
    return _binary_call(op, ADDSUB_S16[op.kind], addsub_params(op, INT16_LEFT_SHIFT, double=True))


@lowering("LEAKY_RELU", INT16)
def lower_leaky_relu_s16(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    (s_in, z_in), (s_out, z_out) = qp(src, op), qp(dst, op)
    # in double: the float ratios of lut.leaky_relu_multipliers are 1 off on ~14 of the 65536 inputs
    m_id, sh_id = quantize_multiplier(s_in / s_out)
    m_alpha, sh_alpha = quantize_multiplier(s_in * float(np.float32(op.attrs.alpha)) / s_out)
    params = dict(size=src.elements, input_zero_point=z_in, output_zero_point=z_out, identity_multiplier=m_id,
                  identity_shift=sh_id, alpha_multiplier=m_alpha, alpha_shift=sh_alpha)
    return make("mf_leaky_relu_s16", params, [src], [dst], [op])


@lowering("MUL", INT16)
def lower_mul_s16(op: Op, lw) -> Call:
    a, b = op.inputs
    out = op.outputs[0]
    (s1, _), (s2, _), (so, _) = qp(a, op), qp(b, op), qp(out, op)  # zero points 0: ops/elementwise.py
    mult, shift = quantize_multiplier(s1 * s2 / so)  # mul_common.cc: in double
    lo, hi = activation_range(op.attrs.activation, out)
    params = dict(b=broadcast_params(a, b, out, op), output_multiplier=mult, output_shift=shift, act_min=lo,
                  act_max=hi)
    return _binary_call(op, "mf_mul_s16", params)


@lowering("RELU", INT16)
@lowering("RELU6", INT16)
def lower_relu_s16(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    (s_in, z_in), (s_out, _) = qp(src, op), qp(dst, op)
    mult, shift = quantize_multiplier(s_in / s_out)  # activations_common.cc CalculateReluOpData, double
    if op.kind == "RELU":  # zero points 0 (ops/elementwise.py): the range is [0, int16 max]
        lo, hi = 0, 32767
    else:  # Relu6Prepare: [zp, FloatToQuantizedType(6.0)] in the input's scale, no rescaling
        six = int(_tf_round(float(np.float32(6.0) / np.float32(s_in)))) + z_in
        lo, hi = z_in, min(max(six, -32768), 32767)
    params = dict(size=src.elements, multiplier=mult, shift=shift, act_min=lo, act_max=hi)
    return make("mf_relu_s16" if op.kind == "RELU" else "mf_relu6_s16", params, [src], [dst], [op])


def sigmoid_input_scaling(kind: str, scale: float) -> tuple[int, int]:
    """(multiplier, shift) taking the input to the table's scale 1/(3*4096), as TFLM's int16
    LOGISTIC / TANH Prepare (logistic_common.cc, tanh.cc) and the kernels' power-of-two case."""
    log2 = np.log(np.float32(scale)) * (np.float32(1.0) / np.log(np.float32(2.0)))  # CheckedLog2, in float
    rounded = _tf_round(float(log2))
    shift = 12 + int(rounded)  # (15 - 3 integer bits) + log2
    if abs(float(log2) - rounded) < 1e-3 and shift in ((0,) if kind == "LOGISTIC" else (0, 1)):
        return 3 << shift, 0  # power-of-two scale: the kernel's input_multiplier == 0 branch
    multiplier, shift = scale * 4096.0 * 3.0, 0
    while multiplier <= 32767.0 / 2.0 and shift <= 30:
        shift, multiplier = shift + 1, multiplier * 2.0
    return int(multiplier), shift


@lowering("LOGISTIC", INT16)
@lowering("TANH", INT16)
def lower_sigmoid_s16(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    mult, shift = sigmoid_input_scaling(op.kind, qp(src, op)[0])  # ops/elementwise.py checks the limits
    params = dict(size=src.elements, multiplier=mult, shift=shift, table=ConstArray("table", SIGMOID_TABLE))
    return make("mf_logistic_s16" if op.kind == "LOGISTIC" else "mf_tanh_s16", params, [src], [dst], [op])
