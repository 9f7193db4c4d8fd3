"""modelgen: every generator's graph loads and runs in TFLM, quantized the way the converter does it."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import oracle, ops
from microfuse.ir import DType
from microfuse.testing import inputs, ptq
from microfuse.testing import modelgen as mg
from microfuse.tflite import writer

F32 = DType.FLOAT32

# name -> (generator with (rng, dtype), tolerance in output scales for int8 vs the float twin)
CASES = {
    "conv_same": (lambda r, d: mg.conv2d(r, dtype=d), 2),
    "conv_valid_stride_dilation": (lambda r, d: mg.conv2d(r, (1, 9, 7, 2), 3, (3, 2), (2, 1), "VALID", (2, 1),
                                                           "RELU", dtype=d), 2),
    "conv_per_tensor_relu6": (lambda r, d: mg.conv2d(r, stride=2, activation="RELU6", per_channel=False,
                                                      dtype=d), 8),
    "conv_no_bias": (lambda r, d: mg.conv2d(r, kernel=1, bias=False, dtype=d), 2),
    "depthwise": (lambda r, d: mg.depthwise(r, dtype=d), 2),
    "depthwise_mult2_stride2_relu6": (lambda r, d: mg.depthwise(r, multiplier=2, stride=2, activation="RELU6",
                                                                 dtype=d), 2),
    "depthwise_dilated_valid": (lambda r, d: mg.depthwise(r, (1, 9, 9, 3), dilation=2, padding="VALID", dtype=d), 2),
    "fc": (lambda r, d: mg.fully_connected(r, dtype=d), 2),
    "fc_per_channel_relu": (lambda r, d: mg.fully_connected(r, (1, 24), 6, "RELU", per_channel=True, dtype=d), 2),
    "fc_keep_dims_no_bias": (lambda r, d: mg.fully_connected(r, (2, 3, 16), keep_num_dims=True, bias=False,
                                                             dtype=d), 2),
    "max_pool": (lambda r, d: mg.pool(r, dtype=d), 1),
    "avg_pool_same": (lambda r, d: mg.pool(r, "AVERAGE", filter=3, stride=2, padding="SAME", dtype=d), 1),
    "max_pool_relu": (lambda r, d: mg.pool(r, "MAX", filter=(2, 3), stride=1, activation="RELU", dtype=d), 1),
    "add": (lambda r, d: mg.add(r, dtype=d), 1),
    "add_broadcast_relu": (lambda r, d: mg.add(r, shape_b=(1, 1, 4, 8), activation="RELU", dtype=d), 1),
    "sub_const": (lambda r, d: mg.sub(r, shape_b=(8,), const_b=True, dtype=d), 1),
    "mul_broadcast": (lambda r, d: mg.mul(r, shape_b=(1, 4, 1, 1), dtype=d), 1),
    **{kind.lower(): (lambda r, d, k=kind: mg.unary(r, k, dtype=d), 1) for kind in mg.UNARY_KINDS},
    "softmax": (lambda r, d: mg.softmax(r, dtype=d), 1),
    "softmax_beta_4d": (lambda r, d: mg.softmax(r, (1, 2, 2, 6), beta=0.5, dtype=d), 1),
    "pad": (lambda r, d: mg.pad(r, dtype=d), 1),
    "mean_hw": (lambda r, d: mg.mean(r, dtype=d), 1),
    "mean_channels": (lambda r, d: mg.mean(r, axes=(3,), keep_dims=False, dtype=d), 1),
    "concat_channels": (lambda r, d: mg.concatenation(r, dtype=d), 1),
    "concat_height_3": (lambda r, d: mg.concatenation(r, ((1, 2, 4, 3), (1, 3, 4, 3), (1, 1, 4, 3)), 1, d), 1),
    "reshape": (lambda r, d: mg.reshape(r, dtype=d), 1),
    "reshape_minus_one": (lambda r, d: mg.reshape(r, (1, 2, 3, 4), (6, -1), dtype=d), 1),
    "small_cnn": (lambda r, d: mg.small_cnn(r, dtype=d), 8),
    "residual": (lambda r, d: mg.residual(r, dtype=d), 8),
}


def _run(graph, feeds):
    out = oracle.run(writer.write(graph), feeds)
    assert len(out) == len(graph.outputs)
    for got, t in zip(out, graph.outputs):
        assert got.shape == t.shape and got.dtype == t.dtype.np
    return out


def _dequantize(x: np.ndarray, t) -> np.ndarray:
    return ((x.astype(np.float64) - t.quant.zero_point[0]) * t.quant.scale[0]).astype(np.float32)


@pytest.mark.parametrize("name", CASES)
def test_int8_graph_runs_and_tracks_its_float_twin(name):
    make, tolerance = CASES[name]
    for seed in (0, 1):
        graph = make(np.random.default_rng(seed), DType.INT8)
        twin = make(np.random.default_rng(seed), F32)  # same seed: same float weights
        assert all(not ops.problems(op) for op in graph.ops), [ops.problems(op) for op in graph.ops]
        feeds = inputs.sample(graph.inputs, np.random.default_rng(100 + seed))
        got = _run(graph, feeds)[0]
        want = _run(twin, [_dequantize(x, t) for x, t in zip(feeds, graph.inputs)])[0]
        out = graph.outputs[0]
        q_lo, q_hi = _dequantize(np.array([-128, 127]), out)
        error = np.abs(_dequantize(got, out) - np.clip(want, q_lo, q_hi)).max() / out.quant.scale[0]
        assert error <= tolerance, f"{name} seed {seed}: off by {error:.2f} output steps"
        # not all saturated: most outputs are inside the int8 range (or exactly the zero point)
        extreme = ((got == -128) | (got == 127)) & (got != out.quant.zero_point[0])
        assert extreme.mean() < 0.5, f"{name} seed {seed}: {extreme.mean():.0%} saturated"
        assert len(np.unique(got)) > 1


def test_weights_and_biases_follow_the_converter():
    rng = np.random.default_rng(3)
    for graph, axis in ((mg.conv2d(rng, out_ch=5), 0), (mg.depthwise(rng, multiplier=2), 3),
                        (mg.fully_connected(rng, per_channel=True), 0), (mg.fully_connected(rng), None)):
        x, w, b = graph.ops[0].inputs
        assert w.dtype == DType.INT8 and w.quant.axis == axis and set(w.quant.zero_point) == {0}
        assert np.abs(w.data.astype(int)).max() == 127 and w.data.min() >= -127
        channels = w.shape[axis] if axis is not None else 1
        assert len(w.quant.scale) == channels
        assert b.dtype == DType.INT32 and b.shape == (w.shape[0 if axis != 3 else 3],)
        np.testing.assert_allclose(b.quant.scale, np.array(w.quant.scale) * x.quant.scale[0], rtol=1e-6)
        assert set(b.quant.zero_point) == {0}


def test_fixed_and_shared_output_quantization():
    rng = np.random.default_rng(4)
    fixed = {"LOGISTIC": ((1 / 256,), (-128,)), "TANH": ((1 / 128,), (0,))}
    for kind, (scale, zp) in fixed.items():
        q = mg.unary(rng, kind).outputs[0].quant
        assert (q.scale, q.zero_point) == (scale, zp)
    q = mg.softmax(rng).outputs[0].quant
    assert (q.scale, q.zero_point) == ((1 / 256,), (-128,))
    for graph in (mg.pool(rng), mg.pool(rng, "AVERAGE"), mg.pad(rng), mg.reshape(rng), mg.unary(rng, "RELU6"),
                  mg.concatenation(rng, ((1, 2, 2, 1),) * 3)):
        quants = {t.quant for t in graph.ops[0].inputs if t is not None and not t.is_const}
        assert quants == {graph.outputs[0].quant}, graph.name


def test_input_quantization_is_random_but_valid():
    seen = set()
    for seed in range(6):
        q = mg.conv2d(np.random.default_rng(seed)).inputs[0].quant
        assert 0.005 < q.scale[0] < 0.11 and -128 <= q.zero_point[0] <= 127 and q.axis is None
        seen.add(q)
    assert len(seen) == 6


def test_quantize_and_dequantize_graphs():
    rng = np.random.default_rng(5)
    graph = mg.quantize(rng)
    x = rng.normal(0, 1, size=graph.inputs[0].shape).astype(np.float32)
    got = _run(graph, [x])[0]
    q = graph.outputs[0].quant
    want = np.clip(np.round(x / q.scale[0]) + q.zero_point[0], -128, 127)
    assert np.abs(got.astype(int) - want).max() <= 1

    graph = mg.quantize(rng, src=DType.INT8)
    assert graph.inputs[0].dtype == DType.INT8 and graph.inputs[0].quant != graph.outputs[0].quant
    feed = inputs.sample(graph.inputs, rng)
    got = _run(graph, feed)[0]
    out = graph.outputs[0]
    want = np.clip(_dequantize(feed[0], graph.inputs[0]), *_dequantize(np.array([-128, 127]), out))
    assert np.abs(_dequantize(got, out) - want).max() <= out.quant.scale[0]

    graph = mg.dequantize(rng)
    feed = inputs.sample(graph.inputs, rng)
    np.testing.assert_allclose(_run(graph, feed)[0], _dequantize(feed[0], graph.inputs[0]), rtol=1e-6)


def test_float_graphs_keep_float_weights():
    graph = mg.small_cnn(np.random.default_rng(6), dtype=F32)
    assert {t.dtype for t in graph.tensors()} == {F32, DType.INT32}  # INT32: the reshape target
    assert all(t.quant is None for t in graph.tensors())
    assert _run(graph, inputs.sample(graph.inputs, np.random.default_rng(7)))[0].sum() == pytest.approx(1.0, abs=1e-5)


def test_range_quant_includes_zero_and_bad_arguments_raise():
    q = ptq.range_quant(0.5, 2.0)  # widened to [0, 2]: zero is exact
    assert q.zero_point == (-128,) and q.scale[0] == pytest.approx(2.0 / 255)
    with pytest.raises(ValueError, match="unary kind"):
        mg.unary(np.random.default_rng(0), "SIN")
    with pytest.raises(ValueError, match="float32 or int8"):
        mg.conv2d(np.random.default_rng(0), dtype=DType.INT16)
