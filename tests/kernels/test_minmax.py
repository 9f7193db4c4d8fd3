"""Conformance of MAXIMUM and MINIMUM (int8 and float32, broadcasting up to rank 5, a constant
operand) against TFLite Micro, seeded. TFLM compares the stored values (int8: no
requantization), so the inputs and the output get independent random quantizations."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, single, tensor
from tests.kernels.test_elementwise import random_shapes


def minmax_case(rng: np.random.Generator, kind: str, dtype: DType):
    sa, sb = random_shapes(rng, 5)
    q = (lambda: rand_quant(rng)) if dtype == DType.INT8 else (lambda: None)
    a, b = tensor("a", sa, dtype, q()), tensor("b", sb, dtype, q())
    if rng.random() < 0.25:  # a constant operand, either side
        const = b if rng.random() < 0.7 else a
        const.data = (rng.integers(-128, 128, size=const.shape).astype(np.int8) if dtype == DType.INT8
                      else rng.normal(0, 1, size=const.shape).astype(np.float32))
    out = tensor("out", tuple(np.broadcast_shapes(sa, sb)), dtype, q())
    return single(kind, [a, b], out)


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=["int8", "float32"])
@pytest.mark.parametrize("kind", ["MAXIMUM", "MINIMUM"])
def test_minmax_matches_tflm(kind, dtype):
    rng = np.random.default_rng(500 + 10 * (kind == "MINIMUM") + (dtype == DType.INT8))
    graphs = [minmax_case(rng, kind, dtype) for _ in range(case_count(12))]
    assert any(g.ops[0].inputs[0].shape != g.ops[0].inputs[1].shape for g in graphs)  # broadcasts run
    check_graphs(graphs, rng)


def test_a_constant_operand_uses_the_k_kernel():
    rng = np.random.default_rng(5)
    a = tensor("a", (1, 2, 2, 4), quant=rand_quant(rng))
    b = tensor("b", (4,), quant=rand_quant(rng), data=np.arange(4, dtype=np.int8))
    call = lower(single("MINIMUM", [b, a], tensor("o", (1, 2, 2, 4), quant=rand_quant(rng))).ops[0])
    assert call.kernel == "mf_minimum_s8_k" and call.inputs == [a] and call.params["constant_index"] == 0
