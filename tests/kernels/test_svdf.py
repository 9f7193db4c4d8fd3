"""SVDF conformance: seeded random single-op models (int8 with int16 or int8 state, float32; any
rank, memory, batch; input and state zero points) over 20 invokes with the state carried between
them, our kernels vs TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.ops.rnn import SvdfAttrs
from microfuse.testing.ptq import f32
from tests.harness import case_count
from tests.kernels.cases import act_quant
from tests.kernels.stateful import SeqCase, check

SEED = 43
INVOKES = 20


def _q(scale: float, zp: int = 0) -> Quant:
    return Quant((f32(scale),), (int(zp),))


def svdf_graph(rng: np.random.Generator, dtype: DType, state: DType, i: int) -> tuple[Graph, str]:
    batches, n_in, rank = int(rng.integers(1, 4)), int(rng.integers(1, 40)), int(rng.integers(1, 3))
    units, memory = int(rng.integers(1, 12)), int(rng.integers(1, 10))
    filters = units * rank
    act = str(rng.choice(["NONE", "RELU", "RELU6", "RELU_N1_TO_1"])) if dtype == DType.FLOAT32 else "NONE"
    attrs = SvdfAttrs(rank, act)
    x_shape, s_shape = (batches, n_in), (batches, filters * memory)
    if dtype == DType.FLOAT32:
        x = Tensor("input", x_shape, dtype)
        wf = Tensor("w_feature", (filters, n_in), dtype, data=rng.normal(0, 0.4, (filters, n_in)).astype(np.float32))
        wt = Tensor("w_time", (filters, memory), dtype, data=rng.normal(0, 0.4, (filters, memory)).astype(np.float32))
        b = Tensor("bias", (units,), dtype, data=rng.normal(0, 0.4, units).astype(np.float32))
        s = Tensor("state", s_shape, dtype, variable=True)
        y = Tensor("output", (), dtype)
    else:
        xq = act_quant(rng)
        wfq = _q(10 ** rng.uniform(-3, -1.5))
        # the state's scale puts the requantized feature values across the state's range, sometimes past it
        sq = _q(xq.scale[0] * wfq.scale[0] * np.sqrt(n_in) * 60 / (128 if state == DType.INT8 else 32768)
                * 10 ** rng.uniform(-0.5, 0.5), 0 if state == DType.INT16 else rng.integers(-20, 20))
        wtq = _q(10 ** rng.uniform(-3, -1.5))
        lim = 127 if state == DType.INT8 else 8191  # int16 time weights as converters give them
        x = Tensor("input", x_shape, dtype, xq)
        wf = Tensor("w_feature", (filters, n_in), dtype, wfq, rng.integers(-127, 128, (filters, n_in)).astype(np.int8))
        wt = Tensor("w_time", (filters, memory), state, wtq,
                    rng.integers(-lim, lim + 1, (filters, memory)).astype(state.np))
        bq = _q(sq.scale[0] * wtq.scale[0])
        b = Tensor("bias", (units,), DType.INT32, bq,
                   np.round(rng.normal(0, 0.5, units) / bq.scale[0]).clip(-2**30, 2**30).astype(np.int32))
        s = Tensor("state", s_shape, state, sq, variable=True)
        spread = sq.scale[0] * wtq.scale[0] * lim * 60 * np.sqrt(memory * rank)
        y = Tensor("output", (), dtype, act_quant(rng, spread / 128 * 10 ** rng.uniform(-0.5, 0.5)))
    op = Op("SVDF", [x, wf, wt, b, s], [y], attrs, name="svdf", index=0)
    y.shape = tuple(ops.infer(op)[0][0])
    assert not ops.problems(op), ops.problems(op)
    label = f"svdf{i} {dtype} state {s.dtype} in {list(x_shape)} filters {filters} memory {memory} {attrs}"
    return Graph([op], [x], [y], name="svdf"), label


def svdf_case(rng: np.random.Generator, dtype: DType, state: DType, i: int) -> SeqCase:
    graph, label = svdf_graph(rng, dtype, state, i)
    x = graph.inputs[0]
    if dtype == DType.FLOAT32:
        steps = [[rng.normal(0, 1.5, x.shape).astype(np.float32)] for _ in range(INVOKES)]
    else:
        steps = [[rng.integers(-128, 128, x.shape).astype(np.int8)] for _ in range(INVOKES)]
    return SeqCase(label, graph, steps)


@pytest.mark.parametrize("dtype,state", [(DType.INT8, DType.INT16), (DType.INT8, DType.INT8),
                                         (DType.FLOAT32, DType.FLOAT32)], ids=["int8-int16", "int8-int8", "float32"])
def test_svdf_sequences_match_tflm(dtype, state):
    rng = np.random.default_rng(SEED + {DType.INT16: 0, DType.INT8: 1, DType.FLOAT32: 2}[state])
    check([svdf_case(rng, dtype, state, i) for i in range(case_count(12, 30))])


@pytest.mark.parametrize("dtype,state", [(DType.INT8, DType.INT16), (DType.FLOAT32, DType.FLOAT32)], ids=str)
def test_svdf_without_bias_is_refused_in_one_line(dtype, state):
    rng = np.random.default_rng(SEED)
    graph, _ = svdf_graph(rng, dtype, state, 0)
    op = graph.ops[0]
    op.inputs[3] = None
    assert ops.problems(op) == ["needs a bias: TFLite Micro's SVDF reads it unconditionally (and crashes without)"]
