"""The one test harness against TFLite Micro: the CI switch, inputs, runs (TFLM, microfuse on the
host, kernel programs) and the comparison, shared by the kernel, pass, model and board suites.

Calls into lowering, the passes, planning and building go through microfuse/testing/stages.py."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from microfuse import oracle
from microfuse.pipeline import Options
from microfuse.ir import Graph
from microfuse.lower import fast
from microfuse.passes import cost
from microfuse.testing import inputs, programs, stages
from microfuse.testing.compare import FLOAT_ATOL, FLOAT_RTOL, difference, first_difference
from microfuse.testing.host import run_graph
from microfuse.testing.modelgen import merge
from microfuse.tflite.writer import write

# -- the CI switch: with CI=true every test runs (a missing tool is a failure), else it skips ------

CI = os.environ.get("CI") == "true"


def needs(*tools: str, why: str = "") -> pytest.MarkDecorator:
    """Skip (one line naming what is missing) when a tool is not on PATH, unless CI=true."""
    missing = [t for t in tools if shutil.which(t) is None]
    return pytest.mark.skipif(bool(missing) and not CI, reason=f"{', '.join(missing)} not installed{why}")


NEEDS_ARM = needs("qemu-system-arm", "arm-none-eabi-gcc")
QEMU = [pytest.mark.qemu, NEEDS_ARM]


def on_qemu(test):
    """The QEMU marks on one test (QEMU and the Arm toolchain: required under CI=true)."""
    for mark in QEMU:
        test = mark(test)
    return test


def case_count(local: int, ci: int = 30) -> int:
    """How many random cases a suite runs: the CI count (at least 30 per op) under CI=true."""
    return ci if CI else local


@pytest.fixture
def dense_fast(monkeypatch):
    """Every dense layer the DSP kernel fits takes it, however few its MACs: the random cases
    are smaller than the heads lower/fast.py DENSE_MACS_MIN leaves to the reference kernel."""
    monkeypatch.setattr(fast, "DENSE_MACS_MIN", 0)


@pytest.fixture
def always_fuse(monkeypatch):
    """Every legal fusion wins (the cost model's verdict is still computed and logged), so each
    fused variant is exercised; test_fuse_cost.py checks the objectives themselves."""
    real = cost.decide

    def decide(base, delta, optimize):
        verdict = real(base, delta, optimize)
        return cost.Verdict(True, "forced by the test: " + verdict.reason, verdict.delta)

    monkeypatch.setattr(cost, "decide", decide)


# -- whole graphs: microfuse on the host against TFLM --------------------------------------------

def reference(model: Graph | bytes | str | Path, samples: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """TFLM's outputs per sample (a Graph is written to a .tflite first)."""
    data = write(model) if isinstance(model, Graph) else model
    return [oracle.run(data, sample) for sample in samples]


def check_graph(graph: Graph, rng: np.random.Generator | None = None, samples: int | list = 3,
                options: Options = Options(optimize="size"), owners: list[str] | None = None,
                float_scale: float = 1.0, rtol: float = FLOAT_RTOL, atol: float = FLOAT_ATOL) -> None:
    """microfuse (built with `options`, run by gcc on the host) equals TFLM on the graph as given
    (before any pass): integers bit-exact, float32 within rtol/atol. `samples` is a count of random
    samples drawn from rng, or the samples themselves. A failure names the sample, the output (and
    its case in `owners`), and the first differing element."""
    feeds = samples if isinstance(samples, list) else \
        [inputs.sample(graph.inputs, rng, float_scale) for _ in range(samples)]
    ours = run_graph(graph, feeds, options=options)
    for s, (got, want) in enumerate(zip(ours, reference(graph, feeds))):
        for k, (a, b) in enumerate(zip(got, want)):
            name = f"sample {s}, output {k} '{graph.outputs[k].name}'" + (f" ({owners[k]})" if owners else "")
            found = difference(a, b, name, rtol, atol)
            assert found is None, found


def check_graphs(graphs: list[Graph], rng: np.random.Generator, samples: int = 2, float_scale: float = 2.0,
                 rtol: float = FLOAT_RTOL, atol: float = FLOAT_ATOL) -> None:
    """Many single-op cases merged into one model (one TFLM run, one gcc build), each against
    TFLM; a failure names the case and its op."""
    owners = [f"case {i}: {g.ops[0].kind} {[list(t.shape) for t in g.ops[0].inputs if t is not None]}"
              for i, g in enumerate(graphs) for _ in g.outputs]
    check_graph(merge(graphs), rng, samples, Options(), owners, float_scale, rtol, atol)


# -- single lowered calls: one C program holds every case ----------------------------------------

@dataclass
class Case:
    """One single-op graph, the inputs to feed it, and a label for failure messages."""

    label: str
    graph: Graph
    inputs: list[np.ndarray]
    reference: Graph | None = None  # what TFLM runs instead of `graph`, when it cannot run that


def run_cases(cases: list[Case], level: str = stages.SIZE) -> list[np.ndarray]:
    """Each case's output from its lowered kernel: every case in one host program (sanitizers on)."""
    calls = [stages.lower(c.graph.ops[0], level) for c in cases]
    with tempfile.TemporaryDirectory(prefix="mf-kernels-") as tmp:
        return programs.run_calls(calls, [c.inputs for c in cases], Path(tmp))


def failures(cases: list[Case], ours: list[np.ndarray], rtol: float = FLOAT_RTOL,
             atol: float = FLOAT_ATOL) -> list[str]:
    """One line per case that differs from TFLM (empty: all match; integers byte for byte)."""
    found = []
    for case, got in zip(cases, ours):
        (want,) = reference(case.reference or case.graph, [case.inputs])
        bad = first_difference([got], want[:1], rtol=rtol, atol=atol)
        if bad:
            found.append(f"{case.label}: {bad}")
    return found


def check_cases(cases: list[Case], level: str = stages.SIZE) -> None:
    """Every case's lowered kernel equals TFLM."""
    assert cases, "no cases"
    bad = failures(cases, run_cases(cases, level))
    assert not bad, f"{len(bad)} of {len(cases)} cases differ from TFLM:\n" + "\n".join(bad)
