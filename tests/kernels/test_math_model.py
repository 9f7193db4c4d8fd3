"""The new elementwise ops chained in one model (bool tensors between ops and as a library output,
constants, int8 and float32 paths) against TFLite Micro: on the host at every --optimize level,
and under QEMU (qemu-mps2-an386) through `verify`."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType, Graph, Op, Quant
from microfuse.pipeline import Options
from microfuse.testing import inputs
from microfuse.tflite.writer import write
from microfuse.verify import verify
from tests.harness import check_graph, on_qemu
from tests.kernels.cases import tensor

F32, I8, BOOL = DType.FLOAT32, DType.INT8, DType.BOOL


def chained_model() -> Graph:
    rng = np.random.default_rng(77)
    shape = (1, 4, 4, 3)
    x, q = tensor("x", shape, F32), tensor("q", shape, I8, Quant((0.04,), (-5,)))
    ops: list[Op] = []

    def op(kind, ins, dtype, quant=None, out_shape=shape):
        out = tensor(f"{kind.lower()}{len(ops)}", out_shape, dtype, quant)
        ops.append(Op(kind, ins, [out], None, name=out.name, index=len(ops)))
        return out

    def const(values, dtype, quant=None):
        return tensor(f"k{len(ops)}", np.shape(values), dtype, quant, np.asarray(values, dtype.np))

    gt = op("GREATER", [x, const(0.25, F32)], BOOL)  # a rank-0 constant, as converters write scalars
    no = op("LOGICAL_NOT", [gt], BOOL)
    sel = op("SELECT_V2", [no, x, op("ABS", [x], F32)], F32)
    e = op("EXP", [op("SIN", [sel], F32)], F32)
    d = op("SQUARED_DIFFERENCE", [e, x], F32)
    f = op("FLOOR_MOD", [d, const([0.7], F32)], F32)
    total = op("ADD_N", [e, d, f], F32)
    qe = op("ELU", [q], I8, Quant((0.03,), (10,)))
    lt = op("LESS", [qe, q], BOOL)
    qs = op("SELECT_V2", [lt, qe, q], I8, Quant((0.03,), (10,)))
    alpha = const(rng.integers(-100, 100, size=3), I8, Quant((0.01,), (0,)))
    qp = op("PRELU", [qs, alpha], I8, Quant((0.05,), (-20,)))
    qd = op("SQUARED_DIFFERENCE", [qp, q], I8, Quant((0.02,), (-128,)))
    both = op("LOGICAL_AND", [lt, no], BOOL)
    return Graph(ops, [x, q], [both, total, qd], name="math_chain")


@pytest.mark.parametrize("level", ["size", "balanced", "speed"])
def test_chained_model_matches_tflm_on_the_host(level):
    graph = chained_model()
    rng = np.random.default_rng(5)
    check_graph(graph, samples=[inputs.sample(graph.inputs, rng, 2.0) for _ in range(3)],
                options=Options(optimize=level))


@on_qemu
def test_chained_model_matches_tflm_under_qemu(tmp_path):
    path = tmp_path / "math_chain.tflite"
    path.write_bytes(write(chained_model()))
    verdict, _, _ = verify(path, board="qemu-mps2-an386", n=4)
    assert verdict.ok, verdict.detail
