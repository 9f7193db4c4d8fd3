"""IF (the then or the else subgraph on a bool condition) and WHILE (the body while the cond
subgraph says so, on loop-carried tensors), as TFLM's if.cc and while.cc run them."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import DType, Op
from .attrs import Attrs
from .registry import OpDef, register


@dataclass(frozen=True, eq=False)
class IfAttrs(Attrs):
    then_subgraph_index: int = 0
    else_subgraph_index: int = 0
    branches: tuple = ()  # (then, else) Graphs, read by tflite/subgraphs.py
    IR_ONLY = ("branches",)


@dataclass(frozen=True, eq=False)
class WhileAttrs(Attrs):
    cond_subgraph_index: int = 0
    body_subgraph_index: int = 0
    branches: tuple = ()  # (cond, body) Graphs
    IR_ONLY = ("branches",)


def _infer_if(op: Op):
    return [(t.shape, t.dtype) for t in op.attrs.branches[0].outputs]


def _condition(op: Op) -> str | None:
    c = op.inputs[0] if op.inputs else None
    if c is None or c.dtype != DType.BOOL or c.elements != 1 or c.is_const:
        return "input 0 must be a run-time bool condition of one element"
    return None


def _same(mine, its) -> bool:
    return len(mine) == len(its) and all(tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype
                                         for a, b in zip(mine, its))


def _branches_match(op: Op) -> str | None:
    """Each branch takes the op's operands and gives its outputs, same shapes and types (no dynamic shapes)."""
    for name, g in zip(("then", "else"), op.attrs.branches):
        pairs = [("input", list(op.inputs[1:]), g.inputs), ("output", list(op.outputs), g.outputs)]
        for what, mine, its in pairs:
            if not _same(mine, its):
                return (f"the {name} subgraph's {what}s differ from the op's in number, shape or type; microfuse "
                        "needs static shapes (as TFLM)")
    if any(t.is_const for g in op.attrs.branches for t in g.outputs):
        return "a branch output is a constant; microfuse copies only computed tensors out of a branch"
    return None


def _loop_matches(op: Op) -> str | None:
    """The loop-carried tensors: the op's inputs, its outputs, cond's and body's inputs and
    body's outputs all alike (TFLM's while.cc; static shapes, as TFLM needs); cond gives one bool."""
    cond, body = op.attrs.branches
    carried = list(op.inputs)
    if not all(_same(carried, ts) for ts in (list(op.outputs), cond.inputs, body.inputs, body.outputs)):
        return ("the loop-carried tensors (inputs, outputs, cond and body inputs, body outputs) differ in number, "
                "shape or type; microfuse needs static shapes in a loop (as TFLM)")
    if len(cond.outputs) != 1 or cond.outputs[0].dtype != DType.BOOL or cond.outputs[0].elements != 1:
        return "the cond subgraph must give one bool of one element"
    if any(t.is_const for g in op.attrs.branches for t in g.outputs):
        return "a cond or body output is a constant; microfuse copies only computed tensors out of a subgraph"
    return None


register(
    OpDef("IF", IfAttrs, _infer_if, (_condition, _branches_match),
          dtypes=frozenset({DType.BOOL}),
          listed="a bool condition, then any operands: runs the then or else subgraph (static shapes, "
                 "no resources inside)"),
    OpDef("WHILE", WhileAttrs, lambda op: [(t.shape, t.dtype) for t in op.inputs],
          (_loop_matches,), dtypes=frozenset(DType),
          listed="loop-carried tensors of any type: runs the body while the cond subgraph says so "
                 "(static shapes, no resources inside)"),
)
