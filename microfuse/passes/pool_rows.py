"""A MAX_POOL_2D or AVERAGE_POOL_2D fused into the conv / depthwise that produces its input, row by
row: the kernel (runtime_c/include/mf_pool_rows.h) computes the conv output a row at a time into
a ring of at most filter_h rows in scratch and emits each pooled row as soon as its window is
complete, so the conv output tensor is never stored whole.

The fused op is a CONV_POOL (ops/internal.py): the conv with its epilogue and the pool, whose
output it writes; lower/reduce.py lowers it. The conv runs the reference loop (no fast
kernel), so the cost model usually accepts it only where the arena drops enough to pay for
that. A global average pool is left to pool_fuse (no ring needed there).
"""

from __future__ import annotations

from ..ir import DType, Graph, Op
from ..ops.internal import CONV_POOL, reduced
from .fuse import accept
from .pattern import Match, Pattern, Rewriter, Rule, graph_rewrite
from .pool_fuse import is_global

RULE = "pool_rows"
PRODUCERS = ("CONV_2D", "DEPTHWISE_CONV_2D")
POOLS = ("MAX_POOL_2D", "AVERAGE_POOL_2D")


def _problem(m: Match, rw: Rewriter) -> str | None:
    producer, pool = m["producer"], m["pool"]
    mid, out = producer.outputs[0], pool.outputs[0]
    why = rw.view.private(mid, pool)
    if why:
        return why
    if mid.dtype not in (DType.INT8, DType.FLOAT32) or out.dtype != mid.dtype:
        return f"dtypes {mid.dtype} -> {out.dtype}"
    if len(mid.shape) != 4:
        return f"input rank {len(mid.shape)} (not NHWC)"
    if pool.fused:
        return "the pool carries an epilogue of its own"
    if mid.dtype == DType.INT8 and (mid.quant is None or out.quant is None
                                    or (mid.quant.scale, mid.quant.zero_point)
                                    != (out.quant.scale, out.quant.zero_point)):
        return "the pool's input and output quantization differ"
    return None


def fuse_pool_rows(m: Match, rw: Rewriter) -> list[Op] | None:
    producer, pool = m["producer"], m["pool"]
    if pool.kind == "AVERAGE_POOL_2D" and is_global(pool) is None:
        return None  # a global average: pool_fuse's pattern (it needs no ring of rows)
    why = _problem(m, rw)
    if why:
        rw.decline(RULE, m.all, why)
        return None
    return accept(rw, RULE, m, [reduced(CONV_POOL, producer, pool)])


RULES = [Rule(RULE, Pattern(POOLS, src=(Pattern(PRODUCERS, name="producer"),), name="pool"), fuse_pool_rows)]


def pool_rows(graph: Graph, rewriter: Rewriter | None = None) -> Graph:
    """The graph with every winning conv -> max / average pool fused row by row."""
    return graph_rewrite(graph, RULES, rewriter or Rewriter(graph))


__all__ = ["pool_rows", "RULES"]
