"""Streaming wake-word models (microWakeWord): state area, arena and instructions per invoke on
qemu-mps2-an386, beside TFLite Micro's arena for the same file.

microfuse keeps state (the ring buffers the resource variables hold) in its own area, apart from
the activation arena; TFLM keeps it in its arena's tail (persistent allocations), so its total
is compared with microfuse's arena + state. TFLM's figures come from the `tflite-micro` wheel
(x86-64 build, 8-byte pointers: its tail is larger than on a Cortex-M). Instructions are counted
by QEMU over a 20-invoke stream (bit-exact with TFLM, checked in the same run): the first invoke
also initializes the state; "per invoke" is the median of the others.

    python bench/wakeword.py [--json] [MODEL ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from microfuse import oracle  # noqa: E402
from microfuse.verify import verify  # noqa: E402

MODELS = REPO.parent / "shared" / "models" / "wakeword"
BOARD = "qemu-mps2-an386"


def measure(path: Path) -> dict:
    verdict, compiled, counts = verify(path, board=BOARD, n=18, seed=0)
    if not verdict.ok:
        raise SystemExit(f"{path.stem}: not bit-exact with TFLM: {verdict.line(False)}")
    usage = oracle.arena_usage(path)
    return {"model": path.stem, "invokes": verdict.samples, "state": compiled.plan.state_bytes,
            "arena": compiled.plan.arena_bytes, "first_invoke": counts[0],
            "per_invoke": int(statistics.median(counts[1:])), "tflm_head": usage["head"],
            "tflm_tail": usage["tail"], "tflm_total": usage["total"]}


def table(rows: list[dict]) -> str:
    head = (f"{'model':12} {'state':>6} {'arena':>6} {'sum':>6} {'instr/invoke':>13} {'first':>8}"
            f" {'TFLM head':>10} {'TFLM tail':>10} {'TFLM total':>11}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['model']:12} {r['state']:>6,} {r['arena']:>6,} {r['state'] + r['arena']:>6,}"
                     f" {r['per_invoke']:>13,} {r['first_invoke']:>8,} {r['tflm_head']:>10,}"
                     f" {r['tflm_tail']:>10,} {r['tflm_total']:>11,}")
    return "\n".join(lines) + f"\n({BOARD}; bit-exact with TFLM over {rows[0]['invokes']} invokes each)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", type=Path, help="default: every model in ../shared/models/wakeword")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    paths = args.models or sorted(MODELS.glob("*.tflite"))
    if not paths:
        raise SystemExit(f"no models in {MODELS}")
    rows = [measure(p) for p in paths]
    print(json.dumps(rows, indent=1) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
