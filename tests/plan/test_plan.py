"""The planner end to end: corpus targets, correctness by execution in the arena, limits, repeatability."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microfuse.errors import PlanError
from microfuse.plan import check
from microfuse.testing.stages import plan
from microfuse.tflite.reader import read

from arena_exec import run_in_arena, run_reference
from conftest import CORPUS_FILES, model
from plan_graphs import Builder, kws_like, random_graph, residual
from tests import figures



def _same_values(graph, p):
    ref, got = run_reference(graph), run_in_arena(graph, p)
    return [t.name for t, v in got.items() if not np.array_equal(v, ref[t])]


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_corpus_model_is_below_the_whole_tensor_bound_fast(path):
    graph = read(path)
    start = time.perf_counter()
    p = plan(graph)
    assert time.perf_counter() - start < 1.0
    assert p.overlap_bound_bytes <= p.arena_bytes <= p.lower_bound_bytes
    if path.stem in figures.PLAN_ARENA:  # today's figures (TFLM's: 16,000 / 73,728 / 49,152 / 768)
        figures.arena(f"{path.stem} plan", p.arena_bytes, figures.PLAN_ARENA[path.stem])
    if path.stem == "mlperf_ad_autoencoder_int8":
        assert p.arena_bytes == 768  # the whole-tensor bound: nothing left to gain
    s = p.savings
    assert s.baseline_bytes - s.reorder - s.overlap - s.search == p.arena_bytes


@pytest.mark.parametrize("name", ["mlperf_kws_dscnn_int8", "mlperf_ic_resnet8_int8",
                                  "tflm_micro_speech_int8", "mlperf_ad_autoencoder_int8"])
def test_corpus_model_runs_correctly_in_its_arena(name):
    graph = read(model(name))
    assert _same_values(graph, plan(graph)) == []


@st.composite
def graphs(draw):
    return random_graph(draw, st, max_ops=8)


@settings(max_examples=80, deadline=None)
@given(graphs(), st.booleans(), st.sampled_from([1, 4, 16]))
def test_random_graphs_plan_check_and_run_correctly(graph, backward, align):
    p = plan(graph, align=align, allow_backward=backward)
    check.check(graph, p)
    assert p.arena_bytes >= p.overlap_bound_bytes
    assert all(o % align == 0 for o in p.offsets.values())
    assert _same_values(graph, p) == []
    if not backward:
        assert not p.backward


def test_same_input_same_plan():
    a, b = plan(residual()), plan(residual())
    assert [op.name for op in a.order] == [op.name for op in b.order]
    assert {t.name: o for t, o in a.offsets.items()} == {t.name: o for t, o in b.offsets.items()}
    assert a.backward == set() or {op.name for op in a.backward} == {op.name for op in b.backward}


def test_arena_limit_names_the_peak_step_and_tensors():
    graph = kws_like()
    p = plan(graph)
    with pytest.raises(PlanError) as e:
        plan(graph, arena_limit=p.arena_bytes - 1)
    msg = str(e.value)
    assert f"arena needs {p.arena_bytes} bytes" in msg and f"step {p.peak_step}" in msg
    assert graph.ops[p.peak_step].kind in msg and " B @" in msg
    assert plan(graph, arena_limit=p.arena_bytes).arena_bytes == p.arena_bytes


def test_aliases_share_their_source_offset():
    graph = kws_like()
    p = plan(graph)
    reshape = next(op for op in graph.ops if op.kind == "RESHAPE")
    assert p.offsets[reshape.outputs[0]] == p.offsets[reshape.inputs[0]]
    info = next(b for b in p.buffers if reshape.outputs[0] in b.tensors)
    assert reshape.inputs[0] in info.tensors


def test_scratch_is_planned_and_checked():
    graph = kws_like()
    p = plan(graph, scratch=lambda op: 100 if op.kind == "DEPTHWISE_CONV_2D" else 0)
    dws = [op for op in graph.ops if op.kind == "DEPTHWISE_CONV_2D"]
    assert set(p.scratch) == set(dws) and all(size == 100 for _, size in p.scratch.values())
    assert p.lower_bound_bytes == plan(graph).lower_bound_bytes + 100
    assert _same_values(graph, p) == []


def test_timeline_matches_the_offsets():
    graph = residual()
    p = plan(graph)
    for b in p.buffers:
        assert 0 <= b.first <= b.last < len(p.order)
        for t in b.tensors:
            assert p.offsets[t] == b.offset
    assert max(b.offset + b.size for b in p.alive_at(p.peak_step)) == p.arena_bytes


def test_graph_inputs_live_from_step_zero_and_outputs_to_the_end():
    b = Builder()
    x = b.input((1, 4, 4, 4))
    late = b.input((1, 4, 4, 4))
    y = b.unary(b.unary(x, "RELU"), "TANH")
    graph = b.graph([b.add(y, late), y])
    p = plan(graph)
    info = {b.tensors[0].name: b for b in p.buffers}
    assert info[late.name].first == 0
    assert info[y.name].last == len(graph.ops) - 1


def test_constant_alias_is_refused():
    b = Builder()
    w = b.const((1, 4))
    b.reshape(b.input((1, 4)), (1, 4))
    graph = b.graph(list(b.ops[-1].outputs))
    graph.ops.append(type(graph.ops[0])("RESHAPE", [w, None], [], graph.ops[0].attrs, "fold_me", 9))
    from microfuse.ir import Tensor
    graph.ops[-1].outputs.append(Tensor("folded", (1, 4), w.dtype, w.quant))
    with pytest.raises(PlanError, match="aliases a constant"):
        plan(graph)


def test_forward_only_plans_stay_small_and_fast():
    # what a build gets while kernels cannot run backward; KWS then drifts (see inplace.py)
    for name, today in figures.FORWARD_ARENA.items():
        graph = read(model(name))
        start = time.perf_counter()
        p = plan(graph, allow_backward=False)
        assert time.perf_counter() - start < 1.0
        assert not p.backward
        figures.arena(f"{name} forward-only plan", p.arena_bytes, today)


def test_fused_residual_operand_is_overwritten_in_place():
    # a conv that absorbed the residual add reads the skip tensor element by element
    b = Builder()
    x = b.input((1, 6, 6, 4))
    skip = b.unary(x, "RELU")
    y = b.conv(skip, 4)
    conv = b.ops[-1]
    z = b.conv(y, 4, k=1)
    fused = b.ops[-1]
    fused.inputs.append(skip)  # epilogue operand: slot 3, the output's shape
    graph = b.graph([z])
    p = plan(graph)
    assert any(u.op is fused and u.input is skip and u.shift == 0 for u in p.overlaps)
    assert _same_values(graph, p) == []
    assert conv in p.order
