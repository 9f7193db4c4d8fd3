"""Lowering of int16 AVERAGE_POOL_2D, MAX_POOL_2D and MEAN (runtime_c/include/mf_pool_s16.h): the
int8 lowerings' geometry, clamp and MEAN constants, with int16 kernels (TFLM runs its int8
arithmetic on int16 values, clamped to the int16 range)."""

from __future__ import annotations

from .. import quant, views
from ..errors import UnsupportedError
from ..ir import DType, Op
from .call import Call
from .data import mean_multiplier
from .kernels import WINDOW, KernelSpec, declare, make
from .pool import pool_window
from .reduce_ops import reduce_geometry
from .registry import lowering

INT16 = DType.INT16

declare({},
        KernelSpec("mf_pool_avg_s16", "mf_pool_s8_params", "mf_pool_s16.c", access=WINDOW),
        KernelSpec("mf_pool_max_s16", "mf_pool_s8_params", "mf_pool_s16.c", access=WINDOW),
        KernelSpec("mf_mean_s16", "mf_mean_params", "mf_pool_s16.c"))


def _per_tensor(op: Op) -> None:
    for t in (op.inputs[0], op.outputs[0]):
        if t.quant is None or len(t.quant.scale) != 1:
            raise UnsupportedError(f"{op.where} '{op.name}': '{t.name}' needs one int16 scale and zero point")


@lowering("AVERAGE_POOL_2D", INT16)
@lowering("MAX_POOL_2D", INT16)
def lower_pool_s16(op: Op, lw) -> Call:
    if op.fused:
        raise UnsupportedError(f"{op.where} '{op.name}': no fused int16 pooling kernel")
    _per_tensor(op)
    lo, hi = quant.activation_range(op.attrs.activation, op.outputs[0])
    kind = "avg" if op.kind == "AVERAGE_POOL_2D" else "max"
    params = dict(pool_window(op), act_min=lo, act_max=hi, out_stride=views.element_stride(op.outputs[0]))
    return make(f"mf_pool_{kind}_s16", params, [op.inputs[0]], [op.outputs[0]], [op])


@lowering("MEAN", INT16)
def lower_mean_s16(op: Op, lw) -> Call:
    _per_tensor(op)
    src, dst = op.inputs[0], op.outputs[0]
    params = reduce_geometry(op)  # MEAN's walk and its int8 constants: TFLM's arithmetic is the same
    mult, shift = mean_multiplier(float(src.quant.scale[0]), float(dst.quant.scale[0]), params["count"])
    params.update(input_zero_point=int(src.quant.zero_point[0]), output_zero_point=int(dst.quant.zero_point[0]),
                  multiplier=mult, shift=shift)
    return make("mf_mean_s16", params, [src], [dst], [op])
