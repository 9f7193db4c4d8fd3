"""Fuzz the reader: mutated corpus models give a valid graph or a MicrofuseError, never anything else.

A seeded mutator (repeatable: a failure names its seed and case) applies truncations, bit flips,
byte overwrites, 16/32-bit overwrites with boundary values (offsets, lengths, vtable entries),
duplicated, inserted and deleted regions. Most mutations target the flatbuffer's structure rather
than weight bytes, found by locating each constant tensor's data in the original file.
Set MICROFUSE_FUZZ_N to choose the total count; CI=true runs at least 20,000.
"""

from __future__ import annotations

import os
import random
import struct
import time

import pytest
from conftest import MODEL_FILES, model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tflite_builder import CodeSpec, ModelSpec, OpSpec, TensorSpec

from microfuse import ops
from microfuse.errors import MicrofuseError
from microfuse.tflite import read_bytes
from microfuse.tflite import schema as S

SEEDS = range(8)  # one test per seed: pytest-xdist spreads them over cores
MAX_SECONDS = 1.0


def _total() -> int:
    if "MICROFUSE_FUZZ_N" in os.environ:
        return int(os.environ["MICROFUSE_FUZZ_N"])
    return 20_000 if os.environ.get("CI") == "true" else 2_000


class Corpus:
    """Each model's bytes and the positions of its flatbuffer structure (everything but weights)."""

    def __init__(self):
        self.models = [(p.name, p.read_bytes()) for p in MODEL_FILES]
        self.structure = [self._structure(data) for _, data in self.models]

    @staticmethod
    def _structure(data: bytes) -> list[tuple[int, int]]:
        """Byte ranges not covered by constant tensor data (found by content, not by reader internals)."""
        graph = read_bytes(data)
        spans = []
        for t in graph.tensors():
            if t.is_const and t.nbytes >= 16:
                at = data.find(t.data.tobytes())
                if at >= 0:
                    spans.append((at, at + t.nbytes))
        ranges, pos = [], 0
        for start, end in sorted(spans):
            if start > pos:
                ranges.append((pos, start))
            pos = max(pos, end)
        ranges.append((pos, len(data)))
        return ranges


_CORPUS: Corpus | None = None


def corpus() -> Corpus:
    global _CORPUS
    if not MODEL_FILES:
        model("mlperf_kws_dscnn_int8")  # skips naming the corpus (fails under CI=true)
    if _CORPUS is None:
        _CORPUS = Corpus()
    return _CORPUS


def _interesting32(rng: random.Random, size: int) -> int:
    return rng.choice([
        0, 1, 2, 3, 4, 7, 8, 0xFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE,
        0xFFFFFF80, size, size - 1, size - 4, size + 4, size * 2, rng.randrange(size),
        rng.getrandbits(32), rng.randrange(1 << 16),
    ]) & 0xFFFFFFFF


def _interesting16(rng: random.Random) -> int:
    return rng.choice([0, 1, 2, 3, 4, 6, 0x7FFF, 0x8000, 0xFFFF, 0xFFFE, rng.getrandbits(16),
                       rng.randrange(64)])


class Mutator:
    """Seeded mutations of one model's bytes."""

    def __init__(self, rng: random.Random, data: bytes, structure: list[tuple[int, int]]):
        self.rng, self.data, self.structure = rng, data, structure
        self.weights = [end - start for start, end in structure]

    def pos(self, width: int = 1) -> int:
        """A position, 85% of the time inside the structure, word-aligned half of the time."""
        rng, n = self.rng, len(self.data)
        if rng.random() < 0.85:
            start, end = rng.choices(self.structure, weights=self.weights)[0]
            at = rng.randrange(start, max(start + 1, end))
        else:
            at = rng.randrange(n)
        if rng.random() < 0.5:
            at -= at % width
        return max(0, min(at, n - width))

    def mutate(self) -> bytes:
        out = bytearray(self.data)
        for _ in range(self.rng.choice([1, 1, 1, 2, 3])):
            out = getattr(self, self.rng.choice(self.MUTATIONS))(out)
        return bytes(out)

    def truncate(self, b: bytearray) -> bytearray:
        return b[: self.rng.randrange(len(b))] if b else b  # an earlier mutation may have emptied it

    def bit_flips(self, b: bytearray) -> bytearray:
        for _ in range(self.rng.randint(1, 8)):
            at = self.pos()
            if at < len(b):
                b[at] ^= 1 << self.rng.randrange(8)
        return b

    def bytes_overwrite(self, b: bytearray) -> bytearray:
        for _ in range(self.rng.randint(1, 4)):
            at = self.pos()
            if at < len(b):
                b[at] = self.rng.choice([0, 1, 0x7F, 0x80, 0xFF, self.rng.getrandbits(8)])
        return b

    def word32(self, b: bytearray) -> bytearray:
        at = self.pos(4)
        if at + 4 <= len(b):
            struct.pack_into("<I", b, at, _interesting32(self.rng, len(b)))
        return b

    def word32_relative(self, b: bytearray) -> bytearray:
        """Nudge an existing 32-bit value (an offset or a length) by a small or large delta."""
        at = self.pos(4)
        if at + 4 <= len(b):
            value = struct.unpack_from("<I", b, at)[0]
            delta = self.rng.choice([-8, -4, -1, 1, 4, 8, 1 << 16, -(1 << 16), 1 << 30])
            struct.pack_into("<I", b, at, (value + delta) & 0xFFFFFFFF)
        return b

    def word16(self, b: bytearray) -> bytearray:
        at = self.pos(2)
        if at + 2 <= len(b):
            struct.pack_into("<H", b, at, _interesting16(self.rng))
        return b

    def duplicate(self, b: bytearray) -> bytearray:
        """Copy a region over another one (same length: offsets stay put, content is wrong)."""
        length = self.rng.randint(4, 64)
        src, dst = self.pos(4), self.pos(4)
        chunk = b[src:src + length]
        b[dst:dst + len(chunk)] = chunk
        return b

    def splice(self, b: bytearray) -> bytearray:
        """Insert a copied region (everything after it shifts: offsets now point elsewhere)."""
        length = self.rng.randint(1, 64)
        src, dst = self.pos(), self.pos()
        return b[:dst] + b[src:src + length] + b[dst:]

    def delete(self, b: bytearray) -> bytearray:
        at = self.pos()
        return b[:at] + b[at + self.rng.randint(1, 64):]

    MUTATIONS = ["truncate", "bit_flips", "bytes_overwrite", "word32", "word32", "word32_relative",
                 "word16", "duplicate", "splice", "delete"]


def check_one(data: bytes) -> str:
    """Read, check supported ops, verify. Returns 'ok' or the MicrofuseError's class name."""
    try:
        graph = read_bytes(data)
        ops.check_supported(graph)
        graph.verify()
        return "ok"
    except MicrofuseError as e:
        message = str(e)
        assert "\n" not in message, f"error message spans lines: {message!r}"
        # The reader's catch-all is a last line of defense: the fuzzer must never reach it.
        assert "unexpected" not in message, message
        return type(e).__name__


@pytest.mark.parametrize("seed", SEEDS)
def test_mutated_models_fail_cleanly(seed):
    c = corpus()
    n = -(-_total() // len(SEEDS))
    rng = random.Random(seed)
    outcomes: dict[str, int] = {}
    for case in range(n):
        k = case % len(c.models)
        name, data = c.models[k]
        mutated = Mutator(rng, data, c.structure[k]).mutate()
        start = time.perf_counter()
        try:
            result = check_one(mutated)
        except Exception as e:  # noqa: BLE001 - any other exception is the bug this test hunts
            raise AssertionError(f"seed {seed} case {case} ({name}): {type(e).__name__}: {e}") from e
        elapsed = time.perf_counter() - start
        assert elapsed < MAX_SECONDS, f"seed {seed} case {case} ({name}) took {elapsed:.2f} s"
        outcomes[result] = outcomes.get(result, 0) + 1
    # The mutator must reach both outcomes, or it is not exercising the reader.
    assert outcomes.get("ModelError", 0) > n // 20, outcomes
    assert outcomes.get("ok", 0) > 0, outcomes


def test_unmutated_corpus_reads():
    for name, data in corpus().models:
        assert check_one(data) == "ok", name


# -- structured fuzzing: well-formed flatbuffers with random field values ------------------------------

_dims = st.lists(st.one_of(st.integers(-2, 6), st.sampled_from([0, 1 << 20, (1 << 31) - 1])), max_size=5)
_tensor = st.builds(
    TensorSpec,
    shape=_dims,
    type=st.one_of(st.sampled_from([0, 2, 3, 6, 7, 9]), st.integers(-3, 30)),
    buffer=st.integers(0, 4),
    name=st.text(max_size=8),
    scale=st.one_of(st.none(), st.lists(st.floats(width=32), min_size=1, max_size=3)),
    zero_point=st.one_of(st.none(), st.lists(st.integers(-300, 300), min_size=1, max_size=3)),
    quantized_dimension=st.integers(-1, 5),
    shape_signature=st.one_of(st.none(), _dims),
)
_option = st.one_of(st.tuples(st.sampled_from(["i8", "i32"]), st.integers(-3, 8)),
                    st.tuples(st.just("f32"), st.floats(width=32)), st.tuples(st.just("bool"), st.booleans()))
_op = st.builds(
    OpSpec,
    opcode_index=st.integers(0, 2),
    inputs=st.lists(st.integers(-2, 5), max_size=4),
    outputs=st.lists(st.integers(-1, 5), max_size=2),
    options_type=st.one_of(st.sampled_from(sorted(S.OPTIONS_TYPE_CODE.values())), st.integers(0, 130)),
    options=st.one_of(st.none(), st.lists(_option, max_size=8)),
)
_code = st.builds(
    CodeSpec,
    deprecated=st.one_of(st.none(), st.integers(-128, 127)),
    builtin=st.one_of(st.none(), st.sampled_from(sorted(S.BUILTIN_CODE[k] for k in ops.supported_ops()
                                                        if k in S.BUILTIN_CODE)), st.integers(-5, 220)),
    custom=st.one_of(st.none(), st.text(max_size=6)),
)
_model = st.builds(
    ModelSpec,
    tensors=st.lists(_tensor, min_size=1, max_size=5),
    ops=st.lists(_op, max_size=4),
    codes=st.lists(_code, min_size=1, max_size=3),
    buffers=st.lists(st.binary(max_size=24), min_size=1, max_size=4),
    inputs=st.lists(st.integers(-1, 5), max_size=2),
    outputs=st.lists(st.integers(-1, 5), max_size=2),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(_model)
def test_random_well_formed_models(spec):
    """Valid flatbuffers with arbitrary values (types, shapes, indices, options) reach deeper checks."""
    check_one(spec.build())
