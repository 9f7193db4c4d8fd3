"""Run a graph or model through the whole microfuse pipeline on the host (for tests)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ..pipeline import Options
from ..ir import Graph
from ..targets.host import compile_program
from .stages import build


def run_graph(model: Graph | bytes | str | Path, inputs: list[np.ndarray] | list[list[np.ndarray]],
              *, options: Options = Options(), sanitize: bool = False, workdir: Path | None = None):
    """Build `model`, compile it with gcc and run it.

    `inputs` is one sample (a list of arrays, one per model input) or a list of samples;
    the result has the same nesting: a list of output arrays, or one such list per sample.
    """
    batch = bool(inputs) and isinstance(inputs[0], (list, tuple))
    samples = list(inputs) if batch else [list(inputs)]
    with tempfile.TemporaryDirectory(prefix="mf-host-", dir=workdir) as tmp:
        out = Path(tmp) / "lib"
        compiled = build(model, out, options)
        program = compile_program(out, compiled.name, compiled.graph, Path(tmp) / "prog", sanitize=sanitize)
        results = program.run(samples)
    return results if batch else results[0]
