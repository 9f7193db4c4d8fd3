"""Lowering of SELECT_V2 (ops/select.py) to runtime_c/src/mf_select.c: three-way broadcast strides."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Op, Tensor
from .call import ConstArray
from .elementwise import MAX_DIMS, _c_array
from .kernels import KernelSpec, declare, make
from .registry import lowering

KERNELS = {DType.FLOAT32: "mf_select_v2_f32", DType.INT8: "mf_select_v2_s8"}

declare({"mf_select_params": ("size", "shape", "stride_c", "stride_x", "stride_y", "constant", "constant_index",
                              "constant2")},
        *(KernelSpec(name, "mf_select_params", "mf_select.c") for name in KERNELS.values()),
        *(KernelSpec(name + "_k", "mf_select_params", "mf_select.c", name, "k") for name in KERNELS.values()),
        *(KernelSpec(name + "_kk", "mf_select_params", "mf_select.c", name, "kk") for name in KERNELS.values()),
        defaults={"mf_select_params": {"constant": "NULL", "constant_index": 0, "constant2": "NULL"}})


def _strides(t: Tensor) -> str:
    """Element strides of `t` on the output's MAX_DIMS axes, 0 where it broadcasts."""
    dims = (1,) * (MAX_DIMS - len(t.shape)) + tuple(t.shape)
    result, step = [0] * MAX_DIMS, 1
    for d in reversed(range(MAX_DIMS)):
        result[d] = 0 if dims[d] == 1 else step
        step *= dims[d]
    return _c_array(result)


@lowering("SELECT_V2", DType.BOOL)
def lower_select(op: Op, lw):
    c, x, y = op.inputs
    out = op.outputs[0]
    shape = (1,) * (MAX_DIMS - len(out.shape)) + tuple(out.shape)
    params = dict(size=out.elements, shape=_c_array(shape), stride_c=_strides(c), stride_x=_strides(x),
                  stride_y=_strides(y))
    kernel = KERNELS[x.dtype]
    consts = [i for i in (1, 2) if op.inputs[i].is_const]
    if not consts:
        return make(kernel, params, [c, x, y], op.outputs, [op])
    data = [np.asarray(op.inputs[i].data).astype(x.dtype.np) for i in consts]
    if len(consts) == 2:
        params.update(constant=ConstArray("constant", data[0]), constant2=ConstArray("constant2", data[1]))
        return make(kernel + "_kk", params, [c], op.outputs, [op])
    params.update(constant=ConstArray("constant", data[0]), constant_index=consts[0])
    return make(kernel + "_k", params, [c, op.inputs[3 - consts[0]]], op.outputs, [op])
