"""Regenerate every figure the README and docs quote, from the commands that measure them:

    python3 scripts/update_docs.py            rewrite README.md's marked blocks and docs/*.md's outputs
    python3 scripts/update_docs.py --check    print the differences and exit 1 instead of writing
    python3 scripts/update_docs.py --only demo,mlperf-table   (block names below; docs: the docs pages)

A marked block (README.md, docs/cycle-model.md, docs/planner.md) sits between `<!-- figures:NAME -->`
and `<!-- /figures -->`: `demo` runs the Makefile's `demo` recipe; `mlperf-table`, `cores`, `latency`
and `cycle-table` measure the MLPerf Tiny models; `ops-count` is `microfuse ops`'s last line; `wakeword` runs bench/wakeword.py (bench/arena.py, bench/speed.py: QEMU with -icount,
needs ../shared/models); `planner-kws` reads KWS's plan. docs/quickstart.md, api.md, integrate.md and
fusion.md get their command outputs from docs/refresh_outputs.py. The tests re-run these and fail on
any difference (tests/e2e/test_docs_figures.py, tests/e2e/test_examples.py)."""

from __future__ import annotations

import argparse
import difflib
import functools
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


@functools.lru_cache(maxsize=None)  # the table and the latency line read the same runs
def _measure(model: str, board: str, per_op: bool):
    import speed  # bench/speed.py

    from microfuse.boards import load_board

    with tempfile.TemporaryDirectory(prefix="mf-speed-") as tmp:
        row = speed.measure(model, load_board(board), "balanced", Path(tmp), per_op, check=True)
    if not row.exact:
        sys.exit(f"{model} on {board} is not bit-exact with TFLM: no figures from it")
    return row


def mlperf_table() -> str:
    """Arena (microfuse, TFLM), instructions, estimated cycles, flash and stack on the M4F, per
    MLPerf Tiny model, each ratio against TFLM + CMSIS-NN on the same core."""
    import speed  # bench/speed.py

    from microfuse import oracle

    lines = ["| model | arena (B) | TFLM arena head / min (B) | instructions per inference | vs TFLM + CMSIS-NN "
             "| est. M4 cycles | vs TFLM + CMSIS-NN | code+rodata excl. weights (B) "
             "| stack (B), TFLM + CMSIS-NN's |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for model, title in MLPERF.items():
        row = _measure(model, "qemu-mps2-an386", per_op=True)
        path = speed.MODELS_DIR / speed.MODELS[model]
        head, low = oracle.arena_usage(path)["head"], oracle.min_arena(path)
        lines.append(f"| {title} | {row.arena:,} | {head:,} / {low:,} | {row.instructions:,} | {row.ratio:.3f}× "
                     f"| {row.cycles:,} | {row.cycle_ratio:.3f}× | {row.flash:,} "
                     f"| {row.stack:,}, {speed.TFLM_STACK[model]:,} |")
    return "\n".join(lines) + "\n"


def cores() -> str:
    """Instructions on the Cortex-M7 and the Cortex-M55 (Helium), each against TFLM + CMSIS-NN on
    the same core."""
    lines = ["| model | Cortex-M7 (`qemu-mps2-an500`) | vs TFLM + CMSIS-NN | Cortex-M55, Helium "
             "(`qemu-mps3-an547`) | vs TFLM + CMSIS-NN (Helium) |", "|---|---:|---:|---:|---:|"]
    for model in MLPERF:
        m7, m55 = (_measure(model, board, per_op=False) for board in ("qemu-mps2-an500", "qemu-mps3-an547"))
        lines.append(f"| {model.upper()} | {m7.instructions:,} | {m7.ratio:.3f}× | {m55.instructions:,} "
                     f"| {m55.ratio:.3f}× |")
    return "\n".join(lines) + "\n"


def latency() -> str:
    """The M4 cycle estimate as milliseconds at 120 MHz, beside the best published L4R5 latencies."""
    import speed

    rows = [_measure(model, "qemu-mps2-an386", per_op=True) for model in MLPERF]
    ms = " / ".join(f"{r.cycles / speed.L4R5_HZ * 1000:.{1 if r.cycles > speed.L4R5_HZ // 100 else 2}f}"
                    for r in rows)
    best = " / ".join(f"{speed.L4R5_MS[m]:g}" for m in MLPERF)
    behind = [r.l4r5_ratio for r in rows if r.model != "ad"]
    return (f"The cycles are a zero-wait-state estimate ([docs/cycle-model.md](docs/cycle-model.md)): at\n"
            f"120 MHz, {ms} ms. The best published MLPerf Tiny results on an STM32L4R5\n"
            f"(Cortex-M4 at 120 MHz, real hardware with flash wait states) are {best} ms\n"
            f"(STM32Cube.AI for KWS, VWW and IC, Plumerai for AD): on the conv models microfuse's estimate\n"
            f"is {min(behind):.2f}–{max(behind):.2f}× theirs, before wait states.\n")


def cycle_table() -> str:
    """docs/cycle-model.md's table: instructions and estimated M4 cycles beside TFLM + CMSIS-NN's
    estimate and the best published L4R5 latencies."""
    import speed

    lines = ["| model | instructions | estimated M4 cycles | TFLM + CMSIS-NN estimate | ratio "
             "| best published L4R5 (real hardware, 120 MHz) | ours at 120 MHz, zero wait |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for model in MLPERF:
        r = _measure(model, "qemu-mps2-an386", per_op=True)
        theirs, ms = speed.TFLM_CMSIS_NN_M4_CYCLES[model], speed.L4R5_MS[model]
        best = ms * speed.L4R5_HZ / 1000
        ours = r.cycles / speed.L4R5_HZ * 1000
        lines.append(f"| {model.upper()} | {r.instructions:,} | {r.cycles:,} | {_mega(theirs)} M | {r.cycle_ratio:.3f}× "
                     f"| {ms:g} ms ({_mega(best)} M) | {ours:.{1 if ours >= 10 else 2}f} ms |")
    return "\n".join(lines) + "\n"


def _mega(n: float) -> str:
    return f"{n / 1e6:.2f}" if n >= 1e6 else f"{n / 1e6:.3f}"


def planner_kws() -> str:
    """docs/planner.md's KWS sentence: the pointwise output, the shift that backward runs allow,
    the arena and the whole-tensor bound, from the compiled plan without cascades (the picture's;
    the cascades' figures are bench/arena.py's)."""
    from microfuse.passes import names
    from microfuse.pipeline import Options, compile_model

    import speed

    compiled = compile_model(speed.MODELS_DIR / speed.MODELS["kws"],
                             Options(name="kws", passes=tuple(names(without=("cascade",)))))
    big = max(compiled.graph.activations(), key=lambda t: t.nbytes)
    arena, whole = compiled.plan.arena_bytes, compiled.plan.lower_bound_bytes
    shift = arena - big.nbytes
    return (f"In the KWS picture every pointwise convolution writes its {big.nbytes:,}-byte output {shift:,} bytes\n"
            f"({shift // (big.shape[-1] * big.dtype.size)} pixels of {big.shape[-1]} channels) below its input and "
            f"every depthwise one {shift:,} bytes above, run\nbackward: two activations of {big.nbytes:,} bytes fit "
            f"in {arena:,} bytes, where whole tensors need {whole:,}.\n")


def ops_count() -> str:
    """README's op count: the last line of `microfuse ops`."""
    from microfuse import ops

    return f"`microfuse ops` lists every op with the types it takes; it compiles {ops.tflm_coverage()}.\n"


def wakeword() -> str:
    """The streaming wake-word models: state, arena and instructions per invoke (bench/wakeword.py)."""
    import wakeword as bench  # bench/wakeword.py

    rows = [bench.measure(p) for p in sorted(bench.MODELS.glob("*.tflite"))]
    lines = ["| model | state (B) | arena (B) | state + arena (B) | instructions per invoke | first invoke "
             "| TFLM arena head / tail / total (B) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['state']:,} | {r['arena']:,} | {r['state'] + r['arena']:,} "
                     f"| {r['per_invoke']:,} | {r['first_invoke']:,} "
                     f"| {r['tflm_head']:,} / {r['tflm_tail']:,} / {r['tflm_total']:,} |")
    return "\n".join(lines) + "\n"


GENERATORS = {"ops-count": ops_count, "wakeword": wakeword, "demo": demo, "mlperf-table": mlperf_table, "cores": cores, "latency": latency,
              "cycle-table": cycle_table, "planner-kws": planner_kws}
# the files whose marked blocks they fill
MARKED_FILES = (README, REPO / "docs" / "cycle-model.md", REPO / "docs" / "planner.md")


def marked(path: Path, only: set[str]) -> str:
    text = path.read_text()
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
    targets = {path: marked(path, only) for path in MARKED_FILES}
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
