"""Build board firmware: the model library + generated glue + harness + board start-up, with arm-none-eabi-gcc."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import jinja2

from microfuse.boards import BOARDS_DIR, Board, load_board
from microfuse.pipeline import build
from microfuse.emit import escape
from microfuse.errors import TargetError
from microfuse.targets.tools import ARM_TOOLCHAIN_INSTALL, require_tool

COMMON_DIR = BOARDS_DIR / "common"
HARNESS_SOURCES = ("harness.c", "mf_crc32.c", "semihost.c")
# Flags every firmware gets; the board's own flags (CPU, FPU, -O level, addresses) come from board.toml.
FIRMWARE_CFLAGS = ("-ffunction-sections", "-fdata-sections", "-Wall")
FIRMWARE_LDFLAGS = ("-nostartfiles", "-Wl,--gc-sections")
FIRMWARE_LIBS = ("-lm",)  # after the objects: float kernels and QUANTIZE call roundf, expf, tanhf
# The compiler's and linker's own error lines; collect2's "ld returned 1 exit status" only sums them up.
REAL_ERROR = re.compile(r"undefined reference|multiple definition|\berror:|fatal error|cannot find")
BUILD_TIMEOUT_S = 300

_TEMPLATES = escape.environment(jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                                trim_blocks=False, lstrip_blocks=False)


def model_io_counts(lib_dir: Path, name: str) -> tuple[int, int]:
    """NAME_INPUTS and NAME_OUTPUTS as #defined in lib_dir/NAME.h."""
    header = lib_dir / f"{name}.h"
    if not header.is_file():
        raise TargetError(f"model header {header} not found")
    text = header.read_text()
    counts = []
    for what in ("INPUTS", "OUTPUTS"):
        m = re.search(rf"^\s*#\s*define\s+{name.upper()}_{what}\s+\(?(\d+)", text, re.M)
        if m is None:
            raise TargetError(f"{header}: no '#define {name.upper()}_{what} <n>'")
        counts.append(int(m.group(1)))
    return counts[0], counts[1]


def write_glue(lib_dir: Path, name: str, out_dir: Path) -> Path:
    """Generate out_dir/mf_glue.c mapping the mf_model_* API onto NAME_*."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise TargetError(f"model name '{name}' must be a lower-case C identifier")
    inputs, outputs = model_io_counts(lib_dir, name)
    text = _TEMPLATES.get_template("mf_glue.c.j2").render(
        name=name, NAME=name.upper(), inputs=inputs, outputs=outputs)
    glue = out_dir / "mf_glue.c"
    glue.write_text(text)
    return glue


def firmware_sources(board: Board, lib_dir: Path, glue: Path, extra=()) -> list[Path]:
    lib = sorted(lib_dir.glob("*.c"))
    if not lib:
        raise TargetError(f"no C sources in {lib_dir}")
    common = [COMMON_DIR / s for s in HARNESS_SOURCES]
    own = [board.startup, board.uart, board.timer.source, *board.sources]
    return [*lib, glue, *common, *own, *map(Path, extra)]


def build_firmware(board: Board, lib_dir: Path, name: str, out_dir: Path,
                   extra_sources=(), extra_cflags=()) -> Path:
    """Compile and link firmware for `board`; returns out_dir/NAME.elf.

    extra_sources: more C/assembly files, e.g. the pico-sdk boot2 for rpi-pico."""
    if board.is_host:
        raise TargetError(f"board '{board.name}' runs the library on the host: it has no firmware")
    gcc = require_tool(board.compiler, ARM_TOOLCHAIN_INSTALL)
    lib_dir, out_dir = Path(lib_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    glue = write_glue(lib_dir, name, out_dir)
    elf = out_dir / f"{name}.elf"
    cmd = [
        gcc, *board.cflags, *FIRMWARE_CFLAGS, *extra_cflags, f"-DMF_UART_BAUD={board.baud}u",
        f"-I{lib_dir}", f"-I{out_dir}", f"-I{COMMON_DIR}",
        *map(str, firmware_sources(board, lib_dir, glue, extra_sources)),
        f"-T{board.linker_script}", f"-L{COMMON_DIR}",
        f"-Wl,--defsym=MF_STACK_SIZE={board.stack_bytes}", f"-Wl,-Map={out_dir / (name + '.map')}",
        *FIRMWARE_LDFLAGS, *board.ldflags, *FIRMWARE_LIBS, "-o", str(elf),
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise TargetError(f"firmware build for board '{board.name}' timed out after {BUILD_TIMEOUT_S} s") from None
    if proc.returncode != 0:
        raise TargetError(_build_error(board, name, proc.stderr))
    return elf


def _build_error(board: Board, name: str, stderr: str) -> str:
    """The one line of the compiler's output that says what went wrong."""
    overflow = re.search(r"region `(\w+)' overflowed by (\d+) bytes", stderr)
    if overflow:
        region, extra = overflow.groups()
        limit = board.sram_bytes if region == "RAM" else board.flash_bytes
        kind = "SRAM" if region == "RAM" else "flash"
        return (f"firmware for '{name}' does not fit board '{board.name}': {kind} "
                f"({limit} bytes) overflowed by {extra} bytes")
    if "nano.specs" in stderr or "stdint.h: No such file" in stderr:
        return f"newlib for arm-none-eabi is missing: install it with `{ARM_TOOLCHAIN_INSTALL}`"
    lines = stderr.strip().splitlines() or ["?"]
    lines = [ln for ln in lines if REAL_ERROR.search(ln) and not ln.startswith("collect2")] or lines
    return f"firmware build for board '{board.name}' failed: {lines[0].strip()}"


def size(elf: Path) -> dict[str, int]:
    """text, data and bss bytes of an ELF (arm-none-eabi-size); bss includes the stack reservation."""
    tool = require_tool("arm-none-eabi-size", ARM_TOOLCHAIN_INSTALL)
    proc = subprocess.run([tool, "-B", str(elf)], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise TargetError(f"arm-none-eabi-size {elf} failed: {proc.stderr.strip()}")
    text, data, bss = (int(v) for v in proc.stdout.splitlines()[1].split()[:3])
    return {"text": text, "data": data, "bss": bss}


def section_size(elf: Path, section: str) -> int:
    """Size of one ELF section (0 if absent), via arm-none-eabi-size -A."""
    tool = require_tool("arm-none-eabi-size", ARM_TOOLCHAIN_INSTALL)
    proc = subprocess.run([tool, "-A", str(elf)], capture_output=True, text=True, timeout=60)
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == section:
            return int(parts[1])
    return 0


def firmware_sections(compiled, out: Path) -> dict:
    """For a firmware board: build out/firmware/NAME.elf; the report's board and firmware sections."""
    if compiled.options.board is None:
        return {}
    board = load_board(compiled.options.board)
    info = {"board": {"name": board.name, "flash_bytes": board.flash_bytes, "sram_bytes": board.sram_bytes}}
    if board.is_host:
        return info
    elf = build_firmware(board, out, compiled.name, out / "firmware")
    (out / "firmware" / "mf_glue.c").unlink()  # harness glue: keeps `cc $(find OUT -name '*.c')` working
    return {**info, "firmware": {"elf": f"firmware/{elf.name}", **size(elf)}}


def target_sections(compiled, out: Path) -> dict:
    """The board's sections (firmware_sections), and with options.core the flash and RAM totals
    measured by compiling the folder for that core and the board's (report.json "footprint")."""
    from .footprint import footprint_section

    found = firmware_sections(compiled, out)
    if compiled.options.core is not None:
        found["footprint"] = footprint_section(compiled, out, found.get("firmware") is not None)
    return found


def build_with_firmware(model, out_dir, options, report: dict | None = None):
    """microfuse.pipeline.build, and for options.board its firmware (out/firmware/NAME.elf), the
    report's board sections and totals: the board step sits above the library build. A bench in
    `report` replaces the stack bound of the totals for its core by the stack it painted."""
    bench = (report or {}).get("bench")

    def sections(compiled, out: Path) -> dict:
        found = target_sections(compiled, out)
        if bench and found.get("footprint"):
            from .footprint import with_painted_stack

            found["footprint"] = [with_painted_stack(t, bench) for t in found["footprint"]]
        return found
    return build(model, out_dir, options, sections=sections, report=report)
