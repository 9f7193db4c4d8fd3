"""The microWakeWord models (CALL_ONCE, resource variables, STRIDED_SLICE/CONCATENATION windows,
SPLIT_V) stream bit-exact with TFLM: outputs over >= 20 invokes and every intermediate after them."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from microfuse import verify as V
from microfuse.pipeline import Options
from microfuse.testing import inputs
from microfuse.testing.stages import build
from tests.conftest import MODELS
from tests.harness import CI, on_qemu

WAKEWORD = ["alexa", "hey_jarvis", "hey_mycroft", "okay_nabu"]
ONLY_CI = pytest.mark.skipif(not CI, reason="wake-word corpus models run with CI=true (../shared/models/wakeword)")


def _path(name: str) -> Path:
    path = MODELS / "wakeword" / f"{name}.tflite"
    assert path.is_file(), f"corpus model {path} is missing"
    return path


@ONLY_CI
@pytest.mark.parametrize("name", WAKEWORD)
def test_stream_bit_exact_on_host(name):
    verdict, compiled, _ = V.verify(_path(name), board="host", n=18, seed=3)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)
    assert compiled.plan.state_bytes > 0 and not set(compiled.graph.state()) & set(compiled.plan.offsets)


@ONLY_CI
@pytest.mark.parametrize("name", WAKEWORD)
def test_every_intermediate_matches_after_a_stream(name):
    """The outputs of random inputs are mostly 0: the traced calls (windows built from state,
    slices written back) are compared after 20 invokes instead."""
    path = _path(name)
    with tempfile.TemporaryDirectory(prefix="mf-ww-") as tmp:
        lib = Path(tmp) / "lib"
        compiled = build(path, lib, Options(name=name))
        samples = inputs.samples(compiled.graph, 19, seed=5)
        found = V._trace_first_difference(compiled, lib, Path(tmp), path.read_bytes(), samples[-1], samples[:-1])
    assert found.startswith("every traced intermediate matches"), found


@ONLY_CI
@on_qemu
@pytest.mark.parametrize("name", WAKEWORD)
def test_stream_bit_exact_on_qemu(name):
    verdict, _, counts = V.verify(_path(name), board="qemu-mps2-an386", n=18, seed=4)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)
    assert len(counts) == verdict.samples


@ONLY_CI
@pytest.mark.parametrize("name", WAKEWORD)
def test_tflm_plan_reproduction_leaves_state_to_the_tail(name):
    """report.json's TFLM figure for a stateful model: its head without the resource buffers."""
    from microfuse import oracle, tflm_plan
    from microfuse.tflite import reader

    path = _path(name)
    assert tflm_plan.plan(reader.read(path)).head_bytes == oracle.arena_usage(path)["head"]
