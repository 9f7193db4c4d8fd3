"""Conformance of REDUCE_MAX, REDUCE_MIN, REDUCE_ALL, SUM (int8, int16, float32), ARG_MAX and ARG_MIN
against TFLite Micro, seeded: random ranks, shapes, axes (negative, repeated), keep_dims and quantizations."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Quant
from microfuse.testing.ptq import f32
from tests.kernels.test_pool_s16 import q16
from microfuse.ops.attrs import ReducerAttrs
from microfuse.ops.reduce_ops import ArgAttrs
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, single, tensor

INT8, INT16, FLOAT32, BOOL = DType.INT8, DType.INT16, DType.FLOAT32, DType.BOOL


def _shape(rng, rank: int, hi: int = 6) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(1, hi, size=rank))


def reduce_case(rng, kind: str, dtype: DType):
    rank = int(rng.integers(1, 6))  # TFLM's reductions index at most 5 dimensions
    shape = _shape(rng, rank)
    # TFLM's SUM resolves at most 2 distinct axes (kMaxNumberOfReducedAxis)
    most = 2 if kind == "SUM" else rank
    axes = sorted({int(a) for a in rng.integers(0, rank, size=int(rng.integers(1, most + 1)))})
    keep = bool(rng.random() < 0.5)
    out_shape = tuple(1 if d in axes else n for d, n in enumerate(shape)) if keep else \
        tuple(n for d, n in enumerate(shape) if d not in axes)
    x = tensor("x", shape, dtype, {INT8: rand_quant, INT16: q16}.get(dtype, lambda rng: None)(rng))
    out_q = None
    if dtype == INT8:  # MAX / MIN compare stored values: TFLM requires one quantization
        out_q = rand_quant(rng, -1.5, 0.5) if kind == "SUM" else x.quant
    if dtype == INT16:
        out_q = Quant((f32(x.quant.scale[0] * 10 ** rng.uniform(0, 1.5)),), (0,))
    written = [a - rank if rng.random() < 0.3 else a for a in axes]
    if rng.random() < 0.2:
        written.append(written[0])  # a repeated axis counts once
    ax = tensor("axes", (len(written),), DType.INT32, data=np.array(written, np.int32))
    return single(kind, [x, ax], tensor("y", out_shape, dtype, out_q), ReducerAttrs(keep))


def arg_case(rng, kind: str, dtype: DType):
    rank = int(rng.integers(1, 6))
    shape = _shape(rng, rank, 7)
    axis = int(rng.integers(0, rank))
    x = tensor("x", shape, dtype, rand_quant(rng) if dtype == INT8 else None)
    written = axis - rank if rng.random() < 0.3 else axis
    ax = tensor("axis", (1,), DType.INT32, data=np.array([written], np.int32))
    out = tensor("y", tuple(n for d, n in enumerate(shape) if d != axis), DType.INT32)
    return single(kind, [x, ax], out, ArgAttrs(output_type=2))


CASES = [(k, t) for k in ("REDUCE_MAX", "REDUCE_MIN", "SUM") for t in (INT8, FLOAT32)] + \
    [("SUM", INT16), ("REDUCE_ALL", BOOL)]


@pytest.mark.parametrize("kind,dtype", CASES, ids=[f"{k.lower()}-{t}" for k, t in CASES])
def test_reductions_match_tflm(kind, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{kind}-{dtype}".encode()))
    graphs = [reduce_case(rng, kind, dtype) for _ in range(case_count(12))]
    check_graphs(graphs, rng, samples=3)


@pytest.mark.parametrize("dtype", [INT8, FLOAT32], ids=["int8", "float32"])
@pytest.mark.parametrize("kind", ["ARG_MAX", "ARG_MIN"])
def test_arg_min_max_match_tflm(kind, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{kind}-{dtype}".encode()))
    graphs = [arg_case(rng, kind, dtype) for _ in range(case_count(12))]
    check_graphs(graphs, rng, samples=3)


def test_int8_max_with_requantization_is_refused():
    rng = np.random.default_rng(3)
    x = tensor("x", (2, 3), INT8, rand_quant(rng))
    ax = tensor("axes", (1,), DType.INT32, data=np.array([1], np.int32))
    g = single("REDUCE_MAX", [x, ax], tensor("y", (2,), INT8, rand_quant(rng)), ReducerAttrs(False))
    assert ops.problems(g.ops[0]) == ["int8 input and output quantization must match (TFLM requires it)"]


def test_int64_arg_max_is_refused():
    x = tensor("x", (2, 3), FLOAT32)
    ax = tensor("axis", (1,), DType.INT32, data=np.array([1], np.int32))
    g = single("ARG_MAX", [x, ax], tensor("y", (2,), DType.INT64), ArgAttrs(output_type=4))
    assert ops.problems(g.ops[0]) == ["output type int64 is not supported (TFLM computes int32 only)"]
