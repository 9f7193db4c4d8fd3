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


def test_each_board_is_compared_with_its_own_cores_figures():
    speed = load_bench()
    ic = speed.Row("ic", "qemu-mps3-an547", "balanced", 6_490_188, None, 14_408, 84_832, 32_768)
    speed.set_ratios(ic, None)
    assert ic.ratio == 1.322 and ic.cycles is None and ic.l4r5_ratio is None  # the M55's own figure
    m7 = speed.Row("kws", "qemu-mps2-an500", "balanced", 5_034_040, None, 10_904, 32_704, 8_448)
    speed.set_ratios(m7, None)
    assert m7.ratio == 0.659
    m4 = speed.Row("vww", speed.TARGET_BOARD, "balanced", 15_090_520, None, 13_256, 254_768, 36_880)
    speed.set_ratios(m4, 20_205_894)
    assert (m4.ratio, m4.cycle_ratio, m4.l4r5_ratio) == (0.626, 0.677, 1.894)
    other = speed.Row("ad", "qemu-mps2-an385", "balanced", 400_000, None, 5_000, 290_944, 768)
    speed.set_ratios(other, None)
    assert other.ratio is None and "| - | - |" in speed.table([other])
