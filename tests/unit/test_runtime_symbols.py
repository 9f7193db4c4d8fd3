"""Every mf_* function the runtime objects define is written out literally in runtime_c's sources
(no token pasting), so a kernel name copied from a generated NAME.c is found by grep."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import CI, REPO

RUNTIME = REPO / "runtime_c"
SOURCES = sorted((RUNTIME / "src").glob("*.c"))
# (compiler, flags, nm): the host, and Cortex-M4 (the DSP paths). -O0 compiles fastest and defines
# the same entry points and weak helpers as any other level.
TOOLCHAINS = {
    "host": ("gcc", [], "nm"),
    "cortex-m4": ("arm-none-eabi-gcc", ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                                        "-mfpu=fpv4-sp-d16"], "arm-none-eabi-nm"),
}
DEFINED_FUNCTION = re.compile(r"^[0-9a-fA-F]+ [TtWw] (mf_\w+)$")


def defined_functions(toolchain: str, out: Path) -> set[str]:
    cc, flags, nm = TOOLCHAINS[toolchain]
    if shutil.which(cc) is None and not CI:
        pytest.skip(f"{cc} not installed")

    def one(src: Path) -> Path:
        obj = out / f"{src.stem}.o"
        subprocess.run([cc, *flags, "-std=c99", "-O0", "-I", str(RUNTIME / "include"), "-c", str(src),
                        "-o", str(obj)], check=True, capture_output=True)
        return obj
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        objects = list(pool.map(one, SOURCES))
    listing = subprocess.run([nm, "--defined-only", *map(str, objects)], check=True, capture_output=True,
                             text=True).stdout
    return {m.group(1) for line in listing.splitlines() if (m := DEFINED_FUNCTION.match(line))}


def literal_words() -> set[str]:
    text = "\n".join(p.read_text() for p in sorted(RUNTIME.rglob("*.[ch]")))
    return set(re.findall(r"\bmf_\w+", text))


@pytest.mark.parametrize("toolchain", TOOLCHAINS)
def test_every_defined_mf_function_is_written_out(toolchain, tmp_path):
    symbols = defined_functions(toolchain, tmp_path)
    assert len(symbols) >= 160  # every kernel entry point, not an empty listing
    missing = sorted(symbols - literal_words())
    assert not missing, f"defined but written nowhere in runtime_c: {missing}"


def test_no_token_pasting_in_the_runtime():
    pasted = [f"{p.name}:{n}" for p in sorted(RUNTIME.rglob("*.[ch]"))
              for n, line in enumerate(p.read_text().splitlines(), 1) if "##" in line]
    assert not pasted, pasted


def multi_line_macros() -> dict[str, str]:
    """name -> body of every #define continued over several lines."""
    found = {}
    for p in sorted(RUNTIME.rglob("*.[ch]")):
        for m in re.finditer(r"^#define (\w+)[^\n]*\\\n(?:[^\n]*\\\n)*[^\n]*", p.read_text(), re.M):
            found[f"{p.name}:{m.group(1)}"] = m.group(0)
    return found


def test_loops_are_functions_not_macros():
    """Multi-line macros only spell out inline-assembly text; C loops are always-inline functions."""
    # (outside the string literals: an STM's register list is a brace of assembly text)
    code = {name: re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', body) for name, body in multi_line_macros().items()}
    loops = [name for name, body in code.items() if re.search(r"\b(for|while)\s*\(|\{", body)]
    assert not loops, loops


def test_one_always_inline_macro():
    defining = [p.name for p in sorted(RUNTIME.rglob("*.h")) if "#define MF_INLINE" in p.read_text()]
    assert defining == ["mf_common.h"]
    assert not [p.name for p in sorted(RUNTIME.rglob("*.[ch]")) if "MF_BODY" in p.read_text()]
