"""Real models of issue 14 that were refused or miscompiled: person_detect, the hybrid KWS, blockers at once."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from microfuse import ops
from microfuse.errors import UnsupportedError
from microfuse.ir import DType, Quant
from microfuse.pipeline import compile_model
from microfuse.testing import modelgen
from microfuse.tflite import writer
from microfuse.verify import verify
from tests.conftest import model
from tests.harness import NEEDS_ARM


def test_person_detect_bias_axis_is_accepted_and_bit_exact_on_host():
    # its 1-D bias tensors carry quantized_dimension 3 (the filter's); TFLM ignores bias quantization
    verdict, _, _ = verify(model("tflm/person_detect_int8"), "host", n=3, seed=14)
    assert verdict.ok, verdict.line(False)


@pytest.mark.parametrize("board", ["qemu-mps2-an386"])
@pytest.mark.qemu
@NEEDS_ARM
def test_person_detect_bit_exact_on_m4(board):
    verdict, _, counts = verify(model("tflm/person_detect_int8"), board, n=1, seed=14)
    assert verdict.ok, verdict.line(False)
    assert len(counts) == 3 and min(counts) > 0


def test_hybrid_conv_is_refused_naming_op_and_reason():
    path = model("tiny/kws_dscnn_hybrid")
    with pytest.raises(UnsupportedError) as e:
        compile_model(path)
    text = str(e.value)
    assert text.startswith(f"{path}: op 0 CONV_2D ")
    assert "float input with int8 weights" in text and "hybrid" in text and "TFLM" in text
    assert "\n" not in text


def test_every_blocker_is_reported_at_once_with_op_index_and_kind():
    path = model("tiny/kws_dscnn_hybrid")  # five hybrid CONV_2D ops
    with pytest.raises(UnsupportedError) as e:
        compile_model(path)
    text = str(e.value)
    assert text.startswith(f"{path}: op ") and text.count("CONV_2D") == 5, text
    listed = [int(part.split()[0]) for part in text.split("op ")[1:] if part.split()[0].isdigit()]
    assert listed == sorted(listed) and len(set(listed)) >= 2, text


@pytest.mark.parametrize("make", [modelgen.conv2d, modelgen.depthwise, modelgen.fully_connected])
def test_hybrid_float_input_int8_weights_is_a_constraint(make):
    graph = make(np.random.default_rng(1), dtype=DType.FLOAT32)
    op = graph.ops[0]
    w = op.inputs[1]
    hybrid = replace(w, dtype=DType.INT8, quant=Quant((0.01,), (0,), None), data=np.zeros(w.shape, np.int8))
    found = ops.problems(replace(op, inputs=[op.inputs[0], hybrid, *op.inputs[2:]]))
    assert any("float input with int8 weights" in m and "hybrid" in m for m in found), found
    assert not ops.problems(op)


def test_a_lowering_error_names_the_model_path(monkeypatch, tmp_path):
    from microfuse.lower import registry

    path = tmp_path / "add.tflite"
    path.write_bytes(writer.write(modelgen.add(np.random.default_rng(2))))

    def refuse(op, lw):
        raise UnsupportedError(f"{op.where} '{op.name}': refused by the test")
    monkeypatch.setitem(registry.LOWERINGS, ("ADD", DType.INT8), refuse)
    with pytest.raises(UnsupportedError, match=rf"^{re.escape(str(path))}: op 0 ADD '.*': refused by the test$"):
        compile_model(path)
