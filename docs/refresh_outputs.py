"""Run the `sh` and `python` blocks of docs/quickstart.md, api.md, integrate.md and fusion.md and paste their real
output into the `text` block after each: python3 docs/refresh_outputs.py [page.md ...]
(scripts/update_docs.py runs this and regenerates README's figures: one command for every figure).

Each page runs in a fresh folder holding a copy of examples/ (files named in a code block's first
line, like `/* main.c: ... */`, are written there first), with `microfuse` and `python3` this
interpreter running this checkout. tests/e2e/test_examples.py runs the same and fails when a page's
text blocks differ from what its commands print."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
PAGES = ["quickstart.md", "api.md", "integrate.md", "fusion.md"]  # text blocks: the commands' whole output
CORPUS = REPO.parent / "shared"  # fusion.md reads ../shared/models, as from the repository's root
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
FILE_BLOCK = re.compile(r"(?:/\*|#|//) ((?:[\w.-]+/)*[\w-]+\.(?:c|txt|conf|ino))\b")  # `/* app/main.c */`
RUN = {"sh": ["bash", "-euo", "pipefail", "-c"], "python": ["python3", "-c"]}


class PageError(Exception):
    """A command of a page failed."""


def user_env(tmp: Path) -> dict:
    """A PATH whose `microfuse` and `python3` are this interpreter on this checkout (as after `pip install -e .`)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, target in (("microfuse", f"{shlex.quote(sys.executable)} -m microfuse"),
                         ("python3", shlex.quote(sys.executable))):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\nexec {target} "$@"\n')
        script.chmod(0o755)
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": path}


def run_page(text: str, work: Path) -> list[tuple[re.Match, str]]:
    """Run a page's commands in `work` (examples/ and the page's named files written first);
    (the `text` block right after a command, its normalized output) for each command followed by one."""
    shutil.copytree(REPO / "examples", work / "examples", ignore=shutil.ignore_patterns("build", "__pycache__"))
    if CORPUS.is_dir() and not (work.parent / "shared").exists():
        (work.parent / "shared").symlink_to(CORPUS)
    env = user_env(work.parent / f"{work.name}-bin")
    blocks = list(BLOCK.finditer(text))
    for m in blocks:
        named = FILE_BLOCK.match(m.group(2))
        if m.group(1) not in (*RUN, "text") and named:
            (work / named.group(1)).parent.mkdir(parents=True, exist_ok=True)
            (work / named.group(1)).write_text(m.group(2))
    outputs = []
    for m, after in zip(blocks, [*blocks[1:], None]):
        if m.group(1) not in RUN:
            continue
        done = subprocess.run([*RUN[m.group(1)], m.group(2)], cwd=work, env=env, capture_output=True, text=True,
                              timeout=600)
        if done.returncode != 0:
            raise PageError(f"`{m.group(2).strip()}` failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        if after is not None and after.group(1) == "text":
            output = done.stdout.replace(str(work), ".")
            outputs.append((after, "\n".join(line.rstrip() for line in output.splitlines()) + "\n"))
    return outputs


def refreshed(page: Path, work: Path | None = None) -> str:
    """The page with every command's output pasted into its text block (run in `work` or a temp folder)."""
    text = page.read_text()
    with tempfile.TemporaryDirectory(prefix="mf-docs-") as tmp:
        outputs = run_page(text, work or Path(tmp) / "work")
    for after, output in reversed(outputs):
        text = text[:after.start(2)] + output + text[after.end(2):]
    return text


def main() -> None:
    for name in sys.argv[1:] or PAGES:
        page = DOCS / name
        try:
            page.write_text(refreshed(page))
        except PageError as e:
            sys.exit(f"{name}: {e}")
        print(f"refreshed {page.relative_to(REPO)}")


if __name__ == "__main__":
    main()
