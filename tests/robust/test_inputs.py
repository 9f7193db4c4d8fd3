"""`run --input/--output`: checked before anything is built; corrupt files, FIFOs, wrong shapes refused."""

from __future__ import annotations

import os
import zipfile

import numpy as np
import pytest
from _robust import TINY, one_line_error, run_cli

from microfuse import session
from microfuse.errors import MicrofuseError

SHAPE = (1, 16, 16, 1)


@pytest.fixture
def no_build(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("built before the inputs were checked")
    monkeypatch.setattr(session, "_build_for", refuse)


def _run(path, **kw):
    return session.run_once(str(TINY), "host", str(path), **kw)


def test_corrupt_npz_pickled_and_truncated_members_are_refused(tmp_path, no_build):
    bad = tmp_path / "junk.npz"
    bad.write_bytes(b"PK\3\4 not really a zip")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, np.array([object()], dtype=object))
    truncated = tmp_path / "truncated.npz"
    np.savez(truncated, np.zeros(SHAPE, np.int8))
    truncated.write_bytes(truncated.read_bytes()[:-40])
    for path in (bad, pickled, truncated):
        with pytest.raises(MicrofuseError, match="cannot read inputs"):
            _run(path)


def test_a_fifo_is_refused_without_waiting(tmp_path, no_build):
    fifo = tmp_path / "x.npy"
    os.mkfifo(fifo)
    with pytest.raises(MicrofuseError, match="not a regular file"):
        _run(fifo)


def test_shape_must_match_unless_reshape(tmp_path, no_build, monkeypatch):
    x = tmp_path / "x.npy"
    np.save(x, np.zeros((1, 1, 16, 16), np.int8))  # the right size, transposed
    with pytest.raises(MicrofuseError, match="--reshape"):
        _run(x)
    monkeypatch.undo()
    outputs, _ = _run(x, reshape=True)
    assert outputs[0].size == 10 or outputs[0].size > 0


@pytest.mark.parametrize("output,words", [("y.txt", ".npy or .npz"), ("missing/y.npy", "does not exist")])
def test_output_path_checked_before_building(tmp_path, no_build, output, words):
    x = tmp_path / "x.npy"
    np.save(x, np.zeros(SHAPE, np.int8))
    with pytest.raises(MicrofuseError, match=words.replace(".", r"\.")):
        _run(x, output=str(tmp_path / output))


def test_cli_run_writes_exactly_the_output_named(tmp_path):
    x = tmp_path / "x.npy"
    np.save(x, np.zeros(SHAPE, np.int8))
    done = run_cli("run", TINY, "--input", x, "--output", tmp_path / "y.npy")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy", "y.npy"]
    assert "missing" in one_line_error(run_cli("run", TINY, "--input", tmp_path / "missing.npy"))
