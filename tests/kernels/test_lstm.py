"""UNIDIRECTIONAL_SEQUENCE_LSTM conformance: seeded random single-op models (int8 and int16 (16x8)
with int16 cell state, float32; batch- and time-major; cell clipping) over sequences of invokes
with the state carried between them, our kernels vs TFLite Micro."""

from __future__ import annotations


import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.lower.rnn import GATE_SCALE
from microfuse.ops.rnn import CELL, GATES, HIDDEN, INPUT, LstmAttrs
from microfuse.testing.ptq import f32
from tests.harness import case_count
from tests.kernels.cases import act_quant
from tests.kernels.stateful import SeqCase, check

SEED = 41
INVOKES = 20


def _q(scale: float, zp: int = 0) -> Quant:
    return Quant((f32(scale),), (int(zp),))


def lstm_graph(rng: np.random.Generator, dtype: DType, i: int) -> tuple[Graph, str]:
    n_in, n_cell = int(rng.integers(1, 33)), int(rng.integers(1, 25))
    batches, steps, time_major = int(rng.integers(1, 4)), int(rng.integers(1, 6)), bool(rng.random() < 0.4)
    clip = float(f32(rng.uniform(0.5, 4))) if rng.random() < 0.3 else 0.0
    attrs = LstmAttrs("TANH", clip, 0.0, time_major)
    shape = (steps, batches, n_in) if time_major else (batches, steps, n_in)
    inputs: list[Tensor | None] = [None] * 24
    if dtype == DType.FLOAT32:
        inputs[INPUT] = Tensor("input", shape, dtype)
        inputs[HIDDEN] = Tensor("hidden", (batches, n_cell), dtype, variable=True)
        inputs[CELL] = Tensor("cell", (batches, n_cell), dtype, variable=True)
        out_q = None
        for gate, (wx, wh, b) in GATES.items():
            inputs[wx] = Tensor(f"{gate}_wx", (n_cell, n_in), dtype,
                                data=rng.normal(0, 0.5, (n_cell, n_in)).astype(np.float32))
            inputs[wh] = Tensor(f"{gate}_wh", (n_cell, n_cell), dtype,
                                data=rng.normal(0, 0.5, (n_cell, n_cell)).astype(np.float32))
            inputs[b] = Tensor(f"{gate}_b", (n_cell,), dtype, data=rng.normal(0, 0.5, n_cell).astype(np.float32))
    else:
        wide = dtype == DType.INT16  # TFLM's 16x8 LSTM: symmetric int16 activations, int64 biases
        xq = _q(10 ** rng.uniform(-4, -2.5)) if wide else act_quant(rng)
        hq = _q(10 ** rng.uniform(-4.5, -4)) if wide else _q(10 ** rng.uniform(-2.5, -1.5), rng.integers(-30, 30))
        cq = _q(2.0 ** int(rng.integers(-15, -9)))
        inputs[INPUT] = Tensor("input", shape, dtype, xq)
        inputs[HIDDEN] = Tensor("hidden", (batches, n_cell), dtype, hq, variable=True)
        bias_type = DType.INT64 if wide else DType.INT32
        inputs[CELL] = Tensor("cell", (batches, n_cell), DType.INT16, cq, variable=True)
        out_q = hq
        for gate, (wx, wh, b) in GATES.items():
            # FC multipliers (input scale x weight scale / 2^-12) as converters give them: the gates'
            # Q3.12 pre-activations spread over their range, sometimes saturating
            wxs = 10 ** rng.uniform(-2.5, -0.3) * GATE_SCALE / xq.scale[0]
            whs = 10 ** rng.uniform(-2.5, -0.3) * GATE_SCALE / hq.scale[0]
            inputs[wx] = Tensor(f"{gate}_wx", (n_cell, n_in), DType.INT8, _q(wxs),
                                rng.integers(-127, 128, (n_cell, n_in)).astype(np.int8))
            inputs[wh] = Tensor(f"{gate}_wh", (n_cell, n_cell), DType.INT8, _q(whs),
                                rng.integers(-127, 128, (n_cell, n_cell)).astype(np.int8))
            bias = np.round(rng.normal(0, 1.0, n_cell) / (xq.scale[0] * wxs)).clip(-2**30, 2**30)
            inputs[b] = Tensor(f"{gate}_b", (n_cell,), bias_type, _q(xq.scale[0] * wxs), bias.astype(bias_type.np))
    out = Tensor("output", (), dtype, out_q)
    op = Op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [out], attrs, name="lstm", index=0)
    out.shape = tuple(ops.infer(op)[0][0])
    assert not ops.problems(op), ops.problems(op)
    label = f"lstm{i} {dtype} in {list(shape)} cells {n_cell} {attrs}"
    return Graph([op], [inputs[INPUT]], [out], name="lstm"), label


def lstm_case(rng: np.random.Generator, dtype: DType, i: int) -> SeqCase:
    graph, label = lstm_graph(rng, dtype, i)
    x = graph.inputs[0]
    if dtype == DType.FLOAT32:
        steps = [[rng.normal(0, 1.5, x.shape).astype(np.float32)] for _ in range(INVOKES)]
    elif dtype == DType.INT16:
        steps = [[np.clip(rng.normal(0, 8000, x.shape), -32768, 32767).astype(np.int16)] for _ in range(INVOKES)]
    else:
        steps = [[rng.integers(-128, 128, x.shape).astype(np.int8)] for _ in range(INVOKES)]
    return SeqCase(label, graph, steps)


@pytest.mark.parametrize("dtype", [DType.INT8, DType.INT16, DType.FLOAT32], ids=str)
def test_lstm_sequences_match_tflm(dtype):
    rng = np.random.default_rng(SEED + {DType.INT8: 0, DType.FLOAT32: 1, DType.INT16: 2}[dtype])
    check([lstm_case(rng, dtype, i) for i in range(case_count(12, 30))])


@pytest.mark.parametrize("slots,text", [((1, 5, 12), "CIFG (no input gate) is not supported"),
                                        ((10,), "peephole weights is not supported"),
                                        ((16,), "a projection is not supported"),
                                        ((21,), "layer normalization is not supported")])
def test_lstm_variants_tflm_refuses_are_one_line_errors(slots, text):
    rng = np.random.default_rng(SEED)
    graph, _ = lstm_graph(rng, DType.FLOAT32, 0)
    op = graph.ops[0]
    n = op.inputs[2].shape[0]
    for s in slots:  # drop the input gate, or add the variant's tensor
        op.inputs[s] = None if s in (1, 5, 12) else Tensor(f"t{s}", (n,), DType.FLOAT32, data=np.ones(n, np.float32))
    found = ops.problems(op)
    assert len(found) == 1 and text in found[0] and "TFLite Micro" in found[0], found
