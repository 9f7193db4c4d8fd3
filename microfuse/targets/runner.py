"""One way to run samples on any board: the host (gcc), QEMU or a real board over serial."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

from ..boards import HARNESS_RESERVE, Board, arena_limit  # noqa: F401  (the limit lives with the boards)
from ..ir import Graph
from . import open_session
from .host import compile_program

@dataclass
class Runner:
    """Runs samples through a built library; `counts` are instructions (QEMU) or cycles per invoke."""

    graph: Graph
    invoke: object  # callable: list[np.ndarray] -> (list[bytes], int | None)
    counts: list[int] = field(default_factory=list)
    sequence: object = None  # callable: samples -> outputs in one run (the host: state carries over)

    def run(self, samples: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
        if self.sequence is not None:
            return self.sequence(samples)
        results = []
        for sample in samples:
            raw, count = self.invoke(sample)
            if count is not None:
                self.counts.append(count)
            results.append([np.frombuffer(b, dtype=t.dtype.np).reshape(t.shape).copy()
                            for b, t in zip(raw, self.graph.outputs)])
        return results


def _inputs(graph: Graph, sample: list[np.ndarray]) -> list[np.ndarray]:
    return [np.ascontiguousarray(np.asarray(x).reshape(t.shape), dtype=t.dtype.np) for t, x in zip(graph.inputs, sample)]


@contextlib.contextmanager
def open_runner(board: Board, lib_dir: Path, name: str, graph: Graph, workdir: Path,
                elf: Path | None = None, port: str | None = None, sanitize: bool = False) -> Iterator[Runner]:
    """A Runner for `board`; QEMU and serial sessions stay open (one process) for every sample."""
    if board.is_host:
        program = compile_program(lib_dir, name, graph, workdir / "host_prog", sanitize=sanitize)

        def host_invoke(sample):
            return [o.tobytes() for o in program.run([sample])[0]], None
        yield Runner(graph, host_invoke, sequence=program.run)  # one process: state carries over
        return
    with open_session(board, elf=elf, port=port, expect_model=name) as session:
        yield Runner(graph, lambda sample: session.invoke(_inputs(graph, sample)))
