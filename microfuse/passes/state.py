"""Assignments without a copy: the op computing the value an ASSIGN_VARIABLE stores writes it
straight into the state area (its output becomes the state tensor), and the ASSIGN goes away.

Sound when the value has no other use, and nothing between the producer and the assignment
reads or writes that state (the update only moves earlier, past ops that never see it). The
producer must not read state itself and must be a plain single-output kernel.
"""

from __future__ import annotations

from .. import ops as opdefs
from .. import views
from ..ir import Graph, Op


def _touches(op: Op, state) -> bool:
    return any(t is state for t in [*op.inputs, *op.outputs])


def _producer_for(graph: Graph, assign: Op, at: int) -> int | None:
    """Index of the op that may write `assign`'s value into its state directly, or None."""
    state, value = assign.inputs
    if value.is_const or value in graph.outputs or views.is_slice(value) or value.variable:
        return None
    for i in range(at - 1, -1, -1):
        op = graph.ops[i]
        if any(o is value for o in op.outputs):
            if (len(op.outputs) != 1 or op.fused or opdefs.REGISTRY[op.kind].alias
                    or op.kind in (views.CONCAT_VIEW,) or any(t is not None and t.variable for t in op.inputs)):
                return None
            users = [c for c in graph.ops if any(t is value for t in c.inputs)]
            return i if users == [assign] else None
        if _touches(op, state):
            return None
    return None


def assign_into_state(graph: Graph) -> Graph:
    ops = list(graph.ops)
    for at in range(len(ops) - 1, -1, -1):
        assign = ops[at]
        if assign.kind != "ASSIGN_VARIABLE":
            continue
        i = _producer_for(Graph(ops, graph.inputs, graph.outputs), assign, at)
        if i is None:
            continue
        p = ops[i]
        ops[i] = Op(p.kind, list(p.inputs), [assign.inputs[0]], p.attrs, p.name, p.index, list(p.fused))
        del ops[at]
    return Graph(ops, list(graph.inputs), list(graph.outputs), graph.name, dict(graph.metadata))
