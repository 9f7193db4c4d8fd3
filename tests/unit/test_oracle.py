"""The TFLM oracle: running models, dumping every tensor, arena use and the minimum arena."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import model

from microfuse import oracle
from microfuse.errors import ModelError, TargetError
from microfuse.tflite import read

HELLO_INT8 = model("tflm_hello_world_int8")
HELLO_FLOAT = model("tflm_hello_world_float")
KWS = model("mlperf_kws_dscnn_int8")
SIMPLE_ADD = model("tflm_simple_add")
KWS_SHAPE = read(KWS).inputs[0].shape


def _quantize(x: float, t) -> np.ndarray:
    q = np.round(x / t.quant.scale[0] + t.quant.zero_point[0])
    return np.array(np.clip(q, -128, 127), dtype=np.int8).reshape(t.shape)


def test_hello_world_models_compute_a_sine():
    """hello_world learned sin(x): both builds must give about sin(x) through the oracle."""
    graph = read(HELLO_INT8)
    x_in, y_out = graph.inputs[0], graph.outputs[0]
    for x in (0.5, 1.5, 3.0, 4.5, 6.0):
        y_float = oracle.run(HELLO_FLOAT, [np.array([[x]], np.float32)])[0]
        assert y_float.shape == (1, 1) and abs(float(y_float[0, 0]) - np.sin(x)) < 0.15
        q = oracle.run(HELLO_INT8, [_quantize(x, x_in)])[0]
        y = (int(q[0, 0]) - y_out.quant.zero_point[0]) * y_out.quant.scale[0]
        assert q.dtype == np.int8 and abs(y - np.sin(x)) < 0.15


def test_inputs_are_set_before_each_invoke():
    rng = np.random.default_rng(0)
    feeds = [[rng.integers(-128, 128, size=KWS_SHAPE, dtype=np.int8)] for _ in range(2)]
    first, second, again = (oracle.run(KWS, f)[0] for f in (feeds[0], feeds[1], feeds[0]))
    assert first.shape == (1, 12) and np.array_equal(first, again)
    assert not np.array_equal(first, second)


def test_inputs_are_checked():
    with pytest.raises(TargetError, match="1 input"):
        oracle.run(HELLO_INT8, [])
    with pytest.raises(TargetError, match="int8"):
        oracle.run(HELLO_INT8, [np.zeros((1, 1), np.float32)])
    # same element count in another shape is fine: TFLM sees the bytes
    assert oracle.run(HELLO_INT8, [np.zeros(1, np.int8)])[0].shape == (1, 1)


def test_model_from_bytes_path_or_str():
    feed = [np.array([[3]], np.int8)]
    want = oracle.run(HELLO_INT8, feed)[0]
    assert np.array_equal(oracle.run(str(HELLO_INT8), feed)[0], want)
    assert np.array_equal(oracle.run(HELLO_INT8.read_bytes(), feed)[0], want)


def test_bad_models_raise_model_error(tmp_path):
    with pytest.raises(ModelError, match="cannot read"):
        oracle.run(tmp_path / "missing.tflite", [])
    with pytest.raises(ModelError, match="not a valid"):
        oracle.run(b"\0" * 64, [])


def test_too_small_arena_gives_tflm_reason():
    with pytest.raises(TargetError, match="allocate|resize|arena|Failed"):
        oracle.run(KWS, [np.zeros(KWS_SHAPE, np.int8)], arena_size=4096)


def test_run_all_tensors_dumps_every_tensor():
    graph = read(KWS)
    feed = [np.random.default_rng(1).integers(-128, 128, size=KWS_SHAPE, dtype=np.int8)]
    tensors = oracle.run_all_tensors(KWS, feed)
    by_index = {t.index: t for t in graph.tensors()}
    assert sorted(tensors) == list(range(max(by_index) + 1))
    for i, t in by_index.items():
        assert tensors[i].shape == t.shape and tensors[i].dtype == t.dtype.np, t.name
        if t.is_const:
            assert np.array_equal(tensors[i], t.data), t.name
    assert np.array_equal(tensors[graph.inputs[0].index], feed[0])
    assert np.array_equal(tensors[graph.outputs[0].index], oracle.run(KWS, feed)[0])


def test_arena_usage_parts_and_lower_bound():
    usage = oracle.arena_usage(KWS)
    assert usage["total"] == usage["head"] + usage["tail"]
    graph = read(KWS)
    # any plan needs, at some op, its activation inputs and outputs at once
    need = max(sum(t.nbytes for t in [*op.inputs, *op.outputs] if t is not None and not t.is_const)
               for op in graph.ops)
    assert need <= usage["head"] < 4 * need
    assert usage["tail"] > 0


def test_min_arena_is_the_threshold():
    smallest = oracle.min_arena(HELLO_INT8)
    assert smallest > 400
    assert oracle.fits(HELLO_INT8, smallest)
    assert not oracle.fits(HELLO_INT8, smallest - 1)
    assert not oracle.fits(HELLO_INT8, 200)  # crashes the child process: counted as "does not fit"


def test_min_arena_can_be_below_the_reported_total():
    """TFLM's report counts alignment slack, so the minimum is searched below it too."""
    smallest = oracle.min_arena(SIMPLE_ADD)
    assert oracle.fits(SIMPLE_ADD, smallest) and not oracle.fits(SIMPLE_ADD, smallest - 1)
    assert smallest >= oracle.arena_usage(SIMPLE_ADD)["head"]


def test_main_prints_usage_and_minimum(capsys, monkeypatch):
    monkeypatch.setattr(oracle, "min_arena", lambda model: 12345)  # the search itself is tested above
    assert oracle.main([str(SIMPLE_ADD)]) == 0
    out = capsys.readouterr().out
    usage = oracle.arena_usage(SIMPLE_ADD)
    assert f"total {usage['total']} head {usage['head']} tail {usage['tail']} min_arena 12345" in out
    assert oracle.main([]) == 2
    assert oracle.main([str(SIMPLE_ADD) + ".missing"]) == 2
    assert "cannot read model" in capsys.readouterr().err


def test_missing_tflm_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m.startswith("tflite_micro")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tflite_micro", None)  # makes the import fail
    with pytest.raises(TargetError, match=r"pip install 'microfuse\[test\]'"):
        oracle.run(HELLO_INT8, [np.zeros((1, 1), np.int8)])
    with pytest.raises(TargetError, match="test extra"):
        oracle.min_arena(HELLO_INT8)
