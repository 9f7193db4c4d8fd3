"""Conformance of PAD, MEAN, CONCATENATION, QUANTIZE, DEQUANTIZE, SPACE_TO_BATCH_ND and
BATCH_TO_SPACE_ND (int8 and float32) against TFLite Micro."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from microfuse.errors import UnsupportedError
from microfuse.ir import DType, Quant
from microfuse.lower.data import mean_multiplier
from microfuse.ops.attrs import ConcatAttrs, NoAttrs, ReducerAttrs
from microfuse.testing.host import run_graph
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, single, tensor

DTYPES = pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=["int8", "float32"])


def _q(rng, dtype):
    return rand_quant(rng) if dtype == DType.INT8 else None


def _shape(rng, rank: int, hi: int = 5) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(1, hi, size=rank))


def pad_case(rng, dtype):
    shape = _shape(rng, int(rng.integers(1, 6)))
    pads = rng.integers(0, 3, size=(len(shape), 2)).astype(np.int32)
    x = tensor("x", shape, dtype, _q(rng, dtype))
    out_shape = tuple(int(d + p.sum()) for d, p in zip(shape, pads))
    out_q = x.quant  # the converter keeps the quantization; TFLM pads with the output zero point
    paddings = tensor("paddings", pads.shape, DType.INT32, data=pads)
    return single("PAD", [x, paddings], tensor("y", out_shape, dtype, out_q), NoAttrs())


def mean_case(rng, dtype):
    rank = int(rng.integers(1, 5))
    shape = _shape(rng, rank, 6)
    if rank == 4 and rng.random() < 0.5:
        axes = [1, 2]  # the global average pool of a CNN
    else:
        axes = sorted(set(int(a) for a in rng.integers(0, rank, size=int(rng.integers(1, rank + 1)))))
    keep = bool(rng.random() < 0.6)
    out_shape = tuple(1 if d in axes else n for d, n in enumerate(shape)) if keep else \
        tuple(n for d, n in enumerate(shape) if d not in axes)
    x = tensor("x", shape, dtype, _q(rng, dtype))
    out_q = (x.quant if rng.random() < 0.3 else rand_quant(rng)) if dtype == DType.INT8 else None
    negative = [a - rank if rng.random() < 0.3 else a for a in axes]
    ax = tensor("axes", (len(axes),), DType.INT32, data=np.array(negative, np.int32))
    return single("MEAN", [x, ax], tensor("y", out_shape, dtype, out_q), ReducerAttrs(keep))


def concat_case(rng, dtype):
    rank = int(rng.integers(1, 5))
    base = list(_shape(rng, rank))
    axis = int(rng.integers(0, rank))
    xs, q = [], _q(rng, dtype)  # TFLM requires one quantization for all int8 inputs and the output
    for _ in range(int(rng.integers(2, 5))):
        s = list(base)
        s[axis] = int(rng.integers(1, 4))
        xs.append(tensor("x", s, dtype, q))
    out_shape = list(base)
    out_shape[axis] = sum(t.shape[axis] for t in xs)
    attr_axis = axis - rank if rng.random() < 0.3 else axis
    return single("CONCATENATION", xs, tensor("y", out_shape, dtype, q), ConcatAttrs(attr_axis))


def s2b_case(rng, dtype, padded: bool = False):
    bh, bw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    # TFLM fills padded positions with an uninitialized value: compare with it unpadded only
    pads = rng.integers(0, 3, size=(2, 2)) if padded else np.zeros((2, 2), np.int64)
    h = bh * int(rng.integers(1, 4)) - int(pads[0].sum()) % bh
    w = bw * int(rng.integers(1, 4)) - int(pads[1].sum()) % bw
    h, w = max(h, 1), max(w, 1)
    pads[0, 1] += (-(h + pads[0].sum())) % bh
    pads[1, 1] += (-(w + pads[1].sum())) % bw
    x = tensor("x", (n, h, w, c), dtype, _q(rng, dtype))
    out = (n * bh * bw, (h + int(pads[0].sum())) // bh, (w + int(pads[1].sum())) // bw, c)
    block = tensor("block", (2,), DType.INT32, data=np.array([bh, bw], np.int32))
    paddings = tensor("paddings", (2, 2), DType.INT32, data=pads.astype(np.int32))
    return single("SPACE_TO_BATCH_ND", [x, block, paddings], tensor("y", out, dtype, x.quant), NoAttrs())


def test_space_to_batch_pads_with_the_zero_point():
    rng = np.random.default_rng(9)
    for dtype in (DType.INT8, DType.FLOAT32):
        g = s2b_case(rng, dtype, padded=True)
        while not g.ops[0].inputs[2].data.any():
            g = s2b_case(rng, dtype, padded=True)
        x = g.inputs[0]
        feed = np.full(x.shape, 7, dtype.np)
        (out,) = run_graph(g, [feed])
        pad = 0 if dtype == DType.FLOAT32 else x.quant.zero_point[0]
        assert set(np.unique(out).tolist()) == {7, pad}
        assert (out == 7).sum() == x.elements


def b2s_case(rng, dtype):
    bh, bw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    n, h, w, c = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    crops = np.array([[int(rng.integers(0, bh)), 0], [0, int(rng.integers(0, bw))]], np.int32)
    x = tensor("x", (n * bh * bw, h, w, c), dtype, _q(rng, dtype))
    out = (n, h * bh - int(crops[0].sum()), w * bw - int(crops[1].sum()), c)
    block = tensor("block", (2,), DType.INT32, data=np.array([bh, bw], np.int32))
    return single("BATCH_TO_SPACE_ND", [x, block, tensor("crops", (2, 2), DType.INT32, data=crops)],
                  tensor("y", out, dtype, x.quant), NoAttrs())


@DTYPES
@pytest.mark.parametrize("make", [pad_case, mean_case, concat_case, s2b_case, b2s_case],
                         ids=["pad", "mean", "concat", "space_to_batch", "batch_to_space"])
def test_data_ops_match_tflm(make, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{make.__name__}-{dtype}".encode()))
    check_graphs([make(rng, dtype) for _ in range(case_count(10, 30))], rng)


QUANTIZE_TYPES = [(DType.FLOAT32, DType.INT8), (DType.INT8, DType.INT8), (DType.UINT8, DType.INT8),
                  (DType.INT8, DType.UINT8)]


@pytest.mark.parametrize("src,dst", QUANTIZE_TYPES, ids=["f32-s8", "s8-s8", "u8-s8", "s8-u8"])
def test_quantize_matches_tflm(src, dst):
    rng = np.random.default_rng(50 + QUANTIZE_TYPES.index((src, dst)))
    graphs = []
    for _ in range(case_count(10, 30)):
        shape = _shape(rng, int(rng.integers(1, 5)))
        in_q = None if src == DType.FLOAT32 else _uq(rng, src)
        if src == DType.UINT8 and rng.random() < 0.5:  # the usual image input: same scale, zp + 128
            out_q = Quant(in_q.scale, (in_q.zero_point[0] - 128,))
        else:
            out_q = _uq(rng, dst)
        graphs.append(single("QUANTIZE", [tensor("x", shape, src, in_q)], tensor("y", shape, dst, out_q), NoAttrs()))
    check_graphs(graphs, rng)


def _uq(rng, dtype):
    q = rand_quant(rng)
    return Quant(q.scale, (q.zero_point[0] + 128,)) if dtype == DType.UINT8 else q


@pytest.mark.parametrize("src", [DType.INT8, DType.UINT8], ids=["s8", "u8"])
def test_dequantize_matches_tflm(src):
    rng = np.random.default_rng(60 + (src == DType.INT8))
    graphs = [single("DEQUANTIZE", [tensor("x", s, src, _uq(rng, src))], tensor("y", s, DType.FLOAT32), NoAttrs())
              for s in (_shape(rng, int(rng.integers(1, 5))) for _ in range(case_count(10, 30)))]
    check_graphs(graphs, rng, rtol=0, atol=0)


def test_int8_concat_of_differing_quantization_is_refused():
    rng = np.random.default_rng(5)
    xs = [tensor("a", (1, 2), quant=rand_quant(rng)), tensor("b", (1, 3), quant=rand_quant(rng))]
    g = single("CONCATENATION", xs, tensor("y", (1, 5), quant=xs[0].quant), ConcatAttrs(1))
    with pytest.raises(UnsupportedError, match="share the output"):
        lower(g.ops[0])


def test_mean_multiplier_folds_the_count_in():
    mult, shift = mean_multiplier(0.5, 0.5, 49)  # 7x7 global average pool, same scales
    assert mult * 2.0 ** (shift - 31) == pytest.approx(1 / 49, rel=1e-8)
