"""Progress lines: drawn in place on a terminal (a pty here), nothing at all on a pipe or a file."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys

from conftest import REPO

from microfuse import progress as P

TINY = REPO / "examples" / "tiny_cnn_int8.tflite"


def read_all(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the other side closed (Linux)
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def test_quiet_when_not_a_terminal():
    out = io.StringIO()
    with P.progress("verify", total=3, stream=out) as tick:
        for _ in range(3):
            tick()
        tick(0, "a note")
    assert out.getvalue() == ""


def test_draws_and_erases_on_a_terminal(monkeypatch):
    monkeypatch.setattr(P, "MIN_INTERVAL_S", 0.0)  # draw every tick
    master, slave = pty.openpty()
    with os.fdopen(slave, "w", encoding="utf-8") as term:
        assert P.enabled(term)
        with P.progress("verify", total=3, stream=term) as tick:
            for _ in range(3):
                tick()
            tick(0, "comparing")
    text = read_all(master).decode()
    os.close(master)
    frames = [f for f in text.split("\r") if f.strip()]
    assert [f.split(" (")[0] for f in frames] == ["verify 0/3", "verify 1/3", "verify 2/3", "verify 3/3",
                                                   "verify 3/3 comparing"]
    assert text.endswith("\r") and text.rsplit("\r", 2)[1].strip() == ""  # the line is erased at the end
    assert "\n" not in text.replace("\r\n", "")


def test_throttled_but_first_and_last_drawn(monkeypatch):
    monkeypatch.setattr(P, "MIN_INTERVAL_S", 3600.0)
    master, slave = pty.openpty()
    with os.fdopen(slave, "w", encoding="utf-8") as term:
        with P.progress("run", total=100, stream=term) as tick:
            for _ in range(100):
                tick()
    frames = [f.split(" (")[0] for f in read_all(master).decode().split("\r") if f.strip()]
    os.close(master)
    assert frames == ["run 0/100", "run 100/100"]


def test_cli_verify_progress_only_on_a_terminal():
    """The same command: a pty as stderr shows progress; a pipe as stderr stays empty; stdout is the same."""
    argv = [sys.executable, "-m", "microfuse", "verify", str(TINY), "--samples", "3"]
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, cwd=REPO)
    os.close(slave)
    err = read_all(master).decode()
    os.close(master)
    out = proc.stdout.read().decode()
    assert proc.wait(timeout=120) == 0
    assert "\rverify: running on host 5/5" in err and "\rverify: TFLite Micro 5/5" in err
    piped = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout == out == "5/5 samples bit-exact\n"
