"""A sequence of invokes of a whole model on a board (host or QEMU), state carried between them."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ..boards import load_board
from ..pipeline import Options
from ..session import _build_for
from ..targets.host import compile_program
from ..targets.runner import open_runner


def run_sequence(model: str | Path, board_name: str, steps: list[list[np.ndarray]],
                 options: Options = Options()) -> list[list[np.ndarray]]:
    """The outputs of each invoke, in order, from one freshly started program on the board."""
    board = load_board(board_name)
    with tempfile.TemporaryDirectory(prefix="mf-seq-") as tmp:
        compiled, lib, elf = _build_for(model, board, options, Path(tmp))
        if board.is_host:  # one process for the whole sequence (the host Runner starts one per sample)
            return compile_program(lib, compiled.name, compiled.graph, Path(tmp) / "prog").run(steps)
        with open_runner(board, lib, compiled.name, compiled.graph, Path(tmp), elf=elf) as runner:
            return runner.run(steps)
