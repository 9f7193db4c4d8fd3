"""micro_speech's audio front end (tflm/audio_preprocessor_int8.tflite): the whole model as one stream
of invokes (SignalFilterBankSpectralSubtraction keeps its noise estimate between them) on random and
realistic audio (silence, tones, noise) against one TFLM interpreter, on the host and on
qemu-mps2-an386; and its signal-library stages cut out of it with its own constants."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import Graph
from microfuse.pipeline import compile_model
from microfuse.testing import inputs, sequences
from microfuse.testing.boards import run_sequence
from microfuse.testing.compare import difference
from microfuse.testing.host import run_graph
from microfuse.tflite import reader, writer
from microfuse.verify import verify
from tests.conftest import model
from tests.harness import NEEDS_ARM, on_qemu, reference

PATH = model("tflm/audio_preprocessor_int8")
RATE, FRAME, HOP = 16000, 480, 320  # micro_speech: 30 ms windows every 20 ms


def audio_frames(rng: np.random.Generator, count: int) -> list[list[np.ndarray]]:
    """One continuous signal cut into overlapping frames: silence, a tone rising in pitch and level,
    background noise, a loud chord over the noise; int16 as a microphone gives it."""
    n = HOP * (count - 1) + FRAME
    t = np.arange(n) / RATE
    part = np.minimum(np.arange(n) * 4 // n, 3)
    tone = np.sin(2 * np.pi * (300 + 2000 * t / t[-1]) * t) * (2000 + 12000 * t / t[-1])
    noise = rng.normal(0, 800, n)
    chord = sum(np.sin(2 * np.pi * f * t) for f in (440, 660, 990)) * 8000
    x = np.select([part == 0, part == 1, part == 2], [rng.normal(0, 3, n), tone, noise], noise + chord)
    x = np.clip(np.round(x), -32768, 32767).astype(np.int16)
    return [[x[k * HOP:k * HOP + FRAME].reshape(1, FRAME)] for k in range(count)]


def random_frames(rng: np.random.Generator, count: int) -> list[list[np.ndarray]]:
    graph = reader.read(PATH)
    return [[(inputs.sample(graph.inputs, rng)[0] >> int(rng.choice([0, 4, 8]))).astype(np.int16)]
            for _ in range(count)]


def check_stream(board: str, steps: list[list[np.ndarray]], what: str) -> None:
    want = sequences.tflm(PATH.read_bytes(), steps)
    got = run_sequence(PATH, board, steps)
    assert len(got) == len(want) == len(steps)
    for k, (g, w) in enumerate(zip(got, want)):
        found = difference(g[0], w[0], f"{what} on {board}, invoke {k} of {len(steps)}")
        assert found is None, found
    assert len({w[0].tobytes() for w in want}) > len(steps) // 2  # the features move: not a constant stream


def test_the_whole_model_matches_tflm_over_streams_on_host():
    rng = np.random.default_rng(140)
    check_stream("host", audio_frames(rng, 40), "audio")
    check_stream("host", random_frames(rng, 24), "random frames")


@on_qemu
def test_the_whole_model_matches_tflm_over_an_audio_stream_on_qemu():
    check_stream("qemu-mps2-an386", audio_frames(np.random.default_rng(141), 24), "audio")


def test_the_noise_estimate_is_the_only_state_and_the_figures_hold():
    compiled = compile_model(PATH)
    (op, (offset, size)), = compiled.plan.own_state.items()
    assert op.kind == "CUSTOM:SignalFilterBankSpectralSubtraction" and size == 40 * 4
    assert not compiled.graph.state() and compiled.plan.state_bytes == 160
    assert compiled.plan.arena_bytes == 4052  # today's figure: a regression fails


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


@NEEDS_ARM
def test_front_end_has_a_stack_bound_on_m4(tmp_path):
    # the footprint's stack analysis refuses recursion: the FFT's stages run iteratively
    from microfuse.pipeline import Options
    from microfuse.targets.firmware import build_with_firmware

    path = tmp_path / "front.tflite"
    path.write_bytes(writer.write(FRONT()))
    compiled = build_with_firmware(path, tmp_path / "out", Options(name="front", core="cortex-m4"))
    assert len(compiled.calls) == 4


def test_run_takes_a_sequence_and_runs_it_as_one_stream(tmp_path):
    from microfuse.session import run_once
    xs = np.stack([s[0] for s in audio_frames(np.random.default_rng(142), 21)])
    np.save(tmp_path / "seq.npy", xs)
    outputs, _ = run_once(str(PATH), "host", str(tmp_path / "seq.npy"))
    want = sequences.tflm(PATH.read_bytes(), [[x] for x in xs])
    assert outputs[0].shape == (21, 40) and np.array_equal(outputs[0], np.stack([w[0] for w in want]))
