"""Operator order: the exact search against brute force over every topological order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from microfuse.plan import liveness, schedule

from plan_graphs import random_graph, residual


def _topological_orders(ops):
    made_by = {t: op for op in ops for t in op.outputs}
    deps = {op: {made_by[t] for t in op.inputs if t is not None and t in made_by} for op in ops}

    def walk(done, seq):
        if len(seq) == len(ops):
            yield list(seq)
            return
        for op in ops:
            if op not in done and deps[op] <= done:
                yield from walk(done | {op}, seq + [op])
    yield from walk(frozenset(), [])


def _is_topological(order, ops):
    return any(all(a is b for a, b in zip(order, o)) for o in _topological_orders(ops))


@st.composite
def small_graphs(draw):
    return random_graph(draw, st, max_ops=6)


@settings(max_examples=60, deadline=None)
@given(small_graphs(), st.booleans())
def test_exact_order_matches_brute_force(graph, backward):
    bufs = liveness.build(graph, allow_backward=lambda op: backward)
    best = min(schedule.order_cost(bufs, o)[0] for o in _topological_orders(graph.ops))
    order = schedule.best_order(bufs)
    assert _is_topological(order, graph.ops)
    assert schedule.order_cost(bufs, order)[0] == best


@settings(max_examples=40, deadline=None)
@given(small_graphs())
def test_greedy_fallback_gives_a_valid_order(graph):
    bufs = liveness.build(graph)
    order = schedule.best_order(bufs, max_states=1)
    assert _is_topological(order, graph.ops)
    assert schedule.order_cost(bufs, order) <= schedule.order_cost(bufs, graph.ops)


def test_reordering_a_branch_lowers_the_peak():
    # big side branch computed early in the given order stays alive across the main chain
    from plan_graphs import Builder
    b = Builder()
    x = b.input((1, 8, 8, 4))
    side = b.conv(x, 16, k=1)  # 1 KiB, only needed at the end
    small = b.pool(b.conv(x, 4), 8, 8)  # main chain shrinks to 4 bytes
    big = b.conv(small, 16, k=1)
    out = b.add(b.pool(side, 8, 8, kind="MAX_POOL_2D"), big)
    graph = b.graph([out])
    bufs = liveness.build(graph)
    order = schedule.best_order(bufs)
    assert schedule.order_cost(bufs, order) < schedule.order_cost(bufs, graph.ops)


def test_residual_block_order_is_no_worse_than_given():
    graph = residual()
    bufs = liveness.build(graph)
    assert schedule.order_cost(bufs, schedule.best_order(bufs)) <= schedule.order_cost(bufs, graph.ops)
