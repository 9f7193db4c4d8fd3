"""The package's C and board data: runtime_c/ and boards/, found the same way installed or not."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

# microfuse/data/ holds runtime_c/ and boards/: real folders in the wheel, symlinks to the
# checkout's top-level folders in a source tree (pyproject.toml's package-data ships them).
DATA = Path(str(files("microfuse") / "data"))
RUNTIME_DIR = DATA / "runtime_c"
BOARDS_DIR = DATA / "boards"
