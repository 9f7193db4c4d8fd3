"""Shared test fixtures: the corpus of real .tflite models in ../shared/models."""

from __future__ import annotations

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


# The one CI switch and the tool marks live in the harness (CI=true: nothing skips).
from tests.harness import CI, NEEDS_ARM, QEMU  # noqa: E402,F401
