"""Conformance of TFLM's signal-library custom ops (SignalWindow, FftAutoScale, Energy, FilterBank,
FilterBankSquareRoot, PCAN, FilterBankLog) against TFLM's Python interpreter, which has them built
in: seeded single-op models written with FlexBuffer options, every integer output byte for byte."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Graph, Op, Tensor
from microfuse.ops.signal import EnergyAttrs, RfftAttrs, FilterBankAttrs, FilterBankLogAttrs, PcanAttrs, WindowAttrs
from microfuse.pipeline import Options
from microfuse.testing.compare import difference
from microfuse.testing.host import run_graph
from microfuse.testing.modelgen import merge
from microfuse.tflite import reader, writer
from tests.harness import case_count, reference

I16, I32, U32, U64 = DType.INT16, DType.INT32, DType.UINT32, DType.UINT64


@dataclass
class SignalCase:
    graph: Graph
    feed: Callable[[np.random.Generator], list[np.ndarray]]  # one array per graph input
    valid: list[slice | None] = field(default_factory=list)  # per output: the part TFLM writes (None: all)


def full(rng, dtype: DType, shape) -> np.ndarray:
    info = np.iinfo(dtype.np)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype.np)


def one_op(kind: str, inputs: list[Tensor], outputs: list[Tensor], attrs=None) -> Graph:
    op = Op(f"CUSTOM:{kind}", inputs, outputs, attrs, name=kind.lower(), index=0)
    for t, (shape, dtype) in zip(outputs, ops.infer(op)):
        t.shape, t.dtype = tuple(int(d) for d in shape), dtype or t.dtype
    assert not ops.problems(op), ops.problems(op)
    return Graph([op], [t for t in inputs if not t.is_const], outputs, name=kind.lower())


def window(rng) -> SignalCase:
    size, reps = int(rng.integers(1, 40)), int(rng.integers(1, 4))
    shape = (size * reps,) if rng.random() < 0.5 else (reps, size)
    w = Tensor("w", (size,), I16, data=full(rng, I16, (size,)))
    g = one_op("SignalWindow", [Tensor("x", shape, I16), w], [Tensor("y", (), I16)],
               WindowAttrs(int(rng.integers(0, 20))))
    return SignalCase(g, lambda r: [full(r, I16, shape)])


def fft_auto_scale(rng) -> SignalCase:
    n = int(rng.integers(1, 300))
    g = one_op("SignalFftAutoScale", [Tensor("x", (n,), I16)], [Tensor("y", (), I16), Tensor("s", (), I32)])

    def feed(r):
        amp = int(r.choice([0, 1, 2, 3, 100, 1 << 14, 32767]))  # every scale, and zero
        x = r.integers(-amp, amp, size=n, endpoint=True).astype(np.int16)
        if r.random() < 0.4:
            x[r.integers(n)] = -32768  # MaxAbs16 wraps here and goes on comparing with it
        return [x]
    return SignalCase(g, feed)


def rfft(rng) -> SignalCase:
    n = int(2 ** rng.integers(2, 10))
    length, frames = int(rng.integers(1, n + 1)), int(rng.integers(1, 3))
    shape = (length,) if frames == 1 and rng.random() < 0.5 else (frames, length)
    g = one_op("SignalRfft", [Tensor("x", shape, I16)], [Tensor("y", (), I16)], RfftAttrs(7, n))

    def feed(r):  # full scale, and the small windowed frames the audio front end gives
        return [full(r, I16, shape) >> int(r.choice([0, 0, 4, 10]))]
    return SignalCase(g, feed)


def energy(rng) -> SignalCase:
    bins = int(rng.integers(1, 80))
    start = int(rng.integers(0, bins + 1))
    end = int(rng.integers(start, bins + 1))
    g = one_op("SignalEnergy", [Tensor("x", (2 * bins,), I16)], [Tensor("y", (), U32)], EnergyAttrs(end, start))
    return SignalCase(g, lambda r: [full(r, I16, (2 * bins,))], [slice(start, end)])


def filter_bank(rng) -> SignalCase:
    n_in, channels = int(rng.integers(4, 80)), int(rng.integers(1, 12))
    widths = rng.integers(0, min(n_in, 9), size=channels + 1)
    n_w = int(widths.max()) + int(rng.integers(0, 20))
    starts = np.array([rng.integers(0, n_in - k + 1) for k in widths])
    weight_starts = np.array([rng.integers(0, n_w - k + 1) for k in widths])
    const = lambda name, v: Tensor(name, (len(v),), I16, data=np.asarray(v, np.int16))  # noqa: E731
    inputs = [Tensor("x", (n_in,), U32), const("w", full(rng, I16, n_w)), const("u", full(rng, I16, n_w)),
              const("starts", starts), const("weight_starts", weight_starts), const("widths", widths)]
    g = one_op("SignalFilterBank", inputs, [Tensor("y", (), U64)], FilterBankAttrs(channels))
    return SignalCase(g, lambda r: [full(r, U32, (n_in,))])


def filter_bank_sqrt(rng) -> SignalCase:
    n = int(rng.integers(1, 50))
    g = one_op("SignalFilterBankSquareRoot", [Tensor("x", (n,), U64), Tensor("bits", (), I32)],
               [Tensor("y", (), U32)])

    def feed(r):
        x = full(r, U64, (n,)) >> r.integers(0, 64, size=n).astype(np.uint64)  # every magnitude, < 2^32 too
        return [x, np.array(r.integers(0, 16), np.int32)]
    return SignalCase(g, feed)


def pcan(rng) -> SignalCase:
    n = int(rng.integers(1, 50))
    lut = Tensor("lut", (125,), I16, data=full(rng, I16, 125))
    g = one_op("SignalPCAN", [Tensor("x", (n,), U32), Tensor("noise", (n,), U32), lut], [Tensor("y", (), U32)],
               PcanAttrs(int(rng.integers(0, 16))))
    return SignalCase(g, lambda r: [full(r, U32, (n,)) >> r.integers(0, 32, size=n).astype(np.uint32),
                                    full(r, U32, (n,)) >> r.integers(0, 32, size=n).astype(np.uint32)])


def filter_bank_log(rng) -> SignalCase:
    n = int(rng.integers(1, 50))
    g = one_op("SignalFilterBankLog", [Tensor("x", (n,), U32)], [Tensor("y", (), I16)],
               FilterBankLogAttrs(int(rng.integers(0, 8)), int(rng.integers(0, 1 << 16))))
    return SignalCase(g, lambda r: [full(r, U32, (n,)) >> r.integers(0, 32, size=n).astype(np.uint32)])


MAKERS = {"SignalWindow": window, "SignalFftAutoScale": fft_auto_scale, "SignalRfft": rfft, "SignalEnergy": energy,
          "SignalFilterBank": filter_bank, "SignalFilterBankSquareRoot": filter_bank_sqrt, "SignalPCAN": pcan,
          "SignalFilterBankLog": filter_bank_log}


def check_signal_cases(cases: list[SignalCase], rng: np.random.Generator, samples: int = 3) -> None:
    graph = merge([c.graph for c in cases])
    valid = [v for c in cases for v in (c.valid or [None] * len(c.graph.outputs))]
    labels = [f"case {i} {c.graph.ops[0].kind} {c.graph.ops[0].attrs}" for i, c in enumerate(cases)
              for _ in c.graph.outputs]
    feeds = [[x for c in cases for x in c.feed(rng)] for _ in range(samples)]
    ours = run_graph(graph, feeds, options=Options(optimize="size"))
    for s, (got, want) in enumerate(zip(ours, reference(graph, feeds))):
        for k, (a, b) in enumerate(zip(got, want)):
            if valid[k] is not None:  # only the part TFLM writes
                a, b = np.asarray(a)[valid[k]], np.asarray(b)[valid[k]]
            found = difference(a, b, f"sample {s}, {labels[k]}")
            assert found is None, found


@pytest.mark.parametrize("kind", list(MAKERS))
def test_signal_op_matches_tflm(kind):
    rng = np.random.default_rng(1400 + list(MAKERS).index(kind))
    check_signal_cases([MAKERS[kind](rng) for _ in range(case_count(8))], rng)


@pytest.mark.parametrize("kind", list(MAKERS))
def test_options_round_trip_through_flexbuffers(kind):
    graph = MAKERS[kind](np.random.default_rng(3)).graph
    again = reader.read(writer.write(graph))
    assert again.ops[0].kind == graph.ops[0].kind and again.ops[0].attrs == graph.ops[0].attrs


def test_an_unknown_custom_op_is_one_line_naming_it():
    x = Tensor("x", (4,), I16)
    graph = Graph([Op("CUSTOM:SignalMystery", [x], [Tensor("y", (4,), I16)], None, name="y", index=0)], [x],
                  [])
    graph.outputs.append(graph.ops[0].outputs[0])
    with pytest.raises(Exception) as e:
        ops.check_supported(reader.read(writer.write(graph)))
    assert str(e.value) == "op 0 CUSTOM:SignalMystery 'y': CUSTOM:SignalMystery is not supported; " \
                           "supported ops: `microfuse ops`"
