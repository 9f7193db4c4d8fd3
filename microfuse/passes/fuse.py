"""Vertical fusion: a conv / depthwise / fully-connected / pool absorbs the element-wise ops that
follow it (unary activations, a residual ADD / SUB / MUL) as an epilogue applied in registers.

Every candidate is checked (the intermediate has one consumer and is not a graph output; the
dtypes and quantization allow it; a kernel variant exists — the fused op is lowered to make
sure), then weighed by the cost model; each decision and its reason goes to the log.
"""

from __future__ import annotations

from ..ir import DType, Epilogue, Graph, Op, with_step
from .cost import CostModel
from .pattern import Match, Pattern, Rewriter, Rule, graph_rewrite, replace

UNARY = ("RELU", "RELU6", "LEAKY_RELU", "HARD_SWISH", "LOGISTIC", "TANH")
BINARY = ("ADD", "SUB", "MUL")
PRODUCERS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D", "MAX_POOL_2D")
FUSABLE_DTYPES = (DType.INT8, DType.FLOAT32)


def kernel_problem(rw: Rewriter, ops: list[Op]) -> str | None:
    """Why one of `ops` has no kernel (the catalog's error text), or None."""
    return next((p for p in map(cost_model(rw).catalog.problem, ops) if p), None)


def accept(rw: Rewriter, rule: str, m: Match, new: list[Op]) -> list[Op] | None:
    """The shared tail of every fusion rewrite: a kernel must exist for the new ops (the
    catalog lowers them), ask the cost model, log the decision; the replacement or None."""
    problem = kernel_problem(rw, new)
    if problem:
        rw.decline(rule, m.all, f"no kernel: {problem}")
        return None
    verdict = cost_model(rw).judge(rw.graph, replace(rw.graph, m.all, new, m.anchor), rw.optimize)
    rw.decide(rule, m.all, verdict.fuse, verdict.reason)
    return new if verdict.fuse else None


def cost_model(rw: Rewriter) -> CostModel:
    if rw.cost is None:
        raise ValueError("fusion passes need the kernel catalog: run them with a passes.Context made "
                         "by build.pass_context (or give Context a catalog)")
    return rw.cost


def _same_dtype(*tensors) -> str | None:
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) != 1 or next(iter(dtypes)) not in FUSABLE_DTYPES:
        return f"dtypes {sorted(str(d) for d in dtypes)} (an epilogue keeps one int8 or float32 type)"
    return None


def fuse_unary(m: Match, rw: Rewriter) -> list[Op] | None:
    producer, act = m["producer"], m["act"]
    mid = producer.outputs[0]
    why = rw.view.private(mid, act) or _same_dtype(mid, act.outputs[0])
    if why:
        rw.decline("activation", m.all, why)
        return None
    step = Epilogue("unary", (act,), mid, act.outputs[0])
    return accept(rw, "activation", m, [with_step(producer, step)])


def fuse_binary(m: Match, rw: Rewriter) -> list[Op] | None:
    producer, binary = m["producer"], m["binary"]
    slot = m.slot["producer"]
    mid, other, out = producer.outputs[0], binary.inputs[1 - slot], binary.outputs[0]
    why = (rw.view.private(mid, binary) or _same_dtype(mid, other, out)
           or _operand_problem(producer, mid, other, out))
    if why:
        rw.decline("residual", m.all, why)
        return None
    step = Epilogue(binary.kind.lower(), (binary,), mid, out, other, operand_slot=1 - slot)
    return accept(rw, "residual", m, [with_step(producer, step)])


def _operand_problem(producer: Op, mid, other, out) -> str | None:
    if other is mid:
        return "both operands are the producer's output"
    if other.is_const:
        return f"the other operand '{other.name}' is a constant"
    if tuple(other.shape) != tuple(out.shape) or tuple(mid.shape) != tuple(out.shape):
        return (f"operand shapes {list(mid.shape)} and {list(other.shape)} differ "
                "(a broadcast is not read at the same index)")
    if any(step.kind != "unary" for step in producer.fused):
        return "the producer already has a binary epilogue"
    return None


RULES = [
    Rule("activation", Pattern(UNARY + ("QUANTIZE",), src=(Pattern(PRODUCERS, name="producer"),), name="act"),
         fuse_unary),
    Rule("residual", Pattern(BINARY, src=(Pattern(PRODUCERS, name="producer"),), name="binary",
                             commutative=True), fuse_binary),
]


def fuse(graph: Graph, rewriter: Rewriter | None = None) -> Graph:
    """The graph with every winning vertical fusion applied."""
    return graph_rewrite(graph, RULES, rewriter or Rewriter(graph))


__all__ = ["fuse", "RULES"]
