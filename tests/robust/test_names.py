"""Names from a model or the command line cannot put code into the generated C, Makefile or CMake."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from microfuse import cli
from microfuse.targets.host import STRICT, compiler
from microfuse.testing import modelgen
from microfuse.tflite import writer

# Each ends a comment or a line in some generated language if it got through verbatim.
EVIL = [
    "x */ #error injected from a tensor name /* y",
    "a\n#error injected after a newline\n",
    "b ??/\n#error injected after a trigraph continuation",
    "c \\\n#error injected after a backslash-newline",
    "d ??/", "e \\", "f /* g", "h */", "*/*/", "??=??(??)", "\r#error injected after CR",
]


@pytest.mark.parametrize("text", EVIL)
def test_comment_text_has_no_delimiter_trigraph_or_continuation(text):
    from microfuse.emit import escape

    s = escape.comment(text)
    assert "*/" not in s and "/*" not in s and "??" not in s and "\\" not in s
    assert s.isprintable() and s.isascii() and "\n" not in s


def test_identifiers_are_c_identifiers():
    from microfuse.emit import escape

    assert escape.ident("a-b */c") == "a_b___c"
    assert escape.ident("9lives") == "_9lives"
    assert escape.ident("") == "_"


def _evil_model(tmp_path):
    graph = modelgen.small_cnn(np.random.default_rng(3))
    for i, t in enumerate(graph.tensors()):
        t.name = EVIL[i % len(EVIL)]
    for i, op in enumerate(graph.ops):
        op.name = EVIL[(i + 3) % len(EVIL)]
    path = tmp_path / "m* \\\n#error injected from a file name ??-.tflite"
    path.write_bytes(writer.write(graph))
    return path


def test_evil_names_build_into_c_that_compiles_and_holds_no_model_line(tmp_path):
    path = _evil_model(tmp_path)
    out = tmp_path / "d*" / "o \\"  # `d*/` ended the banner comment; a trailing backslash continued it
    assert cli.main(["build", str(path), "-o", str(out), "--name", "m"]) == 0
    for f in [out / "m.c", out / "m.h"]:
        code = re.sub(r"/\*.*?\*/", " ", f.read_text(), flags=re.S)  # no splices: asserted below
        assert "injected" not in code and "#error" not in code, f.name
        assert "??" not in f.read_text() and "\\\n" not in f.read_text()
    for f in [out / "Makefile", out / "CMakeLists.txt"]:
        for line in f.read_text().splitlines():
            assert "injected" not in line or (line.startswith("#") and not line.endswith("\\")), line
    sources = [str(p) for p in out.glob("*.c")]
    done = subprocess.run([compiler(), *STRICT, "-Wtrigraphs", "-Wcomment", "-c", *sources],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run(["make", "-C", str(out), "-n"], capture_output=True, text=True)
    assert done.returncode == 0 and "lib m.a" not in done.stdout, done.stderr
    assert "libm.a" in done.stdout


def test_every_template_routes_free_text_through_the_helper():
    """banner, command, summary, call comments and tensor names may hold anything: each use is escaped."""
    root = Path(__file__).resolve().parents[2] / "microfuse"
    templates = [*(root / "emit" / "templates").rglob("*.j2"), *(root / "targets" / "templates").rglob("*.j2")]
    assert len(templates) >= 6
    free = re.compile(r"\b(banner|command|summary|comment|tensor\.name)\b")
    for path in templates:
        for expr in re.findall(r"\{\{(.*?)\}\}", path.read_text()):
            if free.search(expr):
                assert "|comment" in expr.replace(" ", "") or "|ident" in expr.replace(" ", ""), (path.name, expr)
