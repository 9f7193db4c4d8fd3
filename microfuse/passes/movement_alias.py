"""Data-movement ops that copy their input unchanged (ops/movement.py identity_copy) become
RESHAPEs: an alias of the input's buffer, no call and no copy."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Graph, Op, Tensor
from ..ops.attrs import ReshapeAttrs
from ..ops.movement import identity_copy

KINDS = ("TRANSPOSE", "SLICE", "STRIDED_SLICE", "REVERSE_V2", "BROADCAST_TO", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH")


def _as_reshape(op: Op) -> Op:
    out = op.outputs[0]
    shape = Tensor(f"{out.name}_shape", (len(out.shape),), DType.INT32, data=np.array(out.shape, np.int32))
    return Op("RESHAPE", [op.inputs[0], shape], op.outputs, ReshapeAttrs(tuple(out.shape)), op.name, op.index)


def alias_identity_copies(graph: Graph) -> Graph:
    """A new graph with every identity copy replaced by a RESHAPE (the graph itself if none)."""
    ops = [_as_reshape(op) if op.kind in KINDS and identity_copy(op) else op for op in graph.ops]
    if all(a is b for a, b in zip(ops, graph.ops)):
        return graph
    return Graph(ops, list(graph.inputs), list(graph.outputs), graph.name, dict(graph.metadata))
