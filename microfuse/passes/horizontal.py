"""Horizontal fusion: sibling CONV_2D (or FULLY_CONNECTED) ops that read the same input with the
same geometry become one SIBLINGS op — one kernel call over their concatenated filters, each
output-channel range written to its own tensor (runtime_c/include/mf_multi.h).

Siblings qualify when they are int8, read the same tensor (so the same input quantization),
have no epilogue of their own (vertical fusion ran first), and share the kernel size,
strides, padding and dilation (conv) or the input depth and output shape (fully-connected).
Each sibling keeps its own output quantization and activation: with per-channel multipliers
the fused kernel computes every channel exactly as the sibling's own kernel does (the
lowering, lower/siblings.py, concatenates the siblings' own reference-kernel constants).
Up to MAX_SIBLINGS join one call; the cost model decides, and every candidate is logged.
"""

from __future__ import annotations

from ..ir import DType, Graph, Op, Tensor
from ..ops.common import window_pads
from ..ops.internal import MAX_SIBLINGS, SIBLINGS, SiblingAttrs
from .fuse import cost_model, kernel_problem
from .pattern import Rewriter, View, replace

RULE = "horizontal"
KINDS = ("CONV_2D", "FULLY_CONNECTED")


def geometry(op: Op) -> tuple | None:
    """What siblings must share besides their input (None: not a conv / fully-connected with
    constant weights)."""
    w = op.inputs[1] if len(op.inputs) > 1 else None
    if op.kind not in KINDS or op.inputs[0] is None or w is None or not w.is_const:
        return None
    if op.kind == "FULLY_CONNECTED":
        return (op.kind, w.shape[1], tuple(op.outputs[0].shape[:-1]))
    a = op.attrs
    return (op.kind, w.shape[1], w.shape[2], a.stride_h, a.stride_w, a.dilation_h, a.dilation_w,
            window_pads(op))


def unfit(op: Op) -> str | None:
    """Why a would-be sibling cannot join a fused call, or None."""
    if op.fused:
        return "it has an epilogue"
    if op.inputs[0].dtype != DType.INT8 or op.outputs[0].dtype != DType.INT8:
        return f"it is {op.inputs[0].dtype}, not int8"
    return None


def horizontal(graph: Graph, rewriter: Rewriter | None = None) -> Graph:
    """The graph with every winning group of siblings fused into one call."""
    rw = rewriter or Rewriter(graph)
    tried: set[tuple[int, ...]] = set()
    while True:
        rw.view = View(graph)
        changed = None
        for group in _groups(graph, rw.view, rw):
            key = tuple(sorted(id(op) for op in group))
            if key in tried:
                continue
            tried.add(key)
            changed = _fuse(group, rw)
            if changed is not None:
                break
        if changed is None:
            return graph
        graph = changed


def _groups(graph: Graph, view: View, rw: Rewriter) -> list[list[Op]]:
    """Candidate sibling groups (two or more readers of one input with one geometry), per input
    in first-use order; a reader that matches but cannot join is logged as declined."""
    found = []
    seen: set[int] = set()
    for op in graph.ops:
        for x in op.inputs[:1]:
            if x is None or x.is_const or id(x) in seen:
                continue
            seen.add(id(x))
            by_key: dict[tuple, list[Op]] = {}
            for r in view.consumers(x):
                key = geometry(r) if r.inputs[0] is x else None
                if key is not None:
                    by_key.setdefault(key, []).append(r)
            for group in by_key.values():
                if len(group) < 2:
                    continue
                for r in group:
                    if unfit(r):
                        rw.decline(RULE, group, f"{r.where}: {unfit(r)}")
                fit = [r for r in group if not unfit(r)]
                if len(fit) > 1:
                    found.append(fit[:MAX_SIBLINGS])
    return found


def _fuse(group: list[Op], rw: Rewriter) -> Graph | None:
    outputs: list[Tensor] = [op.outputs[0] for op in group]
    fused = Op(SIBLINGS, [group[0].inputs[0]], outputs, SiblingAttrs(tuple(group)),
               "+".join(op.name for op in group), group[0].index)
    problem = kernel_problem(rw, [fused])
    if problem:
        rw.decline(RULE, group, f"no kernel: {problem}")
        return None
    after = replace(rw.graph, group, [fused], group[0])  # the first sibling's place: the input is ready
    verdict = cost_model(rw).judge(rw.graph, after, rw.optimize)
    rw.decide(RULE, group, verdict.fuse, verdict.reason)
    return after if verdict.fuse else None


__all__ = ["horizontal", "SIBLINGS", "SiblingAttrs", "RULE"]
