"""Measure every runtime_c kernel's code bytes for the cost model: microfuse/lower/code_bytes.json.

Each runtime_c/src/*.c is compiled for a Cortex-M4 at -Os with one section per function; a
kernel's size is its own function plus the file's local helpers (static functions the body
inlines or calls). Run it after changing runtime_c (tests/unit/test_kernel_specs.py fails
while the file is stale):

    python3 scripts/measure_code_bytes.py          # rewrite the data file
    python3 scripts/measure_code_bytes.py --check  # exit 1 if it differs
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "runtime_c"
OUT = ROOT / "microfuse" / "lower" / "code_bytes.json"
FLAGS = ["-std=c99", "-Os", "-ffunction-sections", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
         "-mfpu=fpv4-sp-d16"]


def measure(source: Path, tmp: Path) -> dict[str, int]:
    """{global mf_* function: bytes} of one source file (its local helpers counted in)."""
    obj = tmp / f"{source.stem}.o"
    subprocess.run(["arm-none-eabi-gcc", *FLAGS, f"-I{RUNTIME / 'include'}", "-c", str(source), "-o", str(obj)],
                   check=True)
    symbols = subprocess.run(["arm-none-eabi-nm", "-S", str(obj)], capture_output=True, text=True,
                             check=True).stdout
    rows = [line.split() for line in symbols.splitlines() if re.match(r"^\S+ \S+ [Tt] ", line)]
    local = sum(int(r[1], 16) for r in rows if r[2] == "t")
    return {r[3]: int(r[1], 16) + local for r in rows if r[2] == "T" and r[3].startswith("mf_")}


def measure_all() -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        found: dict[str, int] = {}
        for source in sorted((RUNTIME / "src").glob("*.c")):
            found.update(measure(source, Path(tmp)))
    return dict(sorted(found.items()))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare with the data file instead of writing it")
    args = p.parse_args()
    text = json.dumps(measure_all(), indent=1) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print(f"{OUT.relative_to(ROOT)} is {'up to date' if same else 'stale: run scripts/measure_code_bytes.py'}")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)} ({text.count(':')} kernels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
