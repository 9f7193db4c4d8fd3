"""micro_speech's audio front end (tflm/audio_preprocessor_int8.tflite): its signal-library stages,
cut out of the real model with its own constants, against TFLM on random audio frames (host and
qemu-mps2-an386). The whole model still needs SignalFilterBankSpectralSubtraction (state kept
between invokes) and int32 arithmetic (MUL, ADD, DIV, MINIMUM, MAXIMUM, CONCATENATION, STRIDED_SLICE)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.errors import UnsupportedError
from microfuse.ir import Graph
from microfuse.pipeline import compile_model
from microfuse.testing import inputs
from microfuse.testing.compare import difference
from microfuse.testing.host import run_graph
from microfuse.tflite import reader, writer
from microfuse.verify import verify
from tests.conftest import model
from tests.harness import NEEDS_ARM, reference

PATH = model("tflm/audio_preprocessor_int8")


def part(first: int, last: int, outputs: list[int], feeds: list[int]) -> Graph:
    """Ops first..last of the model; graph inputs and outputs by tensor index."""
    g = reader.read(PATH)
    by_index = {t.index: t for t in g.tensors()}
    return Graph(g.ops[first:last + 1], [by_index[i] for i in feeds], [by_index[i] for i in outputs],
                 name=f"audio_{first}_{last}")


FRONT = lambda: part(0, 4, [23, 24], [0])  # noqa: E731  window, reshape, auto-scale, rfft, energy
BANK = lambda: part(9, 10, [29, 30], [28, 22])  # noqa: E731  filter bank, its square root
GAIN = lambda: part(12, 13, [33, 34], [31, 32])  # noqa: E731  PCAN, log


def feeds(graph: Graph, rng: np.random.Generator) -> list[np.ndarray]:
    x = inputs.sample(graph.inputs, rng)
    for i, t in enumerate(graph.inputs):
        if t.index == 0:  # audio: quiet and loud frames
            x[i] = (x[i] >> int(rng.choice([0, 4, 8]))).astype(np.int16)
        elif t.index == 22:  # the auto-scale shift
            x[i] = np.array(rng.integers(0, 16), np.int32)
        else:  # uint32 spectra: every magnitude
            x[i] = (x[i] >> rng.integers(0, 32, size=x[i].shape).astype(np.uint32)).astype(np.uint32)
    return x


@pytest.mark.parametrize("make", [FRONT, BANK, GAIN], ids=["front", "bank", "gain"])
def test_signal_stages_of_the_real_model_match_tflm(make):
    graph, rng = make(), np.random.default_rng(14)
    samples = [feeds(graph, rng) for _ in range(4)]
    data = writer.write(graph)
    for s, (ours, want) in enumerate(zip(run_graph(data, samples), reference(data, samples))):
        for k, (a, b) in enumerate(zip(ours, want)):
            if graph.outputs[k].index == 24:  # TFLM's energy writes bins start_index..end_index-1 only
                a, b = a[5:241], b[5:241]
            found = difference(a, b, f"sample {s}, output '{graph.outputs[k].name}'")
            assert found is None, found


@pytest.mark.qemu
@NEEDS_ARM
def test_fft_and_gain_stages_bit_exact_on_m4(tmp_path):
    # verify's random int32 would feed FilterBankSquareRoot shifts >= 32 (undefined in TFLM): not here
    for graph in (part(0, 3, [23], [0]), GAIN()):
        path = tmp_path / f"{graph.name}.tflite"
        path.write_bytes(writer.write(graph))
        verdict, _, _ = verify(path, "qemu-mps2-an386", n=2, seed=3)
        assert verdict.ok, verdict.line(False)


def test_the_whole_model_names_what_is_left():
    with pytest.raises(UnsupportedError) as e:
        compile_model(PATH)
    text = str(e.value)
    assert "op 11 CUSTOM:SignalFilterBankSpectralSubtraction" in text
    done = ["op 0 CUSTOM:SignalWindow", "op 2 CUSTOM:SignalFftAutoScale", "op 3 CUSTOM:SignalRfft",
            "op 4 CUSTOM:SignalEnergy", "op 5 CAST", "op 8 CAST", "op 9 CUSTOM:SignalFilterBank ",
            "op 10 CUSTOM:SignalFilterBankSquareRoot", "op 12 CUSTOM:SignalPCAN", "op 13 CUSTOM:SignalFilterBankLog",
            "op 14 CAST", "op 21 CAST"]
    assert not [d for d in done if d in text], text


@NEEDS_ARM
def test_front_end_has_a_stack_bound_on_m4(tmp_path):
    # the footprint's stack analysis refuses recursion: the FFT's stages run iteratively
    from microfuse.pipeline import Options
    from microfuse.targets.firmware import build_with_firmware

    path = tmp_path / "front.tflite"
    path.write_bytes(writer.write(FRONT()))
    compiled = build_with_firmware(path, tmp_path / "out", Options(name="front", core="cortex-m4"))
    assert len(compiled.calls) == 4
