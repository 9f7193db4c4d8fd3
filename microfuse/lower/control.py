"""Lowering of IF and WHILE: each subgraph (then/else, cond/body) is lowered and planned on its
own, and runs in the op's call's scratch (the planner keeps it clear of every tensor alive at
that step; the two subgraphs never run at once, so they share it). The emitter writes the C:
the copies in and out and the loop of TFLM's if.cc and while.cc around the subgraphs' calls."""

from __future__ import annotations

from dataclasses import dataclass

from .. import views
from ..errors import UnsupportedError
from ..ir import DType, Graph, Op
from .call import Call
from .kernels import KernelSpec
from .registry import lowering


@dataclass(frozen=True)
class ControlSpec(KernelSpec):
    """Control flow: emitted as C statements (emit/c.py), no runtime_c kernel of its own."""

    @property
    def files(self) -> tuple[str, ...]:
        return ()

    @property
    def code_bytes(self) -> int:
        return 0

    @property
    def fields(self) -> tuple[str, ...]:
        return ()


SPECS = {"IF": ControlSpec("mf_if", "", ""), "WHILE": ControlSpec("mf_while", "", "")}


@dataclass(eq=False)
class Branch:
    graph: Graph
    calls: list[Call]  # in the plan's order
    plan: object  # plan.Plan of the branch alone (offsets from the IF call's scratch)


def branch(graph: Graph, lw) -> Branch:
    from ..pipeline import _lower_all, _plan

    calls = _lower_all(graph, lw)
    own = _plan(graph, calls)
    return Branch(graph, [calls[id(op)] for op in own.order if id(op) in calls], own)


@lowering("IF", DType.BOOL)
@lowering("WHILE", *DType)
def lower_control(op: Op, lw) -> Call:
    if op.fused:
        raise UnsupportedError(f"{op.where} '{op.name}': {op.kind} takes no fused epilogue")
    if any(views.strided(t) for t in [*op.inputs, *op.outputs]):  # the copies are one run of bytes each
        raise UnsupportedError(f"{op.where} '{op.name}': a strided view operand; {op.kind} copies dense tensors")
    branches = [branch(g, lw) for g in op.attrs.branches]
    call = Call(SPECS[op.kind], {}, list(op.inputs), list(op.outputs), [op],
                scratch=max(b.plan.arena_bytes for b in branches))
    call.branches = branches
    return call
