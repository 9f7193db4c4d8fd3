"""The checker: catches deliberately broken plans, and whatever it accepts really runs correctly."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microfuse.errors import PlanError
from microfuse.plan import check
from microfuse.testing.stages import plan

from arena_exec import run_in_arena, run_reference
from plan_graphs import Builder, kws_like, random_graph, residual


def _broken(p, **changes):
    q = copy.copy(p)
    q.offsets = dict(p.offsets)
    for k, v in changes.items():
        setattr(q, k, v)
    return q


def _rejects(graph, p, text):
    with pytest.raises(PlanError, match=text):
        check.check(graph, p)


def test_tensor_moved_onto_a_live_one_is_caught():
    g = residual()
    p = plan(g)
    skip = g.ops[0].outputs[0]  # alive across two convolutions
    q = _broken(p)
    q.offsets[g.ops[1].outputs[0]] = p.offsets[skip]
    _rejects(g, q, skip.name)


def test_overlap_one_step_past_its_bound_is_caught():
    g = kws_like()
    p = plan(g)
    use = next(u for u in p.overlaps if u.op.kind == "DEPTHWISE_CONV_2D")
    q = _broken(p, arena_bytes=p.arena_bytes + 64)
    step = -16 if use.direction == "backward" else 16
    q.offsets[use.output] += step
    _rejects(g, q, "overwrites bytes of input")


def test_wrong_direction_is_caught():
    g = kws_like()
    p = plan(g)
    assert p.backward, "the KWS chain alternates directions"
    _rejects(g, _broken(p, backward=set()), "run forward")


def test_order_that_reads_before_writing_is_caught():
    g = kws_like()
    p = plan(g)
    order = list(p.order)
    order[0], order[1] = order[1], order[0]
    _rejects(g, _broken(p, order=order), "before it is written|holds")


def test_alias_at_another_offset_is_caught():
    g = kws_like()
    p = plan(g)
    reshape = next(op for op in g.ops if op.kind == "RESHAPE")
    q = _broken(p, arena_bytes=p.arena_bytes + 256)
    q.offsets[reshape.outputs[0]] = p.arena_bytes + 64
    _rejects(g, q, "does not share")


def test_scratch_over_an_input_is_caught():
    g = kws_like()
    p = plan(g, scratch=lambda op: 32 if op.kind == "CONV_2D" else 0)
    conv = next(op for op in p.order[1:] if op.kind == "CONV_2D")
    scratch = dict(p.scratch)
    scratch[conv] = (p.offsets[conv.inputs[0]], 32)
    _rejects(g, _broken(p, scratch=scratch), "scratch")


def test_misaligned_or_outside_offsets_are_caught():
    g = kws_like()
    p = plan(g)
    t = g.ops[0].outputs[0]
    q = _broken(p)
    q.offsets[t] += 1
    _rejects(g, q, "misaligned")
    q.offsets[t] = p.arena_bytes
    _rejects(g, q, "outside")


def test_graph_output_clobbered_at_the_end_is_caught():
    b = Builder()
    x = b.input((1, 4, 4, 2))
    first = b.unary(x, "RELU")
    second = b.unary(first, "TANH")
    g = b.graph([first, second])
    p = plan(g)
    q = _broken(p)
    q.offsets[second] = p.offsets[first]  # in place over an input that is still a graph output
    _rejects(g, q, "holds|overwritten")


def test_disjoint_lifetimes_may_share_bytes():
    b = Builder()
    x = b.input((1, 4, 4, 2))
    a = b.unary(x, "RELU")
    c = b.unary(b.unary(a, "TANH"), "RELU6")
    g = b.graph([c])
    p = plan(g)
    q = _broken(p)
    q.offsets[c] = q.offsets[a]  # a is dead by then: fine
    check.check(g, q)


@st.composite
def mutated(draw):
    graph = random_graph(draw, st, max_ops=6)
    p = plan(graph)
    q = _broken(p, arena_bytes=p.arena_bytes + 64)
    movable = [t for t in graph.activations() if t in q.offsets]
    for _ in range(draw(st.integers(1, 2))):
        t = draw(st.sampled_from(movable))
        q.offsets[t] = draw(st.integers(0, (q.arena_bytes - t.nbytes) // 16)) * 16
    if draw(st.booleans()):
        q.backward = {op for op in graph.ops if draw(st.booleans())}
    return graph, q


@settings(max_examples=150, deadline=None)
@given(mutated())
def test_whatever_the_checker_accepts_runs_correctly(case):
    graph, q = case
    try:
        check.check(graph, q)
    except PlanError:
        return
    ref, got = run_reference(graph), run_in_arena(graph, q)
    for t, v in got.items():
        assert np.array_equal(v, ref[t]), f"checker accepted a plan that corrupts '{t.name}'"
