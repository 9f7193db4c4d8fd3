"""The corpus LSTM and SVDF models over a sequence of 20 invokes (state carried, as in a stream) on
the host and on qemu-mps2-an386, against one TFLM interpreter fed the same sequence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from microfuse.ir import Graph
from microfuse.tflite import reader
from microfuse.tflite.writer import write

from microfuse.pipeline import load
from microfuse.testing import inputs, sequences
from microfuse.testing.boards import run_sequence
from microfuse.testing.compare import first_difference
from tests.conftest import model
from tests.harness import on_qemu

LSTM_MODELS = ("tflm/mnist_lstm_float", "tflm/mnist_lstm_int8", "tflm/micro_speech_lstm_int8")
RECURRENT = (*LSTM_MODELS, "tflm/keyword_scrambled_int16")  # SVDF x7, int16 state, int8 -> int16 SOFTMAX
INVOKES = 20


def _check(name: str, board: str, path: Path | None = None, steps: list | None = None) -> None:
    path = path or model(name)
    rng = np.random.default_rng(13)
    steps = steps or [inputs.sample(load(path).inputs, rng) for _ in range(INVOKES)]
    want = sequences.tflm(path.read_bytes(), steps)
    got = run_sequence(path, board, steps)
    for k, (g, w) in enumerate(zip(got, want)):
        bad = first_difference(g, w)
        assert not bad, f"{name} on {board}, invoke {k} of {INVOKES}: {bad}"


@pytest.mark.parametrize("name", RECURRENT)
def test_recurrent_models_match_tflm_over_a_sequence_on_host(name):
    _check(name, "host")


@on_qemu
@pytest.mark.parametrize("name", RECURRENT)
def test_recurrent_models_match_tflm_over_a_sequence_on_qemu(name):
    _check(name, "qemu-mps2-an386")


def _svdf_chain(tmp_path: Path) -> tuple[Path, list]:
    """keyword_scrambled_int16 up to its SOFTMAX with every SVDF and FULLY_CONNECTED output a graph
    output (each layer's state checked, not only the class scores), fed int16 features of a
    speech-like spread."""
    graph = reader.read(model("tflm/keyword_scrambled_int16"))
    cut = next(i for i, op in enumerate(graph.ops) if op.kind == "SOFTMAX")
    ops = graph.ops[:cut]
    sub = Graph(ops, graph.inputs, [op.outputs[0] for op in ops if op.kind != "QUANTIZE"], name="kws_svdf")
    path = tmp_path / "kws_svdf.tflite"
    path.write_bytes(write(sub))
    rng = np.random.default_rng(14)
    x = graph.inputs[0]
    steps = [[np.clip(rng.normal(0, 3000, x.shape), -32768, 32767).astype(np.int16)] for _ in range(INVOKES)]
    return path, steps


def test_svdf_chain_of_keyword_scrambled_matches_tflm_over_a_sequence_on_host(tmp_path):
    _check("keyword_scrambled_int16 up to SOFTMAX", "host", *_svdf_chain(tmp_path))


@on_qemu
def test_svdf_chain_of_keyword_scrambled_matches_tflm_over_a_sequence_on_qemu(tmp_path):
    _check("keyword_scrambled_int16 up to SOFTMAX", "qemu-mps2-an386", *_svdf_chain(tmp_path))
