"""Conformance of L2_NORMALIZATION (int8, float32), LOG_SOFTMAX (int8, float32) and L2_POOL_2D (float32)
against TFLite Micro, seeded: random ranks, depths, windows, activations and input quantizations."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Quant, Tensor
from microfuse.ops.attrs import NoAttrs
from microfuse.ops.reduce_ops import L2NormAttrs
from microfuse.testing.ptq import f32
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, single, single_op, tensor
from tests.kernels.test_pool import pool_attrs

INT8, FLOAT32 = DType.INT8, DType.FLOAT32


def _shape(rng, most: int) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(1, 9, size=int(rng.integers(1, most + 1))))


def l2norm_case(rng, dtype: DType):
    shape = _shape(rng, 4)
    x = tensor("x", shape, dtype, rand_quant(rng, -2.5, 0) if dtype == INT8 else None)
    out_q = Quant((f32(1 / 128),), (0,)) if dtype == INT8 else None  # what TFLM requires
    return single("L2_NORMALIZATION", [x], tensor("y", shape, dtype, out_q), L2NormAttrs())


def log_softmax_case(rng, dtype: DType):
    shape = _shape(rng, 4)
    x = tensor("x", shape, dtype, rand_quant(rng, -2.5, 0) if dtype == INT8 else None)
    out_q = Quant((f32(16 / 256),), (127,)) if dtype == INT8 else None  # what TFLM requires
    return single("LOG_SOFTMAX", [x], tensor("y", shape, dtype, out_q), NoAttrs())


def l2_pool_case(rng, dtype: DType):
    n, h, w, c = int(rng.choice([1, 1, 2])), int(rng.integers(1, 10)), int(rng.integers(1, 10)), int(rng.integers(1, 6))
    return single_op("L2_POOL_2D", [Tensor("x", (n, h, w, c), FLOAT32)], Tensor("y", (), FLOAT32),
                     pool_attrs(rng, h, w))


CASES = [(l2norm_case, INT8), (l2norm_case, FLOAT32), (log_softmax_case, INT8), (log_softmax_case, FLOAT32),
         (l2_pool_case, FLOAT32)]


@pytest.mark.parametrize("make,dtype", CASES, ids=[f"{m.__name__[:-5]}-{t}" for m, t in CASES])
def test_normalizations_match_tflm(make, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{make.__name__}-{dtype}".encode()))
    check_graphs([make(rng, dtype) for _ in range(case_count(12))], rng, samples=3)


def test_int8_outputs_must_use_tflm_fixed_quantizations():
    rng = np.random.default_rng(2)
    x = tensor("x", (2, 8), INT8, rand_quant(rng))
    g = single("L2_NORMALIZATION", [x], tensor("y", (2, 8), INT8, rand_quant(rng)), L2NormAttrs())
    assert ops.problems(g.ops[0]) == ["int8 output must have scale 1/128 and zero point 0 (TFLM requires it)"]
    g = single("LOG_SOFTMAX", [x], tensor("y", (2, 8), INT8, rand_quant(rng)), NoAttrs())
    assert ops.problems(g.ops[0]) == ["int8 output must have scale 16/256 and zero point 127 (TFLM requires it)"]
