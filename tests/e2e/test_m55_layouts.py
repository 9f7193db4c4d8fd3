"""A library built for the Cortex-M55 (Helium layouts, lower/mve.py) runs bit-exact with TFLM under
QEMU mps3-an547 unoptimized (-O0: the intrinsics loops) and optimized (the assembly loops), and
compiled for the host (the portable loops of the same layouts)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import oracle
from microfuse.boards import load_board
from microfuse.lower import mve
from microfuse.pipeline import Options, build
from microfuse.targets import open_session
from microfuse.targets.firmware import build_firmware
from microfuse.targets.host import compile_program
from microfuse.verify import make_samples
from tests.conftest import NEEDS_ARM, model

BOARD = "qemu-mps3-an547"
MODELS = {"kws": "mlperf_kws_dscnn_int8", "ic": "mlperf_ic_resnet8_int8",
          "vww": "mlperf_vww_mobilenetv1_96_int8"}  # VWW: depthwise runs of interior pixels


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    out = {}
    for name, stem in MODELS.items():
        lib = tmp_path_factory.mktemp(name) / "lib"
        compiled = build(model(stem), lib, Options(name=name, board=BOARD))
        calls = [b for c in compiled.calls for b in (c.bands.values() if hasattr(c, "bands") else [c])]
        assert sum(mve.lanes16(c.params) for c in calls) >= 4  # the Helium layouts are taken (cascades' bands too)
        out[name] = (lib, compiled.graph)
    return out


def _samples(name, graph):
    samples = make_samples(graph, 1, seed=23)
    return samples, [oracle.run(model(MODELS[name]), s) for s in samples]


@pytest.mark.parametrize("name", MODELS)
def test_m55_library_is_bit_exact_on_the_host(name, libs, tmp_path):
    lib, graph = libs[name]
    samples, expected = _samples(name, graph)
    outputs = compile_program(lib, name, graph, tmp_path / "prog", opt="-O0").run(samples)
    for got, want in zip(outputs, expected):
        assert all(np.array_equal(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.qemu
@NEEDS_ARM
def test_m55_library_is_bit_exact_under_qemu(name, level, libs, tmp_path):
    lib, graph = libs[name]
    samples, expected = _samples(name, graph)
    board = load_board(BOARD)
    elf = build_firmware(board, lib, name, tmp_path / "fw", extra_cflags=(level,))  # the last -O wins
    with open_session(board, elf=elf, expect_model=name) as session:
        for sample, want in zip(samples, expected):
            raw, _ = session.invoke([np.ascontiguousarray(x, dtype=t.dtype.np).reshape(t.shape)
                                     for x, t in zip(sample, graph.inputs)])
            got = [np.frombuffer(b, dtype=t.dtype.np).reshape(t.shape) for b, t in zip(raw, graph.outputs)]
            assert all(np.array_equal(g, w) for g, w in zip(got, want))


@NEEDS_ARM
def test_a_helium_library_refuses_a_cortex_m4_build(libs, tmp_path):
    """Its weights would be misread by the M4's DSP assembly: NAME.c stops the compiler with a
    one-line #error, where the M55 and the portable builds compile."""
    import subprocess

    lib, _ = libs["kws"]
    src = lib / "kws.c"
    m4 = ["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-O2"]
    m55 = ["arm-none-eabi-gcc", "-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard", "-O2"]
    refused = subprocess.run([*m4, "-c", str(src), "-o", str(tmp_path / "m4.o")], capture_output=True, text=True)
    assert refused.returncode != 0 and "was built for a Helium core" in refused.stderr
    subprocess.run([*m55, "-c", str(src), "-o", str(tmp_path / "m55.o")], check=True, capture_output=True)
