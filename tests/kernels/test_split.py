"""Conformance of SPLIT, SPLIT_V, UNPACK and STRIDED_SLICE of an activation (byte copies: int8,
float32, int16, int32 as TFLM registers them) against TFLite Micro, seeded: random shapes up to
rank 5, every axis (negative too), SPLIT_V with an inferred (-1) size, slices with masks,
negative strides and shrunk axes."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Op, Quant
from microfuse.ops.attrs import StridedSliceAttrs
from microfuse.ops.split import SplitAttrs, UnpackAttrs
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, tensor
from microfuse.ir import Graph

TYPES = [DType.INT8, DType.FLOAT32, DType.INT16, DType.INT32]


def _quant(rng, dtype: DType) -> Quant | None:
    if dtype == DType.INT8:
        return rand_quant(rng)
    if dtype == DType.INT16:
        return Quant((float(10 ** rng.uniform(-4, -2)),), (0,))
    return None


def _shape(rng, low: int = 1, rank: int = 5) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(low, 5, size=int(rng.integers(1, rank + 1))))


def _graph(kind: str, inputs: list, attrs, data, n_out: int, dtype: DType, q) -> Graph:
    op = Op(kind, inputs, [tensor(f"o{i}", (1,), dtype, q) for i in range(n_out)], attrs, kind.lower(), 0)
    for t, (shape, _) in zip(op.outputs, ops.infer(op)):
        t.shape = tuple(int(d) for d in shape)
    assert not ops.problems(op), ops.problems(op)
    return Graph([op], [data], list(op.outputs), name=kind.lower())


def split_case(rng, kind: str, dtype: DType) -> Graph:
    q = _quant(rng, dtype)
    shape = list(_shape(rng, 2 if kind != "UNPACK" else 1))
    axis = int(rng.integers(-len(shape), len(shape)))
    dim = shape[axis]
    data = tensor("x", shape, dtype, q)
    axis_t = tensor("axis", (), DType.INT32, data=np.array(axis, np.int32))
    if kind == "UNPACK":
        return _graph(kind, [data], UnpackAttrs(num=dim, axis=axis), data, dim, dtype, q)
    if kind == "SPLIT":
        n = int(rng.choice([d for d in range(1, dim + 1) if dim % d == 0]))
        return _graph(kind, [axis_t, data], SplitAttrs(num_splits=n), data, n, dtype, q)
    cuts = np.sort(rng.choice(np.arange(1, dim), size=min(dim - 1, int(rng.integers(1, 4))), replace=False))
    sizes = np.diff(np.concatenate([[0], cuts, [dim]])).astype(np.int32)
    if rng.random() < 0.4:
        sizes[int(rng.integers(len(sizes)))] = -1  # inferred, as TFLite allows once
    sizes_t = tensor("sizes", (len(sizes),), DType.INT32, data=sizes)
    return _graph(kind, [data, sizes_t, axis_t], SplitAttrs(num_splits=len(sizes)), data, len(sizes), dtype, q)


def slice_case(rng, dtype: DType) -> Graph:
    q = _quant(rng, dtype)
    shape = _shape(rng, 2, rank=4)  # TFLM's STRIDED_SLICE takes up to rank 4
    rank = len(shape)
    while True:
        stride = rng.choice([-2, -1, 1, 1, 2, 3], size=rank).astype(np.int32)
        begin = np.array([rng.integers(-d, d) for d in shape], np.int32)
        end = np.array([rng.integers(-d - 1, d + 1) for d in shape], np.int32)
        bits = lambda p: int(sum(1 << i for i in range(rank) if rng.random() < p))  # noqa: E731
        # a shrunk axis with a negative stride: TFLM's StridedSliceEndForAxis gives start + 1, its
        # loop then stops at once and the output is never written (stale arena bytes); microfuse
        # takes the one element TensorFlow does. Not comparable with TFLM, so not drawn here.
        positive = sum(1 << i for i in range(rank) if stride[i] > 0)
        attrs = StridedSliceAttrs(begin_mask=bits(0.2), end_mask=bits(0.2), shrink_axis_mask=bits(0.15) & positive)
        data = tensor("x", shape, dtype, q)
        consts = [tensor(n, (rank,), DType.INT32, data=v) for n, v in (("b", begin), ("e", end), ("s", stride))]
        op = Op("STRIDED_SLICE", [data, *consts], [tensor("o", (1,), dtype, q)], attrs, "strided_slice", 0)
        out_shape = ops.infer(op)[0][0]
        if 0 not in out_shape and len(out_shape) >= 1:
            op.outputs[0].shape = tuple(int(d) for d in out_shape)
            return Graph([op], [data], list(op.outputs), name="strided_slice")


@pytest.mark.parametrize("dtype", TYPES, ids=str)
@pytest.mark.parametrize("kind", ["SPLIT", "SPLIT_V", "UNPACK"])
def test_split_family_matches_tflm(kind, dtype):
    rng = np.random.default_rng(900 + 10 * ["SPLIT", "SPLIT_V", "UNPACK"].index(kind) + TYPES.index(dtype))
    check_graphs([split_case(rng, kind, dtype) for _ in range(case_count(8))], rng)


@pytest.mark.parametrize("dtype", TYPES, ids=str)
def test_strided_slice_matches_tflm(dtype):
    rng = np.random.default_rng(950 + TYPES.index(dtype))
    check_graphs([slice_case(rng, dtype) for _ in range(case_count(10))], rng)


def test_split_v_one_inferred_size_and_the_geometry():
    rng = np.random.default_rng(3)
    x = tensor("x", (2, 6, 3), quant=rand_quant(rng))
    g = _graph("SPLIT_V", [x, tensor("s", (3,), DType.INT32, data=np.array([1, -1, 2], np.int32)),
                           tensor("a", (), DType.INT32, data=np.array(-2, np.int32))],
               SplitAttrs(num_splits=3), x, 3, DType.INT8, x.quant)
    assert [t.shape for t in g.outputs] == [(2, 1, 3), (2, 3, 3), (2, 2, 3)]
    call = lower(g.ops[0])
    assert call.kernel == "mf_split" and call.params["outer"] == 2 and call.params["chunk"] == "{3, 9, 6}"


def test_uneven_split_is_refused_naming_the_op():
    x = tensor("x", (1, 5))
    op = Op("SPLIT", [tensor("a", (), DType.INT32, data=np.array(1, np.int32)), x],
            [tensor("o0", (1, 2)), tensor("o1", (1, 2))], SplitAttrs(num_splits=2), "split", 0)
    assert ops.problems(op) == ["5 does not split into 2 equal parts"]
