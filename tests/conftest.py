"""Shared test fixtures: the corpus of real .tflite models in ../shared/models."""

from __future__ import annotations

from pathlib import Path

import pytest

# The one CI switch and the tool marks live in the harness (CI=true: nothing skips).
from tests.harness import CI, NEEDS_ARM, QEMU  # noqa: F401
from tests import messages

messages.install()  # every error message the suite produces is scanned for numpy reprs

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO.parent / "shared" / "models"  # read in place, never copied into the project
MODEL_FILES = sorted(MODELS.glob("*.tflite"))

# The real-model corpus sits beside this checkout only in the project's own set-up: without it
# the tests that read it skip, naming it (the rest of the suite uses examples/ and generated
# models); with CI=true they run, and a missing corpus fails them, like a missing QEMU.
CORPUS_REASON = f"needs the model corpus {MODELS} (absent; CI=true requires it)"
NEEDS_CORPUS = pytest.mark.skipif(not MODEL_FILES and not CI, reason=CORPUS_REASON)
# For @pytest.mark.parametrize over the corpus: one skipped (or, under CI, failing) case when it is absent.
CORPUS_FILES = MODEL_FILES or [pytest.param(MODELS / "absent.tflite", marks=NEEDS_CORPUS, id="corpus-absent")]


def model(name: str) -> Path:
    """Path of a corpus model by file name (with or without .tflite); skips the test without the corpus."""
    path = MODELS / (name if name.endswith(".tflite") else name + ".tflite")
    if not MODEL_FILES and not CI:
        pytest.skip(CORPUS_REASON, allow_module_level=True)  # at import time: the module's tests
    assert path.is_file(), f"corpus model {path} is missing"
    return path


@pytest.fixture(scope="session")
def models() -> list[Path]:
    """Every corpus model; an empty corpus is a skip outside CI and a failure under CI=true."""
    if not MODEL_FILES and not CI:
        pytest.skip(CORPUS_REASON)
    assert MODEL_FILES, f"no .tflite models found in {MODELS}"
    return MODEL_FILES
