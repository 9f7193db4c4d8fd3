"""Constant folding: evaluate ops whose inputs are known at compile time (SHAPE of a static
activation, STRIDED_SLICE / PACK / RESHAPE ... of constants) and replace their outputs by data."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir import DType, Graph, Op, Tensor
from ..ops.shape import strided_slice_ranges
from .fold_movement import MOVEMENT

Evaluator = Callable[[Op], np.ndarray]


def _shape(op: Op) -> np.ndarray:
    # The shape of every tensor is static, so SHAPE folds even when its input is an activation.
    dtype = op.outputs[0].dtype.np
    return np.array(op.inputs[0].shape, dtype=dtype)


def _strided_slice(op: Op) -> np.ndarray:
    data = np.asarray(op.inputs[0].data)
    for axis, r in reversed(list(enumerate(strided_slice_ranges(op)))):
        # take() with a list handles reversed ranges; an int index drops the axis (shrink mask)
        data = np.take(data, r if isinstance(r, int) else list(r), axis=axis)
    return data


def _pack(op: Op) -> np.ndarray:
    return np.stack([np.asarray(t.data) for t in op.inputs], axis=op.attrs.axis % (len(op.inputs[0].shape) + 1))


def _reshape(op: Op) -> np.ndarray:
    return np.asarray(op.inputs[0].data).reshape(op.outputs[0].shape)


def _concat(op: Op) -> np.ndarray:
    return np.concatenate([np.asarray(t.data) for t in op.inputs], axis=op.attrs.axis % len(op.inputs[0].shape))


def _int_binary(fn) -> Evaluator:
    def evaluate(op: Op) -> np.ndarray:
        a, b = (np.asarray(t.data) for t in op.inputs)
        return fn(a, b).astype(op.outputs[0].dtype.np)
    return evaluate


EVALUATORS: dict[str, Evaluator] = {
    "SHAPE": _shape,
    "STRIDED_SLICE": _strided_slice,
    "PACK": _pack,
    "RESHAPE": _reshape,
    "SQUEEZE": _reshape,
    "EXPAND_DIMS": _reshape,
    "CONCATENATION": _concat,
    # integer shape arithmetic (unquantized int32/int64 only, see _foldable)
    "ADD": _int_binary(np.add),
    "SUB": _int_binary(np.subtract),
    "MUL": _int_binary(np.multiply),
}
EVALUATORS.update(MOVEMENT)  # TRANSPOSE, SLICE, GATHER, FILL, BROADCAST_ARGS ... of constants
_NEEDS_UNQUANTIZED_INT = {"ADD", "SUB", "MUL"}
_INT = {DType.INT32, DType.INT64}


def _foldable(op: Op, graph_outputs: set[int]) -> bool:
    if op.kind not in EVALUATORS or len(op.outputs) != 1 or id(op.outputs[0]) in graph_outputs:
        return False  # a graph output must stay an arena tensor the caller can read
    present = [t for t in op.inputs if t is not None]
    if not present:
        return False
    if op.kind == "SHAPE":
        return True
    if not all(t.is_const for t in present):
        return False
    if op.kind in _NEEDS_UNQUANTIZED_INT:
        return all(t.dtype in _INT and t.quant is None for t in [*present, *op.outputs]) and \
            getattr(op.attrs, "activation", "NONE") == "NONE"
    return True


def fold_constants(graph: Graph) -> Graph:
    """A new graph where every foldable op is gone and its output is a constant tensor."""
    outputs = {id(t) for t in graph.outputs}
    replaced: dict[int, Tensor] = {}
    ops: list[Op] = []
    for op in graph.ops:
        inputs = [None if t is None else replaced.get(id(t), t) for t in op.inputs]
        current = Op(op.kind, inputs, op.outputs, op.attrs, op.name, op.index, list(op.fused))
        if _foldable(current, outputs):
            out = op.outputs[0]
            value = EVALUATORS[op.kind](current).astype(out.dtype.np).reshape(out.shape)
            replaced[id(out)] = Tensor(out.name, out.shape, out.dtype, out.quant, value, out.index)
            continue
        ops.append(current if any(a is not b for a, b in zip(inputs, op.inputs)) else op)
    return Graph(ops, list(graph.inputs), list(graph.outputs), graph.name, dict(graph.metadata))
