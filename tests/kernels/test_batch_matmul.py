"""Conformance of BATCH_MATMUL (int8, int16 and float32, adj_x / adj_y, ranks 2 to 5 with broadcast batch
dimensions, a constant operand on either side) against TFLite Micro, seeded."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Quant
from microfuse.testing import inputs
from microfuse.testing.ptq import f32
from tests.kernels.test_pool_s16 import q16
from microfuse.ops.matmul import BatchMatMulAttrs
from tests.harness import case_count, check_graphs
from tests.kernels.cases import out_quant, rand_quant, single, tensor

INT8, INT16, FLOAT32 = DType.INT8, DType.INT16, DType.FLOAT32


def _batches(rng, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two batch shapes of up to n dims that broadcast (a 1 on either side, or one rank shorter)."""
    full = [int(v) for v in rng.integers(1, 4, size=n)]
    a = [d if rng.random() < 0.7 else 1 for d in full]
    b = [d if x == 1 or rng.random() < 0.7 else 1 for d, x in zip(full, a)]
    cut = int(rng.integers(0, n + 1))
    return (tuple(a), tuple(b[cut:])) if rng.random() < 0.5 else (tuple(a[cut:]), tuple(b))


def matmul_case(rng, dtype: DType):
    ba, bb = _batches(rng, int(rng.integers(0, 4)))
    rows, depth, cols = (int(v) for v in rng.integers(1, 9, size=3))
    adj_x, adj_y = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
    sa = (*ba, *((depth, rows) if adj_x else (rows, depth)))
    sb = (*bb, *((cols, depth) if adj_y else (depth, cols)))
    qa, qb = {INT8: lambda: (rand_quant(rng), rand_quant(rng)), INT16: lambda: (q16(rng), q16(rng))}.get(
        dtype, lambda: (None, None))()
    a, b = tensor("a", sa, dtype, qa), tensor("b", sb, dtype, qb)
    if rng.random() < 0.3:  # a constant operand (weights), mostly on the right
        const = b if rng.random() < 0.7 else a
        const.data = (rng.normal(0, 1, size=const.shape).astype(np.float32) if dtype == FLOAT32 else
                      inputs.random(const, rng))
    n = max(len(ba), len(bb))
    batch = tuple(max(x, y) for x, y in zip((1,) * (n - len(ba)) + ba, (1,) * (n - len(bb)) + bb))
    oq = out_quant(rng, qa, qb, depth) if dtype == INT8 else None
    if dtype == INT16:  # typical int16 accumulators across the output range, sometimes beyond
        oq = Quant((f32(qa.scale[0] * qb.scale[0] * 1e9 * np.sqrt(depth) / 32768 * 10 ** rng.uniform(-0.7, 0.7)),), (0,))
    return single("BATCH_MATMUL", [a, b], tensor("y", (*batch, rows, cols), dtype, oq),
                  BatchMatMulAttrs(adj_x, adj_y))


@pytest.mark.parametrize("dtype", [INT8, INT16, FLOAT32], ids=["int8", "int16", "float32"])
def test_batch_matmul_matches_tflm(dtype):
    rng = np.random.default_rng(zlib.crc32(f"batch_matmul-{dtype}".encode()))
    graphs = [matmul_case(rng, dtype) for _ in range(case_count(20))]
    assert any(g.ops[0].inputs[0].shape[:-2] != g.ops[0].inputs[1].shape[:-2] for g in graphs)  # broadcasts run
    check_graphs(graphs, rng, samples=3)


def test_hybrid_is_refused():
    a = tensor("a", (2, 3), FLOAT32)
    b = tensor("b", (3, 4), INT8, rand_quant(np.random.default_rng(1)), np.zeros((3, 4), np.int8))
    g = single("BATCH_MATMUL", [a, b], tensor("y", (2, 4), FLOAT32), BatchMatMulAttrs())
    assert ops.problems(g.ops[0])[0].startswith("operands of types float32 and int8")


def test_int16_zero_points_must_be_zero():
    q = Quant((f32(1e-3),), (5,))
    a, b = tensor("a", (2, 3), INT16, q), tensor("b", (3, 4), INT16, q)
    g = single("BATCH_MATMUL", [a, b], tensor("y", (2, 4), INT16, q), BatchMatMulAttrs())
    assert ops.problems(g.ops[0]) == ["int16 operands and output need zero point 0 (TFLM requires it)"]
