"""The allocator on random interval sets with random overlap rules, verified pair by pair."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from microfuse.plan import allocate
from microfuse.plan.allocate import Item, Overlap


@st.composite
def instances(draw):
    n = draw(st.integers(1, 14))
    items = []
    for _ in range(n):
        first = draw(st.integers(0, 8))
        items.append(Item(draw(st.integers(0, 300)), first, first + draw(st.integers(0, 4))))
    rules = []
    for a in range(n):
        for b in range(n):
            if a != b and items[a].last == items[b].first and draw(st.integers(0, 2)) == 0:
                if any(r.dst == b for r in rules) or any(r.src == a for r in rules):
                    continue
                fwd = draw(st.integers(-items[b].size - 20, items[a].size + 20))
                bwd = draw(st.one_of(st.none(), st.integers(-items[b].size - 20, items[a].size + 20)))
                rules.append(Overlap(a, b, fwd, bwd))
    return items, rules, draw(st.sampled_from([1, 4, 16]))


def _violations(items, rules, offsets, align):
    """Independent pairwise check of a placement."""
    rule = {(r.src, r.dst): r for r in rules}
    bad = []
    for i, (a, oa) in enumerate(zip(items, offsets)):
        if oa % align or oa < 0:
            bad.append(f"item {i} at {oa} is misaligned")
        for j in range(i + 1, len(items)):
            b, ob = items[j], offsets[j]
            if a.last < b.first or b.last < a.first or not (oa < ob + b.size and ob < oa + a.size):
                continue
            for s, d in ((i, j), (j, i)):
                if (s, d) in rule:
                    r, shift = rule[s, d], offsets[d] - offsets[s]
                    if shift <= r.forward or (r.backward is not None and shift >= r.backward):
                        break
            else:
                bad.append(f"items {i} and {j} overlap")
    return bad


def _step_peak(items):
    steps = range(max((it.last for it in items), default=0) + 1)
    return max(sum(it.size for it in items if it.first <= s <= it.last) for s in steps)


@settings(max_examples=300, deadline=None)
@given(instances())
def test_first_fit_respects_every_pair(inst):
    items, rules, align = inst
    forbid = allocate.forbidden(items, rules)
    offsets = allocate.first_fit(items, forbid, allocate.greedy_by_size(items), align)
    assert _violations(items, rules, offsets, align) == []


@settings(max_examples=200, deadline=None)
@given(instances())
def test_hill_climb_is_valid_no_worse_than_greedy_and_repeatable(inst):
    items, rules, align = inst
    forbid = allocate.forbidden(items, rules)
    order = allocate.greedy_by_size(items)
    greedy = allocate.arena_size(items, allocate.first_fit(items, forbid, order, align))
    _, offsets = allocate.hill_climb(items, forbid, align, target=0, seed=3, iterations=60)
    assert _violations(items, rules, offsets, align) == []
    assert allocate.arena_size(items, offsets) <= greedy
    assert allocate.hill_climb(items, forbid, align, target=0, seed=3, iterations=60)[1] == offsets


@settings(max_examples=200, deadline=None)
@given(instances())
def test_without_rules_the_arena_is_at_least_the_step_peak(inst):
    items, _, align = inst
    forbid = allocate.forbidden(items, [])
    _, offsets = allocate.hill_climb(items, forbid, align, target=0, iterations=30)
    assert _violations(items, [], offsets, align) == []
    assert allocate.arena_size(items, offsets) >= _step_peak(items)


def test_hill_climb_stops_at_the_target():
    items = [Item(100, 0, 1), Item(100, 1, 2), Item(50, 0, 0)]
    forbid = allocate.forbidden(items, [])
    _, offsets = allocate.hill_climb(items, forbid, 1, target=200)
    assert allocate.arena_size(items, offsets) == 200


def test_in_place_rule_lets_output_share_the_input():
    items = [Item(64, 0, 1), Item(64, 1, 2)]
    forbid = allocate.forbidden(items, [Overlap(0, 1, 0, 0)])
    offsets = allocate.first_fit(items, forbid, [0, 1], 16)
    assert offsets == [0, 0]


def test_forward_only_rule_pushes_the_output_below():
    items = [Item(64, 0, 1), Item(64, 1, 2)]
    forbid = allocate.forbidden(items, [Overlap(0, 1, -16, None)])
    offsets = allocate.first_fit(items, forbid, [1, 0], 16)  # output placed first at 0
    assert offsets == [16, 0]


def test_greedy_by_size_is_tflm_order():
    items = [Item(10, 3, 4), Item(30, 2, 2), Item(30, 0, 1)]
    assert allocate.greedy_by_size(items) == [2, 1, 0]
