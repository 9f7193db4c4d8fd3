"""Lowering of IF and WHILE: each subgraph (then/else, cond/body) is checked and lowered here and
planned on its own by the pipeline (pipeline.plan_branches: plan/ imports lower/); it runs in
the op's call's scratch (the planner keeps it clear of every tensor alive at that step; the two
subgraphs never run at once, so they share it). The emitter writes the C: the copies in and
out and the loop of TFLM's if.cc and while.cc around the subgraphs' calls."""

from __future__ import annotations

from dataclasses import dataclass

from .. import ops as opdefs
from .. import views
from ..errors import MicrofuseError, UnsupportedError
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
    calls: dict[int, Call]  # by id(op); pipeline.plan_branches orders them as planned
    plan: object = None  # plan.Plan of the subgraph alone (offsets from the op's call's scratch)
    order: list[Call] | None = None


def branch(op: Op, name: str, graph: Graph, lw) -> Branch:
    """The subgraph's ops checked like the main graph's (the message names the op) and lowered."""
    found = opdefs.blockers(graph.ops, graph.outputs)
    if found:
        raise UnsupportedError(f"{op.where} '{op.name}': {name} subgraph {found[0][1]}")
    try:
        opdefs.verify(graph)
        calls = {id(o): lw.lower(o) for o in graph.ops if not opdefs.REGISTRY[o.kind].alias}
    except MicrofuseError as e:
        raise UnsupportedError(f"{op.where} '{op.name}': {name} subgraph: {e}") from None
    kept = next((c for c in calls.values() if c.state), None)
    if kept is not None:  # its state area place is planned for main-graph calls only
        raise UnsupportedError(f"{op.where} '{op.name}': {name} subgraph {kept.op.where}: a kernel that keeps "
                               "state between invokes; microfuse runs those in the main subgraph only")
    return Branch(graph, calls)


@lowering("IF", DType.BOOL)
@lowering("WHILE", *DType)
def lower_control(op: Op, lw) -> Call:
    if op.fused:
        raise UnsupportedError(f"{op.where} '{op.name}': {op.kind} takes no fused epilogue")
    if any(views.strided(t) for t in [*op.inputs, *op.outputs]):  # the copies are one run of bytes each
        raise UnsupportedError(f"{op.where} '{op.name}': a strided view operand; {op.kind} copies dense tensors")
    names = ("then", "else") if op.kind == "IF" else ("cond", "body")
    call = Call(SPECS[op.kind], {}, list(op.inputs), list(op.outputs), [op])
    call.branches = [branch(op, n, g, lw) for n, g in zip(names, op.attrs.branches)]
    return call
