"""Lowering of a conv / depthwise fused with the reduction reading it (ops/internal.py):
CONV_GAP (a global average pool or MEAN, runtime_c/include/mf_gap.h) and CONV_POOL (a max /
average pool run row by row, runtime_c/include/mf_pool_rows.h).

The conv part is lowered exactly as the unfused conv (with its epilogue) would be with the
reference kernels, one pixel / row at a time; its params become the `k.*` / `ep.*` fields,
and the reduction's constants the `gap.*` / `pool.*` fields, computed as the unfused
AVERAGE_POOL_2D / MEAN / MAX_POOL_2D lowerings do. The kernel is the declared "gap" / "pool"
variant of the conv's kernel (lower/kernels.py); its scratch is the spec's.
"""

from __future__ import annotations

from .. import quant
from ..errors import UnsupportedError
from ..ir import DType, Op
from ..ops.internal import CONV_GAP, CONV_POOL
from .call import Call
from .common import ring_rows
from .data import lower_mean
from .kernels import make, variant_of
from .registry import lowering


def gap_params(op: Op, lw) -> dict[str, object]:
    """The `gap.*` fields: the pool's or MEAN's arithmetic on the sums of every conv pixel."""
    src, mid = op.attrs.reducer, op.attrs.conv.outputs[0]
    count = mid.shape[1] * mid.shape[2]
    out = src.outputs[0]
    if out.dtype == DType.FLOAT32:
        lo, hi = (quant.activation_range_float(src.attrs.activation) if src.kind == "AVERAGE_POOL_2D"
                  else (float("-inf"), float("inf")))
        return {"gap.count": count, "gap.act_min": lo, "gap.act_max": hi}
    if src.kind == "AVERAGE_POOL_2D":
        lo, hi = quant.activation_range(src.attrs.activation, out)
        return {"gap.count": count, "gap.mean": 0, "gap.act_min": lo, "gap.act_max": hi}
    mean = lower_mean(src, lw).params  # the unfused MEAN's constants, so the arithmetic is its own
    if mean["count"] != count:
        raise UnsupportedError(f"{src.where} '{src.name}': MEAN reduces {mean['count']} values, not {count}")
    return {"gap.count": count, "gap.mean": 1, "gap.act_min": 0, "gap.act_max": 0,  # MEAN: no clamp to read
            "gap.in_zero_point": mean["input_zero_point"],
            "gap.multiplier": mean["multiplier"], "gap.shift": mean["shift"],
            "gap.out_zero_point": mean["output_zero_point"]}


def pool_params(op: Op, lw) -> dict[str, object]:
    """The `pool.*` fields, from the unfused pool's own lowering (same geometry and clamp)."""
    pool = op.attrs.reducer
    p = lw.lower(pool).params
    keys = ("out_h", "out_w", "filter_h", "filter_w", "stride_h", "stride_w", "pad_h", "pad_w",
            "act_min", "act_max", "out_stride")  # out_stride: the pool writes a concat's channel slice
    fields = dict(average=int(pool.kind == "AVERAGE_POOL_2D"), ring_rows=ring_rows(op), **{k: p[k] for k in keys})
    return {f"pool.{key}": value for key, value in fields.items()}


REDUCTIONS = {CONV_GAP: ("gap", gap_params), CONV_POOL: ("pool", pool_params)}


@lowering(CONV_GAP, DType.INT8, DType.FLOAT32)
@lowering(CONV_POOL, DType.INT8, DType.FLOAT32)
def lower_reduced(op: Op, lw) -> Call:
    what, reduction = REDUCTIONS[op.kind]
    conv, src = op.attrs.conv, op.attrs.reducer
    size = lw.at("size")  # the reference loop, run one output pixel / conv row at a time
    call = size.lower(conv)
    kernel = variant_of(call.kernel, what)
    if kernel is None:
        raise UnsupportedError(f"{op.where} '{op.name}': no {what} variant of {call.kernel}")
    params = call.params if conv.fused else {f"k.{key}": value for key, value in call.params.items()}
    return make(kernel.name, {**params, **reduction(op, size)}, call.inputs, op.outputs, [*call.sources, src],
                scratch=kernel.scratch(op), notes=[_note(op, what)])


def _note(op: Op, what: str) -> str:
    kind = op.attrs.reducer.kind.lower()
    if what == "gap":
        return f"{kind} fused: the conv output is never stored"
    return (f"{kind} fused row by row: the conv output is never stored whole "
            f"({ring_rows(op)} of {op.attrs.conv.outputs[0].shape[1]} rows in scratch)")
