"""Lowering of AVERAGE_POOL_2D and MAX_POOL_2D (int8 and float32) to runtime_c kernels."""

from __future__ import annotations

from .. import quant
from ..ir import DType, Op, own_output
from .call import Call
from .common import float_act, per_tensor_int8, window
from .conv import make_call, pick
from .registry import lowering

AVG_S8, MAX_S8 = ("mf_pool_avg_s8",), ("mf_pool_max_s8",)
AVG_F32, MAX_F32 = ("mf_pool_avg_f32",), ("mf_pool_max_f32",)


def pool_window(op: Op) -> dict[str, int]:
    a = op.attrs
    return dict(window(op, a.filter_h, a.filter_w), channels=op.inputs[0].shape[3],
                filter_h=a.filter_h, filter_w=a.filter_w)


def _int8(op: Op, table: tuple[str, ...], level: str) -> Call:
    per_tensor_int8(op.inputs[0], op, "input")
    per_tensor_int8(own_output(op), op, "output")
    # Input and output share one quantization (a constraint): only the clamp remains.
    lo, hi = quant.activation_range(op.attrs.activation, own_output(op))
    return make_call(pick(table, op, level), op, dict(pool_window(op), act_min=lo, act_max=hi))


def _float(op: Op, table: tuple[str, ...], level: str) -> Call:
    return make_call(pick(table, op, level), op, dict(pool_window(op), **float_act(op)))


@lowering("AVERAGE_POOL_2D", DType.INT8)
def avg_pool_s8(op: Op, lw) -> Call:
    return _int8(op, AVG_S8, lw.level)


@lowering("MAX_POOL_2D", DType.INT8)
def max_pool_s8(op: Op, lw) -> Call:
    return _int8(op, MAX_S8, lw.level)


@lowering("AVERAGE_POOL_2D", DType.FLOAT32)
def avg_pool_f32(op: Op, lw) -> Call:
    return _float(op, AVG_F32, lw.level)


@lowering("MAX_POOL_2D", DType.FLOAT32)
def max_pool_f32(op: Op, lw) -> Call:
    return _float(op, MAX_F32, lw.level)
