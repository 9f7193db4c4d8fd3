"""Re-run the commands of docs/quickstart.md, api.md and integrate.md and paste their real output into the
`text` block after each: python3 docs/refresh_outputs.py [page.md ...]

Each page runs in a fresh folder holding a copy of examples/ (files named in a code block's first
line, like `/* main.c: ... */`, are written there first); the folder's path is shown as the
repository's own in the pasted output. tests/e2e/test_examples.py runs the same commands."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
PAGES = ["quickstart.md", "api.md", "integrate.md"]  # text blocks: the commands' whole output
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
FILE_BLOCK = re.compile(r"(?:/\*|#|//) ((?:[\w.-]+/)*[\w-]+\.(?:c|txt|conf|ino))\b")


def refresh(page: Path) -> str:
    text = page.read_text()
    with tempfile.TemporaryDirectory(prefix="mf-docs-") as tmp:
        work = Path(tmp)
        shutil.copytree(REPO / "examples", work / "examples", ignore=shutil.ignore_patterns("build", "__pycache__"))
        blocks = list(BLOCK.finditer(text))
        for m in blocks:
            named = FILE_BLOCK.match(m.group(2))
            if m.group(1) not in ("sh", "text") and named:
                (work / named.group(1)).parent.mkdir(parents=True, exist_ok=True)
                (work / named.group(1)).write_text(m.group(2))
        edits = []
        for m, after in zip(blocks, blocks[1:]):
            if m.group(1) != "sh":
                continue
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", m.group(2)], cwd=work, capture_output=True,
                                  text=True, timeout=600)
            if done.returncode != 0:
                sys.exit(f"{page.name}: `{m.group(2).strip()}` failed:\n{done.stdout}{done.stderr}")
            if after.group(1) == "text":
                output = done.stdout.replace(str(work), str(REPO))
                output = "\n".join(line.rstrip() for line in output.splitlines()) + "\n"
                edits.append((after.start(2), after.end(2), output))
    for start, end, output in reversed(edits):
        text = text[:start] + output + text[end:]
    return text


def main() -> None:
    for name in sys.argv[1:] or PAGES:
        page = DOCS / name
        page.write_text(refresh(page))
        print(f"refreshed {page.relative_to(REPO)}")


if __name__ == "__main__":
    main()
