"""The planner and checker with slices (microfuse/views.py): a concatenation's inputs stored
inside its output's buffer, contiguous or channel-strided. Random concat graphs plan and
check; every deliberately misplaced slice or clobbered byte is caught."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microfuse import views
from microfuse.errors import PlanError
from microfuse.ir import DType, Graph, Op
from microfuse.ops.attrs import ConcatAttrs
from microfuse.plan import check, liveness
from microfuse.testing.stages import plan

from plan_graphs import Builder


def concat_graph(draw, axis: int) -> tuple[Graph, Op]:
    """Branches from one input (conv, pool, relu) joined on `axis` (3: channels, 1: rows),
    then read by a conv; the input stays alive to the end through a second output."""
    b = Builder(draw(st.sampled_from([DType.INT8, DType.FLOAT32])), seed=draw(st.integers(0, 9)))
    h, w = draw(st.integers(2, 5)), draw(st.integers(1, 4))
    x = b.input((1, h, w, draw(st.integers(1, 4))))
    branches = []
    for _ in range(draw(st.integers(2, 4))):
        kind = draw(st.sampled_from(["conv", "pool", "relu"] if axis == 3 else ["conv"]))
        if kind == "conv":
            src = x if axis == 3 else b.input((1, draw(st.integers(1, 4)), w, 3))
            branches.append(b.conv(src, draw(st.integers(1, 5)) if axis == 3 else 3, draw(st.sampled_from([1, 3]))))
        elif kind == "pool":
            branches.append(b.pool(x, 3, 1, "SAME", "MAX_POOL_2D"))
        else:
            branches.append(b.unary(b.conv(x, draw(st.integers(1, 3)), 1)))
    y = b.op("CONCATENATION", branches, ConcatAttrs(axis))
    return b.graph([b.conv(y, 2, 1), x]), b.ops[-2]


def to_slices(graph: Graph, concat: Op) -> Graph:
    """What passes/concat.py does, without its checks: producers write slices of the output."""
    out = concat.outputs[0]
    slices = [views.make_slice(t, out, layout) for t, layout in zip(concat.inputs, views.slice_layout(concat))]
    swap = {}
    for t, s in zip(concat.inputs, slices):
        p = graph.producer(t)
        swap[id(p)] = Op(p.kind, p.inputs, [s], p.attrs, p.name, p.index)
    swap[id(concat)] = Op(views.CONCAT_VIEW, slices, [out], concat.attrs, concat.name, concat.index)
    g = Graph([swap.get(id(op), op) for op in graph.ops], graph.inputs, graph.outputs, graph.name)
    g.verify()
    return g


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from([1, 3]))
def test_random_concats_plan_and_check(data, axis):
    graph, concat = concat_graph(data.draw, axis)
    sliced = to_slices(graph, concat)
    p = plan(sliced)  # runs the checker
    out = concat.outputs[0]
    join = next(op for op in sliced.ops if op.kind == views.CONCAT_VIEW)
    for s, (offset, *_rest) in zip(join.inputs, views.slice_layout(join)):
        assert p.offsets[s] == p.offsets[out] + offset
        assert views.strided(s) == (axis == 3 and s.shape[3] != out.shape[3])
    # the base is alive from its first writer: nothing else sits on it in between
    bufs = liveness.build(sliced)
    life = liveness.lifetimes(bufs, p.order)
    writers = [p.order.index(sliced.producer(s)) for s in join.inputs]
    assert life[bufs.of[out]][0] == min(writers)
    # a misplaced slice is caught
    victim = data.draw(st.sampled_from(join.inputs))
    shift = data.draw(st.integers(1, 3)) * victim.dtype.size
    broken = dataclasses.replace(p, offsets={**p.offsets, victim: p.offsets[victim] + shift})
    with pytest.raises(PlanError, match="is not its part of|outside|holds"):
        check.check(sliced, broken)


def test_a_tensor_placed_over_an_unfinished_concat_is_caught():
    """Branch 2's own input (a conv output alive while slice 1 is already written) must not
    sit on slice 1's bytes."""
    b = Builder()
    x = b.input((1, 4, 4, 2))
    first = b.conv(x, 3, 1)
    mid = b.conv(x, 2, 1)
    second = b.unary(mid)
    b.op("CONCATENATION", [first, second], ConcatAttrs(3))
    graph = b.graph([b.ops[-1].outputs[0]])
    sliced = to_slices(graph, b.ops[-1])
    p = plan(sliced)
    out = b.ops[-1].outputs[0]
    assert p.offsets[mid] >= p.offsets[out] + out.nbytes or p.offsets[mid] + mid.nbytes <= p.offsets[out]
    broken = dataclasses.replace(p, offsets={**p.offsets, mid: p.offsets[out]})
    with pytest.raises(PlanError, match="slice|holds"):
        check.check(sliced, broken)


def test_strided_slice_bytes_interleave():
    b = Builder()
    x = b.input((1, 2, 2, 1))
    y = b.op("CONCATENATION", [b.conv(x, 2, 1), b.conv(x, 3, 1)], ConcatAttrs(-1))
    concat = b.ops[-1]
    s0, s1 = (views.make_slice(t, y, lay) for t, lay in zip(concat.inputs, views.slice_layout(concat)))
    assert list(s0.byte_positions()) == [0, 1, 5, 6, 10, 11, 15, 16]
    assert list(s1.byte_positions()) == [2, 3, 4, 7, 8, 9, 12, 13, 14, 17, 18, 19]
    assert s0.strided and s0.stride == 5 and views.element_stride(s1) == 5
