"""The output folder: a rebuild keeps the user's files, unsafe -o is refused, path faults are one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from _robust import REPO, TINY, mounted_tmpfs, one_line_error, run_cli

from microfuse.pipeline import Options, build


def _generated(out):
    return set(json.loads((out / "report.json").read_text())["files"])


def test_rebuild_keeps_the_users_files_and_replaces_the_builds(tmp_path):
    out = tmp_path / "out"
    build(TINY, out, Options(name="m"))
    (out / "main.c").write_text("int main(void) { return 0; }\n")
    (out / "app").mkdir()
    (out / "app" / "notes.txt").write_text("mine")
    build(TINY, out, Options(name="n"))  # another name: m.c and m.h are the old build's, n.* the new
    assert (out / "main.c").read_text().startswith("int main") and (out / "app" / "notes.txt").read_text() == "mine"
    assert not (out / "m.c").exists() and (out / "n.c").exists()
    assert "main.c" not in _generated(out) and "n.c" in _generated(out)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging or aside left


def test_a_user_file_the_new_build_would_overwrite_is_refused(tmp_path):
    out = tmp_path / "out"
    build(TINY, out, Options(name="m"))
    (out / "n.c").write_text("mine")
    done = run_cli("build", TINY, "-o", out, "--name", "n")
    assert "n.c" in one_line_error(done) and (out / "n.c").read_text() == "mine"
    assert (out / "m.c").exists()


def test_refuses_the_current_folder_and_the_models_folder(tmp_path):
    out = tmp_path / "out"
    build(TINY, out, Options(name="m"))
    (out / "m.tflite").write_bytes(TINY.read_bytes())
    before = sorted(p.name for p in out.iterdir())
    assert "holds the model" in one_line_error(run_cli("build", out / "m.tflite", "-o", out, "--name", "m"))
    assert "current folder" in one_line_error(run_cli("build", TINY, "-o", ".", "--name", "m", cwd=out))
    assert sorted(p.name for p in out.iterdir()) == before


def test_folder_mode_follows_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        build(TINY, tmp_path / "out", Options(name="m"))
    finally:
        os.umask(old)
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o750


@pytest.mark.parametrize("case", ["parent is a file", "name too long", "under /proc"])
def test_path_errors_are_one_line(tmp_path, case):
    (tmp_path / "f").write_text("")
    out = {"parent is a file": tmp_path / "f" / "out", "name too long": tmp_path / ("x" * 300),
           "under /proc": "/proc/self/no/out"}[case]
    one_line_error(run_cli("build", TINY, "-o", out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_output_symlink_to_a_folder_builds_into_the_folder(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    build(TINY, tmp_path / "link", Options(name="m"))
    assert (tmp_path / "link").is_symlink() and (tmp_path / "real" / "m.c").exists()


def test_disk_full_leaves_nothing(tmp_path):
    with mounted_tmpfs(tmp_path / "small", "size=96k") as disk:
        msg = one_line_error(run_cli("build", TINY, "-o", disk / "out"))
        assert "No space left" in msg
        assert list(disk.iterdir()) == []


def test_read_only_parent_is_one_line(tmp_path):
    with mounted_tmpfs(tmp_path / "ro", "ro,size=64k") as disk:
        assert "Read-only" in one_line_error(run_cli("build", TINY, "-o", disk / "out"))


CONCURRENT = """
import sys
from microfuse.pipeline import Options, build
for i in range(3):
    build(sys.argv[1], sys.argv[2], Options(name="m"))
"""


def test_concurrent_builds_into_one_folder_serialize(tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT, str(TINY), str(out)], env=env,
                              stderr=subprocess.PIPE, text=True) for _ in range(6)]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    listed = _generated(out)
    on_disk = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert listed == on_disk
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
