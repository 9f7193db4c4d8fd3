"""Conformance of DIV (float32, int32, int8, fused activations), FLOOR_DIV, FLOOR_MOD (float32),
SQUARED_DIFFERENCE (float32, int32, int8), PRELU (float32, int8, alpha broadcast) and ADD_N
(float32, int8) against TFLite Micro, seeded: broadcasting within TFLM's ranks, a constant operand
on either side, random quantizations. Float32 within 1e-5 relative."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType
from microfuse.ops.arith import ARITH
from microfuse.ops.attrs import ActivationAttrs
from microfuse.testing.modelgen import merge
from tests.harness import case_count, check_graph, check_graphs
from tests.kernels.cases import ACTIVATIONS, rand_quant, single, tensor
from tests.kernels.test_elementwise import random_shapes

F32, I8, I32 = DType.FLOAT32, DType.INT8, DType.INT32


def values(rng, kind: str, t, shape, divisor: bool) -> np.ndarray:
    """Random operands; divisors never 0; halves and integers so floors and remainders tie."""
    if t.dtype == I8:
        x = rng.integers(-128, 128, size=shape)
        if divisor and kind == "DIV":  # a divisor at its zero point is undefined in TFLM
            zp = t.quant.zero_point[0]
            x = np.where(x == zp, zp + (1 if zp < 127 else -1), x)
        return x.astype(np.int8)
    if t.dtype == I32:
        if divisor:
            return (rng.integers(1, 12, size=shape) * rng.choice([-1, 1], size=shape)).astype(np.int32)
        return rng.integers(-3000, 3000, size=shape).astype(np.int32)
    x = rng.normal(0, 3, size=shape)
    if kind in ("FLOOR_DIV", "FLOOR_MOD") and rng.random() < 0.5:
        x = rng.integers(-8, 9, size=shape) / 2
    if divisor:
        x = np.where(np.abs(x) < 0.1, 0.5, x)
    return x.astype(np.float32)


def arith_case(rng, kind: str, dtype: DType):
    sa, sb = random_shapes(rng, ARITH[kind][1])
    if kind == "PRELU" and rng.random() < 0.5:  # alpha per channel, as converters write it
        sa = tuple(int(rng.integers(1, 4)) for _ in range(3)) + (int(rng.integers(1, 6)),)
        sb = (sa[-1],) if rng.random() < 0.5 else (1, 1, sa[-1])
    q = (lambda: rand_quant(rng, -2, -0.3)) if dtype == I8 else (lambda: None)
    a, b = tensor("a", sa, dtype, q()), tensor("b", sb, dtype, q())
    if rng.random() < 0.3 or kind == "PRELU" and rng.random() < 0.6:
        const = b if rng.random() < 0.75 else a
        const.data = values(rng, kind, const, const.shape, const is b)
    out = tensor("out", tuple(np.broadcast_shapes(sa, sb)), dtype, q())
    attrs = ActivationAttrs(str(rng.choice(ACTIVATIONS))) if kind == "DIV" else None
    return single(kind, [a, b], out, attrs)


CASES = [(k, t) for k, (types, _) in ARITH.items() for t in sorted(types, key=str)]


@pytest.mark.parametrize("kind,dtype", CASES, ids=[f"{k}-{t}" for k, t in CASES])
def test_arith_matches_tflm(kind, dtype):
    rng = np.random.default_rng(1100 + CASES.index((kind, dtype)))
    graphs = [arith_case(rng, kind, dtype) for _ in range(case_count(10))]
    assert any(g.ops[0].inputs[0].shape != g.ops[0].inputs[1].shape for g in graphs)  # broadcasts run
    graph = merge(graphs)
    divisors = {id(g.ops[0].inputs[1]) for g in graphs}
    feeds = [[values(rng, kind, t, t.shape, id(t) in divisors) for t in graph.inputs] for _ in range(2)]
    check_graph(graph, samples=feeds)


def test_refusals_name_the_reason():
    q = rand_quant(np.random.default_rng(4))
    deep = single("FLOOR_MOD", [tensor("a", (2, 1, 2, 1, 2), F32), tensor("b", (2, 2, 1, 2, 1), F32)],
                  tensor("o", (2, 2, 2, 2, 2), F32))
    assert ops.problems(deep.ops[0]) == ["broadcasting at rank 5 is above TFLM's 4"]
    prelu = single("PRELU", [tensor("a", (1, 2, 2, 2, 2), I8, q), tensor("b", (1, 2, 2, 2, 2), I8, q)],
                   tensor("o", (1, 2, 2, 2, 2), I8, q))
    assert ops.problems(prelu.ops[0]) == ["rank 5 is above TFLM's 4 for PRELU"]
    fdiv = single("FLOOR_DIV", [tensor("a", (4,), I32), tensor("b", (4,), I32)], tensor("o", (4,), I32))
    assert ops.problems(fdiv.ops[0]) == ["input type int32 is not supported (supported: float32)"]


def add_n_case(rng, dtype: DType):
    shape = tuple(int(rng.integers(1, 5)) for _ in range(int(rng.integers(1, 5))))
    q_in = rand_quant(rng, -2, -0.5) if dtype == I8 else None
    q_out = rand_quant(rng, -2, -0.3) if dtype == I8 else None
    xs = [tensor(f"x{k}", shape, dtype, q_in) for k in range(int(rng.integers(2, 6)))]
    return single("ADD_N", xs, tensor("out", shape, dtype, q_out))


@pytest.mark.parametrize("dtype", [F32, I8], ids=["float32", "int8"])
def test_add_n_matches_tflm(dtype):
    rng = np.random.default_rng(1300 + (dtype == I8))
    check_graphs([add_n_case(rng, dtype) for _ in range(case_count(10))], rng)
