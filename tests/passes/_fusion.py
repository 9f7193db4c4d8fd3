"""Helpers for the fusion tests: kernel-call counts with fusion off and on, the pipeline's
decisions, and the code bytes of kernels measured on a Cortex-M4 build (comparison with TFLM:
tests/harness.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from microfuse.pipeline import Options
from microfuse.ir import Graph
from microfuse.lower.kernels import CODE_BYTES
from microfuse.testing.programs import RUNTIME
from microfuse.testing.stages import compile_model, optimize

from microfuse.passes import names, run_passes
from microfuse.pipeline import pass_context

NO_CASCADE = tuple(names(without=("cascade",)))  # these tests count the epilogue fusions' calls
SIZE = Options(optimize="size", passes=NO_CASCADE)  # reference kernels: every epilogue has a kernel variant


def calls(graph: Graph, options: Options = SIZE) -> list[str]:
    """The kernel names of the compiled graph, in call order."""
    return [c.kernel for c in compile_model(graph, options).calls]


def fused(graph: Graph, level: str = "size") -> tuple[Graph, list[dict]]:
    """The graph after the pipeline less the cascades (verified after each pass) and the fusion
    decisions."""
    context = pass_context(level)
    return run_passes(graph, only=list(NO_CASCADE), verify=True, context=context), context.decisions()


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
