"""Lowering of ADD_N (ops/add_n.py) to runtime_c/src/mf_add_n.c; int8 constants as TFLM's Prepare."""

from __future__ import annotations

import numpy as np

from .. import fixedpoint as fp
from ..ir import DType, Op
from ..quant import quantize_multiplier
from .common import qp
from .kernels import KernelSpec, declare, make
from .registry import lowering

LEFT_SHIFT = 20  # kAddNIntegerShift
_INT8 = ("input_offset", "left_shift", "input_multiplier", "input_shift", "init", "output_offset",
         "output_multiplier", "output_shift")

declare({"mf_add_n_params": ("size", "n_inputs", *_INT8)},
        KernelSpec("mf_add_n_f32", "mf_add_n_params", "mf_add_n.c"),
        KernelSpec("mf_add_n_s8", "mf_add_n_params", "mf_add_n.c"),
        defaults={"mf_add_n_params": {k: 0 for k in _INT8}})


def _int8_params(op: Op) -> dict:
    (s_in, z_in), (s_out, z_out) = qp(op.inputs[0], op), qp(op.outputs[0], op)
    twice = 2 * float(np.float32(s_in))
    m_in, sh_in = quantize_multiplier(float(np.float32(s_in)) / twice)
    m_out, sh_out = quantize_multiplier(twice / ((1 << LEFT_SHIFT) * float(np.float32(s_out))))
    # TFLM starts the sum at the rescaled input offset (its "x = 0" is the offset itself)
    init = fp.mul_by_quantized_multiplier(-z_in * (1 << LEFT_SHIFT), m_in, sh_in)
    return dict(input_offset=-z_in, left_shift=LEFT_SHIFT, input_multiplier=m_in, input_shift=sh_in, init=init,
                output_offset=z_out, output_multiplier=m_out, output_shift=sh_out)


@lowering("ADD_N", DType.FLOAT32, DType.INT8)
def lower_add_n(op: Op, lw):
    out = op.outputs[0]
    params = dict(size=out.elements, n_inputs=len(op.inputs))
    if out.dtype == DType.INT8:
        params.update(_int8_params(op))
    kernel = "mf_add_n_s8" if out.dtype == DType.INT8 else "mf_add_n_f32"
    return make(kernel, params, list(op.inputs), [out], [op])
