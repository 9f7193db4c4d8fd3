"""Conformance of SignalFilterBankSpectralSubtraction against TFLM's Python interpreter over a stream
of invokes: its noise estimate is state the kernel keeps between invokes (Call.state), so each
seeded case runs 24 invokes in one process and is compared with one TFLM interpreter fed the same."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from microfuse import oracle
from microfuse.errors import MicrofuseError
from microfuse.ir import DType, Op, Tensor
from microfuse.ops.signal import SpectralSubtractionAttrs
from microfuse.pipeline import Options, compile_model
from microfuse.testing.compare import difference
from microfuse.testing.host import run_graph
from microfuse.testing.modelgen import merge
from microfuse.tflite import reader, writer
from tests.harness import case_count
from tests.kernels.test_signal import full, one_op

U32 = DType.UINT32
STEPS = 24
KIND = "SignalFilterBankSpectralSubtraction"


def attrs(rng: np.random.Generator, n: int) -> SpectralSubtractionAttrs:
    bits = int(rng.integers(0, 20))
    scale = 1 << bits

    def coefficient():  # a fraction of the scale as the front end's, or any uint32 (uint64 products)
        return int(rng.integers(0, scale + 1)) if rng.random() < 0.7 else int(rng.integers(0, 1 << 32))
    return SpectralSubtractionAttrs(coefficient(), coefficient(), bool(rng.random() < 0.5), coefficient(), n,
                                    coefficient(), coefficient(), int(rng.integers(0, 12)), bits)


def case(rng: np.random.Generator):
    n = int(rng.integers(1, 64))
    g = one_op(KIND, [Tensor("x", (n,), U32)], [Tensor("y", (), U32), Tensor("noise", (), U32)], attrs(rng, n))
    level = rng.integers(0, 32, size=n).astype(np.uint32)  # each channel's loudness, then bursts over it

    def feed(r):
        x = full(r, U32, (n,)) >> level
        return [np.where(r.random(n) < 0.2, x, x >> np.uint32(r.integers(0, 8))).astype(np.uint32)]
    return g, feed


def test_spectral_subtraction_matches_tflm_over_a_stream():
    rng = np.random.default_rng(1411)
    cases = [case(rng) for _ in range(case_count(10))]
    graph = merge([g for g, _ in cases])
    labels = [f"case {i} {g.ops[0].attrs} output {k}" for i, (g, _) in enumerate(cases) for k in range(2)]
    feeds = [[x for _, feed in cases for x in feed(rng)] for _ in range(STEPS)]
    ours = run_graph(graph, feeds, options=Options(optimize="size"))
    want = oracle.run_sequence(writer.write(graph), feeds)
    for s, (got, ref) in enumerate(zip(ours, want)):
        for k, (a, b) in enumerate(zip(got, ref)):
            found = difference(a, b, f"invoke {s}, {labels[k]}")
            assert found is None, found


def test_the_noise_estimate_lives_in_the_state_area_and_carries_between_invokes():
    g, feed = case(np.random.default_rng(5))
    compiled = compile_model(writer.write(g))
    ((offset, size),) = compiled.plan.own_state.values()
    assert size == 4 * g.inputs[0].elements and compiled.plan.state_bytes >= offset + size
    rng = np.random.default_rng(6)
    xs = [feed(rng) for _ in range(6)]
    twice = run_graph(writer.write(g), xs + xs)  # one process: the second half continues the stream
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(twice[:6], twice[6:]))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(twice[:6], run_graph(writer.write(g), xs)))


def test_options_round_trip_through_flexbuffers():
    g, _ = case(np.random.default_rng(3))
    again = reader.read(writer.write(g))
    assert again.ops[0].kind == g.ops[0].kind and again.ops[0].attrs == g.ops[0].attrs


def test_num_channels_must_match_the_input():
    g, _ = case(np.random.default_rng(4))
    op, n = g.ops[0], g.inputs[0].elements
    g.ops[0] = Op(op.kind, op.inputs, op.outputs, replace(op.attrs, num_channels=n + 1), name="ss", index=0)
    with pytest.raises(MicrofuseError, match=f"num_channels {n + 1} must equal the input's {n}"):
        compile_model(writer.write(g))


def test_only_ops_that_keep_state_ask_for_it():
    from microfuse import ops
    g, _ = case(np.random.default_rng(7))
    compiled = compile_model(writer.write(g))
    assert ops.REGISTRY[f"CUSTOM:{KIND}"].keeps_state and ops.stateful(g)
    assert all(bool(c.state) == ops.REGISTRY[c.op.kind].keeps_state for c in compiled.calls)
