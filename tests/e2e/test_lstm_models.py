"""The corpus LSTM models over a sequence of 20 invokes (state carried, as in a stream) on the host
and on qemu-mps2-an386, against one TFLM interpreter fed the same sequence."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import load
from microfuse.testing import inputs, sequences
from microfuse.testing.boards import run_sequence
from microfuse.testing.compare import first_difference
from tests.conftest import model
from tests.harness import on_qemu

LSTM_MODELS = ("tflm/mnist_lstm_float", "tflm/mnist_lstm_int8", "tflm/micro_speech_lstm_int8")
INVOKES = 20


def _check(name: str, board: str) -> None:
    path = model(name)
    rng = np.random.default_rng(13)
    steps = [inputs.sample(load(path).inputs, rng) for _ in range(INVOKES)]
    want = sequences.tflm(path.read_bytes(), steps)
    got = run_sequence(path, board, steps)
    for k, (g, w) in enumerate(zip(got, want)):
        bad = first_difference(g, w)
        assert not bad, f"{name} on {board}, invoke {k} of {INVOKES}: {bad}"


@pytest.mark.parametrize("name", LSTM_MODELS)
def test_lstm_models_match_tflm_over_a_sequence_on_host(name):
    _check(name, "host")


@on_qemu
@pytest.mark.parametrize("name", LSTM_MODELS)
def test_lstm_models_match_tflm_over_a_sequence_on_qemu(name):
    _check(name, "qemu-mps2-an386")
