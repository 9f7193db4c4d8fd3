"""Conformance of ADD, SUB and MUL (int8 and float32, broadcasting up to rank 5, fused
activations, a constant operand) against TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType
from microfuse.ops.attrs import ActivationAttrs
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, single, tensor

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def random_shapes(rng: np.random.Generator, max_rank: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two broadcast-compatible shapes: some axes 1 on one side, the shorter one maybe lower rank."""
    rank = int(rng.integers(1, max_rank + 1))
    full = [int(rng.integers(1, 5)) for _ in range(rank)]
    a, b = list(full), list(full)
    for d in range(rank):
        r = rng.random()
        if r < 0.25:
            a[d] = 1
        elif r < 0.5:
            b[d] = 1
    if rng.random() < 0.3:
        b = b[int(rng.integers(0, rank)):] or [1]
    if rng.random() < 0.5:
        a, b = b, a
    return tuple(a), tuple(b)


def binary_case(rng, kind: str, dtype: DType, max_rank: int):
    sa, sb = random_shapes(rng, max_rank)
    out_shape = tuple(np.broadcast_shapes(sa, sb))
    q = (lambda: rand_quant(rng)) if dtype == DType.INT8 else (lambda: None)
    a, b = tensor("a", sa, dtype, q()), tensor("b", sb, dtype, q())
    if rng.random() < 0.2:  # a constant operand (bias / scale vectors)
        const = b if rng.random() < 0.7 else a
        if dtype == DType.INT8:
            const.data = rng.integers(-128, 128, size=const.shape).astype(np.int8)
        else:
            const.data = rng.normal(0, 1, size=const.shape).astype(np.float32)
    if kind == "MUL" and dtype == DType.INT8:
        out_q = rand_quant(rng, -1.5, 0.5)  # products need a larger output scale
    else:
        out_q = q()
    out = tensor("out", out_shape, dtype, out_q)
    act = ACTIVATIONS[int(rng.integers(0, len(ACTIVATIONS)))]
    return single(kind, [a, b], out, ActivationAttrs(act))


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=["int8", "float32"])
@pytest.mark.parametrize("kind", ["ADD", "SUB", "MUL"])
def test_binary_matches_tflm(kind, dtype):
    rng = np.random.default_rng(100 + ["ADD", "SUB", "MUL"].index(kind) * 10 + (dtype == DType.INT8))
    max_rank = 4 if kind == "MUL" else 5  # TFLM's MUL broadcasts in 4-D only
    graphs = [binary_case(rng, kind, dtype, max_rank) for _ in range(case_count(12))]
    check_graphs(graphs, rng)


def test_rank5_mul_without_broadcast_matches_tflm():
    rng = np.random.default_rng(7)
    graphs = []
    for _ in range(4):
        shape = tuple(int(d) for d in rng.integers(1, 4, size=5))
        a, b = tensor("a", shape, quant=rand_quant(rng)), tensor("b", shape, quant=rand_quant(rng))
        graphs.append(single("MUL", [a, b], tensor("o", shape, quant=rand_quant(rng, -1.5, 0.5)),
                             ActivationAttrs("NONE")))
    check_graphs(graphs, rng)


def test_constant_operand_uses_the_k_variant():
    rng = np.random.default_rng(3)
    a = tensor("a", (1, 2, 2, 4), quant=rand_quant(rng))
    b = tensor("b", (4,), quant=rand_quant(rng), data=np.arange(4, dtype=np.int8))
    g = single("ADD", [a, b], tensor("o", (1, 2, 2, 4), quant=rand_quant(rng)), ActivationAttrs("NONE"))
    call = lower(g.ops[0])
    assert call.kernel == "mf_add_s8_k" and call.inputs == [a]
    assert call.params["constant_index"] == 1


def test_broadcast_strides_are_zero_on_broadcast_axes():
    rng = np.random.default_rng(4)
    a = tensor("a", (2, 3, 4), quant=rand_quant(rng))
    b = tensor("b", (3, 1), quant=rand_quant(rng))
    g = single("MUL", [a, b], tensor("o", (2, 3, 4), quant=rand_quant(rng)), ActivationAttrs("NONE"))
    b_init = lower(g.ops[0]).params["b"]
    assert b_init == "{ 24, 0, {1, 1, 1, 2, 3, 4}, {0, 0, 0, 12, 4, 1}, {0, 0, 0, 0, 1, 0} }"
