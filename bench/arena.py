"""Arena bytes: microfuse beside TFLite Micro on every corpus model, measured in the same run.

TFLM's figures come from the `tflite-micro` wheel (x86-64 build, 8-byte pointers): "head" is
the activation part its greedy planner lays out (print_allocations, read from fd 2 in a
subprocess); "min" is the smallest arena it initializes with (bisection, each try in its own
process). microfuse's arena holds activations only: per-op data lives in flash. Per model: the
whole-tensor bound (the most bytes of whole tensors alive at one step, without cascades), the plan
without cascades, the default (cascaded) plan, the plan with fusion off, and TFLM's.

    python bench/arena.py [--json] [MODEL ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from microfuse import oracle  # noqa: E402
from microfuse.passes import names  # noqa: E402
from microfuse.pipeline import Options, compile_model  # noqa: E402

NO_CASCADE = tuple(names(without=("cascade",)))

CORPUS = REPO.parent / "shared" / "models"


def measure(path: Path) -> dict:
    ours = compile_model(path, Options(name="m")).plan
    whole = compile_model(path, Options(name="m", passes=NO_CASCADE)).plan
    unfused = compile_model(path, Options(name="m", fuse=False)).plan
    usage = oracle.arena_usage(path)
    return {
        "model": path.stem,
        "whole_tensor_bound": whole.lower_bound_bytes,  # whole tensors alive at once, no cascades
        "microfuse_no_cascade": whole.arena_bytes,
        "microfuse": ours.arena_bytes,  # the default build: cascades where they pay
        "microfuse_no_fuse": unfused.arena_bytes,
        "lower_bound": ours.lower_bound_bytes,
        "tflm_head": usage["head"],
        "tflm_total": usage["total"],
        "tflm_min": oracle.min_arena(path),
    }


def table(rows: list[dict]) -> str:
    head = (f"{'model':34} {'whole bound':>11} {'no cascade':>10} {'cascaded':>9} {'no-fuse':>9}"
            f" {'TFLM head':>10} {'TFLM min':>9} {'vs head':>8} {'vs min':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['model']:34} {r['whole_tensor_bound']:>11,} {r['microfuse_no_cascade']:>10,}"
                     f" {r['microfuse']:>9,} {r['microfuse_no_fuse']:>9,} {r['tflm_head']:>10,} {r['tflm_min']:>9,}"
                     f" {r['microfuse'] / r['tflm_head']:>8.2f} {r['microfuse'] / r['tflm_min']:>7.2f}")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="*", type=Path, help="default: every model in ../shared/models")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    paths = args.models or sorted(CORPUS.glob("*.tflite"))
    rows = [measure(path) for path in paths]
    print(json.dumps(rows, indent=1) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
