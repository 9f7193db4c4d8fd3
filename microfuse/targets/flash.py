"""Program a real board with the flasher its board.toml names (openocd, st-flash, pyocd, nrfjprog, picotool)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from microfuse.boards import Board, Flasher
from microfuse.errors import TargetError
from microfuse.targets.tools import ARM_TOOLCHAIN_INSTALL, require_tool
from microfuse.targets.firmware import section_size

FLASH_TIMEOUT_S = 180
_OBJCOPY_FORMATS = {"hex": "ihex", "bin": "binary"}


def choose_flasher(board: Board) -> tuple[Flasher, str]:
    """The first of the board's flashers installed here, with its path; else say what to install."""
    if not board.flashers:
        how = "it runs under QEMU" if board.is_qemu else "it has no [[flash]] entry"
        raise TargetError(f"board '{board.name}' cannot be flashed: {how}")
    for f in board.flashers:
        path = shutil.which(f.tool)
        if path is not None:
            return f, path
    options = "; or ".join(f"{f.tool} (install: {f.install})" for f in board.flashers)
    raise TargetError(f"cannot flash board '{board.name}': {options} not found")


def flash_command(flasher: Flasher, tool_path: str, elf: Path) -> list[str]:
    """The flasher's command with {elf}, {hex}, {bin} filled in (hex/bin made with objcopy)."""
    files = {"elf": elf}
    for key, fmt in _OBJCOPY_FORMATS.items():
        if any("{" + key + "}" in arg for arg in flasher.command):
            files[key] = _objcopy(elf, fmt, elf.with_suffix("." + key))
    cmd = [arg.format(**{k: str(v) for k, v in files.items()}) for arg in flasher.command]
    return [tool_path, *cmd[1:]]


def flash(board: Board, elf: Path) -> str:
    """Program `elf` into `board`; returns the tool used. Raises TargetError naming what failed."""
    elf = Path(elf)
    if not elf.is_file():
        raise TargetError(f"firmware {elf} does not exist")
    flasher, path = choose_flasher(board)
    if board.boot2_bytes and section_size(elf, ".boot2") != board.boot2_bytes:
        raise TargetError(
            f"{elf.name} has no {board.boot2_bytes}-byte boot2 stage, which board '{board.name}' needs "
            "to boot: rebuild with the pico-sdk's padded, checksummed boot2 as an extra source")
    cmd = flash_command(flasher, path, elf)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=FLASH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise TargetError(f"{flasher.tool} did not finish within {FLASH_TIMEOUT_S} s (is the board connected?)") from None
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or [""]
        raise TargetError(f"{flasher.tool} failed with status {proc.returncode}: {lines[-1].strip()}")
    return flasher.tool


def _objcopy(elf: Path, fmt: str, out: Path) -> Path:
    objcopy = require_tool("arm-none-eabi-objcopy", ARM_TOOLCHAIN_INSTALL)
    proc = subprocess.run([objcopy, "-O", fmt, str(elf), str(out)], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise TargetError(f"arm-none-eabi-objcopy -O {fmt} {elf.name} failed: {proc.stderr.strip()}")
    return out
