"""Signals: SIGTERM unwinds like SIGINT (exit 143), no staging folder survives, QEMU never outlives
microfuse (process group, PR_SET_PDEATHSIG, the firmware's idle watchdog), no traceback at import."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from _robust import REPO, TINY

from conftest import NEEDS_ARM, model

ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _start(*args, cwd=None):
    return subprocess.Popen([sys.executable, "-m", "microfuse", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV, cwd=cwd)


def _children(pid: int) -> list[int]:
    """Processes whose parent is pid (QEMU leads its own session, so not found by group)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except OSError:
        return False


def _qemu_child(proc, timeout=120.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        for pid in _children(proc.pid):
            try:
                if "qemu-system-arm" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    return pid
            except OSError:
                pass
        time.sleep(0.05)
    raise AssertionError(f"no QEMU started: {proc.communicate()[1] if proc.poll() is not None else 'timeout'}")


def _wait_for(predicate, timeout=60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.002)
    return False


@pytest.mark.parametrize("when", ["imports", "compile", "staging", "later"])
def test_sigterm_during_a_build_cleans_up(tmp_path, when):
    proc = _start("build", model("mlperf_kws_dscnn_int8"), "-o", tmp_path / "out", cwd=tmp_path)
    if when == "staging":  # the moment the hidden .out.xxxx folder exists
        assert _wait_for(lambda: any(p.name.startswith(".out.") for p in tmp_path.iterdir()))
    else:
        time.sleep({"imports": 0.05, "compile": 2.0, "later": 3.0}[when])
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert [p.name for p in tmp_path.iterdir()] in ([], ["out"]), list(tmp_path.iterdir())  # no staging
    if (tmp_path / "out").exists():  # all files or none: a build that got in place is a whole one
        assert (tmp_path / "out" / "report.json").exists()
    if proc.returncode == -signal.SIGTERM:  # before microfuse's handler, or after the build was in place
        assert not (tmp_path / "out").exists() or when == "later"
    elif proc.returncode == 143:
        assert err.strip() == "microfuse: terminated (SIGTERM)"
    else:
        assert proc.returncode == 0 and (tmp_path / "out" / "report.json").exists(), err
    if when == "staging":
        assert proc.returncode == 143


def test_sigint_the_moment_staging_exists_leaves_nothing(tmp_path):
    proc = _start("build", model("mlperf_kws_dscnn_int8"), "-o", tmp_path / "out", cwd=tmp_path)
    assert _wait_for(lambda: any(p.name.startswith(".out.") for p in tmp_path.iterdir()))
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip() == "microfuse: interrupted", err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("delay", [0.05, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3])
def test_sigint_during_imports_never_prints_a_traceback_from_microfuse(tmp_path, delay):
    proc = _start("build", TINY, "-o", tmp_path / "out", cwd=tmp_path)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    # Python's own start-up (site.py, runpy) runs before any line of microfuse: its traceback is not ours.
    ours = [ln for ln in err.splitlines() if ln.strip().startswith("File ") and f"{os.sep}microfuse{os.sep}" in ln]
    assert not ours, err
    assert proc.returncode in (0, 1, 130, -signal.SIGINT), err  # 1: Python's own KeyboardInterrupt exit


@pytest.mark.qemu
@NEEDS_ARM
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_qemu_does_not_outlive_microfuse(tmp_path, sig):
    proc = _start("verify", TINY, "--board", "qemu-mps2-an386", "--samples", "100000", cwd=tmp_path)
    qemu = _qemu_child(proc)
    os.kill(proc.pid, sig)
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 2.0
    while _alive(qemu) and time.monotonic() < deadline:
        time.sleep(0.05)
    survived = _alive(qemu)
    if survived:
        os.kill(qemu, signal.SIGKILL)
    assert not survived, f"QEMU {qemu} survived microfuse's {signal.Signals(sig).name}"
    assert proc.returncode == (143 if sig == signal.SIGTERM else -signal.SIGKILL)


@pytest.mark.qemu
@NEEDS_ARM
def test_firmware_exits_when_its_uart_is_silent(tmp_path):
    from microfuse.boards import load_board
    from microfuse.pipeline import Options, build
    from microfuse.targets.firmware import build_firmware
    from microfuse.targets.qemu import EXIT_IDLE, QemuSession

    board = load_board("qemu-mps2-an386")
    build(TINY, tmp_path / "lib", Options(name="m"))
    elf = build_firmware(board, tmp_path / "lib", "m", tmp_path / "fw", extra_cflags=["-DMF_IDLE_EXIT_POLLS=100000"])
    session = QemuSession(board, elf, expect_model="m")
    session.start()
    try:
        session.proc.wait(timeout=60)  # nothing sent after HELLO: the harness gives up
        assert session.proc.returncode == EXIT_IDLE
    finally:
        session.kill()


def _signal_on_return(fn):
    """fn, with SIGINT taken by another thread just before fn returns (as numpy's threads may take
    it: a signal mask in the main thread does not cover them); Python then runs the handler at the
    main thread's next bytecode, still inside the wrapper."""
    go = threading.Event()

    def taker():  # made now, so its signal mask is the test's, not one a caller blocked
        go.wait()
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    thread = threading.Thread(target=taker, daemon=True)
    thread.start()

    def wrapped(*args, **kwargs):
        result = fn(*args, **kwargs)
        if not go.is_set():
            go.set()
            thread.join()
        return result
    return wrapped


def test_a_signal_as_the_staging_folder_is_made_leaves_nothing(tmp_path, monkeypatch):
    from microfuse import output
    from microfuse.signals import handled

    monkeypatch.setattr(output, "_make_staging", _signal_on_return(output._make_staging))
    with handled(), pytest.raises(KeyboardInterrupt):
        output.write(tmp_path / "out", lambda staging: (staging / "report.json").write_text("{}"))
    assert list(tmp_path.iterdir()) == []


def test_a_signal_during_the_swap_keeps_old_build_and_users_files_until_the_swap_is_done(tmp_path, monkeypatch):
    from microfuse import output
    from microfuse.pipeline import Options, build
    from microfuse.signals import handled

    out = tmp_path / "out"
    build(TINY, out, Options(name="m"))
    (out / "main.c").write_text("mine")
    monkeypatch.setattr(output.os, "rename", _signal_on_return(os.rename))
    with handled(), pytest.raises(KeyboardInterrupt):
        build(TINY, out, Options(name="n"))
    assert (out / "main.c").read_text() == "mine" and (out / "n.c").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_signal_a_finalizer_swallows_still_ends_the_command_quietly(monkeypatch, capsys):
    """Python prints "Exception ignored" and goes on when the handler's exception is raised inside a
    __del__ or a weakref callback (a WeakKeyDictionary's, mid-build): the command must still end
    with the signal's status and its one line, and print no traceback."""
    from microfuse import cli

    class Finalized:
        def __del__(self):
            signal.raise_signal(signal.SIGTERM)  # the handler runs here, inside the finalizer

    def run(args):
        Finalized()  # dropped at once: its __del__ swallows the handler's exception
        return 0

    monkeypatch.setattr(cli, "_run_command", run)
    assert cli.main(["inspect", "model.tflite"]) == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert err == "microfuse: terminated (SIGTERM)\n", err
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN  # handlers restored
