"""Lowering of BATCH_MATMUL (runtime_c/include/mf_matmul.h): adj_x / adj_y and broadcast batch
dimensions become element strides; a constant operand moves into the params (the `_k` kernels)."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Op, Tensor
from ..ops.matmul import BATCH_DIMS, batch_shape, matrices
from ..quant import dense_multiplier
from .call import Call, ConstArray
from .kernels import KernelSpec, declare, make
from .registry import lowering

INT8, INT16, FLOAT32 = DType.INT8, DType.INT16, DType.FLOAT32
_FIELDS = ("batch", "lhs_batch", "rhs_batch", "rows", "depth", "cols", "lhs_row", "lhs_k", "rhs_k", "rhs_col",
           "lhs_offset", "rhs_offset", "out_zero_point", "multiplier", "shift", "constant", "constant_index")
declare({"mf_matmul_params": _FIELDS},
        KernelSpec("mf_batch_matmul_s8", "mf_matmul_params", "mf_matmul.c"),
        KernelSpec("mf_batch_matmul_s8_k", "mf_matmul_params", "mf_matmul.c", base="mf_batch_matmul_s8", variant="k"),
        KernelSpec("mf_batch_matmul_s16", "mf_matmul_params", "mf_matmul.c"),
        KernelSpec("mf_batch_matmul_s16_k", "mf_matmul_params", "mf_matmul.c", base="mf_batch_matmul_s16",
                   variant="k"),
        KernelSpec("mf_batch_matmul_f32", "mf_matmul_params", "mf_matmul.c"),
        KernelSpec("mf_batch_matmul_f32_k", "mf_matmul_params", "mf_matmul.c", base="mf_batch_matmul_f32",
                   variant="k"),
        defaults={"mf_matmul_params": {"lhs_offset": 0, "rhs_offset": 0, "out_zero_point": 0, "multiplier": 0,
                                       "shift": 0, "constant": "NULL", "constant_index": 0}})


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _batch_strides(t: Tensor, out_batch: tuple[int, ...]) -> list[int]:
    """Element strides of t's batch dims against the output's, extended to BATCH_DIMS (0: broadcast)."""
    dims = (1,) * (len(out_batch) - (len(t.shape) - 2)) + tuple(t.shape[:-2])
    matrix = t.shape[-2] * t.shape[-1]
    strides, step = [], matrix
    for d in reversed(dims):
        strides.append(step if d > 1 else 0)
        step *= d
    strides = strides[::-1]
    return [0] * (BATCH_DIMS - len(strides)) + strides


def _zero_point(t: Tensor) -> int:
    return int(t.quant.zero_point[0])


@lowering("BATCH_MATMUL", INT8, INT16, FLOAT32)
def lower_batch_matmul(op: Op, lw) -> Call:
    lhs, rhs = op.inputs
    out = op.outputs[0]
    rows, depth, cols = matrices(op)
    batch = batch_shape(op)
    a, b = lhs.shape, rhs.shape
    params = dict(batch=_c_array([1] * (BATCH_DIMS - len(batch)) + list(batch)),
                  lhs_batch=_c_array(_batch_strides(lhs, batch)), rhs_batch=_c_array(_batch_strides(rhs, batch)),
                  rows=rows, depth=depth, cols=cols,
                  lhs_row=1 if op.attrs.adj_x else a[-1], lhs_k=a[-1] if op.attrs.adj_x else 1,
                  rhs_k=1 if op.attrs.adj_y else b[-1], rhs_col=b[-1] if op.attrs.adj_y else 1)
    t = {INT8: "s8", INT16: "s16", FLOAT32: "f32"}[lhs.dtype]
    if lhs.dtype in (INT8, INT16):
        mult, shift = dense_multiplier(lhs.quant.scale[0], rhs.quant.scale[0], out.quant.scale[0])
        if lhs.dtype == INT16:  # TFLM's 64-bit MultiplyByQuantizedMultiplier reduces it to 16 bits
            mult = (mult + (1 << 15)) >> 16 if mult < 0x7FFF0000 else 0x7FFF
        params.update(lhs_offset=-_zero_point(lhs), rhs_offset=-_zero_point(rhs), out_zero_point=_zero_point(out),
                      multiplier=mult, shift=shift)
    const = next((i for i, x in enumerate(op.inputs) if x.is_const), None)
    if const is None:
        return make(f"mf_batch_matmul_{t}", params, [lhs, rhs], [out], [op])
    params.update(constant=ConstArray("constant", np.asarray(op.inputs[const].data, lhs.dtype.np).reshape(-1)),
                  constant_index=const)
    return make(f"mf_batch_matmul_{t}_k", params, [op.inputs[1 - const]], [out], [op])
