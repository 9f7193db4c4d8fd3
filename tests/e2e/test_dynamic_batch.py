"""A dilated conv converted with a dynamic batch (SPACE_TO_BATCH_ND -> CONV_2D -> BATCH_TO_SPACE_ND,
shape_signature -1, stored batch 1 where the op gives 4): microfuse recomputes the shapes as
TFLite does and says so; TFLM never resizes (tflite-micro #3185), so verify compares with LiteRT."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import litert, oracle
from microfuse.errors import ModelError
from microfuse.ir import DType
from microfuse.ops.attrs import ConvAttrs, NoAttrs
from microfuse.pipeline import compile_model, load
from microfuse.testing.modelgen import Net
from microfuse.tflite import reader, writer
from microfuse.verify import verify


def dynamic_dilated(dtype: DType, seed: int = 3, dynamic: bool = True) -> bytes:
    net = Net("dyn_dilated", np.random.default_rng(seed))
    x = net.input((1, 9, 10, 3))
    ints = lambda v, what: net.const(np.array(v, np.int32), what)  # noqa: E731
    s = net.op("SPACE_TO_BATCH_ND", [x, ints([2, 2], "block"), ints([[2, 3], [2, 2]], "paddings")], NoAttrs())
    y = net.op("CONV_2D", [s, net.weights((4, 3, 3, 3), 27, 0), net.bias(4)], ConvAttrs("VALID", 1, 1, "RELU"),
               per_channel=True)
    z = net.op("BATCH_TO_SPACE_ND", [y, ints([2, 2], "block"), ints([[0, 1], [0, 0]], "crops")], NoAttrs())
    graph = net.finish([z], dtype)
    signatures = {}
    for op in graph.ops:  # the converter's file: batch 1 stored, -1 in the signature
        for t in [*op.inputs[:1], *op.outputs]:
            signatures[t.name] = (-1 if dynamic else 1, *t.shape[1:])
            t.shape = (1, *t.shape[1:])
    return writer.write(graph, signatures)


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32])
def test_dynamic_batch_is_recomputed_and_noted(dtype):
    graph = reader.read(dynamic_dilated(dtype))
    assert [op.outputs[0].shape for op in graph.ops] == [(4, 7, 7, 3), (4, 5, 5, 4), (1, 9, 10, 4)]
    (note,) = graph.notes
    assert "recomputed 2 stored shape(s)" in note and "op 0 SPACE_TO_BATCH_ND" in note and "\n" not in note
    assert "[1, 7, 7, 3] -> [4, 7, 7, 3]" in note
    assert compile_model(graph).notes == [note]


def test_a_static_shape_mismatch_is_still_an_error():
    with pytest.raises(ModelError, match=r"op 0 SPACE_TO_BATCH_ND: output .* is \[1, 7, 7, 3\] .* op gives \[4, 7, 7, 3\]"):
        load(dynamic_dilated(DType.FLOAT32, dynamic=False))


def test_tflm_gets_this_model_wrong(tmp_path):
    data = dynamic_dilated(DType.FLOAT32)
    x = np.random.default_rng(0).normal(size=(1, 9, 10, 3)).astype(np.float32)
    assert not np.allclose(oracle.run(data, [x])[0], litert.run(data, [x])[0], atol=1e-3)


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32])
def test_verify_compares_with_litert_and_says_why(tmp_path, dtype):
    path = tmp_path / "dyn.tflite"
    path.write_bytes(dynamic_dilated(dtype))
    assert "tflite-micro #3185" in litert.tflm_known_wrong(reader.read(path))
    verdict, compiled, _ = verify(path, "host", n=4, seed=2)
    assert verdict.ok, verdict.line(dtype == DType.FLOAT32)
    assert "LiteRT's reference kernels" in verdict.line(False) and "#3185" in verdict.line(False)
    assert len(compiled.calls) == 1  # the chain is one dilated conv


def test_int8_padding_with_a_zero_point_is_tflm_issue_1646():
    graph = reader.read(dynamic_dilated(DType.INT8))
    graph.notes.clear()
    assert graph.ops[0].inputs[0].quant.zero_point[0] != 0
    assert "#1646" in litert.tflm_known_wrong(graph)
