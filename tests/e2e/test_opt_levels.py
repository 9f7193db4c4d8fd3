"""The emitted C at every optimization level: it compiles for the host and every Cortex-M core, and
runs bit-exact with TFLM unoptimized (-O0) and at -O3, on the host and under QEMU (Cortex-M4)."""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from microfuse import oracle
from microfuse.boards import load_board
from microfuse.pipeline import Options, build
from microfuse.targets import open_session
from microfuse.targets.firmware import build_firmware
from microfuse.targets.host import compile_program, compiler
from microfuse.verify import make_samples
from tests.conftest import NEEDS_ARM, model

LEVELS = ["-O0", "-Og", "-O2", "-O3", "-Os"]
# (name, compiler flags): the host, and each core with its FPU ABI as the boards set it
TARGETS = [
    ("host", None),
    ("cortex-m0", ["-mcpu=cortex-m0", "-mthumb", "-mfloat-abi=soft"]),
    ("cortex-m3", ["-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"]),
    ("cortex-m4", ["-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"]),
    ("cortex-m7", ["-mcpu=cortex-m7", "-mthumb", "-mfpu=fpv5-d16", "-mfloat-abi=hard"]),
    ("cortex-m33", ["-mcpu=cortex-m33", "-mthumb", "-mfpu=fpv5-sp-d16", "-mfloat-abi=hard"]),
    ("cortex-m55", ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"]),
]
MODELS = {"kws": "mlperf_kws_dscnn_int8", "ic": "mlperf_ic_resnet8_int8"}


@pytest.fixture(scope="module")
def libs(tmp_path_factory) -> dict[str, tuple[Path, object]]:
    out = {}
    for name, stem in MODELS.items():
        lib = tmp_path_factory.mktemp(name) / "lib"
        out[name] = (lib, build(model(stem), lib, Options(name=name)).graph)
    return out


def _compile(cmd: list[str]) -> str | None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode == 0:
        return None
    first = next((ln for ln in done.stderr.splitlines() if "error" in ln), done.stderr.strip()[:200])
    return f"{' '.join(cmd[1:-3])} {Path(cmd[-3]).name}: {first}"


@NEEDS_ARM
@pytest.mark.parametrize("name", MODELS)
def test_every_source_compiles_at_every_level_for_every_core(name, libs, tmp_path):
    lib, _ = libs[name]
    sources = sorted(lib.glob("*.c"))
    cmds = []
    for target, flags in TARGETS:
        cc = [compiler()] if flags is None else ["arm-none-eabi-gcc", *flags]
        for level in LEVELS:
            for src in sources:
                cmds.append([*cc, level, "-std=c99", "-Wall", "-Werror", "-I", str(lib), "-c", str(src),
                             "-o", str(tmp_path / f"{target}{level}{src.stem}.o")])
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failures = [f for f in pool.map(_compile, cmds) if f is not None]
    assert not failures, "\n".join(failures[:10])
    assert len(cmds) == len(TARGETS) * len(LEVELS) * len(sources)


def _samples(name, graph):
    """The two extreme samples and one random one, with TFLM's outputs."""
    samples = make_samples(graph, 1, seed=16)
    return samples, [oracle.run(model(MODELS[name]), s) for s in samples]


@pytest.mark.parametrize("level", ["-O0", "-O3"])
@pytest.mark.parametrize("name", MODELS)
def test_bit_exact_on_the_host(name, level, libs, tmp_path):
    lib, graph = libs[name]
    samples, expected = _samples(name, graph)
    program = compile_program(lib, name, graph, tmp_path / "prog", opt=level)
    outputs = program.run(samples)
    for got, want in zip(outputs, expected):
        assert all(np.array_equal(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize("level", ["-O0", "-O3"])
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.qemu
@NEEDS_ARM
def test_bit_exact_on_cortex_m4(name, level, libs, tmp_path):
    lib, graph = libs[name]
    samples, expected = _samples(name, graph)
    board = load_board("qemu-mps2-an386")
    elf = build_firmware(board, lib, name, tmp_path / "fw", extra_cflags=(level,))  # the last -O wins
    with open_session(board, elf=elf, expect_model=name) as session:
        for sample, want in zip(samples, expected):
            raw, _ = session.invoke([np.ascontiguousarray(x, dtype=t.dtype.np).reshape(t.shape)
                                     for x, t in zip(sample, graph.inputs)])
            got = [np.frombuffer(b, dtype=t.dtype.np).reshape(t.shape) for b, t in zip(raw, graph.outputs)]
            assert all(np.array_equal(g, w) for g, w in zip(got, want))
