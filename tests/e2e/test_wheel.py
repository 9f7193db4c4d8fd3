"""The wheel as a user installs it: `pip wheel`, a fresh virtual environment, and no checkout on the
path. It must carry runtime_c/, boards/ and the templates, and build and verify a model from anywhere."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from conftest import CI, MODEL_FILES, REPO, model

SOURCES = ("pyproject.toml", "README.md", "microfuse", "runtime_c", "boards")


def run(cmd: list, cwd: Path, env: dict | None = None) -> str:
    done = subprocess.run(list(map(str, cmd)), cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{cmd}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout


def build_wheel(tmp: Path) -> Path:
    """`pip wheel --no-deps` of a copy of the checkout (the build writes build/ and *.egg-info)."""
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():  # microfuse/data/ keeps its symlinks to runtime_c/ and boards/
            shutil.copytree(REPO / name, src / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(REPO / name, src / name)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", src], cwd=tmp)
    (wheel,) = (tmp / "dist").glob("microfuse-*.whl")
    return wheel


def test_wheel_builds_and_verifies_a_model_outside_the_checkout(tmp_path):
    wheel = build_wheel(tmp_path)
    venv = tmp_path / "venv"
    # numpy, jinja2 and the TFLM oracle come from this interpreter's environment (the system's, or the
    # project's .venv, seen through a .pth: its own .pth files, like an editable microfuse, stay unread);
    # microfuse only from the wheel.
    run([sys.executable, "-m", "venv", "--system-site-packages", venv], cwd=tmp_path)
    py, tool = venv / "bin" / "python", venv / "bin" / "microfuse"
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "parent_env.pth").write_text("".join(f"{p}\n" for p in sorted({sysconfig.get_paths()["purelib"],
                                                                            sysconfig.get_paths()["platlib"]})))
    run([py, "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", wheel], cwd=tmp_path)
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = run([py, "-c", "import microfuse; print(microfuse.__file__)"], away, env)
    assert where.startswith(str(venv)), where  # the wheel's copy, not the checkout's

    boards = run([tool, "boards"], away, env)
    assert "qemu-mps2-an386" in boards and "host" in boards
    path = model("mlperf_kws_dscnn_int8") if MODEL_FILES or CI else REPO / "examples" / "tiny_cnn_int8.tflite"
    out = run([tool, "build", path, "-o", away / "lib", "--name", "kws"], away, env)
    assert "kernel calls" in out and (away / "lib" / "kws.c").is_file() and (away / "lib" / "report.html").is_file()
    assert any((away / "lib").glob("mf_*.c"))
    verdict = run([tool, "verify", path, "--board", "host", "--samples", "3"], away, env)
    assert verdict.strip().endswith("samples bit-exact") and verdict.split("/")[0] == verdict.split("/")[1].split()[0]
