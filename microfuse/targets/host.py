"""The host target: compile an emitted library with gcc and run samples through it."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..version import __version__
from ..errors import TargetError
from ..ir import Graph

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
RUN_TIMEOUT = 300


@dataclass(frozen=True)
class HostProgram:
    """A compiled host harness for one emitted library."""

    exe: Path
    graph: Graph
    trace: bool

    def run(self, samples: list[list[np.ndarray]], trace_file: Path | None = None) -> list[list[np.ndarray]]:
        """Run every sample (a list of input arrays) and return each sample's outputs."""
        blob = b"".join(_input_bytes(self.graph, sample) for sample in samples)
        args = [str(self.exe)] + ([str(trace_file)] if self.trace else [])
        try:
            done = subprocess.run(args, input=blob, capture_output=True, timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise TargetError(f"host program timed out after {RUN_TIMEOUT} s") from None
        if done.returncode != 0:
            err = done.stderr.decode(errors="replace").strip().splitlines()
            raise TargetError(f"host program failed (exit {done.returncode}): "
                              f"{err[0] if err else 'no message'}" + (f" ... {err[-1]}" if len(err) > 1 else ""))
        return _split_outputs(self.graph, done.stdout, len(samples))


def _input_bytes(graph: Graph, sample: list[np.ndarray]) -> bytes:
    if len(sample) != len(graph.inputs):
        raise TargetError(f"the model has {len(graph.inputs)} inputs, got {len(sample)}")
    parts = []
    for t, x in zip(graph.inputs, sample):
        a = np.asarray(x)
        if a.size != t.elements:
            raise TargetError(f"input '{t.name}' needs {t.elements} elements {list(t.shape)}, got {a.size}")
        parts.append(np.ascontiguousarray(a, dtype=t.dtype.np).tobytes())
    return b"".join(parts)


def _split_outputs(graph: Graph, data: bytes, n: int) -> list[list[np.ndarray]]:
    per = sum(t.nbytes for t in graph.outputs)
    if len(data) != per * n:
        raise TargetError(f"host program wrote {len(data)} bytes, expected {per * n}")
    results, pos = [], 0
    for _ in range(n):
        outs = []
        for t in graph.outputs:
            outs.append(np.frombuffer(data[pos:pos + t.nbytes], dtype=t.dtype.np).reshape(t.shape).copy())
            pos += t.nbytes
        results.append(outs)
    return results


def compiler() -> str:
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise TargetError("no C compiler found: install gcc (apt-get install gcc)")
    return cc


def compile_program(lib_dir: Path, name: str, graph: Graph, exe: Path, *, sanitize: bool = False,
                    trace: bool = False, opt: str = "-O2") -> HostProgram:
    """Build the library in lib_dir with the host harness into one executable."""
    from ..emit.c import render_host_main

    main_c = exe.with_suffix(".main.c")
    main_c.write_text(render_host_main(name, graph))
    sources = sorted(str(p) for p in lib_dir.glob("*.c"))
    cmd = [compiler(), *STRICT, opt, "-I", str(lib_dir), *sources, str(main_c), "-o", str(exe), "-lm"]
    cmd[1:1] = (SANITIZE if sanitize else []) + (["-DMF_TRACE"] if trace else [])
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        first = next((ln for ln in done.stderr.splitlines() if "error" in ln), done.stderr.strip()[:300])
        raise TargetError(f"gcc failed building {name} (microfuse {__version__} bug?): {first}")
    return HostProgram(exe, graph, trace)
