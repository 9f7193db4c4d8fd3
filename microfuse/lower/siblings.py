"""Lowering of SIBLINGS (passes/horizontal.py) to mf_conv2d_s8_xN / mf_fc_s8_xN (mf_multi.h).

Each sibling is lowered on its own with the reference kernels (--optimize size), and the
fused call concatenates their constants — filters, folded biases, per-channel multipliers
and shifts (a per-tensor multiplier is repeated per channel) — and lists each sibling's
zero point and clamp per output: every channel is computed exactly as its own call would.
"""

from __future__ import annotations

import numpy as np

from .. import views
from ..errors import UnsupportedError
from ..ir import DType, Op
from ..ops.internal import MAX_SIBLINGS, SIBLINGS
from .call import Call, ConstArray
from .kernels import make, variant_of
from .registry import lowering

GEOMETRY = {
    "mf_conv2d_s8": ("batches", "in_h", "in_w", "in_c", "out_h", "out_w", "k_h", "k_w", "stride_h", "stride_w",
                     "dilation_h", "dilation_w", "pad_h", "pad_w", "in_zero_point"),
    "mf_fc_s8": ("rows", "depth"),
}
FAMILY = {"mf_conv2d_s8": "mf_conv2d_s8", "mf_fc_s8": "mf_fc_s8", "mf_fc_s8_pc": "mf_fc_s8"}


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _per_channel(call: Call, key: str, n: int) -> np.ndarray:
    v = call.params[key]
    return np.asarray(v.data, np.int32) if isinstance(v, ConstArray) else np.full(n, int(v), np.int32)


@lowering(SIBLINGS, DType.INT8)
def siblings_s8(op: Op, lw) -> Call:
    members = op.attrs.members
    if not 2 <= len(members) <= MAX_SIBLINGS:
        raise UnsupportedError(f"{op.where} '{op.name}': {len(members)} siblings (2 to {MAX_SIBLINGS})")
    size = lw.at("size")
    calls = [size.lower(m) for m in members]
    families = {FAMILY.get(c.kernel) for c in calls}
    if len(families) != 1 or None in families:
        raise UnsupportedError(f"{op.where} '{op.name}': siblings lower to {[c.kernel for c in calls]}, "
                               "not one reference conv or fully-connected kernel")
    family = families.pop()
    first = calls[0].params
    if any(tuple(c.params[k] for k in GEOMETRY[family]) != tuple(first[k] for k in GEOMETRY[family])
           for c in calls):
        raise UnsupportedError(f"{op.where} '{op.name}': siblings differ in geometry")
    conv = family == "mf_conv2d_s8"
    width = "out_c" if conv else "units"
    widths = [int(c.params[width]) for c in calls]
    k = {f"k.{key}": first[key] for key in GEOMETRY[family]}
    k[f"k.{width}"] = sum(widths)
    k.update({"k.out_zero_point": 0, "k.act_min": 0, "k.act_max": 0})  # unused: per output in `o.*`
    k["k.weights"] = ConstArray("weights", np.concatenate(
        [np.asarray(c.params["weights"].data, np.int8).reshape(n, -1) for c, n in zip(calls, widths)]))
    k["k.bias"] = ConstArray("bias", np.concatenate([np.asarray(c.params["bias"].data, np.int32) for c in calls]))
    k["k.mult"] = ConstArray("mult", np.concatenate([_per_channel(c, "mult", n) for c, n in zip(calls, widths)]))
    k["k.shift"] = ConstArray("shift", np.concatenate([_per_channel(c, "shift", n)
                                                       for c, n in zip(calls, widths)]))
    o = {"o.n_outputs": len(calls), "o.out_c": _c_array(widths),
         "o.out_stride": _c_array(views.element_stride(t) for t in op.outputs),
         "o.out_zero_point": _c_array(c.params["out_zero_point"] for c in calls),
         "o.act_min": _c_array(c.params["act_min"] for c in calls),
         "o.act_max": _c_array(c.params["act_max"] for c in calls)}
    n = len(calls)
    return make(variant_of(family, f"x{n}").name, {**k, **o}, [op.inputs[0]], op.outputs, members)
