"""Lowering of a conv / depthwise fused with the max / average pool reading it
(passes/pool_rows.py) to the mf_*_pool kernels of runtime_c/include/mf_pool_rows.h.

The conv part is lowered exactly as the unfused conv (with its epilogue) would be with the
reference kernels (`k.*` / `ep.*` fields); the pool's geometry and clamp are the unfused
pool lowering's own (`pool.*` fields). The scratch holds the ring of conv rows.
"""

from __future__ import annotations

from ..errors import UnsupportedError
from ..ir import Op
from . import Call, optimizing

BASES = ("mf_conv2d_s8", "mf_dwconv2d_s8", "mf_conv2d_f32", "mf_dwconv2d_f32")


def pooled(op: Op) -> bool:
    """Whether the op carries a fused row-wise pool (always its last step)."""
    return bool(op.fused) and op.fused[-1].kind == "pool"


def without_pool(op: Op) -> Op:
    """The op as it was before the pool fused: it stores the conv's (epilogue's) full output."""
    step = op.fused[-1]
    return Op(op.kind, list(op.inputs), [step.input], op.attrs, op.name, op.index, list(op.fused[:-1]))


def ring_rows(op: Op) -> int:
    """Conv rows the kernel keeps: one pool window's height (at most the conv's rows)."""
    return min(op.fused[-1].sources[0].attrs.filter_h, op.fused[-1].input.shape[1])


def pool_params(op: Op) -> dict[str, object]:
    """The `pool.*` fields, from the unfused pool's own lowering (same geometry and clamp)."""
    from . import lower

    pool = op.fused[-1].sources[0]
    p = lower(pool).params
    fields = dict(average=int(pool.kind == "AVERAGE_POOL_2D"), ring_rows=ring_rows(op),
                  **{key: p[key] for key in ("out_h", "out_w", "filter_h", "filter_w", "stride_h",
                                             "stride_w", "pad_h", "pad_w", "act_min", "act_max")})
    if "out_stride" in p:  # the pool writes a channel slice of an eliminated concat
        fields["out_stride"] = p["out_stride"]
    return {f"pool.{key}": value for key, value in fields.items()}


def lower_pool_rows(op: Op) -> Call:
    from . import lower

    inner = without_pool(op)
    with optimizing("size"):  # the reference loop, run one conv row at a time
        call = lower(inner)
        pool = pool_params(op)
    base = next((b for b in BASES if call.kernel == b or call.kernel.startswith(b + "_")), None)
    if base is None:
        raise UnsupportedError(f"{op.where} '{op.name}': no row-wise pool variant of {call.kernel}")
    params = call.params if inner.fused else {f"k.{key}": value for key, value in call.params.items()}
    mid = inner.outputs[0]
    _, _, out_w, channels = mid.shape
    step = op.fused[-1]
    return Call(f"{base}_pool{call.kernel[len(base):]}", f"{base}_pool_params", {**params, **pool},
                list(call.inputs), [op.outputs[0]], [op, *(src for s in op.fused for src in s.sources)],
                (f"{base.replace('dwconv', 'conv')}_pool.c",),
                scratch=ring_rows(op) * out_w * channels * mid.dtype.size,
                notes=[f"{step.sources[0].kind.lower()} fused row by row: the conv output is never "
                       f"stored whole ({ring_rows(op)} of {mid.shape[1]} rows in scratch)"])
