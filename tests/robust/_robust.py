"""Helpers for the robustness tests: the CLI in a subprocess, small models, tmpfs mounts."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "examples" / "tiny_cnn_int8.tflite"


def run_cli(*args, cwd=None, **kw):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "microfuse", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env, **kw)


def one_line_error(done) -> str:
    """The CLI failed the way users are promised: exit 2, one line, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


@contextlib.contextmanager
def mounted_tmpfs(where: Path, options: str):
    """A small tmpfs at `where` (root only); skips with the reason otherwise."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs (disk-full and read-only cases)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)
