"""The host tools targets need (toolchain, QEMU): found on PATH, or an error saying how to install."""

from __future__ import annotations

import shutil

from microfuse.errors import TargetError

ARM_TOOLCHAIN_INSTALL = "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi"
QEMU_INSTALL = "apt-get install qemu-system-arm"


def require_tool(tool: str, install: str) -> str:
    """Full path of `tool`, or a TargetError saying how to install it."""
    path = shutil.which(tool)
    if path is None:
        raise TargetError(f"{tool} not found: install it with `{install}`")
    return path
