"""examples/firmware: its own Makefile builds the model library and a bare-metal firmware, QEMU runs it,
and the scores it prints over the UART equal TFLite Micro's output for the same quantized input."""

from __future__ import annotations

import difflib
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
from conftest import NEEDS_CORPUS, REPO, model

from tests.harness import on_qemu, reference

EXAMPLE = REPO / "examples" / "firmware"


def make_run(build: Path, *variables: str) -> str:
    """`make -C examples/firmware run` into `build`; the firmware's UART text."""
    microfuse = f"{shlex.quote(sys.executable)} -m microfuse"
    cmd = ["make", "-C", str(EXAMPLE), "run", f"BUILD={build}", f"MICROFUSE={microfuse}",
           f"PYTHON={sys.executable}", *variables]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def printed(text: str) -> tuple[list[int], int]:
    scores = re.search(r"^scores:((?: -?\d+)+)$", text, re.M)
    top = re.search(r"^top class: (\d+) \(score \d+/1000\)$", text, re.M)
    assert scores and top, text[-2000:]
    return [int(s) for s in scores.group(1).split()], int(top.group(1))


def header_floats(path: Path) -> np.ndarray:
    """The test vector's values as the C compiler reads them (`_` 0.0f, `X` 1.0f in the default one)."""
    body = path.read_text().split("= {", 1)[1].split("};", 1)[0]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    words = [w.strip() for w in body.split(",") if w.strip()]
    named = {"_": 0.0, "X": 1.0}
    return np.array([named[w] if w in named else float(w.rstrip("f")) for w in words], dtype=np.float32)


def quantize_like_c(x: np.ndarray, header: Path) -> np.ndarray:
    """main.c's quantize(): float32 x / scale, round half away from zero, + zero point, clamp."""
    text = header.read_text()
    scale = np.float32(re.search(r"#define MODEL_INPUT0_SCALE ([-0-9.e+]+)f", text).group(1))
    zero = int(re.search(r"#define MODEL_INPUT0_ZERO_POINT (-?\d+)", text).group(1))
    q = x.astype(np.float32) / scale
    r = np.trunc(np.where(q < 0, q - np.float32(0.5), q + np.float32(0.5))).astype(np.int64) + zero
    return np.clip(r, -128, 127).astype(np.int8)


def expected(model_path: Path, values: np.ndarray, build: Path) -> np.ndarray:
    graph_input = quantize_like_c(values, build / "model" / "model.h")
    shape = oracle_input_shape(build / "model" / "model.h")
    return reference(model_path.read_bytes(), [[graph_input.reshape(shape)]])[0][0].reshape(-1)


def oracle_input_shape(header: Path) -> list[int]:
    line = re.search(r"/\* input 0 '.*?': int8 (\[[\d, ]+\]) \*/", header.read_text())
    assert line, f"{header} does not describe input 0 as int8"
    return [int(d) for d in line.group(1).strip("[]").split(",")]


@on_qemu
def test_default_firmware_prints_tflm_class(tmp_path):
    """The command the README of the example shows: the tiny CNN on its vertical-bar test image."""
    scores, top = printed(make_run(tmp_path / "build"))
    values = header_floats(EXAMPLE / "data" / "test_input.h")
    assert values.size == 256 and values.sum() == 32  # a 2-pixel wide bar on a 16x16 image
    ref = expected(REPO / "examples" / "tiny_cnn_int8.tflite", values, tmp_path / "build")
    assert scores == ref.tolist()
    assert top == int(np.argmax(ref)) == 1  # the model knows a vertical bar


@on_qemu
def test_another_model_and_input(tmp_path):
    """KWS with a float32 .npy test vector (make MODEL=... INPUT=...): npy_to_c.py, quantize in C."""
    kws = model("mlperf_kws_dscnn_int8")
    x = np.random.default_rng(7).normal(0.0, 25.0, (1, 49, 10, 1)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    build = tmp_path / "build"
    scores, top = printed(make_run(build, f"MODEL={kws}", f"INPUT={tmp_path / 'x.npy'}"))
    assert np.array_equal(header_floats(build / "input" / "test_input.h"), x.reshape(-1))
    ref = expected(kws, x.reshape(-1), build)
    assert scores == ref.tolist()
    assert top == int(np.argmax(ref))


# -- docs: every `sh` and `python` block of a page runs, in order, as a new user would type it, and
# prints exactly the `text` block shown after it (docs/refresh_outputs.py pastes them) ----------------
DOCS = REPO / "docs"
sys.path.insert(0, str(DOCS))
import refresh_outputs  # noqa: E402  (docs/refresh_outputs.py: the same runner that pastes the outputs)


def run_page(page: Path, tmp: Path, min_commands: int) -> None:
    """In tmp/work, holding a copy of examples/ and the page's named files, run its commands; every
    text block after a command must be that command's output, byte for byte (no figure can drift)."""
    text = page.read_text()
    commands = [m for m in refresh_outputs.BLOCK.finditer(text) if m.group(1) in refresh_outputs.RUN]
    assert len(commands) >= min_commands, f"{page.name} lost its commands"
    try:
        outputs = refresh_outputs.run_page(text, tmp / "work")
    except refresh_outputs.PageError as e:
        raise AssertionError(f"{page.name}: {e}") from None
    for shown, printed in outputs:
        diff = "\n".join(difflib.unified_diff(shown.group(2).splitlines(), printed.splitlines(), "shown", "printed",
                                               lineterm=""))
        assert shown.group(2) == printed, (f"{page.name}: a text block differs from what its command prints; "
                                           f"regenerate with `python3 scripts/update_docs.py`:\n{diff}")


@on_qemu
def test_quickstart_commands_work(tmp_path):
    run_page(DOCS / "quickstart.md", tmp_path, 6)


def test_api_example_program_works(tmp_path):
    run_page(DOCS / "api.md", tmp_path, 2)
    assert (tmp_path / "work" / "main.c").is_file()


@on_qemu
def test_integration_commands_work(tmp_path):
    """Make (cross and host), CMake add_subdirectory, and the Arduino library layout."""
    run_page(DOCS / "integrate.md", tmp_path, 3)
    work = tmp_path / "work"
    assert (work / "app" / "build" / "demo").is_file()
    assert (work / "arduino" / "libraries" / "tiny_model" / "src" / "tiny.h").is_file()


@NEEDS_CORPUS
def test_fusion_explain_output_is_current(tmp_path):
    run_page(DOCS / "fusion.md", tmp_path, 1)


def test_docs_links_and_pictures():
    """Every relative link of docs/*.md and the firmware README resolves; pictures stay small."""
    pages = [*DOCS.glob("*.md"), EXAMPLE / "README.md"]
    for page in pages:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name}: broken link {target}"
    pictures = list((DOCS / "img").glob("*.png"))
    assert len(pictures) >= 2
    for png in pictures:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size < 200_000, png.name
        assert any(f"img/{png.name}" in page.read_text() for page in pages), f"{png.name} is not used"
