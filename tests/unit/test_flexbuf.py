"""Our FlexBuffer reader (custom op options): equal to the flatbuffers package's on valid maps, and
any corrupt buffer is a ModelError (never another exception, never a hang)."""

from __future__ import annotations

import numpy as np
from flatbuffers import flexbuffers
from hypothesis import given, settings, strategies as st

from microfuse.errors import ModelError
from microfuse.tflite.flexbuf import read_map
from tests.harness import case_count

SCALARS = st.one_of(st.integers(-(1 << 63), (1 << 63) - 1), st.booleans(),
                    st.floats(-2.0 ** 100, 2.0 ** 100, width=32))  # flexbuffers.Dumps fails near the float32 limit
MAPS = st.dictionaries(st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=30), SCALARS, max_size=12)


@settings(max_examples=200, deadline=None, database=None)
@given(MAPS)
def test_valid_maps_read_back(options):
    assert read_map(flexbuffers.Dumps(options), "op 0") == options


def test_the_model_options_and_empty_buffers():
    raw = flexbuffers.Dumps({"end_index": 241, "start_index": 5})
    assert read_map(raw, "op 4") == {"end_index": 241, "start_index": 5}
    assert read_map(b"", "op 0") == {}


def test_mutated_buffers_are_model_errors():
    rng = np.random.default_rng(7)
    seeds = [flexbuffers.Dumps({"a": 1, "clamping": True, "smoothing_bits": 10, "x": -3}),
             flexbuffers.Dumps({"num_channels": 40}), flexbuffers.Dumps([1, 2, 3]), flexbuffers.Dumps("s")]
    for _ in range(case_count(2000, 20000)):
        data = bytearray(seeds[rng.integers(len(seeds))])
        for _ in range(rng.integers(1, 4)):
            how = rng.integers(3)
            if how == 0 and data:
                data[rng.integers(len(data))] = rng.integers(256)
            elif how == 1:
                data = data[:rng.integers(len(data) + 1)]
            else:
                data = data + bytes(rng.integers(0, 256, rng.integers(1, 8)).astype(np.uint8))
        try:
            result = read_map(bytes(data), "op 0")
        except ModelError as e:
            assert str(e).startswith("op 0: corrupt custom options (") and "\n" not in str(e)
        else:
            assert isinstance(result, dict) and len(result) <= 256
