"""Lowering of a conv / depthwise fused with the global average pool or MEAN reading it
(passes/pool_fuse.py) to the mf_*_gap kernels of runtime_c/include/mf_gap.h.

The conv part is lowered exactly as the unfused conv (with its epilogue) would be with the
reference kernels; its params become the `k.*` / `ep.*` fields, and the reduction's
constants the `gap.*` fields, computed as the unfused AVERAGE_POOL_2D / MEAN lowerings do.
"""

from __future__ import annotations

from .. import quant
from ..errors import UnsupportedError
from ..ir import DType, Op
from ..passes.epilogue import Epilogue
from . import Call, optimizing
from .data import lower_mean

BASES = ("mf_conv2d_s8", "mf_dwconv2d_s8", "mf_conv2d_f32", "mf_dwconv2d_f32")


def reduction(op: Op) -> Epilogue | None:
    """The op's fused global pool / MEAN step, if it has one (always its last step)."""
    return op.fused[-1] if op.fused and op.fused[-1].kind == "gap" else None


def without_reduction(op: Op) -> Op:
    """The op as it was before the pool fused: it stores the conv's (epilogue's) full output."""
    step = reduction(op)
    return Op(op.kind, list(op.inputs), [step.input], op.attrs, op.name, op.index, list(op.fused[:-1]))


def gap_params(op: Op, channels: int, count: int) -> dict[str, object]:
    """The `gap.*` fields: the pool's or MEAN's arithmetic on the sums of `count` pixels."""
    src = reduction(op).sources[0]
    out = src.outputs[0]
    if out.dtype == DType.FLOAT32:
        lo, hi = (quant.activation_range_float(src.attrs.activation) if src.kind == "AVERAGE_POOL_2D"
                  else (float("-inf"), float("inf")))
        return {"gap.count": count, "gap.act_min": lo, "gap.act_max": hi}
    if src.kind == "AVERAGE_POOL_2D":
        lo, hi = quant.activation_range(src.attrs.activation, out)
        return {"gap.count": count, "gap.mean": 0, "gap.act_min": lo, "gap.act_max": hi}
    mean = lower_mean(src).params  # the unfused MEAN's constants, so the arithmetic is its own
    if mean["count"] != count:
        raise UnsupportedError(f"{src.where} '{src.name}': MEAN reduces {mean['count']} values, not {count}")
    return {"gap.count": count, "gap.mean": 1, "gap.in_zero_point": mean["input_zero_point"],
            "gap.multiplier": mean["multiplier"], "gap.shift": mean["shift"],
            "gap.out_zero_point": mean["output_zero_point"]}


def lower_gap(op: Op) -> Call:
    from . import lower

    inner = without_reduction(op)
    with optimizing("size"):  # the reference loop, run one output pixel at a time
        call = lower(inner)
    base = next((b for b in BASES if call.kernel == b or call.kernel.startswith(b + "_")), None)
    if base is None:
        raise UnsupportedError(f"{op.where} '{op.name}': no global-pool variant of {call.kernel}")
    params = call.params if inner.fused else {f"k.{key}": value for key, value in call.params.items()}
    _, out_h, out_w, channels = inner.outputs[0].shape
    params = {**params, **gap_params(op, channels, out_h * out_w)}
    step = reduction(op)
    return Call(f"{base}_gap{call.kernel[len(base):]}", f"{base}_gap_params", params, list(call.inputs),
                [op.outputs[0]], [op, *(src for s in op.fused for src in s.sources)],
                (f"{base.replace('dwconv', 'conv')}_gap.c",), scratch=4 * channels,
                notes=[f"{step.sources[0].kind.lower()} fused: the conv output is never stored"])
