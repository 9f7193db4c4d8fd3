"""The pattern-rewrite engine: a pass is a list of (pattern, rewrite) rules applied until nothing changes.

A Pattern matches an anchor op by kind and, upward, the producers of its inputs:

    Pattern(UNARY, src=(Pattern(PRODUCERS, name="producer"),), name="act")

matches a unary op whose input 0 is made by a conv/fc/pool. `commutative=True` lets the
`src` patterns bind to the anchor's input slots in any order (ADD(x, conv) and ADD(conv, x));
matches come nearest producer first (the latest in execution order), so a rule that takes
the first acceptable match prefers the producer that runs last.

A rewrite gets the Match and the Rewriter (graph view, decision log, cost model) and returns
the ops that replace every matched op, or None to decline. The replacement must have fewer
ops than the match (so the rewriting terminates); it is placed at the anchor's position,
which is valid because the anchor runs after every op it consumes. The caller's graph is
never changed: each rewrite builds a new Graph (Tensor and untouched Op objects are shared).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..ir import Graph, Op, Tensor
from ..ops.cascade import CASCADE
from ..ops.internal import CONV_GAP, CONV_POOL, parts


@dataclass(frozen=True)
class Pattern:
    kinds: frozenset[str]
    src: tuple["Pattern | None", ...] = ()  # producer pattern per input slot (None: anything)
    name: str = ""  # binds the matched op in Match.ops
    commutative: bool = False  # src patterns may bind to the input slots in any order

    def __init__(self, kinds, src=(), name: str = "", commutative: bool = False):
        object.__setattr__(self, "kinds", frozenset([kinds] if isinstance(kinds, str) else kinds))
        object.__setattr__(self, "src", tuple(src))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "commutative", commutative)


@dataclass
class Match:
    """Matched ops by name, every matched op, and the input slot each named op feeds."""

    anchor: Op
    ops: dict[str, Op] = field(default_factory=dict)
    all: list[Op] = field(default_factory=list)
    slot: dict[str, int] = field(default_factory=dict)  # name -> input slot of its parent

    def __getitem__(self, name: str) -> Op:
        return self.ops[name]


class View:
    """Producers, consumers and positions of one graph, computed once (consumers are never stored)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.position = {id(op): i for i, op in enumerate(graph.ops)}
        self._producer: dict[int, Op] = {}
        self._consumers: dict[int, list[Op]] = {}
        for op in graph.ops:
            for t in op.outputs:
                self._producer[id(t)] = op
            for t in {id(t): t for t in op.inputs if t is not None}.values():
                self._consumers.setdefault(id(t), []).append(op)
        self._outputs = {id(t) for t in graph.outputs}

    def producer(self, t: Tensor | None) -> Op | None:
        return None if t is None else self._producer.get(id(t))

    def consumers(self, t: Tensor) -> list[Op]:
        return list(self._consumers.get(id(t), []))

    def is_output(self, t: Tensor) -> bool:
        return id(t) in self._outputs

    def private(self, t: Tensor, reader: Op) -> str | None:
        """Why `t` cannot disappear into a fusion with its only reader, or None if it can."""
        if self.is_output(t):
            return f"'{t.name}' is a graph output"
        readers = self.consumers(t)
        if len(readers) != 1 or readers[0] is not reader:
            return f"'{t.name}' has {len(readers)} consumers"
        return None


def matches(p: Pattern, op: Op, view: View) -> Iterator[Match]:
    """Every way `p` matches with `op` as its anchor, nearest producers first."""
    found = list(_match(p, op, view))
    found.sort(key=lambda m: -max((view.position[id(o)] for o in m.all if o is not op), default=-1))
    return iter(found)


def _match(p: Pattern, op: Op, view: View) -> Iterator[Match]:
    if op.kind not in p.kinds:
        return
    n = len(op.inputs)
    if len(p.src) > n:
        return
    orders = itertools.permutations(range(n), len(p.src)) if p.commutative else [range(len(p.src))]
    for slots in orders:
        yield from _bind(p, op, list(zip(slots, p.src)), view)


def _bind(p: Pattern, op: Op, pairs: list[tuple[int, Pattern | None]], view: View) -> Iterator[Match]:
    """Matches of the src patterns at the given slots, combined (a cartesian product)."""
    options: list[list[Match | None]] = []
    for slot, sub in pairs:
        if sub is None:
            options.append([None])
            continue
        producer = view.producer(op.inputs[slot])
        subs = [] if producer is None else list(_match(sub, producer, view))
        if not subs:
            return
        for m in subs:
            if sub.name:
                m.slot[sub.name] = slot
        options.append(subs)
    for combo in itertools.product(*options):
        m = Match(op, {p.name: op} if p.name else {}, [op])
        for sub in combo:
            if sub is None:
                continue
            if any(o in m.all for o in sub.all):
                break  # one op cannot fill two places
            m.ops.update(sub.ops)
            m.all.extend(sub.all)
            m.slot.update(sub.slot)
        else:
            yield m


Rewrite = Callable[[Match, "Rewriter"], "list[Op] | None"]


@dataclass(frozen=True)
class Rule:
    name: str  # names the pattern in decisions and --explain
    pattern: Pattern
    rewrite: Rewrite


@dataclass
class Decision:
    """One fusion candidate and what was decided, for report.json and --explain."""

    pattern: str
    ops: list[int]  # source op indices involved
    decision: str  # "fused" | "declined"
    reason: str

    def as_dict(self) -> dict:
        return {"pattern": self.pattern, "ops": list(self.ops), "decision": self.decision, "reason": self.reason}


class Rewriter:
    """What a rewrite sees: the current graph's view, the options' objective and the decision log."""

    def __init__(self, graph: Graph, optimize: str = "balanced", log: list[Decision] | None = None,
                 cost=None):
        self.view = View(graph)
        self.optimize = optimize
        self.log: list[Decision] = [] if log is None else log
        self.cost = cost  # the fusion passes' cost model (passes.Context.cost), with the kernel catalog
        self._seen: set[tuple[str, tuple[int, ...]]] = set()

    @property
    def graph(self) -> Graph:
        return self.view.graph

    def decide(self, pattern: str, ops: list[Op], fused: bool, reason: str) -> None:
        """Log a decision once per (pattern, ops): the rewriting revisits declined matches."""
        indices = sorted({i for op in ops for i in source_indices(op)})
        key = (pattern, tuple(indices))
        if key in self._seen:
            return
        self._seen.add(key)
        self.log.append(Decision(pattern, indices, "fused" if fused else "declined", reason))

    def decline(self, pattern: str, ops: list[Op], reason: str) -> None:
        self.decide(pattern, ops, False, reason)


def source_indices(op: Op) -> list[int]:
    """The .tflite indices of an op and of every op it absorbed."""
    if op.kind in (CONV_GAP, CONV_POOL):
        return [i for part in parts(op) for i in source_indices(part)]
    if op.kind == CASCADE:
        return [i for m in op.attrs.members for i in source_indices(m)]
    found = [op.index]
    for step in op.fused:
        for src in getattr(step, "sources", ()):
            found.extend(source_indices(src))
    return found


def replace(graph: Graph, matched: list[Op], new: list[Op], anchor: Op) -> Graph:
    """A new graph: the matched ops removed, `new` inserted where the anchor was."""
    gone = {id(op) for op in matched}
    ops: list[Op] = []
    for op in graph.ops:
        if op is anchor:
            ops.extend(new)
        elif id(op) not in gone:
            ops.append(op)
    return Graph(ops, list(graph.inputs), list(graph.outputs), graph.name, dict(graph.metadata))


def graph_rewrite(graph: Graph, rules: list[Rule], rewriter: Rewriter | None = None) -> Graph:
    """Apply the rules until none fires: anchors in execution order, rules in list order."""
    rw = rewriter or Rewriter(graph)
    while True:
        rw.view = View(graph)
        changed = _apply_once(rw, rules)
        if changed is None:
            return graph
        graph = changed


def _apply_once(rw: Rewriter, rules: list[Rule]) -> Graph | None:
    graph = rw.graph
    for op in graph.ops:
        for rule in rules:
            for m in matches(rule.pattern, op, rw.view):
                new = rule.rewrite(m, rw)
                if new is None:
                    continue
                if len(new) >= len(m.all):
                    raise ValueError(f"rule {rule.name} replaced {len(m.all)} ops by {len(new)}: "
                                     "a rewrite must shrink the graph")
                return replace(graph, m.all, new, op)
    return None
