"""Shared test fixtures: the corpus of real .tflite models in ../shared/models."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO.parent / "shared" / "models"  # read in place, never copied into the project
MODEL_FILES = sorted(MODELS.glob("*.tflite"))


def model(name: str) -> Path:
    """Path of a corpus model by file name (with or without .tflite)."""
    path = MODELS / (name if name.endswith(".tflite") else name + ".tflite")
    assert path.is_file(), f"corpus model {path} is missing"
    return path


@pytest.fixture(scope="session")
def models() -> list[Path]:
    """Every corpus model; an empty corpus is a failure, not a skip."""
    assert MODEL_FILES, f"no .tflite models found in {MODELS}"
    return MODEL_FILES


CI = os.environ.get("CI") == "true"
_MISSING_ARM = [t for t in ("qemu-system-arm", "arm-none-eabi-gcc") if shutil.which(t) is None]
# Tests that need QEMU and the Arm toolchain: they run (and fail if a tool is missing) when CI=true.
NEEDS_ARM = pytest.mark.skipif(bool(_MISSING_ARM) and not CI, reason=f"{', '.join(_MISSING_ARM)} not installed")
QEMU = [pytest.mark.qemu, NEEDS_ARM]
