"""int8 unary ops as lookup tables: every one of the 256 inputs against TFLite Micro for random
quantization, chains composed into one table, and the end-to-end kernels (int8 LUT, float32)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import lut as luts
from microfuse.ir import DType, Graph, Op, Quant
from microfuse.ops.attrs import LeakyReluAttrs
from microfuse.testing.compare import difference
from microfuse.testing.modelgen import merge
from microfuse.testing.ptq import f32
from tests.harness import case_count, check_graphs, reference
from tests.kernels.cases import rand_quant, single, tensor

KINDS = ("RELU", "RELU6", "LEAKY_RELU", "HARD_SWISH", "LOGISTIC", "TANH")
ALL_BYTES = np.arange(-128, 128, dtype=np.int8)


def out_quant(rng, kind: str, in_q: Quant) -> Quant:
    if kind == "LOGISTIC":
        return Quant((1 / 256,), (-128,))
    if kind == "TANH":
        return Quant((1 / 128,), (0,))
    if kind == "HARD_SWISH":  # TFLM needs output scale > input scale / 128
        return Quant((f32(in_q.scale[0] * 10 ** rng.uniform(-1.5, 0.5)),), (int(rng.integers(-128, 128)),))
    return rand_quant(rng)


def unary_op(rng, kind: str, shape=(256,), in_q: Quant | None = None, src=None) -> Op:
    in_q = in_q or rand_quant(rng, -2.0, -0.3)
    x = src if src is not None else tensor("x", shape, quant=in_q)
    attrs = LeakyReluAttrs(f32(rng.uniform(-0.5, 1.5))) if kind == "LEAKY_RELU" else None
    y = tensor(kind.lower(), x.shape, quant=out_quant(rng, kind, x.quant))
    return Op(kind, [x], [y], attrs, name=kind.lower())


def tflm_on_all_bytes(graphs: list[Graph]) -> list[np.ndarray]:
    """Each graph's output for the input -128..127 (one merged model, one TFLM run)."""
    graph = merge(graphs)
    (outs,) = reference(graph, [[ALL_BYTES.copy() for _ in graph.inputs]])
    return [np.asarray(o).reshape(-1) for o in outs]


@pytest.mark.parametrize("kind", KINDS)
def test_lut_equals_tflm_on_every_input(kind):
    rng = np.random.default_rng(KINDS.index(kind))
    ops = [unary_op(rng, kind) for _ in range(case_count(10, 40))]
    tables = [luts.lut_for(op) for op in ops]
    graphs = [Graph([op], [op.inputs[0]], [op.outputs[0]]) for op in ops]
    for i, (table, got) in enumerate(zip(tables, tflm_on_all_bytes(graphs))):
        found = difference(luts.apply(table, ALL_BYTES), got, f"case {i} (the table at x = index - 128)")
        assert found is None, found


def test_requantize_lut_equals_tflm():
    rng = np.random.default_rng(11)
    ops = []
    for _ in range(case_count(10, 30)):
        x = tensor("x", (256,), quant=rand_quant(rng))
        ops.append(Op("QUANTIZE", [x], [tensor("y", (256,), quant=rand_quant(rng))], None, name="requantize"))
    graphs = [Graph([op], [op.inputs[0]], [op.outputs[0]]) for op in ops]
    for op, got in zip(ops, tflm_on_all_bytes(graphs)):
        np.testing.assert_array_equal(luts.apply(luts.lut_for(op), ALL_BYTES), got)


def test_chain_composes_into_one_table():
    rng = np.random.default_rng(12)
    graphs, tables = [], []
    for _ in range(case_count(8, 30)):
        kinds = [KINDS[int(k)] for k in rng.integers(0, len(KINDS), size=int(rng.integers(2, 4)))]
        x = tensor("x", (256,), quant=rand_quant(rng, -2.0, -0.3))
        ops, t = [], x
        for kind in kinds:
            op = unary_op(rng, kind, src=t)
            ops.append(op)
            t = op.outputs[0]
        graphs.append(Graph(ops, [x], [t]))
        tables.append(luts.compose([luts.lut_for(op) for op in ops]))
    for i, (table, got) in enumerate(zip(tables, tflm_on_all_bytes(graphs))):
        assert np.array_equal(luts.apply(table, ALL_BYTES), got), f"chain {i}: {[o.kind for o in graphs[i].ops]}"


def test_compose_applies_in_order():
    neg = (-ALL_BYTES.astype(np.int32)).clip(-128, 127).astype(np.int8)[np.argsort(ALL_BYTES.view(np.uint8))]
    inc = (ALL_BYTES.astype(np.int32) + 1).clip(-128, 127).astype(np.int8)[np.argsort(ALL_BYTES.view(np.uint8))]
    both = luts.compose([inc, neg])  # -min(x + 1, 127)
    assert luts.apply(both, np.array([5, -128, 127], np.int8)).tolist() == [-6, 127, -127]


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=["int8", "float32"])
def test_unary_kernels_match_tflm(dtype):
    rng = np.random.default_rng(20 + (dtype == DType.INT8))
    graphs = []
    for i in range(case_count(2, 5) * len(KINDS)):
        kind = KINDS[i % len(KINDS)]
        shape = tuple(int(d) for d in rng.integers(1, 6, size=int(rng.integers(1, 5))))
        if dtype == DType.INT8:
            op = unary_op(rng, kind, shape)
        else:
            x = tensor("x", shape, DType.FLOAT32)
            attrs = LeakyReluAttrs(f32(rng.uniform(-0.5, 1.5))) if kind == "LEAKY_RELU" else None
            op = Op(kind, [x], [tensor("y", shape, DType.FLOAT32)], attrs)
        graphs.append(single(kind, op.inputs, op.outputs[0], op.attrs))
    check_graphs(graphs, rng)
