"""README's and the docs' marked figures are re-measured and compared: scripts/update_docs.py --check regenerates each marked
block (make demo's output; the MLPerf table, the per-core counts and the latency line from bench/) and fails on a difference."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import NEEDS_CORPUS, QEMU, REPO

pytestmark = QEMU


def check(blocks: str) -> None:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "update_docs.py"), "--check", "--only", blocks],
                          capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, f"README figures out of date:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"


def test_readme_demo_output_is_what_make_demo_prints():
    check("demo")


@NEEDS_CORPUS
@pytest.mark.slow
def test_readme_mlperf_figures_are_measured():
    check("mlperf-table,cores,latency,cycle-table")


@NEEDS_CORPUS
def test_readme_wakeword_figures_are_measured():
    check("wakeword")


def test_readme_op_count_is_what_ops_prints():
    check("ops-count")


@NEEDS_CORPUS
def test_planner_page_figures_are_the_plans():
    check("planner-kws")


def test_every_figure_block_has_a_generator():
    import re

    pages = {"README.md": ["cores", "demo", "latency", "mlperf-table", "ops-count", "wakeword"], "docs/cycle-model.md": ["cycle-table"],
             "docs/planner.md": ["planner-kws"]}
    for page, names in pages.items():
        assert sorted(re.findall(r"<!-- figures:([\w-]+) -->", (REPO / page).read_text())) == names, page
