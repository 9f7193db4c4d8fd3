"""A global AVERAGE_POOL_2D or MEAN over height and width fused into the conv / depthwise that
produces its input: the conv output (often the largest tensor at the end of a CNN) is never
materialized; the kernel (runtime_c/include/mf_gap.h) sums each channel's values, computed
exactly as the unfused conv and its epilogue store them, and applies the pool's or MEAN's own
arithmetic at the end.

The fused op is a CONV_GAP (ops/internal.py): the conv with its epilogue and the pool, whose
output it writes; lower/reduce.py lowers it. The cost model decides: the conv runs the
reference loop pixel by pixel (no fast kernel), so under --optimize speed it rarely wins.
"""

from __future__ import annotations

import numpy as np

from ..ir import DType, Graph, Op
from ..ops.common import window_pads
from ..ops.internal import CONV_GAP, reduced
from .fuse import accept
from .pattern import Match, Pattern, Rewriter, Rule, graph_rewrite

RULE = "global_pool"
PRODUCERS = ("CONV_2D", "DEPTHWISE_CONV_2D")


def is_global(pool: Op) -> str | None:
    """None if `pool` averages each channel over the whole image, else why not."""
    x = pool.inputs[0]
    if len(x.shape) != 4:
        return f"input rank {len(x.shape)} (not NHWC)"
    _, h, w, _ = x.shape
    if pool.kind == "MEAN":
        axes = pool.inputs[1] if len(pool.inputs) > 1 else None
        if axes is None or not axes.is_const:
            return "MEAN axes are not constant"
        if sorted({int(a) % 4 for a in np.asarray(axes.data).reshape(-1)}) != [1, 2]:
            return "MEAN does not reduce exactly height and width"
        return None
    a = pool.attrs
    top, _, left, _ = window_pads(pool)
    _, oh, ow, _ = pool.outputs[0].shape
    if (oh, ow) != (1, 1) or a.filter_h - top < h or a.filter_w - left < w:
        return "the pool window does not cover the whole image"
    return None


def _problem(m: Match, rw: Rewriter) -> str | None:
    producer, pool = m["producer"], m["pool"]
    mid = producer.outputs[0]
    why = rw.view.private(mid, pool)
    if why:
        return why
    if pool.inputs[0] is not mid:
        return "the conv output is not the pooled input"
    if mid.dtype not in (DType.INT8, DType.FLOAT32) or pool.outputs[0].dtype != mid.dtype:
        return f"dtypes {mid.dtype} -> {pool.outputs[0].dtype}"
    return None


def fuse_global_pool(m: Match, rw: Rewriter) -> list[Op] | None:
    producer, pool = m["producer"], m["pool"]
    if is_global(pool) is not None:
        return None  # a local pool or a partial MEAN: not a candidate of this pattern
    why = _problem(m, rw)
    if why:
        rw.decline(RULE, m.all, why)
        return None
    return accept(rw, RULE, m, [reduced(CONV_GAP, producer, pool)])


RULES = [Rule(RULE, Pattern(("AVERAGE_POOL_2D", "MEAN"), src=(Pattern(PRODUCERS, name="producer"),),
                            name="pool"), fuse_global_pool)]


def pool_fuse(graph: Graph, rewriter: Rewriter | None = None) -> Graph:
    """The graph with every winning conv -> global average pool / MEAN fused."""
    return graph_rewrite(graph, RULES, rewriter or Rewriter(graph))


__all__ = ["pool_fuse", "RULES", "is_global"]
