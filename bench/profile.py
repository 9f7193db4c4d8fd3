"""Estimated Cortex-M4 cycles per C function of one model's firmware (a developer's profile).

    PYTHONPATH=. python bench/profile.py MODEL.tflite [--optimize balanced] [--top 25]

Runs `microfuse bench --board qemu-mps2-an386` with the cycle plugin's profile on
(MICROFUSE_CYCLE_PROFILE: the instructions' own cycles per translated block, taken-branch refills
left out), maps every block to the function holding it (arm-none-eabi-nm of the firmware) and
prints the functions by cycles. The run covers every invoke of that bench session (the bench
and the stack measurement), so read the shares, not the totals.
"""

from __future__ import annotations

import argparse
import bisect
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from microfuse.targets.cycles import PROFILE_ENV  # noqa: E402


def symbols(elf: Path) -> tuple[list[int], list[str]]:
    """Function start addresses (sorted, Thumb bit cleared) and their names."""
    out = subprocess.run(["arm-none-eabi-nm", "-n", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    starts, names = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWw":
            starts.append(int(parts[0], 16) & ~1)
            names.append(parts[2])
    return starts, names


def per_function(profile: Path, elf: Path) -> Counter:
    """Cycles per function name."""
    starts, names = symbols(elf)
    spent: Counter = Counter()
    for line in profile.read_text().splitlines():
        pc, cycles = line.split()
        i = bisect.bisect_right(starts, int(pc, 16)) - 1
        spent[names[i] if i >= 0 else "?"] += int(cycles)
    return spent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--optimize", default="balanced")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        prof = Path(tmp) / "blocks.txt"
        env = dict(os.environ, **{PROFILE_ENV: str(prof)})
        subprocess.run([sys.executable, "-m", "microfuse", "bench", args.model, "--board",
                        "qemu-mps2-an386", "--optimize", args.optimize], env=env, check=True)
        spent = per_function(prof, Path(str(prof) + ".elf"))
    total = sum(spent.values())
    print(f"{'function':<40} {'cycles':>12} {'share':>6}")
    for name, cycles in spent.most_common(args.top):
        print(f"{name:<40} {cycles:>12,} {cycles / total:>6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
