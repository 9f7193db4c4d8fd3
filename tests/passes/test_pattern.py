"""The pattern-rewrite engine: matching upward through producers, commutative slots (nearest
producer first), declining rewrites, the shrink rule, and the caller's graph left alone."""

from __future__ import annotations

import pytest

from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.ops.attrs import ActivationAttrs
from microfuse.passes.pattern import Pattern, Rewriter, Rule, View, graph_rewrite, matches

Q = Quant((0.05,), (0,))


def t(name: str) -> Tensor:
    return Tensor(name, (1, 4), DType.INT8, Q)


def chain() -> Graph:
    """relu(a) -> r1; relu(b) -> r2; add(r1, r2) -> s; tanh(s) -> y"""
    a, b, r1, r2, s, y = (t(n) for n in "a b r1 r2 s y".split())
    ops = [Op("RELU", [a], [r1], None, "relu1", 0), Op("RELU", [b], [r2], None, "relu2", 1),
           Op("ADD", [r1, r2], [s], ActivationAttrs(), "add", 2), Op("TANH", [s], [y], None, "tanh", 3)]
    return Graph(ops, [a, b], [y])


def test_commutative_match_lists_the_nearest_producer_first():
    g = chain()
    p = Pattern("ADD", src=(Pattern("RELU", name="p"),), name="add", commutative=True)
    found = list(matches(p, g.ops[2], View(g)))
    assert [m["p"].name for m in found] == ["relu2", "relu1"]
    assert [m.slot["p"] for m in found] == [1, 0]


def test_ordered_match_binds_only_its_slot_and_nested_patterns_reach_up():
    g = chain()
    p = Pattern("TANH", src=(Pattern("ADD", src=(Pattern("RELU", name="r"),), name="add"),), name="tanh")
    found = list(matches(p, g.ops[3], View(g)))
    assert len(found) == 1 and found[0]["r"].name == "relu1" and len(found[0].all) == 3
    assert not list(matches(p, g.ops[2], View(g)))  # wrong anchor kind


def test_rewrite_repeats_until_nothing_fires_and_declines_are_skipped():
    g = chain()
    seen = []

    def merge_relu_into_tanh(m, rw):
        seen.append(m["x"].name)
        if m["x"].kind == "ADD":
            return None  # decline
        return [Op("TANH", m["x"].inputs, m["tanh"].outputs, None, "merged", -1)]

    rule = Rule("test", Pattern("TANH", src=(Pattern({"ADD", "RELU"}, name="x"),), name="tanh"),
                merge_relu_into_tanh)
    out = graph_rewrite(g, [rule], Rewriter(g))
    assert out is g or [op.name for op in out.ops] == [op.name for op in g.ops]
    assert seen == ["add"]


def test_replacement_goes_where_the_anchor_was_and_the_input_graph_is_unchanged():
    g = chain()
    names = [op.name for op in g.ops]

    def fold(m, rw):
        relu, add = m["relu"], m["add"]
        other = add.inputs[1 - m.slot["relu"]]
        rw.decide("fold", m.all, True, "test")
        return [Op("ADD", [relu.inputs[0], other], add.outputs, add.attrs, "folded", add.index)]

    rule = Rule("fold", Pattern("ADD", src=(Pattern("RELU", name="relu"),), name="add", commutative=True), fold)
    rw = Rewriter(g)
    out = graph_rewrite(g, [rule], rw)
    out.verify()
    assert [op.name for op in g.ops] == names
    assert [op.name for op in out.ops] == ["relu1", "folded", "tanh"] or \
        [op.name for op in out.ops] == ["folded", "tanh"]
    assert rw.log[0].as_dict() == {"pattern": "fold", "ops": [1, 2], "decision": "fused", "reason": "test"}


def test_a_rewrite_must_shrink_the_graph():
    g = chain()
    rule = Rule("grow", Pattern("TANH", name="t"), lambda m, rw: [m["t"]])
    with pytest.raises(ValueError, match="must shrink"):
        graph_rewrite(g, [rule], Rewriter(g))


def test_private_names_outputs_and_extra_consumers():
    g = chain()
    v = View(g)
    assert v.private(g.ops[0].outputs[0], g.ops[2]) is None
    assert "graph output" in v.private(g.outputs[0], g.ops[3])
    assert "consumers" in v.private(g.ops[0].outputs[0], g.ops[3])
