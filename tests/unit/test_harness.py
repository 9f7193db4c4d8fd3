"""The TFLM test harness itself: inputs per dtype, the comparison and its message, the figures'
slack, the CI switch, and that a wrong kernel output fails with the case and element named."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.testing import inputs
from microfuse.testing.compare import difference, first_difference, same
from tests import figures, harness


def _graph(*dtypes: DType) -> Graph:
    xs = [Tensor(f"x{i}", (2, 3), dt, Quant((0.1,), (0,)) if dt == DType.INT8 else None)
          for i, dt in enumerate(dtypes)]
    return Graph([], xs, xs)


def test_samples_start_with_the_extremes_and_repeat_for_a_seed():
    graph = _graph(DType.INT8, DType.INT16, DType.FLOAT32, DType.BOOL)
    first, again = inputs.samples(graph, 3, seed=7), inputs.samples(graph, 3, seed=7)
    assert len(first) == 5 and all(np.array_equal(a, b) for s, t in zip(first, again) for a, b in zip(s, t))
    low, high = first[0], first[1]
    assert [x.reshape(-1)[0] for x in low[:3]] == [-128, -32768, -4.0] and not low[3].any()
    assert [x.reshape(-1)[0] for x in high[:3]] == [127, 32767, 4.0] and high[3].all()
    assert [x.dtype for x in first[2]] == [np.int8, np.int16, np.float32, np.bool_]
    wide = np.concatenate([s[0].reshape(-1) for s in inputs.samples(graph, 200, seed=1, extremes=False)])
    assert wide.min() == -128 and wide.max() == 127  # the full int8 range, both ends included


def test_difference_names_the_first_differing_element():
    ref = np.arange(24, dtype=np.int8).reshape(2, 3, 4)
    ours = ref.copy()
    ours[1, 2, 0], ours[1, 2, 3] = 99, -5
    assert difference(ref.copy(), ref) is None and same(ref, ref.reshape(-1))  # compared flat
    assert difference(ours, ref, "output 0 'y'") == \
        "output 0 'y': 2 of 24 values differ, first at [1, 2, 0]: ours 99, reference 20"
    assert "the reference has 23" in difference(ours, ref.reshape(-1)[:23])


def test_float_outputs_compare_within_the_tolerance():
    ref = np.linspace(-2, 2, 9, dtype=np.float32)
    assert same(ref * (1 + 5e-6), ref) and same(np.float32([np.nan]), np.float32([np.nan]))
    bad = first_difference([ref, ref + 1e-3], [ref, ref], ["a", "b"])
    assert bad.startswith("output 1 'b': 9 of 9 values differ (rtol 1e-05, atol 1e-06), first at [0]")
    assert first_difference([ref], [ref, ref]) == "1 outputs, the reference has 2"


def test_a_wrong_kernel_output_fails_with_the_case_named():
    x = Tensor("x", (1, 8), DType.INT8, Quant((0.05,), (3,)))
    y = Tensor("y", (1, 8), DType.INT8, Quant((0.1,), (-2,)))
    graph = Graph([Op("RELU", [x], [y], None, name="relu")], [x], [y])
    case = harness.Case("relu case", graph, inputs.sample(graph.inputs, np.random.default_rng(0)))
    ours = [o.copy() for o in harness.run_cases([case])]
    assert harness.failures([case], ours) == []
    ours[0].reshape(-1)[5] += 1
    (line,) = harness.failures([case], ours)
    assert line.startswith("relu case: output 0: 1 of 8 values differ, first at [0, 5]: ours ")


def test_figures_allow_the_slack_and_no_more():
    figures.arena("x", 8_448 + figures.ARENA_SLACK, 8_448)
    with pytest.raises(AssertionError, match=r"x arena bytes regressed: 8,465 against today's 8,448 \(slack 16\)"):
        figures.arena("x", 8_465, 8_448)
    figures.relative("n", 1_010, 1_000)
    with pytest.raises(AssertionError, match="n regressed"):
        figures.relative("n", 1_011, 1_000)


def test_ci_true_never_skips_for_a_missing_tool(monkeypatch):
    mark = harness.needs("no-such-tool-here", why=" (apt-get install it)")
    assert mark.args == (not harness.CI,) and mark.kwargs["reason"] == "no-such-tool-here not installed (apt-get install it)"
    monkeypatch.setattr(harness, "CI", True)
    assert harness.needs("no-such-tool-here").args == (False,)
