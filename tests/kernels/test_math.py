"""Conformance of the one-input math ops (ABS ... ZEROS_LIKE) against TFLite Micro, seeded: every
float32/bool/int kernel on random shapes, and the int8 tables (ABS, ELU, RSQRT) on all 256 inputs
for random quantizations and end to end. Float32 within 1e-5 relative."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import lut as luts
from microfuse.ir import DType, Graph
from microfuse.ops.math import UNARY_TYPES
from microfuse.testing.compare import difference
from microfuse.testing.modelgen import merge
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graph, check_graphs, reference
from tests.kernels.cases import rand_quant, single, tensor

ALL_BYTES = np.arange(-128, 128, dtype=np.int8)
TABLE_KINDS = ("ABS", "ELU", "RSQRT")


def random_shape(rng) -> tuple[int, ...]:
    return tuple(int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 5))))


def unary_case(rng, kind: str, dtype: DType, shape=None) -> Graph:
    shape = random_shape(rng) if shape is None else shape
    q = (lambda: rand_quant(rng, -2.0, -0.3)) if dtype == DType.INT8 else (lambda: None)
    return single(kind, [tensor("x", shape, dtype, q())], tensor("y", shape, dtype, q()))


CASES = [(k, t) for k, types in UNARY_TYPES.items() for t in sorted(types, key=str)
         if t != DType.INT8 or k not in TABLE_KINDS]


@pytest.mark.parametrize("kind,dtype", CASES, ids=[f"{k}-{t}" for k, t in CASES])
def test_unary_matches_tflm(kind, dtype):
    rng = np.random.default_rng(700 + CASES.index((kind, dtype)))
    check_graphs([unary_case(rng, kind, dtype) for _ in range(case_count(6))], rng, float_scale=3.0)


def rsqrt_domain(x: np.ndarray, graph: Graph) -> np.ndarray:
    """RSQRT int8 is an error in TFLM below the input zero point: those inputs are moved onto it."""
    return np.maximum(x, graph.ops[0].inputs[0].quant.zero_point[0]).astype(np.int8)


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_int8_table_equals_tflm_on_every_input(kind):
    rng = np.random.default_rng(800 + TABLE_KINDS.index(kind))
    graphs = [unary_case(rng, kind, DType.INT8, (256,)) for _ in range(case_count(10, 40))]
    if kind == "ABS":  # TFLM skips the rescale when the scales are equal
        graphs[0].ops[0].outputs[0].quant = graphs[0].ops[0].inputs[0].quant
    feeds = [rsqrt_domain(ALL_BYTES, g) if kind == "RSQRT" else ALL_BYTES.copy() for g in graphs]
    tables = [lower(g.ops[0]).params["lut"].data for g in graphs]
    (outs,) = reference(merge(graphs), [feeds])
    for i, (table, x, got) in enumerate(zip(tables, feeds, outs)):
        found = difference(luts.apply(table, x), np.asarray(got).reshape(-1), f"case {i} (x = index - 128)")
        assert found is None, found


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_int8_end_to_end(kind):
    rng = np.random.default_rng(900 + TABLE_KINDS.index(kind))
    graphs = [unary_case(rng, kind, DType.INT8) for _ in range(case_count(4))]
    graph = merge(graphs)
    feeds = []
    for _ in range(2):
        xs = [rng.integers(-128, 128, size=t.shape).astype(np.int8) for t in graph.inputs]
        feeds.append([rsqrt_domain(x, g) if kind == "RSQRT" else x for x, g in zip(xs, graphs)])
    check_graph(graph, samples=feeds)


def test_an_int16_input_is_refused_by_name():
    from microfuse import ops
    g = single("SIN", [tensor("x", (4,), DType.INT8, rand_quant(np.random.default_rng(1)))],
               tensor("y", (4,), DType.INT8, rand_quant(np.random.default_rng(2))))
    assert ops.problems(g.ops[0]) == ["input type int8 is not supported (supported: float32)"]


@pytest.mark.parametrize("kind", ["ROUND", "FLOOR", "CEIL"])
def test_halves_round_as_tflm(kind):
    """ROUND takes halves to even (TFLM's RoundToNearest), not away from zero."""
    x = np.concatenate([np.arange(-10, 11) / 2, [-0.0, 1e-8, -2.5000002]]).astype(np.float32)
    graph = single(kind, [tensor("x", x.shape, DType.FLOAT32)], tensor("y", x.shape, DType.FLOAT32))
    check_graph(graph, samples=[[x]], rtol=0, atol=0)
