"""Conformance of CAST against TFLite Micro: every (input, output) type pair TFLM's cast.cc has,
seeded random shapes and values (integers full range, floats within the target integer's range:
beyond it C++'s static_cast is undefined, and TFLM's x86 build saturates in its vector loops)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Graph, Op, Tensor
from microfuse.ops.cast import CAST_FROM, CAST_TO
from microfuse.pipeline import Options
from microfuse.testing.compare import difference
from microfuse.testing.host import run_graph
from microfuse.testing.modelgen import merge
from tests.harness import case_count, reference

PAIRS = sorted(((a, b) for a in CAST_FROM for b in CAST_TO), key=lambda p: (str(p[0]), str(p[1])))


def values(rng, src: DType, dst: DType, shape) -> np.ndarray:
    if src == DType.BOOL:
        return rng.integers(0, 2, shape).astype(bool)
    if src == DType.FLOAT32:
        scale = float(rng.choice([1.0, 300.0, 70000.0, 2.0 ** 30]))
        x = (rng.standard_normal(shape) * scale).astype(np.float32)
        if dst == DType.FLOAT32:
            return x
        info = np.iinfo(dst.np)  # out of the target's range C++ is undefined (TFLM's x86 build saturates
        return np.clip(x, float(info.min), float(info.max) * 0.999).astype(np.float32)  # in vector loops)
    info = np.iinfo(src.np)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=src.np)


def cast_case(rng, src: DType, dst: DType) -> Graph:
    shape = tuple(int(d) for d in rng.integers(1, 6, size=int(rng.integers(1, 4))))
    x, y = Tensor("x", shape, src), Tensor("y", shape, dst)
    op = Op("CAST", [x], [y], None, name="cast", index=0)
    assert not ops.problems(op), ops.problems(op)
    return Graph([op], [x], [y], name="cast")


def test_cast_every_type_pair_matches_tflm():
    rng = np.random.default_rng(1414)
    graphs = [cast_case(rng, a, b) for a, b in PAIRS for _ in range(case_count(1, 3))]
    graph = merge(graphs)
    feeds = [[values(rng, t.dtype, g.outputs[0].dtype, t.shape) for g in graphs for t in g.inputs]
             for _ in range(3)]
    for s, (got, want) in enumerate(zip(run_graph(graph, feeds, options=Options(optimize="size")),
                                        reference(graph, feeds))):
        for k, (a, b) in enumerate(zip(got, want)):
            g = graphs[k]
            found = difference(a, b, f"sample {s}, CAST {g.inputs[0].dtype} -> {g.outputs[0].dtype}", 0.0, 0.0)
            assert found is None, found


@pytest.mark.parametrize("dst", [DType.INT64, DType.UINT8, DType.BOOL])
def test_cast_to_a_type_tflm_lacks_is_refused(dst):
    x = Tensor("x", (4,), DType.INT32)
    found = ops.problems(Op("CAST", [x], [Tensor("y", (4,), dst)], None, name="y", index=0))
    assert found == [f"CAST to {dst} is not supported (TFLM casts to float32, int16, int32, int8, uint32)"]
