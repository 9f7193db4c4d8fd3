"""Stateful single-op cases (LSTM, SVDF): a sequence of invokes, each case's kernel in one host
program with its state kept between invokes, against one TFLM interpreter per case."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from microfuse.ir import Graph
from microfuse.testing import sequences, stages
from microfuse.testing.compare import first_difference
from microfuse.tflite.writer import write


@dataclass
class SeqCase:
    """One single-op graph with variable state, the inputs of each invoke, a label."""

    label: str
    graph: Graph
    steps: list[list[np.ndarray]]


def failures(cases: list[SeqCase]) -> list[str]:
    """One line per case whose outputs differ from TFLM at some invoke (first invoke named)."""
    calls = [stages.lower(c.graph.ops[0]) for c in cases]
    with tempfile.TemporaryDirectory(prefix="mf-seq-") as tmp:
        ours = sequences.run_calls(calls, [c.steps for c in cases], Path(tmp))
    found = []
    for case, got in zip(cases, ours):
        want = sequences.tflm(write(case.graph), case.steps)
        for k, (g, w) in enumerate(zip(got, want)):
            bad = first_difference(g, w)
            if bad:
                found.append(f"{case.label}: invoke {k}: {bad}")
                break
    return found


def check(cases: list[SeqCase]) -> None:
    assert cases, "no cases"
    bad = failures(cases)
    assert not bad, f"{len(bad)} of {len(cases)} cases differ from TFLM:\n" + "\n".join(bad)
