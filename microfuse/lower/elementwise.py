"""Lowering of element-wise ops: ADD/SUB/MUL (broadcasting), int8 unary ops as one LUT kernel,
float activations, QUANTIZE and DEQUANTIZE. Quantization constants follow TFLM's Prepare()."""

from __future__ import annotations

import numpy as np

from .. import lut as luts
from ..errors import UnsupportedError
from ..ir import DType, Op, Tensor
from ..ops.elementwise import broadcast_shape
from ..quant import activation_range, activation_range_float, quantize_multiplier
from .call import Call, ConstArray
from .common import ADD_LEFT_SHIFT, addsub_multipliers, qp
from .kernels import BINARY, KernelSpec, declare, make, variant_of
from .registry import lowering

MAX_DIMS = 6  # mf_elementwise.h MF_MAX_DIMS
INT8, FLOAT32, UINT8, INT16, INT32 = DType.INT8, DType.FLOAT32, DType.UINT8, DType.INT16, DType.INT32
ADDSUB_S8 = {"ADD": "mf_add_s8", "SUB": "mf_sub_s8"}
BINARY_F32 = {"ADD": "mf_add_f32", "SUB": "mf_sub_f32", "MUL": "mf_mul_f32"}
_SHORT = {INT8: "s8", INT16: "s16", INT32: "s32"}
# TFLM quantize_common.cc: the integer pairs its Requantize runs that no byte table covers
# (runtime_c/src/mf_requantize.c, declared in lower/int16.py)
REQUANTIZE = {(src, dst): f"mf_requantize_{_SHORT[src]}_{_SHORT[dst]}"
              for src, dst in ((INT16, INT8), (INT16, INT16), (INT16, INT32), (INT8, INT16), (INT8, INT32),
                               (INT32, INT8), (INT32, INT16))}
UNARY_F32 = {"RELU": "mf_relu_f32", "RELU6": "mf_relu6_f32", "LEAKY_RELU": "mf_leaky_relu_f32",
             "HARD_SWISH": "mf_hard_swish_f32", "LOGISTIC": "mf_logistic_f32", "TANH": "mf_tanh_f32"}


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def broadcast_params(a: Tensor, b: Tensor, out: Tensor, op: Op) -> str:
    """The mf_broadcast initializer: output shape and per-input strides (0 on broadcast axes)."""
    shape = broadcast_shape(a.shape, b.shape)
    if len(shape) > MAX_DIMS:
        raise UnsupportedError(f"{op.where} '{op.name}': rank {len(shape)} is above {MAX_DIMS}")
    ext = (1,) * (MAX_DIMS - len(shape)) + tuple(shape)

    def strides(t: Tensor) -> list[int]:
        dims = (1,) * (MAX_DIMS - len(t.shape)) + tuple(t.shape)
        result, step = [0] * MAX_DIMS, 1
        for d in reversed(range(MAX_DIMS)):
            result[d] = 0 if dims[d] == 1 else step  # size-1 axes never advance
            step *= dims[d]
        return result

    flat = int(a.elements == out.elements and b.elements == out.elements)
    return (f"{{ {out.elements}, {flat}, {_c_array(ext)}, {_c_array(strides(a))}, "
            f"{_c_array(strides(b))} }}")


def _binary_call(op: Op, kernel: str, params: dict) -> Call:
    """The call, with a constant operand moved into the params (the kernel's "k" variant)."""
    a, b = op.inputs
    consts = [i for i, t in enumerate((a, b)) if t.is_const]
    if len(consts) == 2:
        raise UnsupportedError(f"{op.where} '{op.name}': both operands are constants (not folded)")
    if not consts:
        return make(kernel, params, [a, b], op.outputs, [op])
    k = consts[0]
    data = np.asarray((a, b)[k].data).astype(a.dtype.np)
    params = dict(params, constant=ConstArray("constant", data), constant_index=k)
    return make(variant_of(kernel, "k").name, params, [(a, b)[1 - k]], op.outputs, [op])


def addsub_params(op: Op, left_shift: int = ADD_LEFT_SHIFT, double: bool = False) -> dict:
    """mf_addsub_params of an int8 (left shift 20) or int16 (15, multipliers in double) ADD/SUB."""
    a, b = op.inputs
    out = op.outputs[0]
    (s1, z1), (s2, z2), (so, zo) = qp(a, op), qp(b, op), qp(out, op)
    (m1, sh1), (m2, sh2), (mo, sho) = addsub_multipliers(op, s1, s2, so, left_shift, double=double)
    lo, hi = activation_range(op.attrs.activation, out)
    return dict(b=broadcast_params(a, b, out, op), input1_offset=-z1, input2_offset=-z2, output_offset=zo,
                left_shift=left_shift, input1_multiplier=m1, input1_shift=sh1, input2_multiplier=m2,
                input2_shift=sh2, output_multiplier=mo, output_shift=sho, act_min=lo, act_max=hi)


@lowering("ADD", INT8)
@lowering("SUB", INT8)
def lower_addsub_s8(op: Op, lw) -> Call:
    return _binary_call(op, ADDSUB_S8[op.kind], addsub_params(op))


@lowering("MUL", INT8)
def lower_mul_s8(op: Op, lw) -> Call:
    a, b = op.inputs
    out = op.outputs[0]
    (s1, z1), (s2, z2), (so, zo) = qp(a, op), qp(b, op), qp(out, op)
    mult, shift = quantize_multiplier(s1 * s2 / so)
    lo, hi = activation_range(op.attrs.activation, out)
    params = dict(b=broadcast_params(a, b, out, op), input1_offset=-z1, input2_offset=-z2, output_offset=zo,
                  output_multiplier=mult, output_shift=shift, act_min=lo, act_max=hi)
    return _binary_call(op, "mf_mul_s8", params)


@lowering("ADD", FLOAT32)
@lowering("SUB", FLOAT32)
@lowering("MUL", FLOAT32)
def lower_binary_f32(op: Op, lw) -> Call:
    a, b = op.inputs
    out = op.outputs[0]
    lo, hi = activation_range_float(op.attrs.activation)
    params = dict(b=broadcast_params(a, b, out, op), act_min=lo, act_max=hi)
    return _binary_call(op, BINARY_F32[op.kind], params)


# -- MAXIMUM, MINIMUM (runtime_c/src/mf_minmax.c): TFLM compares the stored values, int8 too ---------

declare({"mf_minmax_s8_params": ("b", "constant", "constant_index"),
         "mf_minmax_f32_params": ("b", "constant", "constant_index")},
        KernelSpec("mf_maximum_s8", "mf_minmax_s8_params", "mf_minmax.c", access=BINARY),
        KernelSpec("mf_minimum_s8", "mf_minmax_s8_params", "mf_minmax.c", access=BINARY),
        KernelSpec("mf_maximum_f32", "mf_minmax_f32_params", "mf_minmax.c", access=BINARY),
        KernelSpec("mf_minimum_f32", "mf_minmax_f32_params", "mf_minmax.c", access=BINARY),
        KernelSpec("mf_maximum_s8_k", "mf_minmax_s8_params", "mf_minmax.c", "mf_maximum_s8", "k", access=BINARY),
        KernelSpec("mf_minimum_s8_k", "mf_minmax_s8_params", "mf_minmax.c", "mf_minimum_s8", "k", access=BINARY),
        KernelSpec("mf_maximum_f32_k", "mf_minmax_f32_params", "mf_minmax.c", "mf_maximum_f32", "k", access=BINARY),
        KernelSpec("mf_minimum_f32_k", "mf_minmax_f32_params", "mf_minmax.c", "mf_minimum_f32", "k", access=BINARY),
        defaults={"mf_minmax_s8_params": {"constant": "NULL", "constant_index": 0},
                  "mf_minmax_f32_params": {"constant": "NULL", "constant_index": 0}})
MINMAX = {("MAXIMUM", INT8): "mf_maximum_s8", ("MINIMUM", INT8): "mf_minimum_s8",
          ("MAXIMUM", FLOAT32): "mf_maximum_f32", ("MINIMUM", FLOAT32): "mf_minimum_f32"}


@lowering("MAXIMUM", INT8, FLOAT32)
@lowering("MINIMUM", INT8, FLOAT32)
def lower_minmax(op: Op, lw) -> Call:
    a, b = op.inputs
    return _binary_call(op, MINMAX[(op.kind, a.dtype)], dict(b=broadcast_params(a, b, op.outputs[0], op)))


def lut_call(ops: list[Op], table: np.ndarray) -> Call:
    """mf_lut_s8 applying `table` from the first op's input to the last op's output."""
    src, dst = ops[0].inputs[0], ops[-1].outputs[0]
    return make("mf_lut_s8", dict(size=src.elements, lut=ConstArray("lut", table)), [src], [dst], ops)


@lowering("RELU", INT8)
@lowering("RELU6", INT8)
@lowering("LEAKY_RELU", INT8)
@lowering("HARD_SWISH", INT8)
@lowering("LOGISTIC", INT8)
@lowering("TANH", INT8)
def lower_unary_s8(op: Op, lw) -> Call:
    return lut_call([op], luts.lut_for(op))


@lowering("RELU", FLOAT32)
@lowering("RELU6", FLOAT32)
@lowering("LEAKY_RELU", FLOAT32)
@lowering("HARD_SWISH", FLOAT32)
@lowering("LOGISTIC", FLOAT32)
@lowering("TANH", FLOAT32)
def lower_unary_f32(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    alpha = float(op.attrs.alpha) if op.kind == "LEAKY_RELU" else 0.0
    return make(UNARY_F32[op.kind], dict(size=src.elements, alpha=alpha), [src], [dst], [op])


@lowering("QUANTIZE", FLOAT32, INT8, UINT8, INT16, INT32)
def lower_quantize(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    s_out, z_out = qp(dst, op)
    if src.dtype == FLOAT32 and dst.dtype in (INT8, INT16):
        kernel = "mf_quantize_f32_s8" if dst.dtype == INT8 else "mf_quantize_f32_s16"
        return make(kernel, dict(size=src.elements, scale=s_out, zero_point=z_out), [src], [dst], [op])
    if src.dtype == INT8 and dst.dtype == INT8:
        return lut_call([op], luts.lut_for(op))
    s_in, z_in = qp(src, op) if src.dtype != FLOAT32 else (1.0, 0)
    if (src.dtype, dst.dtype) in REQUANTIZE:  # TFLM quantize_common.cc: QuantizeMultiplier(s_in / s_out)
        mult, shift = quantize_multiplier(s_in / s_out)
        params = dict(size=src.elements, input_zero_point=z_in, output_zero_point=z_out, multiplier=mult,
                      shift=shift)
        return make(REQUANTIZE[(src.dtype, dst.dtype)], params, [src], [dst], [op])
    kernels = {(UINT8, INT8): "mf_lut_u8_s8", (INT8, UINT8): "mf_lut_s8_u8"}
    kernel = kernels.get((src.dtype, dst.dtype))
    if kernel is None:
        raise UnsupportedError(f"{op.where} '{op.name}': QUANTIZE from {src.dtype} to {dst.dtype} is not supported")
    table = luts.byte_table(luts.requantize_fn(s_in, z_in, s_out, z_out), src.dtype, dst.dtype)
    return make(kernel, dict(size=src.elements, lut=ConstArray("lut", table)), [src], [dst], [op])


DEQUANTIZE = {INT8: "mf_dequantize_s8_f32", UINT8: "mf_dequantize_u8_f32", INT16: "mf_dequantize_s16_f32"}


@lowering("DEQUANTIZE", INT8, UINT8, INT16)
def lower_dequantize(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    if dst.dtype != FLOAT32:
        raise UnsupportedError(f"{op.where} '{op.name}': DEQUANTIZE to {dst.dtype} is not supported")
    scale, zp = qp(src, op)
    return make(DEQUANTIZE[src.dtype], dict(size=src.elements, scale=scale, zero_point=zp), [src], [dst], [op])
