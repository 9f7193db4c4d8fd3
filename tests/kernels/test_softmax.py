"""Conformance of SOFTMAX (int8 fixed point with its compile-time exp table, float32) against
TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.errors import UnsupportedError
from microfuse.ir import DType, Quant
from microfuse.lower.softmax import softmax_exp_table
from microfuse.ops.attrs import SoftmaxAttrs
from microfuse.testing.ptq import f32
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, single, tensor

OUT_Q = Quant((1 / 256,), (-128,))


def softmax_case(rng, dtype: DType):
    rank = int(rng.integers(1, 5))
    shape = tuple(int(d) for d in rng.integers(1, 4, size=rank - 1)) + (int(rng.integers(1, 40)),)
    beta = 1.0 if rng.random() < 0.5 else f32(rng.uniform(0.2, 3.0))
    if dtype == DType.INT8:
        x, y = tensor("x", shape, quant=rand_quant(rng, -2.5, 0.0)), tensor("y", shape, quant=OUT_Q)
    else:
        x, y = tensor("x", shape, DType.FLOAT32), tensor("y", shape, DType.FLOAT32)
    return single("SOFTMAX", [x], y, SoftmaxAttrs(beta))


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=["int8", "float32"])
def test_softmax_matches_tflm(dtype):
    rng = np.random.default_rng(30 + (dtype == DType.INT8))
    check_graphs([softmax_case(rng, dtype) for _ in range(case_count(12, 40))], rng, samples=3)


def test_exp_table_starts_at_one_and_decreases():
    table = softmax_exp_table(0.1, 1.0)
    assert table[0] == 2**31 - 1
    assert (np.diff(table.astype(np.int64)) <= 0).all()
    assert table[-1] == 0  # exp(-25.5) is below Q0.31 resolution


def test_int8_softmax_requires_tflm_output_quantization():
    rng = np.random.default_rng(1)
    g = single("SOFTMAX", [tensor("x", (1, 5), quant=rand_quant(rng))],
               tensor("y", (1, 5), quant=Quant((1 / 128,), (0,))), SoftmaxAttrs(1.0))
    with pytest.raises(UnsupportedError, match="scale 1/256"):
        lower(g.ops[0])
