"""Lowering of CONV_2D and DEPTHWISE_CONV_2D (int8 and float32) to runtime_c kernels."""

from __future__ import annotations

import numpy as np

from .. import views
from ..errors import UnsupportedError
from ..ir import DType, Op
from .call import Call, ConstArray
from .common import conv_window, depth_multiplier, float_act, float_bias, requant_params
from .epilogue import epilogue_params, operands, variant
from . import mve
from . import fast_gemm  # noqa: F401  (declares mf_conv2d_s8_pair, mf_conv2d_s8_narrow)
from .kernels import KernelSpec, make, origin, spec, variants
from .registry import lowering

# Kernels an op may lower to, first that fits wins: specialised (fast) kernels first, the
# generic reference kernel last (it fits every op the constraints let through).
CONV_S8 = ("mf_conv2d_s8_narrow", "mf_conv2d_s8_pair", "mf_conv2d_s8_gemm", "mf_conv2d_s8_gemm_strided", "mf_conv2d_s8")
CONV_F32 = ("mf_conv2d_f32",)
DWCONV_S8 = ("mf_dwconv2d_s8_dsp", "mf_dwconv2d_s8_dsp_strided", "mf_dwconv2d_s8")
DWCONV_F32 = ("mf_dwconv2d_f32",)


def pick(table: tuple[str, ...], op: Op, level: str) -> KernelSpec:
    """The first kernel of `table` that fits `op` at --optimize `level`. An op with a fused
    epilogue picks among the declared fused variants of the table's fast kernels and of its
    reference kernel. An op writing a strided slice (an eliminated concat, microfuse/views.py)
    needs a kernel with an `out_stride` field: the reference kernels, and the fast kernels'
    `_strided` entries."""
    want = variant(op)
    for name in table:
        base = spec(name)
        if want and (base.prepare is None and name != table[-1]):
            continue
        candidates = [v for v in variants(name) if v.variant == want] if want else [base]
        for k in candidates:
            if base.admits(op, level):
                return k
    steps = "+".join(step.label for step in op.fused)
    raise UnsupportedError(f"{op.where} '{op.name}': no kernel variant fits"
                           + (f" the fused epilogue {steps}" if steps else ""))


def make_call(kernel: KernelSpec, op: Op, params: dict[str, object], core: str | None = None) -> Call:
    root = origin(kernel)
    if root.prepare is not None:
        params = mve.retarget(root.name, op, root.prepare(op, params), core)  # the core's layout
    if kernel.reversible:
        params = {**params, "reverse": 0}  # the emitter sets 1 if the plan runs it backward
    params = {**params, "out_stride": views.element_stride(op.outputs[0])}
    inputs = [op.inputs[0]]
    if op.fused:  # a fused variant: the plain kernel's params (`k.*`), the epilogue's (`ep.*`)
        params = {**{f"k.{key}": value for key, value in params.items()}, **epilogue_params(op)}
        inputs += operands(op)  # the residual operand, after the main input
    sources = [op, *(src for step in op.fused for src in step.sources)]
    return make(kernel.name, params, inputs, [op.outputs[0]], sources)


# -- CONV_2D ----------------------------------------------------------------------------------------

@lowering("CONV_2D", DType.INT8)
def conv2d_s8(op: Op, lw) -> Call:
    w = op.inputs[1]
    oc, kh, kw, _ = w.shape
    weights = np.asarray(w.data, np.int8)  # OHWI, the kernel's layout
    params = dict(conv_window(op, kh, kw), **requant_params(op, w, 0, weights.reshape(oc, -1)),
                  weights=ConstArray("weights", weights))
    return make_call(pick(mve.kernels_for(CONV_S8, lw.core), op, lw.level), op, params, lw.core)


@lowering("CONV_2D", DType.FLOAT32)
def conv2d_f32(op: Op, lw) -> Call:
    w = op.inputs[1]
    _, kh, kw, _ = w.shape
    params = dict(conv_window(op, kh, kw), **float_act(op),
                  weights=ConstArray("weights", np.asarray(w.data, np.float32)), bias=float_bias(op))
    return make_call(pick(CONV_F32, op, lw.level), op, params)


# -- DEPTHWISE_CONV_2D --------------------------------------------------------------------------------

@lowering("DEPTHWISE_CONV_2D", DType.INT8)
def dwconv2d_s8(op: Op, lw) -> Call:
    w = op.inputs[1]
    _, kh, kw, oc = w.shape
    weights = np.asarray(w.data, np.int8).reshape(kh, kw, oc)  # 1HWO, the kernel's layout
    params = dict(conv_window(op, kh, kw), depth_multiplier=depth_multiplier(op),
                  **requant_params(op, w, 3, weights.reshape(-1, oc).T),
                  weights=ConstArray("weights", weights))
    return make_call(pick(DWCONV_S8, op, lw.level), op, params, lw.core)


@lowering("DEPTHWISE_CONV_2D", DType.FLOAT32)
def dwconv2d_f32(op: Op, lw) -> Call:
    w = op.inputs[1]
    _, kh, kw, oc = w.shape
    params = dict(conv_window(op, kh, kw), depth_multiplier=depth_multiplier(op), **float_act(op),
                  weights=ConstArray("weights", np.asarray(w.data, np.float32).reshape(kh, kw, oc)),
                  bias=float_bias(op))
    return make_call(pick(DWCONV_F32, op, lw.level), op, params)
