"""Constant folding: a Keras-Flatten-like SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE chain becomes one
RESHAPE with a constant shape, bit-exact in TFLM before and after; unfoldable ops stay."""

from __future__ import annotations

import numpy as np

from microfuse import oracle
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.ops.attrs import ActivationAttrs, PackAttrs, ReshapeAttrs, ShapeAttrs, StridedSliceAttrs
from microfuse.passes.fold import fold_constants
from microfuse.tflite.writer import write

Q = Quant((0.05,), (3,))


def _const(name: str, values) -> Tensor:
    data = np.array(values, np.int32)
    return Tensor(name, data.shape, DType.INT32, data=data)


def flatten_graph() -> Graph:
    """x [1,3,4,2] int8 -> RELU -> Flatten (SHAPE, STRIDED_SLICE, PACK, RESHAPE) -> [1, 24]."""
    x = Tensor("x", (1, 3, 4, 2), DType.INT8, Q)
    r = Tensor("relu", (1, 3, 4, 2), DType.INT8, Q)
    shape = Tensor("shape", (4,), DType.INT32)
    batch = Tensor("batch", (), DType.INT32)
    packed = Tensor("packed", (2,), DType.INT32)
    y = Tensor("flat", (1, 24), DType.INT8, Q)
    ops = [
        Op("RELU", [x], [r], None, "relu", 0),
        Op("SHAPE", [r], [shape], ShapeAttrs(2), "shape", 1),
        Op("STRIDED_SLICE", [shape, _const("begin", [0]), _const("end", [1]), _const("strides", [1])], [batch],
           StridedSliceAttrs(shrink_axis_mask=1), "slice", 2),
        Op("PACK", [batch, Tensor("minus1", (), DType.INT32, data=np.array(-1, np.int32))], [packed],
           PackAttrs(2, 0), "pack", 3),
        Op("RESHAPE", [r, packed], [y], ReshapeAttrs(()), "reshape", 4),
    ]
    graph = Graph(ops, [x], [y], name="flatten")
    graph.verify()
    return graph


def test_flatten_chain_folds_to_one_reshape_with_constant_shape():
    graph = flatten_graph()
    folded = fold_constants(graph)
    folded.verify()
    assert [op.kind for op in folded.ops] == ["RELU", "RESHAPE"]
    shape_input = folded.ops[1].inputs[1]
    assert shape_input.is_const and shape_input.data.tolist() == [1, -1]
    assert [op.kind for op in graph.ops] == ["RELU", "SHAPE", "STRIDED_SLICE", "PACK", "RESHAPE"]  # untouched
    x = np.random.default_rng(0).integers(-128, 128, size=(1, 3, 4, 2)).astype(np.int8)
    before = oracle.run(write(graph), [x])[0]
    after = oracle.run(write(folded), [x])[0]
    assert before.tobytes() == after.tobytes()


def test_ops_on_activations_and_graph_outputs_stay():
    a = Tensor("a", (2,), DType.INT32)
    out = Tensor("sum", (2,), DType.INT32)
    c = _const("c", [1, 2])
    shape = Tensor("s", (1,), DType.INT32)
    g = Graph([Op("ADD", [a, c], [out], ActivationAttrs(), "add", 0), Op("SHAPE", [a], [shape], ShapeAttrs(2), "sh", 1)],
              [a], [out, shape])
    folded = fold_constants(g)
    assert [op.kind for op in folded.ops] == ["ADD", "SHAPE"]  # an activation operand; a graph output


def test_constant_integer_arithmetic_folds():
    mid = Tensor("mid", (2,), DType.INT32)
    x, y = Tensor("x", (8, 2), DType.FLOAT32), Tensor("y", (4, 4), DType.FLOAT32)
    g = Graph([Op("MUL", [_const("a", [2, 2]), _const("b", [2, 2])], [mid], ActivationAttrs(), "mul", 0),
               Op("RESHAPE", [x, mid], [y], ReshapeAttrs(()), "reshape", 1)], [x], [y])
    g.verify()
    folded = fold_constants(g)
    assert [op.kind for op in folded.ops] == ["RESHAPE"]
    assert folded.ops[0].inputs[1].data.tolist() == [4, 4]
