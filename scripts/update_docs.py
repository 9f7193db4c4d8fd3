"""Regenerate every figure the README and docs quote, from the commands that measure them:

    python3 scripts/update_docs.py            rewrite README.md's marked blocks and docs/*.md's outputs
    python3 scripts/update_docs.py --check    print the differences and exit 1 instead of writing
    python3 scripts/update_docs.py --only demo,readme-table   (block names below; docs: the docs pages)

A README block sits between `<!-- figures:NAME -->` and `<!-- /figures -->`: `demo` runs the
Makefile's `demo` recipe, `mlperf-table` and `m55` measure the MLPerf Tiny models (bench/arena.py,
bench/speed.py: QEMU with -icount, needs ../shared/models). docs/quickstart.md, api.md and
integrate.md get their command outputs from docs/refresh_outputs.py. The tests re-run these and fail
on any difference (tests/e2e/test_docs_figures.py, tests/e2e/test_examples.py)."""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "bench"), str(REPO / "docs")]

import refresh_outputs  # noqa: E402  (docs/refresh_outputs.py)

README = REPO / "README.md"
MARKED = re.compile(r"(<!-- figures:([\w-]+) -->\n)(.*?)(<!-- /figures -->)", re.S)
MLPERF = {"kws": "KWS DS-CNN", "vww": "VWW MobileNetV1", "ic": "IC ResNet-8", "ad": "AD autoencoder"}


def demo() -> str:
    """The output of the Makefile's `demo` recipe (its microfuse commands), run in a fresh folder."""
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(), re.M).group(1)
    example = re.search(r"^EXAMPLE \?= (\S+)", (REPO / "Makefile").read_text(), re.M).group(1)
    commands = [line.strip().replace("$(MICROFUSE)", "microfuse").replace("$(EXAMPLE)", example)
                for line in recipe.splitlines()]
    with tempfile.TemporaryDirectory(prefix="mf-demo-") as tmp:
        work = Path(tmp) / "work"
        shutil.copytree(REPO / "examples", work / "examples", ignore=shutil.ignore_patterns("build", "__pycache__"))
        env = refresh_outputs.user_env(Path(tmp) / "env")
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(commands)], cwd=work, env=env,
                              capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        sys.exit(f"make demo's commands failed:\n{done.stdout}{done.stderr}")
    return f"```\n{done.stdout}```\n"


def _measure(model: str, board: str, per_op: bool):
    import speed  # bench/speed.py

    from microfuse.boards import load_board

    with tempfile.TemporaryDirectory(prefix="mf-speed-") as tmp:
        row = speed.measure(model, load_board(board), "balanced", Path(tmp), per_op, check=True)
    if not row.exact:
        sys.exit(f"{model} on {board} is not bit-exact with TFLM: no figures from it")
    return row


def mlperf_table() -> str:
    """Arena (microfuse, TFLM) and instructions, flash, stack on the M4F, per MLPerf Tiny model."""
    import speed  # bench/speed.py

    from microfuse import oracle

    lines = ["| model | arena (B) | TFLM arena head / min (B) | instructions per inference | vs TFLM + CMSIS-NN "
             "| code+rodata excl. weights (B) | stack (B) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for model, title in MLPERF.items():
        row = _measure(model, "qemu-mps2-an386", per_op=True)
        path = speed.MODELS_DIR / speed.MODELS[model]
        head, low = oracle.arena_usage(path)["head"], oracle.min_arena(path)
        lines.append(f"| {title} | {row.arena:,} | {head:,} / {low:,} | {row.instructions:,} | {row.ratio:.3f}× "
                     f"| {row.flash:,} | {row.stack:,} |")
    return "\n".join(lines) + "\n"


def m55() -> str:
    """Instructions per inference on the Cortex-M55 (Helium paths), and the TFLM reference figures quoted."""
    import speed

    counts = ", ".join(f"{model.upper()} {_measure(model, 'qemu-mps3-an547', per_op=False).instructions:,}"
                       for model in MLPERF)
    return (f"On the Cortex-M55 (`qemu-mps3-an547`) the same kernels take their Helium (MVE) paths: {counts}\n"
            "instructions per inference (`microfuse bench MODEL --board qemu-mps3-an547`), bit-exact as well.\n\n"
            f"TFLM + CMSIS-NN figures (instructions on the same emulated M4F, KWS firmware flash\n"
            f"{speed.TFLM_KWS_FLASH:,} B, stack {speed.TFLM_STACK:,} B) are from the project's issue tracker "
            "(bench/speed.py);\nthe arena \"head\" is TFLM's planned activations, \"min\" the smallest arena it "
            "initializes with.\n")


GENERATORS = {"demo": demo, "mlperf-table": mlperf_table, "m55": m55}


def readme(only: set[str]) -> str:
    text = README.read_text()
    return MARKED.sub(lambda m: m.group(1) + (GENERATORS[m.group(2)]() if m.group(2) in only else m.group(3))
                      + m.group(4), text)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare only; exit 1 on a difference")
    p.add_argument("--only", help=f"comma-separated of {', '.join(GENERATORS)}, docs (default: all)")
    args = p.parse_args(argv)
    only = set(args.only.split(",")) if args.only else {*GENERATORS, "docs"}
    unknown = only - {*GENERATORS, "docs"}
    if unknown:
        p.error(f"unknown block(s) {', '.join(sorted(unknown))}")
    targets = {README: readme(only)}
    if "docs" in only:
        targets |= {REPO / "docs" / page: refresh_outputs.refreshed(REPO / "docs" / page)
                    for page in refresh_outputs.PAGES}
    stale = 0
    for path, new in targets.items():
        old = path.read_text()
        if old == new:
            continue
        stale += 1
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                       str(path.relative_to(REPO)), "regenerated"))
        else:
            path.write_text(new)
            print(f"updated {path.relative_to(REPO)}")
    if args.check and stale:
        print(f"\n{stale} file(s) out of date: run `python3 scripts/update_docs.py`")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
