"""Render the pictures in docs/img/ from a real build: python3 docs/make_images.py (needs chromium).

Builds MLPerf Tiny models for qemu-mps2-an386 with the `microfuse` command, then shows one
section of their report.html at a time in headless chromium and saves a screenshot."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
MODELS = DOCS.parent.parent / "shared" / "models"
MODEL_FILES = {"kws": MODELS / "mlperf_kws_dscnn_int8.tflite",  # MLPerf Tiny keyword spotting
               "resnet8": MODELS / "mlperf_ic_resnet8_int8.tflite"}  # MLPerf Tiny image classification
MAX_PNG_BYTES = 200_000
# (model, section id in report.html, window width, height, picture)
SHOTS = [("kws", "memory", 1180, 790, "kws-memory-timeline.png"),
         ("resnet8", "graph", 1400, 1330, "resnet8-graph.png")]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def only(html: str, section: str) -> str:
    """The report page showing one section: everything else hidden by an added style sheet."""
    style = (f"<style>header.top, .stats, main > *:not(section#{section}) {{ display: none !important; }}"
             f" section:not(#{section}) {{ display: none !important; }} main {{ padding: 12px; }}"
             " .graphs .scroll { max-height: none !important; }</style>")  # the whole graph, unscrolled
    return html.replace("</head>", style + "</head>", 1)


def shoot(chromium: str, page: Path, png: Path, width: int, height: int, tmp: Path) -> None:
    subprocess.run([chromium, *FLAGS, f"--user-data-dir={tmp / 'profile'}", f"--window-size={width},{height}",
                    f"--screenshot={png}", page.as_uri()], check=True, capture_output=True, timeout=120)
    size = png.stat().st_size
    if size > MAX_PNG_BYTES:
        sys.exit(f"{png} is {size:,} bytes (over {MAX_PNG_BYTES:,}): use a smaller window")


def main() -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("chromium not found (scripts/install_chromium.sh)")
    with tempfile.TemporaryDirectory(prefix="mf-docs-") as tmp:
        pages = {}
        for name, path in MODEL_FILES.items():
            out = Path(tmp) / name
            subprocess.run([sys.executable, "-m", "microfuse", "build", str(path), "-o", str(out), "--name", name,
                            "--board", "qemu-mps2-an386"], check=True)
            pages[name] = (out / "report.html").read_text(encoding="utf-8")
        for name, section, width, height, png in SHOTS:
            page = Path(tmp) / f"{name}-{section}.html"
            page.write_text(only(pages[name], section), encoding="utf-8")
            shoot(chromium, page, DOCS / "img" / png, width, height, Path(tmp))
            print(f"docs/img/{png}: {(DOCS / 'img' / png).stat().st_size:,} bytes")

if __name__ == "__main__":
    main()
