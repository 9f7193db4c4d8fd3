"""Helpers for the fusion tests: many small graphs merged into one model (one TFLM run, one gcc
build), kernel-call counts with fusion off and on, and outputs compared with TFLM."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from microfuse import oracle
from microfuse.build import Options, compile_model
from microfuse.ir import DType, Graph
from microfuse.build import pass_context
from microfuse.lower.kernels import CODE_BYTES
from microfuse.passes import cost, run_passes
from microfuse.testing.host import run_graph
from microfuse.testing.modelgen import random_input
from microfuse.tflite.writer import write
from microfuse.testing.modelgen import merge  # noqa: F401 (the suites import it from here)

SIZE = Options(optimize="size")  # reference kernels: every epilogue has a kernel variant


@pytest.fixture
def always_fuse(monkeypatch):
    """Every legal fusion wins (the cost model's verdict is still computed and logged): the
    pattern tests check what may fuse and that it stays exact; test_fuse_cost.py checks the
    objectives."""
    real = cost.decide

    def decide(base, delta, optimize):
        verdict = real(base, delta, optimize)
        return cost.Verdict(True, "forced by the test: " + verdict.reason, delta)

    monkeypatch.setattr(cost, "decide", decide)


def calls(graph: Graph, options: Options = SIZE) -> list[str]:
    """The kernel names of the compiled graph, in call order."""
    return [c.kernel for c in compile_model(graph, options).calls]


def fused(graph: Graph, optimize: str = "size") -> tuple[Graph, list[dict]]:
    """The graph after the pipeline (verified after each pass) and the fusion decisions."""
    ctx = pass_context(optimize)
    out = run_passes(graph, verify=True, context=ctx)
    return out, ctx.decisions()


def check_exact(graph: Graph, rng: np.random.Generator, samples: int = 3, options: Options = SIZE) -> None:
    """microfuse (host gcc, fusion on) equals TFLM on the unfused model: bytes, or 1e-5 for float."""
    model = write(graph)
    feeds = [random_input(rng, graph) for _ in range(samples)]
    ours = run_graph(graph, feeds, options=options)
    for s, feed in enumerate(feeds):
        for k, (got, want) in enumerate(zip(ours[s], oracle.run(model, feed))):
            want = np.asarray(want).reshape(got.shape)
            where = f"output {k} ('{graph.outputs[k].name}'), sample {s}"
            if graph.outputs[k].dtype == DType.FLOAT32:
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=where)
            else:
                bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
                assert bad.size == 0, f"{where}: {bad.size} of {got.size} values differ"


RUNTIME = Path(__file__).resolve().parents[2] / "runtime_c"
M4_FLAGS = ["-std=c99", "-Os", "-ffunction-sections", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
            "-mfpu=fpv4-sp-d16"]


def measured_code_bytes(tmp_path: Path, files: list[str]) -> dict[str, int]:
    """Code bytes per global kernel symbol of runtime_c/src/<file>.c built for a Cortex-M4 at -Os
    (its local helpers counted in), as passes/cost.py's CODE_BYTES table was measured."""
    measured = {}
    for name in files:
        obj = tmp_path / f"{name}.o"
        subprocess.run(["arm-none-eabi-gcc", *M4_FLAGS, f"-I{RUNTIME / 'include'}", "-c",
                        str(RUNTIME / "src" / f"{name}.c"), "-o", str(obj)], check=True)
        symbols = subprocess.run(["arm-none-eabi-nm", "-S", str(obj)], capture_output=True, text=True).stdout
        rows = [line.split() for line in symbols.splitlines() if re.match(r"^\S+ \S+ [Tt] ", line)]
        local = sum(int(r[1], 16) for r in rows if r[2] == "t")
        measured.update({r[3]: int(r[1], 16) + local for r in rows if r[2] == "T"})
    return measured


def check_cost_table(measured: dict[str, int]) -> None:
    """Every measured kernel is in CODE_BYTES, within half its size."""
    for kernel, size in measured.items():
        assert kernel in CODE_BYTES, f"{kernel} is missing from CODE_BYTES (measured {size} B)"
        table = CODE_BYTES[kernel]
        assert abs(table - size) <= 0.5 * size, f"{kernel}: table {table} B, measured {size} B"
