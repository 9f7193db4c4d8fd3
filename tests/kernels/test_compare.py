"""Conformance of the comparisons (EQUAL ... LESS_EQUAL: float32, int32, int64, int8 with TFLM's rescaling,
bool) and LOGICAL_AND / LOGICAL_OR against TFLite Micro, seeded: broadcasting up to rank 4 (5 for
equal shapes), a constant operand on either side, values drawn from few levels so ties occur."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Quant
from microfuse.ops.compare import COMPARE_TYPES
from microfuse.testing.modelgen import merge
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graph
from tests.kernels.cases import rand_quant, single, tensor
from tests.kernels.test_elementwise import random_shapes

F32, I8, I32, BOOL = DType.FLOAT32, DType.INT8, DType.INT32, DType.BOOL


def values(rng, t, shape) -> np.ndarray:
    """Few distinct values (ties are common); float NaN now and then; int8 near the zero point."""
    if t.dtype == F32:
        x = (rng.integers(-3, 4, size=shape) / 2).astype(np.float32)
        if x.size and rng.random() < 0.3:
            x.reshape(-1)[0] = np.nan
        return x
    if t.dtype == BOOL:
        return rng.integers(0, 2, size=shape).astype(bool)
    if t.dtype == I8:
        wide = rng.random() < 0.3
        x = rng.integers(-128, 128, size=shape) if wide else rng.integers(-6, 7, size=shape) + t.quant.zero_point[0]
        return np.clip(x, -128, 127).astype(np.int8)
    x = rng.integers(-3, 4, size=shape).astype(t.dtype.np)
    if t.dtype == DType.INT64:  # beyond 32 bits: only the high word differs
        x += (rng.integers(-1, 2, size=shape) << 40).astype(np.int64)
    return x


def compare_case(rng, kind: str, dtype: DType):
    sa, sb = random_shapes(rng, 4)
    if rng.random() < 0.2:  # equal shapes: any rank
        sa = sb = tuple(int(rng.integers(1, 4)) for _ in range(5))
    qa = rand_quant(rng, -2, -0.2) if dtype == I8 else None
    qb = (qa if rng.random() < 0.5 else rand_quant(rng, -2, -0.2)) if dtype == I8 else None
    if dtype == I8 and rng.random() < 0.3:  # the same real value on different grids
        qb = Quant((qa.scale[0] * (2 if qa.scale[0] < 0.5 else 0.5),), (qa.zero_point[0] // 2,))
    a, b = tensor("a", sa, dtype, qa), tensor("b", sb, dtype, qb)
    if rng.random() < 0.3:
        const = b if rng.random() < 0.7 else a
        const.data = values(rng, const, const.shape)
    out = tensor("out", tuple(np.broadcast_shapes(sa, sb)), BOOL)
    return single(kind, [a, b], out)


def run(graphs, rng):
    graph = merge(graphs)
    feeds = [[values(rng, t, t.shape) for t in graph.inputs] for _ in range(2)]
    check_graph(graph, samples=feeds)


CASES = [(k, t) for k, types in COMPARE_TYPES.items() for t in sorted(types, key=str)]


@pytest.mark.parametrize("kind,dtype", CASES, ids=[f"{k}-{t}" for k, t in CASES])
def test_compare_matches_tflm(kind, dtype):
    rng = np.random.default_rng(1000 + CASES.index((kind, dtype)))
    graphs = [compare_case(rng, kind, dtype) for _ in range(case_count(10))]
    assert any(g.ops[0].inputs[0].shape != g.ops[0].inputs[1].shape for g in graphs)  # broadcasts run
    run(graphs, rng)


def test_a_constant_operand_uses_the_k_kernel():
    a = tensor("a", (2, 3), BOOL)
    b = tensor("b", (3,), BOOL, data=np.array([True, False, True]))
    call = lower(single("LOGICAL_OR", [b, a], tensor("o", (2, 3), BOOL)).ops[0])
    assert call.kernel == "mf_logic_b_k" and call.inputs == [a] and call.params["constant_index"] == 0


def test_refusals_name_the_reason():
    rng = np.random.default_rng(3)
    wide = single("LESS", [tensor("a", (2, 1, 2, 1, 2), F32), tensor("b", (2, 2, 1, 2, 1), F32)],
                  tensor("o", (2, 2, 2, 2, 2), BOOL))
    assert ops.problems(wide.ops[0]) == ["broadcasting at rank 5 is above TFLM's 4"]
    big = single("GREATER", [tensor("a", (4,), I8, Quant((1.5,), (0,))), tensor("b", (4,), I8, rand_quant(rng))],
                 tensor("o", (4,), BOOL))
    assert ops.problems(big.ops[0]) == ["int8 input 'a' has scale 1.5; TFLM needs a scale below 1"]
    mixed = single("EQUAL", [tensor("a", (4,), F32), tensor("b", (4,), I32)], tensor("o", (4,), BOOL))
    assert ops.problems(mixed.ops[0]) == ["operand types differ (float32 and int32)"]
