"""Targets: build firmware for a board, run it under QEMU or flash it, talk to it over serial."""

from __future__ import annotations

from microfuse.errors import TargetError
from microfuse.targets.tools import ARM_TOOLCHAIN_INSTALL, QEMU_INSTALL, require_tool  # noqa: F401


def open_session(board, elf=None, port: str | None = None, expect_model: str | None = None,
                 cycles: bool = False):
    """A context manager with .invoke(inputs) -> (outputs, count): QEMU for a QEMU board
    (needs elf), else the serial port of a real board (needs port). cycles: run QEMU with
    the cycle-model plugin (QemuSession.marks)."""
    from microfuse.targets.qemu import QemuSession
    from microfuse.targets.serial_link import BoardSession

    if board.is_host:
        raise TargetError(f"board '{board.name}' runs on the host: use microfuse.targets.host")
    if board.is_qemu and port is None:
        if elf is None:
            raise TargetError(f"board '{board.name}' runs under QEMU: it needs the firmware ELF")
        return QemuSession(board, elf, expect_model=expect_model, cycles=cycles)
    if port is None:
        raise TargetError(f"board '{board.name}' is a real board: give its serial port (e.g. --port /dev/ttyACM0)")
    return BoardSession(board, port, expect_model=expect_model)
