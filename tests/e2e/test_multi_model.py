"""Several models in one program: each build names its runtime functions NAME_mf_* (mf_config.h), so two
different models and a third built with another --optimize link into one host program, one Cortex-M4
firmware and one CMake project, and each still equals TFLite Micro."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import CI, MODEL_FILES, NEEDS_ARM, REPO, model

from microfuse import oracle
from microfuse.pipeline import Options, build
from microfuse.emit.symbols import config_header, runtime_symbols
from microfuse.resources import RUNTIME_DIR
from microfuse.tflite import reader

EXAMPLES = REPO / "examples"
FIRMWARE = EXAMPLES / "firmware"  # its start-up code and linker script for mps2-an386
M4 = ["-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"]
M55 = ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"]


def _models() -> list[tuple[str, Path, str]]:
    """(name, model, --optimize): the real KWS and IC when the corpus is here, else the project's examples."""
    if MODEL_FILES or CI:
        kws, ic = model("mlperf_kws_dscnn_int8"), model("mlperf_ic_resnet8_int8")
        return [("kws", kws, "balanced"), ("ic", ic, "balanced"), ("kws_small", kws, "size")]
    tiny, res = EXAMPLES / "tiny_cnn_int8.tflite", EXAMPLES / "residual_int8.tflite"
    return [("tiny", tiny, "balanced"), ("res", res, "balanced"), ("tiny_fast", tiny, "speed")]


MAIN = """#include <stdint.h>
{includes}
#ifdef __arm__
#define UART_DATA (*(volatile uint32_t *)0x40004000u)
#define UART_STATE (*(volatile uint32_t *)0x40004004u)
#define UART_CTRL (*(volatile uint32_t *)0x40004008u)
static void put(char c) {{ while (UART_STATE & 1u) {{ }} UART_DATA = (uint32_t)c; }}
static void start(void) {{ UART_CTRL = 1u; }}
#else
#include <stdio.h>
static void put(char c) {{ putchar(c); }}
static void start(void) {{ }}
#endif
static void put_int(int v) {{
    char d[4]; int n = 0; unsigned u = v < 0 ? (unsigned)-v : (unsigned)v;
    if (v < 0) put('-');
    do {{ d[n++] = (char)('0' + u % 10u); u /= 10u; }} while (u);
    while (n) put(d[--n]);
}}
/* The same input pattern as the test's numpy: (i * 37 + salt) % 256 - 128. */
static void fill(int8_t *in, unsigned n, unsigned salt) {{
    for (unsigned i = 0; i < n; i++) in[i] = (int8_t)((int)((i * 37u + salt) % 256u) - 128);
}}
#define RUN(name, N, salt) do {{ \\
    fill((int8_t *)name##_input(0), N##_INPUT0_ELEMENTS, salt); \\
    if (name##_invoke() != 0) return 1; \\
    const int8_t *o = (const int8_t *)name##_output(0); \\
    for (unsigned i = 0; i < N##_OUTPUT0_ELEMENTS; i++) {{ put(i ? ' ' : ':'); put_int(o[i]); }} \\
    put('\\n'); }} while (0)
int main(void) {{
    start();
{runs}
    return 0;
}}
"""


def _setup(tmp: Path) -> tuple[Path, list[str], list[list[int]]]:
    """Build the three libraries and main.c into tmp; the expected output lines (TFLM)."""
    runs, includes, expected = [], [], []
    for salt, (name, path, level) in enumerate(_models()):
        build(path, tmp / name, Options(name=name, optimize=level))
        includes.append(f'#include "{name}.h"')
        runs.append(f"    RUN({name}, {name.upper()}, {salt * 5}u);")
        (shape,) = [t.shape for t in reader.read(path).inputs]
        x = ((np.arange(int(np.prod(shape))) * 37 + salt * 5) % 256 - 128).astype(np.int8).reshape(shape)
        expected.append(oracle.run(path.read_bytes(), [x])[0].reshape(-1).tolist())
    (tmp / "main.c").write_text(MAIN.format(includes="\n".join(includes), runs="\n".join(runs)))
    return tmp / "main.c", [n for n, _, _ in _models()], expected


def _printed(text: str) -> list[list[int]]:
    return [[int(v) for v in line.lstrip(":").replace(":", " ").split()] for line in text.splitlines() if line]


def _sources(tmp: Path, names: list[str]) -> list[str]:
    return [str(c) for n in names for c in sorted((tmp / n).glob("*.c"))]


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert done.returncode == 0, f"{cmd[0]}: {done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done


def test_three_libraries_in_one_host_program(tmp_path):
    main, names, expected = _setup(tmp_path)
    includes = [f"-I{tmp_path / n}" for n in names]
    _run(["gcc", "-std=c99", "-O2", "-Wall", *includes, str(main), *_sources(tmp_path, names),
          "-o", str(tmp_path / "multi"), "-lm"])
    assert _printed(_run([str(tmp_path / "multi")]).stdout) == expected
    # Each library's runtime functions are its own: NAME_mf_*, never a shared mf_*.
    table = [line.split()[-1] for line in _run(["nm", str(tmp_path / "multi")]).stdout.splitlines()
             if line.split()[-2:-1] == ["T"]]
    assert not [s for s in table if s.startswith("mf_")]
    assert all(any(s.startswith(f"{n}_mf_") for s in table) for n in names)


@NEEDS_ARM
@pytest.mark.qemu
def test_three_libraries_in_one_cortex_m4_firmware(tmp_path):
    main, names, expected = _setup(tmp_path)
    elf = tmp_path / "multi.elf"
    _run(["arm-none-eabi-gcc", *M4, "-std=c99", "-O2", "-ffunction-sections", "-fdata-sections",
          *[f"-I{tmp_path / n}" for n in names], str(main), str(FIRMWARE / "startup.c"), *_sources(tmp_path, names),
          "-nostartfiles", "--specs=nano.specs", f"-T{FIRMWARE / 'mps2_an386.ld'}", "-Wl,--gc-sections",
          "-o", str(elf), "-lm"])
    done = _run(["qemu-system-arm", "-machine", "mps2-an386", "-nographic", "-monitor", "none",
                 "-semihosting-config", "enable=on,target=native", "-kernel", str(elf)], stdin=subprocess.DEVNULL)
    assert _printed(done.stdout) == expected


@pytest.mark.skipif(shutil.which("cmake") is None and not CI, reason="cmake not installed")
def test_three_libraries_in_one_cmake_project(tmp_path):
    main, names, expected = _setup(tmp_path)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(multi C)\n"
        + "".join(f"add_subdirectory({n})\n" for n in names)
        + f"add_executable(multi main.c)\ntarget_link_libraries(multi PRIVATE {' '.join(names)} m)\n")
    _run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build"), "-G", "Unix Makefiles"])
    _run(["cmake", "--build", str(tmp_path / "build")])
    assert _printed(_run([str(tmp_path / "build" / "multi")]).stdout) == expected


def _defined_globals(cc: str, flags: list[str], folder: Path) -> list[str]:
    nm = "arm-none-eabi-nm" if cc.startswith("arm") else "nm"
    found = []
    for src in sorted(folder.glob("mf_*.c")):
        obj = folder / (src.stem + ".o")
        _run([cc, *flags, "-std=c99", "-O2", f"-I{folder}", "-c", str(src), "-o", str(obj)])
        table = _run([nm, "-g", "--defined-only", str(obj)]).stdout
        found += [line.split()[-1] for line in table.splitlines() if len(line.split()) == 3]
    return found


@pytest.mark.parametrize("cc, flags", [("gcc", []), ("arm-none-eabi-gcc", M4), ("arm-none-eabi-gcc", M55)],
                         ids=["host", "cortex-m4", "cortex-m55"])
def test_every_runtime_function_gets_the_build_prefix(tmp_path, cc, flags):
    """The whole runtime (every source, each core's code paths) compiled with one build's mf_config.h:
    every global symbol it defines carries the prefix, so no kernel of any model can clash."""
    if shutil.which(cc) is None and not CI:
        pytest.skip(f"{cc} not installed")
    for f in [*(RUNTIME_DIR / "include").glob("*.h"), *(RUNTIME_DIR / "src").glob("*.c")]:
        shutil.copyfile(f, tmp_path / f.name)
    texts = [p.read_text() for p in sorted(tmp_path.glob("mf_*.[ch]"))]
    (tmp_path / "mf_config.h").write_text(config_header("zz", "test", runtime_symbols(texts)))
    symbols = _defined_globals(cc, flags, tmp_path)
    assert len(symbols) > 100
    assert [s for s in symbols if not s.startswith("zz_mf_")] == []
