"""Overlap bounds of windowed ops with explicit (asymmetric) padding — a PAD folded into a conv,
depthwise or max pool, or a space-to-batch conv made dilated — against brute-force byte traces."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from microfuse.ir import DType
from microfuse.ops.common import window_pads
from microfuse.plan import inplace

from plan_graphs import Builder
from test_inplace import _assert_sound, _window_trace

explicit = st.fixed_dictionaries({
    "kind": st.sampled_from(["CONV_2D", "DEPTHWISE_CONV_2D", "MAX_POOL_2D"]),
    "h": st.integers(1, 6), "w": st.integers(1, 6), "c": st.integers(1, 3), "k": st.integers(1, 3),
    "stride": st.integers(1, 2), "dilation": st.integers(1, 3), "cout": st.integers(1, 3),
    "pads": st.tuples(*[st.integers(0, 3)] * 4),
})


@settings(max_examples=150, deadline=None)
@given(explicit)
def test_explicit_window_bounds_are_safe(p):
    b = Builder(DType.INT8)
    x = b.input((1, p["h"], p["w"], p["c"]))
    top, bottom, left, right = p["pads"]
    dil = p["dilation"] if p["kind"] != "MAX_POOL_2D" else 1
    eff = (p["k"] - 1) * dil + 1
    if eff > p["h"] + top + bottom or eff > p["w"] + left + right:
        return
    if p["kind"] == "CONV_2D":
        b.conv(x, p["cout"], p["k"], p["stride"], "VALID", dil)
    elif p["kind"] == "DEPTHWISE_CONV_2D":
        b.dw(x, p["k"], p["stride"], "VALID")
    else:
        b.pool(x, p["k"], p["stride"], "VALID", p["kind"])
    made = b.ops[-1]
    attrs = replace(made.attrs, padding="EXPLICIT", pads=p["pads"])
    if made.kind == "DEPTHWISE_CONV_2D":
        attrs = replace(attrs, dilation_h=p["dilation"], dilation_w=p["dilation"])
    b.ops.pop()
    b.op(made.kind, made.inputs, attrs)
    op = b.ops[-1]
    assert window_pads(op) == p["pads"]
    rule, = inplace.rules(op)
    _assert_sound(rule, x.nbytes, op.outputs[0].nbytes, lambda back: _window_trace(op, back))
