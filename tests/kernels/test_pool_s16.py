"""Conformance of int16 AVERAGE_POOL_2D, MAX_POOL_2D and MEAN ("16x8" models) against TFLite Micro,
seeded: random windows, paddings, strides, fused activations, axes and int16 quantizations."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from microfuse.ir import DType, Quant, Tensor
from microfuse.ops.attrs import ReducerAttrs
from microfuse.testing.ptq import f32
from tests.harness import case_count, check_cases, check_graphs
from tests.kernels.cases import feed, single, single_op, tensor
from tests.kernels.test_pool import KINDS, pool_attrs
from tests.harness import Case

INT16 = DType.INT16


def q16(rng, zero: bool = True) -> Quant:
    """An int16 activation quantization: symmetric as the converter makes it, or any zero point."""
    return Quant((f32(10 ** rng.uniform(-5, -2)),), (0 if zero else int(rng.integers(-300, 300)),))


def pool_case(rng, i: int, kind: str) -> Case:
    n, h, w, c = int(rng.choice([1, 1, 2])), int(rng.integers(1, 12)), int(rng.integers(1, 12)), int(rng.integers(1, 9))
    attrs = pool_attrs(rng, h, w)
    q = q16(rng, zero=rng.random() < 0.7)
    graph = single_op(kind, [Tensor("input", (n, h, w, c), INT16, q)], Tensor("output", (), INT16, q), attrs)
    return Case(f"{kind.lower()}{i} int16 in {[n, h, w, c]} {attrs}", graph, feed(rng, graph, extreme=i % 9 == 8))


@pytest.mark.parametrize("kind", KINDS)
def test_int16_pool_matches_tflm(kind):
    rng = np.random.default_rng(zlib.crc32(f"{kind}-int16".encode()))
    check_cases([pool_case(rng, i, kind) for i in range(case_count(15, 40))])


def mean_case(rng):
    rank = int(rng.integers(1, 5))
    shape = tuple(int(d) for d in rng.integers(1, 6, size=rank))
    axes = [1, 2] if rank == 4 and rng.random() < 0.5 else \
        sorted({int(a) for a in rng.integers(0, rank, size=int(rng.integers(1, min(rank, 2) + 1)))})
    keep = bool(rng.random() < 0.6)
    out_shape = tuple(1 if d in axes else n for d, n in enumerate(shape)) if keep else \
        tuple(n for d, n in enumerate(shape) if d not in axes)
    x = tensor("x", shape, INT16, q16(rng, zero=rng.random() < 0.7))
    out_q = x.quant if rng.random() < 0.3 else q16(rng, zero=rng.random() < 0.7)
    ax = tensor("axes", (len(axes),), DType.INT32, data=np.array(axes, np.int32))
    return single("MEAN", [x, ax], tensor("y", out_shape, INT16, out_q), ReducerAttrs(keep))


def test_int16_mean_matches_tflm():
    rng = np.random.default_rng(zlib.crc32(b"mean-int16"))
    check_graphs([mean_case(rng) for _ in range(case_count(12))], rng, samples=3)
