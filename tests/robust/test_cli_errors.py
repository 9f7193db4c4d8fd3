"""One error path: OSErrors and bugs are one line with exit 2; bad files are refused before being read."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from _robust import TINY, one_line_error, run_cli

from microfuse import cli
from microfuse.errors import MicrofuseError
from microfuse.tflite import reader


def _fail_with(monkeypatch, exc):
    def boom(args):
        raise exc
    monkeypatch.setattr(cli, "COMMANDS", [cli.Command(c.name, c.help, c.arguments, boom) for c in cli.COMMANDS])


def test_an_oserror_is_one_line(monkeypatch, capsys):
    _fail_with(monkeypatch, PermissionError(13, "Permission denied", "/some/file"))
    assert cli.main(["boards"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "microfuse: error: Permission denied: '/some/file'"


def test_an_unexpected_exception_is_an_internal_error_with_a_traceback_file(monkeypatch, capsys):
    _fail_with(monkeypatch, KeyError("oops"))
    assert cli.main(["boards"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("microfuse: internal error: KeyError") and len(err.splitlines()) == 1
    path = Path(err.split("traceback in ")[1].split(";")[0])
    try:
        assert "Traceback" in path.read_text() and "boom" in path.read_text()
    finally:
        path.unlink()


def test_a_missing_runtime_package_is_one_line_naming_what_to_install(monkeypatch, capsys):
    _fail_with(monkeypatch, ModuleNotFoundError("No module named 'serial'", name="serial"))
    assert cli.main(["boards"]) == 2
    assert capsys.readouterr().err.strip() == ("microfuse: error: the Python package 'pyserial' microfuse "
                                               "needs is not installed: pip install pyserial")


def test_building_needs_no_flatbuffers_runtime(tmp_path):
    """The reader decodes flatbuffers itself: only the writer (a test tool) imports the package, so
    an installation without it still builds (a wheel installed --no-deps beside numpy and jinja2)."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['flatbuffers'] = None\n"  # any import of it now fails
            "from microfuse import cli\n"
            f"sys.exit(cli.main(['build', {str(TINY)!r}, '-o', {str(tmp_path / 'out')!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(Path(cli.__file__).parents[1])})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "report.json").is_file()


def test_a_wrong_file_is_refused_before_it_is_read_whole(tmp_path):
    big = tmp_path / "big.tflite"
    with open(big, "wb") as f:
        f.write(b"\0\0\0\0NOPE")
        f.truncate(64 << 20)
    tracemalloc.start()
    with pytest.raises(MicrofuseError, match="not a TFLite model"):
        reader.read(big)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20


def test_a_file_above_the_size_cap_is_refused(tmp_path):
    huge = tmp_path / "huge.tflite"
    with open(huge, "wb") as f:
        f.write(TINY.read_bytes()[:8])
        f.truncate(reader.MAX_FILE_BYTES + 1)
    assert "larger than" in one_line_error(run_cli("inspect", huge))


@pytest.mark.parametrize("args", [["verify", "--seed", "-1"], ["verify", "--samples", "-5"],
                                  ["build", "--arena-limit", "0"], ["verify", "--seed", "x"]])
def test_numeric_flags_are_range_checked(args):
    done = run_cli(*args[:1], TINY, *args[1:])
    assert done.returncode == 2 and "Traceback" not in done.stderr and "error: argument" in done.stderr
