"""Real models on emulated Cortex-M boards, over the serial protocol, compared with TFLM."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.errors import PlanError
from microfuse.session import bench, run_once
from microfuse.testing import inputs
from microfuse.testing.compare import difference
from microfuse.testing.stages import build
from microfuse.verify import verify

from tests import figures
from tests import figures
from tests.conftest import model
from tests.harness import QEMU, reference

pytestmark = QEMU
MLPERF = figures.MLPERF


@pytest.mark.parametrize("board", ["qemu-mps2-an386", "qemu-mps2-an500"])
@pytest.mark.parametrize("name", MLPERF)
def test_mlperf_bit_exact_on_m4_and_m7(name, board):
    verdict, _, counts = verify(model(name), board, n=3, seed=3)
    assert verdict.ok, verdict.line(False)
    assert len(counts) == 5 and min(counts) > 0
    figures.relative(f"{name} instructions on {board}", max(counts), figures.INSTRUCTIONS[board][name])


@pytest.mark.parametrize("board", ["qemu-mps3-an547", "qemu-mps2-an385"])
def test_kws_on_m55_and_m3(board):
    verdict, _, _ = verify(model("mlperf_kws_dscnn_int8"), board, n=2, seed=4)
    assert verdict.ok, verdict.line(False)


def test_hello_world_on_m0_microbit():
    verdict, _, _ = verify(model("tflm_hello_world_int8"), "qemu-microbit", n=5, seed=5)
    assert verdict.ok, verdict.line(False)


def test_float_model_on_m4f():
    verdict, _, _ = verify(model("tflm_hello_world_float"), "qemu-mps2-an386", n=5, seed=6)
    assert verdict.ok, verdict.line(True)


def test_vww_does_not_fit_the_microbit_and_says_where(tmp_path):
    with pytest.raises(PlanError, match=r"peak at step \d+ \(op \d+ [A-Z_0-9]+") as e:
        build(model("mlperf_vww_mobilenetv1_96_int8"), tmp_path / "o", Options(name="vww", board="qemu-microbit"))
    assert "qemu-microbit" in str(e.value)
    assert not (tmp_path / "o").exists()


def test_bench_counts_repeat_and_add_up():
    a = bench(model("mlperf_kws_dscnn_int8"), "qemu-mps2-an386", Options(name="kws"))
    b = bench(model("mlperf_kws_dscnn_int8"), "qemu-mps2-an386", Options(name="kws"))
    assert a["repeatable"] and a["instructions"] == b["instructions"]
    assert [r["instructions"] for r in a["per_op"]] == [r["instructions"] for r in b["per_op"]]
    assert len(a["per_op"]) == figures.BUILD_CALLS[figures.KWS]
    traced_total = sum(r["instructions"] for r in a["per_op"])
    assert a["instructions"] <= traced_total <= a["instructions"] * 1.01  # the trace adds a few per call
    # The cycle estimate (qemu-mps2-an386 has the Cortex-M4 model) repeats and adds up the same way.
    assert a["cycles"] == b["cycles"] and [r["cycles"] for r in a["per_op"]] == [r["cycles"] for r in b["per_op"]]
    assert a["cycles"] <= sum(r["cycles"] for r in a["per_op"]) <= a["cycles"] * 1.01
    assert a["instructions"] < a["cycles"] < 2 * a["instructions"] and "estimated" in a["text"]


def test_run_equals_the_reference(tmp_path):
    path = model("mlperf_ic_resnet8_int8")
    x = inputs.samples(build(path, tmp_path / "lib", Options(name="ic")).graph, 1, seed=9)[2][0]
    np.save(tmp_path / "x.npy", x)
    outputs, count = run_once(path, "qemu-mps2-an386", str(tmp_path / "x.npy"), Options(name="ic"))
    found = difference(outputs[0], reference(path, [[x]])[0][0])
    assert found is None, found
    assert count > 1_000_000
