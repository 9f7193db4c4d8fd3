"""The Cortex-M4 cycle model: build the QEMU plugin (targets/plugin/m4cycles.c) and read what it counts."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from microfuse.boards import Board
from microfuse.errors import TargetError
from microfuse.targets.tools import require_tool

PLUGIN_SOURCE = Path(__file__).parent / "plugin" / "m4cycles.c"
PLUGIN_CFLAGS = ("-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-Wall")
# Board cpu -> the cycle model its QEMU board gets. The M7 (dual issue) and M55 (Helium beats)
# have no model: docs/cycle-model.md says why.
CYCLE_MODELS = {"cortex-m4f": "cortex-m4", "cortex-m4": "cortex-m4"}
MODEL_NOTE = "estimated Cortex-M4 cycles, zero wait states (docs/cycle-model.md)"
MARK_SYMBOL = "mf_timer_ticks"  # the harness reads the timer around invoke() and after each call
BUILD_TIMEOUT_S = 120
PROFILE_ENV = "MICROFUSE_CYCLE_PROFILE"  # a path: the plugin writes cycles per block there


@dataclass(frozen=True)
class Mark:
    """The plugin's counters when the marked instruction ran."""

    instructions: int
    cycles: int


def cycle_model(board: Board) -> str | None:
    """The cycle model for `board` under QEMU, or None."""
    return CYCLE_MODELS.get(board.cpu) if board.is_qemu else None


def cache_dir() -> Path:
    """Where built plugins are kept: $MICROFUSE_CACHE, else $XDG_CACHE_HOME/microfuse, else ~/.cache/microfuse."""
    root = os.environ.get("MICROFUSE_CACHE")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "microfuse"


def plugin_path() -> Path:
    """The plugin's shared object, compiled with the host gcc on first use (one file per source version)."""
    source = PLUGIN_SOURCE.read_bytes()
    digest = hashlib.sha256(source + " ".join(PLUGIN_CFLAGS).encode()).hexdigest()[:16]
    folder = cache_dir() / "qemu-plugins"
    so = folder / f"m4cycles-{digest}.so"
    if so.is_file():
        return so
    gcc = require_tool("gcc", "apt-get install gcc")
    folder.mkdir(parents=True, exist_ok=True)
    # Build beside the target and rename: parallel first uses never load a half-written file.
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".so.tmp")
    os.close(fd)
    try:
        proc = subprocess.run([gcc, *PLUGIN_CFLAGS, "-o", tmp, str(PLUGIN_SOURCE)],
                              capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
        if proc.returncode != 0:
            first = (proc.stderr.strip().splitlines() or ["?"])[0]
            raise TargetError(f"building the QEMU cycle plugin failed: {first}")
        os.replace(tmp, so)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return so


def mark_address(elf: Path, symbol: str = MARK_SYMBOL) -> int:
    """Address of `symbol` in the firmware (Thumb bit cleared)."""
    nm = require_tool("arm-none-eabi-nm", "apt-get install gcc-arm-none-eabi")
    proc = subprocess.run([nm, str(elf)], capture_output=True, text=True, timeout=60)
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == symbol and parts[1] in "Tt":
            return int(parts[0], 16) & ~1
    raise TargetError(f"{elf}: no function '{symbol}' to mark for the cycle model")


def plugin_args(elf: Path, out: Path, symbol: str = MARK_SYMBOL) -> list[str]:
    """qemu-system-arm arguments loading the plugin; it appends a mark to `out` whenever the
    function `symbol` is entered."""
    def opt(value: object) -> str:
        return str(value).replace(",", ",,")  # QEMU's option syntax escapes a comma by doubling it
    args = f"{opt(plugin_path())},out={opt(out)},mark={mark_address(elf, symbol):#x}"
    profile = os.environ.get(PROFILE_ENV)
    if profile:  # a developer's profile (bench/profile.py): cycles per block, and the firmware
        shutil.copyfile(elf, profile + ".elf")
        args += f",profile={opt(profile)}"
    return ["-plugin", args]


class MarkReader:
    """Reads the plugin's output file incrementally while QEMU runs."""

    def __init__(self, path: Path):
        self.path, self.offset = Path(path), 0

    def new_marks(self) -> list[Mark]:
        """The marks written since the last call (complete lines only)."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        self.offset += end
        marks = []
        for line in data[:end].decode().splitlines():
            parts = line.split()
            if parts[:1] == ["mark"]:
                marks.append(Mark(int(parts[1]), int(parts[2])))
        return marks


def read_summary(path: Path) -> tuple[Mark | None, dict[str, int]]:
    """The plugin's exit lines: totals since boot and executed instructions per class."""
    total, classes = None, {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if parts[:1] == ["total"]:
            total = Mark(int(parts[1]), int(parts[2]))
        elif parts[:1] == ["class"]:
            classes[parts[1]] = int(parts[2])
    return total, classes
