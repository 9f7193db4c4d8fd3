"""Offsets for buffers with lifetimes: first-fit in a placement order, greedy by size, hill-climb.

The problem is stated on plain data so it can be tested on random instances: items
with a size and a [first, last] step interval, and for pairs of items whose intervals
meet, a forbidden range of offset differences. Two items alive at a common step may
not overlap (offset difference in (-size_b, size_a)); an overlap rule narrows that to
(forward, backward) (see inplace.py): the output may sit at or below `forward` bytes
from its input (forward run) or at or above `backward` (backward run).

first_fit places items one by one at the lowest aligned offset outside every range
forbidden by the items already placed; TFLite Micro's greedy planner is first_fit in
order of decreasing size. hill_climb (after Arm Vela's allocator) repeatedly moves the
item that ends highest earlier in the placement order, swapping it with an item that
was placed before it and is alive with it; it is seeded, so repeatable, and stops at
the lower bound.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    size: int
    first: int
    last: int


@dataclass(frozen=True)
class Overlap:
    """Item `dst` may overlap item `src` when dst_offset - src_offset <= forward or >= backward."""

    src: int
    dst: int
    forward: int
    backward: int | None  # None: only the forward run


Forbidden = list[list[tuple[int, int, int]]]  # per item: (other, lo, hi): own - other in (lo, hi)


def forbidden(items: list[Item], overlaps: list[Overlap]) -> Forbidden:
    """Per item, the offset differences to every item alive with it that are not allowed."""
    rule = {(o.src, o.dst): o for o in overlaps}
    n = len(items)
    out: Forbidden = [[] for _ in range(n)]
    by_first = sorted(range(n), key=lambda i: items[i].first)
    for k, a in enumerate(by_first):
        for b in by_first[k + 1:]:
            if items[b].first > items[a].last:
                break
            if items[a].size == 0 or items[b].size == 0:
                continue
            lo, hi = _range(items, rule, a, b)
            if hi - lo > 1:
                out[b].append((a, lo, hi))  # offset_b - offset_a in (lo, hi) is forbidden
                out[a].append((b, -hi, -lo))
    return out


def _range(items: list[Item], rule: dict, a: int, b: int) -> tuple[int, int]:
    """Forbidden open range of offset_b - offset_a."""
    sa, sb = items[a].size, items[b].size
    if (a, b) in rule:
        o = rule[a, b]
        return max(o.forward, -sb), sa if o.backward is None else min(o.backward, sa)
    if (b, a) in rule:
        o = rule[b, a]  # offset_a - offset_b must avoid (lo, hi)
        lo, hi = max(o.forward, -sa), sb if o.backward is None else min(o.backward, sb)
        return -hi, -lo
    return -sb, sa


def _align_up(x: int, align: int) -> int:
    return -(-x // align) * align


def first_fit(items: list[Item], forbid: Forbidden, order: list[int], align: int) -> list[int]:
    """Offsets placing items in `order`, each at the lowest aligned offset that is allowed."""
    offsets = [-1] * len(items)
    for i in order:
        ranges = sorted((offsets[j] + lo, offsets[j] + hi) for j, lo, hi in forbid[i] if offsets[j] >= 0)
        at = 0
        for lo, hi in ranges:
            if lo < at < hi:
                at = _align_up(hi, align)
        offsets[i] = at
    return offsets


def arena_size(items: list[Item], offsets: list[int]) -> int:
    return max((o + it.size for o, it in zip(offsets, items)), default=0)


def greedy_by_size(items: list[Item]) -> list[int]:
    """TFLite Micro's placement order: largest first, then earliest, then index."""
    return sorted(range(len(items)), key=lambda i: (-items[i].size, items[i].first, i))


def _seed_orders(items: list[Item]) -> list[list[int]]:
    n = range(len(items))
    return [
        greedy_by_size(items),
        sorted(n, key=lambda i: (-items[i].size * (items[i].last - items[i].first + 1), i)),
        sorted(n, key=lambda i: (items[i].first, -items[i].size, i)),
        sorted(n, key=lambda i: (-items[i].last, -items[i].size, i)),
        # forward overlaps put an output below its input: place later buffers first
        sorted(n, key=lambda i: (-items[i].size, -items[i].first, i)),
        sorted(n, key=lambda i: (-items[i].first, -items[i].size, i)),
    ]


def hill_climb(items: list[Item], forbid: Forbidden, align: int, target: int,
               seed: int = 0, iterations: int = 300) -> tuple[list[int], list[int]]:
    """(placement order, offsets) with the smallest arena found; stops once it reaches `target`."""
    best_order, best_offsets, best = [], [], None
    for order in _seed_orders(items):
        offsets = first_fit(items, forbid, order, align)
        size = arena_size(items, offsets)
        if best is None or size < best:
            best_order, best_offsets, best = order, offsets, size
    rng = random.Random(seed)
    order, offsets, size = best_order, best_offsets, best
    neighbours = [{j for j, _, _ in f} for f in forbid]
    for _ in range(iterations):
        if best <= target:
            break
        top = [i for i in order if offsets[i] + items[i].size == size]
        peak = rng.choice(top)
        pos = order.index(peak)
        before = [k for k in range(pos) if order[k] in neighbours[peak]] or list(range(pos))
        if not before:
            continue
        k = rng.choice(before)
        trial = list(order)
        trial[k], trial[pos] = trial[pos], trial[k]
        trial_offsets = first_fit(items, forbid, trial, align)
        trial_size = arena_size(items, trial_offsets)
        if trial_size <= size:
            order, offsets, size = trial, trial_offsets, trial_size
            if size < best:
                best_order, best_offsets, best = order, offsets, size
    return best_order, best_offsets
