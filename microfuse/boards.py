"""Boards as data: load and check boards/<name>/board.toml into a frozen Board."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from microfuse.errors import BoardError
from microfuse.resources import BOARDS_DIR

COUNT_UNITS = ("instructions", "cycles")


@dataclass(frozen=True)
class QemuConfig:
    """How to run a board under qemu-system-arm."""

    machine: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Flasher:
    """One way to program a real board; {elf}, {hex} and {bin} in command are filled in."""

    tool: str
    command: tuple[str, ...]
    install: str


@dataclass(frozen=True)
class TimerConfig:
    """The tick counter the harness reads around invoke()."""

    source: Path
    hz: int
    counts: str  # 'instructions' (QEMU with -icount shift=0) or 'cycles' (CPU clock)


@dataclass(frozen=True)
class Board:
    """One board.toml, checked; paths are absolute."""

    name: str
    description: str
    cpu: str
    compiler: str
    cflags: tuple[str, ...]
    ldflags: tuple[str, ...]
    flash_bytes: int | None
    sram_bytes: int | None
    stack_bytes: int
    linker_script: Path | None
    startup: Path | None
    uart: Path | None
    sources: tuple[Path, ...]
    timer: TimerConfig | None
    qemu: QemuConfig | None
    flashers: tuple[Flasher, ...]
    baud: int | None
    boot2_bytes: int
    notes: str
    dir: Path
    clock_hz: int | None = None  # the CPU clock latency estimates assume

    @property
    def is_host(self) -> bool:
        return self.compiler != "arm-none-eabi-gcc"

    @property
    def is_qemu(self) -> bool:
        return self.qemu is not None

    def count_from_ticks(self, ticks: int) -> int:
        """Timer ticks -> instructions (QEMU, -icount shift=0: 1 ns each) or CPU cycles."""
        if self.timer is None:
            raise BoardError(f"board '{self.name}' has no timer")
        if self.timer.counts == "instructions":
            return round(ticks * 1_000_000_000 / self.timer.hz)
        return ticks


# key -> (expected type, required for firmware boards)
_TOP = {
    "description": (str, True), "cpu": (str, True), "compiler": (str, True),
    "cflags": (list, True), "ldflags": (list, False), "flash_bytes": (int, True),
    "sram_bytes": (int, True), "stack_bytes": (int, True), "linker_script": (str, True),
    "startup": (str, True), "uart": (str, True), "sources": (list, False),
    "boot2_bytes": (int, False), "notes": (str, False), "clock_hz": (int, False),
    "timer": (dict, True), "qemu": (dict, False), "flash": (list, False), "serial": (dict, True),
}
_HOST_REQUIRED = ("description", "cpu", "compiler", "cflags")
_COMPILERS = ("gcc", "arm-none-eabi-gcc")


HARNESS_RESERVE = 1024  # bytes of SRAM the firmware harness needs besides the arena and stack


def arena_limit(board: Board, user_limit: int | None) -> int | None:
    """The arena bytes a board leaves (its SRAM less stack and harness), and the user's limit."""
    limits = [user_limit] if user_limit is not None else []
    if not board.is_host:
        limits.append(board.sram_bytes - board.stack_bytes - HARNESS_RESERVE)
    return min(limits) if limits else None


def list_boards(boards_dir: Path | None = None) -> list[str]:
    """Names of all board folders that hold a board.toml, sorted."""
    root = boards_dir or BOARDS_DIR
    if not root.is_dir():
        return []
    return sorted(p.parent.name for p in root.glob("*/board.toml"))


def load_board(name: str, boards_dir: Path | None = None) -> Board:
    """Read and check boards/<name>/board.toml; BoardError names what is wrong."""
    root = boards_dir or BOARDS_DIR
    path = root / name / "board.toml"
    if "/" in name or not path.is_file():
        available = ", ".join(list_boards(root)) or "none"
        raise BoardError(f"board '{name}' not found; available: {available}")
    try:
        raw = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BoardError(f"{path}: malformed TOML: {e}") from None
    return _parse(name, raw, path)


def load_all(boards_dir: Path | None = None) -> list[Board]:
    return [load_board(n, boards_dir) for n in list_boards(boards_dir)]


def _parse(name: str, raw: dict, path: Path) -> Board:
    def bad(msg: str) -> BoardError:
        return BoardError(f"{path}: {msg}")

    unknown = sorted(set(raw) - set(_TOP))
    if unknown:
        raise bad(f"unknown key(s) {', '.join(unknown)}")
    for key, (typ, _) in _TOP.items():
        if key in raw and not _is(raw[key], typ):
            raise bad(f"'{key}' must be {_TYPE_NAMES[typ]}")
    compiler = raw.get("compiler")
    if compiler not in _COMPILERS:
        raise bad(f"'compiler' must be one of {', '.join(_COMPILERS)}, not {compiler!r}")
    firmware = compiler == "arm-none-eabi-gcc"
    required = [k for k, (_, req) in _TOP.items() if req] if firmware else _HOST_REQUIRED
    missing = [k for k in required if k not in raw]
    if missing:
        raise bad(f"missing key(s) {', '.join(missing)}")
    for key in ("cflags", "ldflags", "sources"):
        if not all(isinstance(x, str) for x in raw.get(key, [])):
            raise bad(f"'{key}' must be a list of strings")
    if firmware and ("qemu" in raw) == ("flash" in raw):
        raise bad("a firmware board needs exactly one of [qemu] or [[flash]]")
    folder = path.parent
    return Board(
        name=name, description=raw["description"], cpu=raw["cpu"], compiler=compiler,
        cflags=tuple(raw["cflags"]), ldflags=tuple(raw.get("ldflags", ())),
        flash_bytes=_positive(raw, "flash_bytes", bad), sram_bytes=_positive(raw, "sram_bytes", bad),
        stack_bytes=_positive(raw, "stack_bytes", bad) or 0,
        linker_script=_file(folder, raw.get("linker_script"), bad),
        startup=_file(folder, raw.get("startup"), bad), uart=_file(folder, raw.get("uart"), bad),
        sources=tuple(_file(folder, s, bad) for s in raw.get("sources", ())),
        timer=_timer(folder, raw.get("timer"), bad), qemu=_qemu(raw.get("qemu"), bad),
        flashers=tuple(_flasher(f, bad) for f in raw.get("flash", ())),
        baud=_baud(raw.get("serial"), bad), boot2_bytes=raw.get("boot2_bytes", 0),
        notes=raw.get("notes", ""), dir=folder, clock_hz=_positive(raw, "clock_hz", bad),
    )


_TYPE_NAMES = {str: "a string", int: "an integer", list: "a list", dict: "a table"}


def _is(value, typ) -> bool:
    # TOML booleans are Python ints; a board size of `true` is a typo, not 1.
    return isinstance(value, typ) and not (typ is int and isinstance(value, bool))


def _positive(raw: dict, key: str, bad) -> int | None:
    value = raw.get(key)
    if value is not None and value <= 0:
        raise bad(f"'{key}' must be positive, not {value}")
    return value


def _file(folder: Path, rel: str | None, bad) -> Path | None:
    if rel is None:
        return None
    p = (folder / rel).resolve()
    if not p.is_file():
        raise bad(f"file '{rel}' does not exist")
    return p


def _table(raw: dict | None, keys: dict, where: str, bad) -> dict | None:
    if raw is None:
        return None
    unknown = sorted(set(raw) - set(keys))
    missing = sorted(set(keys) - set(raw))
    if unknown or missing:
        what = f"unknown key(s) {', '.join(unknown)}" if unknown else f"missing key(s) {', '.join(missing)}"
        raise bad(f"[{where}]: {what}")
    for key, typ in keys.items():
        if not _is(raw[key], typ):
            raise bad(f"[{where}] '{key}' must be {_TYPE_NAMES[typ]}")
    return raw


def _timer(folder: Path, raw: dict | None, bad) -> TimerConfig | None:
    t = _table(raw, {"source": str, "hz": int, "counts": str}, "timer", bad)
    if t is None:
        return None
    if t["counts"] not in COUNT_UNITS or t["hz"] <= 0:
        raise bad(f"[timer] needs hz > 0 and counts in {COUNT_UNITS}")
    return TimerConfig(_file(folder, t["source"], bad), t["hz"], t["counts"])


def _qemu(raw: dict | None, bad) -> QemuConfig | None:
    q = _table(raw, {"machine": str, "args": list}, "qemu", bad)
    return None if q is None else QemuConfig(q["machine"], tuple(str(a) for a in q["args"]))


def _flasher(raw, bad) -> Flasher:
    if not isinstance(raw, dict):
        raise bad("[[flash]] entries must be tables")
    f = _table(raw, {"tool": str, "command": list, "install": str}, "flash", bad)
    if not f["command"] or f["command"][0] != f["tool"]:
        raise bad(f"[[flash]] command must start with its tool '{f['tool']}'")
    return Flasher(f["tool"], tuple(str(a) for a in f["command"]), f["install"])


def _baud(raw: dict | None, bad) -> int | None:
    s = _table(raw, {"baud": int}, "serial", bad)
    return None if s is None else s["baud"]
