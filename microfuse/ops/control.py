"""IF: run the then or the else subgraph on a bool condition, as TFLM's if.cc (copies in and out)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import MicrofuseError
from ..ir import DType, Op
from .attrs import Attrs
from .registry import OpDef, register


@dataclass(frozen=True, eq=False)
class IfAttrs(Attrs):
    then_subgraph_index: int = 0
    else_subgraph_index: int = 0
    branches: tuple = ()  # (then, else) Graphs, read by tflite/subgraphs.py
    IR_ONLY = ("branches",)


def _infer_if(op: Op):
    return [(t.shape, t.dtype) for t in op.attrs.branches[0].outputs]


def _condition(op: Op) -> str | None:
    c = op.inputs[0] if op.inputs else None
    if c is None or c.dtype != DType.BOOL or c.elements != 1 or c.is_const:
        return "input 0 must be a run-time bool condition of one element"
    return None


def _branches_match(op: Op) -> str | None:
    """Each branch takes the op's operands and gives its outputs, same shapes and types (no dynamic shapes)."""
    for name, g in zip(("then", "else"), op.attrs.branches):
        pairs = [("input", list(op.inputs[1:]), g.inputs), ("output", list(op.outputs), g.outputs)]
        for what, mine, its in pairs:
            if len(mine) != len(its) or any(tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype
                                            for a, b in zip(mine, its)):
                return (f"the {name} subgraph's {what}s differ from the op's in number, shape or type; microfuse "
                        "needs static shapes (as TFLM)")
    if any(t.is_const for t in op.inputs[1:]):
        return "a constant operand; microfuse copies only run-time tensors into a branch"
    if any(t.is_const for g in op.attrs.branches for t in g.outputs):
        return "a branch output is a constant; microfuse copies only computed tensors out of a branch"
    return None


def _branches_compile(op: Op) -> str | None:
    from . import blockers, verify

    for name, g in zip(("then", "else"), op.attrs.branches):
        found = blockers(g.ops, g.outputs)
        if found:
            return f"{name} subgraph {found[0][1]}"
        try:
            verify(g)
        except MicrofuseError as e:
            return f"{name} subgraph: {e}"
    return None


register(OpDef("IF", IfAttrs, _infer_if, (_condition, _branches_match, _branches_compile),
               dtypes=frozenset({DType.BOOL}),
               listed="a bool condition, then any operands: runs the then or else subgraph (static shapes, "
                      "no resources inside)"))
