"""The Helium (MVE) paths of the fast int8 kernels (mf_fast_mve.h, mf_dwconv2d_s8_mve.h) vs
TFLite Micro under QEMU mps3-an547 (Cortex-M55): every kernel and fused variant, each call also
run with its output over an input at the tightest forward and backward shifts the memory planner
may choose; the four MLPerf Tiny models bit-exact with the default build on the board."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from microfuse.testing.programs import RUNTIME, STRICT
from tests.harness import always_fuse, dense_fast, on_qemu  # noqa: F401 (fixtures)
from tests.kernels import placements
from test_fast_kernels import FAST, MLPERF, check_mlperf_on, prepared, variants

BOARD = "qemu-mps3-an547"
M55 = ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard", "-O2"]


def _assembly(source: str, work: Path) -> str:
    asm = work / "k.s"
    built = subprocess.run(["arm-none-eabi-gcc", *M55, *STRICT, "-I", str(RUNTIME / "include"), "-S",
                            str(RUNTIME / "src" / source), "-o", str(asm)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    return asm.read_text()


@on_qemu
@pytest.mark.parametrize("source, wanted", [("mf_conv2d_s8_gemm.c", "vmladava"),
                                            ("mf_fc_s8_dsp.c", "vmladava"),
                                            ("mf_dwconv2d_s8_dsp.c", "vmul.i32")])
def test_m55_build_takes_the_helium_path(tmp_path, source, wanted):
    """On Cortex-M55 the kernels are MVE code (and not the SMLAD assembly of the M4 path)."""
    text = _assembly(source, tmp_path)
    assert wanted in text and "vrmulh.s32" in text
    assert "smlad" not in text and "smlabb" not in text


@on_qemu
def test_fast_kernels_match_tflm_under_qemu_m55_in_overlapping_arenas(tmp_path, always_fuse, dense_fast):
    """The Helium path on Cortex-M55: every kernel and variant, forward and backward placements."""
    calls, runs = prepared(6, 30)
    assert set(FAST) <= variants(calls)
    failures = []
    for k, part in enumerate(_parts(runs)):  # the AN547's 512 KiB ITCM holds a part at a time
        work = tmp_path / f"part{k}"
        work.mkdir()
        failures += placements.run(part, work, BOARD)
    assert not failures, "\n".join(failures)


def _parts(runs: list, budget: int = 250_000) -> list[list]:
    """Runs in consecutive parts of at most `budget` array bytes (weights, tables, inputs and
    outputs, counted per scenario although cases share their data): about 1.3 bytes of firmware
    each, so a part stays well inside the ITCM."""
    parts, size = [[]], 0
    for r in runs:
        cost = sum(np.asarray(v.data).size for v in r.call.params.values() if hasattr(v, "data"))
        cost += sum(d.size for d in r.data) + r.want.size
        if parts[-1] and size + cost > budget:
            parts.append([])
            size = 0
        parts[-1].append(r)
        size += cost
    return parts


@pytest.mark.parametrize("model", MLPERF)
@on_qemu
def test_mlperf_models_are_bit_exact_under_qemu_m55(model):
    check_mlperf_on(BOARD, model)
