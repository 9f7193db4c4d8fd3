"""`microfuse run` on a stateful model takes a sequence (a leading time axis) and runs it as one
stream from a fresh state, as TFLM's interpreter does from a fresh interpreter."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import oracle
from microfuse.errors import MicrofuseError
from microfuse.session import run_once
from tests.state.test_wakeword import ONLY_CI, _path


@ONLY_CI
def test_a_sequence_runs_as_one_stream(tmp_path):
    path = _path("okay_nabu")
    rng = np.random.default_rng(8)
    # the outputs stay 0 on random features: test_wakeword compares the intermediates
    xs = rng.integers(-128, -40, (21, 1, 3, 40), dtype=np.int8)
    np.save(tmp_path / "seq.npy", xs)
    outputs, _ = run_once(str(path), "host", str(tmp_path / "seq.npy"))
    ref = oracle.run_sequence(path, [[x] for x in xs])
    assert outputs[0].shape == (21, 1, 1)
    assert np.array_equal(outputs[0], np.stack([r[0] for r in ref]))
    again, _ = run_once(str(path), "host", str(tmp_path / "seq.npy"))  # each run starts fresh
    assert np.array_equal(again[0], outputs[0])
    np.save(tmp_path / "one.npy", xs[0])  # one sample without the time axis: a stream of one
    assert run_once(str(path), "host", str(tmp_path / "one.npy"))[0][0].shape == (1, 1, 1)
    np.save(tmp_path / "bad.npy", xs[:, :, :2])
    with pytest.raises(MicrofuseError, match=r"or a sequence of them \[T, 1, 3, 40\]"):
        run_once(str(path), "host", str(tmp_path / "bad.npy"))
