"""bench/speed.py: the targets column (issue 7's instructions and issue 4's arenas on the M4F board)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "speed.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("speed_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_targets_column_checks_instructions_and_arena_on_the_target_board():
    speed = load_bench()
    row = speed.Row("kws", speed.TARGET_BOARD, "balanced", 5_300_000, 0.69, 11_000, 32_000, 8_448)
    assert speed.targets_met(row) == "yes"
    assert speed.targets_met(speed.Row(**{**row.__dict__, "instructions": 5_400_000})) == "NO"
    assert speed.targets_met(speed.Row(**{**row.__dict__, "arena": 9_001})) == "NO"
    assert speed.targets_met(speed.Row(**{**row.__dict__, "board": "qemu-mps2-an500"})) == "-"
    assert speed.table([row]).splitlines()[-1].endswith("| yes |")


def test_default_optimization_is_the_builds_default():
    args = load_bench().parser().parse_args([])
    assert args.optimize == "balanced" and args.boards.split(",")[0] == "qemu-mps2-an386"
