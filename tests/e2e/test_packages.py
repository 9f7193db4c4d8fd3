"""The build-system files of an output folder, each built the way its build system would: a Zephyr module
(with a stand-in for Zephyr's CMake functions and an arm-none-eabi toolchain file), an Arduino library
(src/ layout, compiled as arduino-cli compiles libraries), a PlatformIO library.json (its srcFilter and
flags), CMake's default optimization, and the weights/arena section macros checked in the object file."""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CI, NEEDS_ARM, REPO

from microfuse.pipeline import Options, build

pytestmark = NEEDS_ARM
MODEL = REPO / "examples" / "tiny_cnn_int8.tflite"
M4 = ["-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"]
SECTIONS = ['-DTINY_WEIGHTS_SECTION=".extflash"', '-DTINY_ARENA_SECTION=".bss.fast"']


def run(cmd: list, cwd: Path | None = None) -> str:
    done = subprocess.run(list(map(str, cmd)), cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{cmd}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done.stdout


def sections(path: Path) -> dict[str, int]:
    """Section name -> size of an object file or archive (arm-none-eabi-objdump -h)."""
    found: dict[str, int] = {}
    for m in re.finditer(r"^\s*\d+\s+(\S+)\s+([0-9a-f]{8})\s", run(["arm-none-eabi-objdump", "-h", path]), re.M):
        found[m.group(1)] = found.get(m.group(1), 0) + int(m.group(2), 16)
    return found


def symbol_section(obj: Path, symbol: str) -> str:
    for line in run(["arm-none-eabi-objdump", "-t", obj]).splitlines():
        if line.split()[-1:] == [symbol]:
            return line.split()[-3]
    raise AssertionError(f"{symbol} not in {obj}")


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pkg") / "tiny"
    build(MODEL, out, Options(name="tiny"))
    return out


def test_section_macros_place_weights_and_arena(library, tmp_path):
    arena = int(re.search(r"#define TINY_ARENA_SIZE (\d+)u", (library / "tiny.h").read_text()).group(1))
    placed, plain = tmp_path / "placed.o", tmp_path / "plain.o"
    run(["arm-none-eabi-gcc", *M4, "-std=c99", "-O2", *SECTIONS, "-c", library / "tiny.c", "-o", placed])
    run(["arm-none-eabi-gcc", *M4, "-std=c99", "-O2", "-c", library / "tiny.c", "-o", plain])
    got = sections(placed)
    assert got[".bss.fast"] == arena and got[".extflash"] > 1000
    weights = re.search(r"const \w+ (\w+_weights)\[", (library / "tiny.c").read_text()).group(1)  # call0_band0_...
    assert symbol_section(placed, weights) == ".extflash"
    assert symbol_section(placed, "tiny_arena_storage") == ".bss.fast"
    # The default: no named sections, the usual ones.
    assert ".extflash" not in sections(plain) and ".bss.fast" not in sections(plain)
    assert symbol_section(plain, weights).startswith(".rodata")


ZEPHYR_STANDIN = """# What a Zephyr build provides to a module, as plain CMake (Zephyr itself is not installed).
cmake_minimum_required(VERSION 3.20)
project(zephyr_app C)
function(zephyr_library_named name)
  add_library(${name} STATIC)
  set(ZEPHYR_CURRENT_LIBRARY ${name} PARENT_SCOPE)
endfunction()
macro(zephyr_library_sources)
  target_sources(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${ARGN})
endmacro()
macro(zephyr_include_directories)
  include_directories(${ARGN})
endmacro()
macro(zephyr_library_compile_definitions)
  target_compile_definitions(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${ARGN})
endmacro()
set(CONFIG_TINY y)
set(CONFIG_TINY_WEIGHTS_SECTION ".extflash")
set(CONFIG_TINY_ARENA_SECTION "")
add_subdirectory(${MODULE}/zephyr tiny_module)
"""
TOOLCHAIN = """set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -Os")
"""


def test_zephyr_module_builds_with_a_cmake_toolchain_file(library, tmp_path):
    module = (library / "zephyr" / "module.yml").read_text()
    assert re.search(r"^name: tiny$", module, re.M) and re.search(r"^  cmake: zephyr$", module, re.M)
    kconfig = (library / "zephyr" / "Kconfig").read_text()
    assert re.search(r"^  kconfig: zephyr/Kconfig$", module, re.M)
    assert re.findall(r"^config (\w+)$", kconfig, re.M) == ["TINY", "TINY_WEIGHTS_SECTION", "TINY_ARENA_SECTION"]
    app = tmp_path / "app"
    app.mkdir()
    (app / "CMakeLists.txt").write_text(ZEPHYR_STANDIN)
    (tmp_path / "arm.cmake").write_text(TOOLCHAIN)
    run(["cmake", "-S", app, "-B", app / "build", "-G", "Unix Makefiles", f"-DMODULE={library}",
         f"-DCMAKE_TOOLCHAIN_FILE={tmp_path / 'arm.cmake'}"])
    run(["cmake", "--build", app / "build"])
    (archive,) = (app / "build").rglob("libtiny.a")
    got = sections(archive)
    assert got[".extflash"] > 1000 and ".bss.fast" not in got  # Kconfig's weights section, the arena default
    assert any(name.startswith(".text") and size > 1000 for name, size in got.items())


ARDUINO_KEYS = ("name", "version", "author", "maintainer", "sentence", "paragraph", "category", "url",
                "architectures")
ARDUINO_CATEGORIES = ("Display", "Communication", "Signal Input/Output", "Sensors", "Device Control", "Timing",
                      "Data Storage", "Data Processing", "Other")
SKETCH = """#include <string.h>
#include <tiny.h>
extern "C" int main(void) {
  memset(tiny_input(0), TINY_INPUT0_ZERO_POINT, TINY_INPUT0_BYTES);
  return tiny_invoke() == 0 ? ((const signed char *)tiny_output(0))[0] : -1;
}
"""


def test_arduino_library_compiles_like_arduino_cli(tmp_path):
    """src/ layout: the output folder is the library's src/, library.properties one level up."""
    lib = tmp_path / "libraries" / "tiny"
    build(MODEL, lib / "src", Options(name="tiny"))
    (lib / "src" / "library.properties").rename(lib / "library.properties")
    props = dict(line.split("=", 1) for line in (lib / "library.properties").read_text().splitlines() if line)
    assert all(props.get(k) for k in ARDUINO_KEYS) and props["category"] in ARDUINO_CATEGORIES
    assert props["includes"] == "tiny.h" and re.fullmatch(r"\d+\.\d+\.\d+", props["version"])
    # arduino-cli: every .c of src/ (recursively) with the core's C flags and -I src, into an archive;
    # the sketch as C++ against the library's headers; then one link.
    objs = []
    for c in sorted((lib / "src").rglob("*.c")):
        objs.append(tmp_path / (c.stem + ".o"))
        run(["arm-none-eabi-gcc", *M4, "-c", "-g", "-Os", "-std=gnu11", "-ffunction-sections", "-fdata-sections",
             "-MMD", f"-I{lib / 'src'}", c, "-o", objs[-1]])
    run(["arm-none-eabi-ar", "rcs", tmp_path / "libtiny.a", *objs])
    (tmp_path / "sketch.ino.cpp").write_text(SKETCH)
    run(["arm-none-eabi-g++", *M4, "-c", "-Os", "-std=gnu++17", "-fno-exceptions", "-fno-rtti",
         f"-I{lib / 'src'}", tmp_path / "sketch.ino.cpp", "-o", tmp_path / "sketch.o"])
    firmware = REPO / "examples" / "firmware"  # its start-up code stands in for the Arduino core's
    run(["arm-none-eabi-gcc", *M4, "-c", "-Os", firmware / "startup.c", "-o", tmp_path / "startup.o"])
    run(["arm-none-eabi-gcc", *M4, "-nostartfiles", "--specs=nano.specs", f"-T{firmware / 'mps2_an386.ld'}",
         "-Wl,--gc-sections", tmp_path / "sketch.o", tmp_path / "startup.o", tmp_path / "libtiny.a", "-lm",
         "-o", tmp_path / "sketch.elf"])
    assert run(["arm-none-eabi-nm", tmp_path / "sketch.elf"]).count(" T tiny_mf_") >= 3  # the kernels linked


def _pio_sources(root: Path, src_filter: list[str]) -> list[Path]:
    """PlatformIO's srcFilter: +<glob> adds, -<glob> removes, in order, paths relative to srcDir."""
    files = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    chosen: set[str] = set()
    for rule in src_filter:
        sign, pattern = rule[0], rule[2:-1]
        hit = {f for f in files if fnmatch.fnmatch(f, pattern) or fnmatch.fnmatch(f, pattern + "/*")}
        chosen = chosen | hit if sign == "+" else chosen - hit
    return sorted(root / f for f in chosen)


def test_platformio_library_json_builds(library, tmp_path):
    manifest = json.loads((library / "library.json").read_text())
    assert manifest["name"] == "tiny" and re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    assert manifest["headers"] == "tiny.h" and (library / manifest["headers"]).is_file()
    b = manifest["build"]
    assert set(b) <= {"srcDir", "includeDir", "srcFilter", "flags", "unflags", "libArchive", "libLDFMode"}
    sources = _pio_sources(library / b["srcDir"], b["srcFilter"])
    expected = ["tiny.c", *re.search(r"^SRCS := tiny\.c (.*)$", (library / "Makefile").read_text(), re.M)
                .group(1).split()]
    assert sorted(p.name for p in sources) == sorted(expected)
    for src in sources:
        run(["arm-none-eabi-gcc", *M4, *b["flags"], f"-I{library / b['includeDir']}", "-c", src,
             "-o", tmp_path / (src.stem + ".o")])


def _compile_commands(cmake_args: list[str], library: Path, tmp: Path) -> str:
    app = tmp / "app"
    app.mkdir()
    (app / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.13)\nproject(app C)\n"
                                        f"add_subdirectory({library} tiny)\n")
    run(["cmake", "-S", app, "-B", app / "build", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *cmake_args])
    return " ".join(e["command"] for e in json.loads((app / "build" / "compile_commands.json").read_text()))


@pytest.mark.skipif(shutil.which("cmake") is None and not CI, reason="cmake not installed")
@pytest.mark.parametrize("args, flag, absent", [([], "-O2", None), (["-DCMAKE_BUILD_TYPE=Debug"], "-g", "-O2"),
                                                (["-Dtiny_OPTIMIZE=-Os"], "-Os", "-O2")],
                         ids=["no-build-type", "debug", "override"])
def test_cmake_builds_optimized_without_a_build_type(library, tmp_path, args, flag, absent):
    commands = _compile_commands(args, library, tmp_path)
    assert flag in commands.split() and (absent is None or absent not in commands.split())
