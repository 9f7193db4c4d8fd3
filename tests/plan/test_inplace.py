"""Overlap bounds against brute force: byte traces of reference loops that follow the contract."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from microfuse.ir import DType
from microfuse.ops.common import window_pads
from microfuse.plan import inplace
from microfuse.plan.inplace import INF

from plan_graphs import Builder


def _taps(o, stride, pad, k, dil, size):
    return [o * stride - pad + i * dil for i in range(k) if 0 <= o * stride - pad + i * dil < size]


def _window_trace(op, backward):
    """(reads, writes): per event time, input byte read / output byte written, exact bytes."""
    x, y = op.inputs[0], op.outputs[0]
    n, h, w, cin = x.shape
    _, oh, ow, cout = y.shape
    a = op.attrs
    kh, kw = (op.inputs[1].shape[1:3] if "CONV" in op.kind else (a.filter_h, a.filter_w))
    dh, dw = getattr(a, "dilation_h", 1), getattr(a, "dilation_w", 1)
    pt, _, pl, _ = window_pads(op)
    staged = inplace.access(op, 0).staged
    ei, eo = x.dtype.size, y.dtype.size
    reads, writes, t = [], [], 0
    pixels = range(n * oh * ow)
    for u in (reversed(pixels) if backward else pixels):
        b, oy, ox = u // (oh * ow), u // ow % oh, u % ow
        rows, cols = _taps(oy, a.stride_h, pt, kh, dh, h), _taps(ox, a.stride_w, pl, kw, dw, w)

        def needs(k):  # input channels output channel k reads
            return range(cin) if op.kind == "CONV_2D" else [k * cin // cout]

        def read(k):
            for iy in rows:
                for ix in cols:
                    for c in needs(k):
                        base = (((b * h + iy) * w + ix) * cin + c) * ei
                        reads.extend((t, base + e) for e in range(ei))

        def write(k):
            base = (u * cout + k) * eo
            writes.extend((t, base + e) for e in range(eo))

        if staged:
            for k in range(cout):
                read(k)
            t += 1
            for k in range(cout):
                write(k)
            t += 1
        else:
            for k in range(cout):
                read(k)
                t += 1
                write(k)
                t += 1
    return reads, writes


def _flat_trace(n, ei, eo, backward):
    reads, writes, t = [], [], 0
    for i in (range(n - 1, -1, -1) if backward else range(n)):
        reads += [(t, i * ei + e) for e in range(ei)]
        writes += [(t + 1, i * eo + e) for e in range(eo)]
        t += 2
    return reads, writes


def _safe_shifts(reads, writes, in_size, out_size):
    """Every shift (output offset - input offset) at which no byte is read after it is stored."""
    last_read = np.full(in_size, -1)
    for t, a in reads:
        last_read[a] = max(last_read[a], t)
    store = np.full(out_size, -1)
    for t, b in writes:
        store[b] = t
    safe = {}
    for d in range(-out_size - 1, in_size + 2):
        b = np.arange(out_size)
        hit = (b + d >= 0) & (b + d < in_size)
        safe[d] = not np.any(store[hit] < last_read[b[hit] + d])
    return safe


def _assert_sound(rule, in_size, out_size, trace):
    fwd = _safe_shifts(*trace(False), in_size, out_size)
    bwd = _safe_shifts(*trace(True), in_size, out_size)
    for d, ok in fwd.items():
        if d <= rule.forward:
            assert ok, f"forward shift {d} <= bound {rule.forward} is unsafe"
    for d, ok in bwd.items():
        if d >= rule.backward:
            assert ok, f"backward shift {d} >= bound {rule.backward} is unsafe"
    return fwd, bwd


windows = st.fixed_dictionaries({
    "kind": st.sampled_from(["CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D"]),
    "h": st.integers(1, 6), "w": st.integers(1, 6), "c": st.integers(1, 3),
    "k": st.integers(1, 3), "stride": st.integers(1, 2), "padding": st.sampled_from(["SAME", "VALID"]),
    "dilation": st.integers(1, 2), "cout": st.integers(1, 3), "mult": st.integers(1, 2),
    "dtype": st.sampled_from([DType.INT8, DType.INT16, DType.FLOAT32]),
})


@settings(max_examples=120, deadline=None)
@given(windows)
def test_window_bounds_are_safe(p):
    b = Builder(p["dtype"])
    x = b.input((1, p["h"], p["w"], p["c"]))
    eff = (p["k"] - 1) * p["dilation"] + 1
    if p["padding"] == "VALID" and (eff > p["h"] or eff > p["w"]):
        return
    if p["kind"] == "CONV_2D":
        b.conv(x, p["cout"], p["k"], p["stride"], p["padding"], p["dilation"])
    elif p["kind"] == "DEPTHWISE_CONV_2D":
        b.dw(x, p["k"], p["stride"], p["padding"], p["mult"])
    else:
        if p["k"] > min(p["h"], p["w"]) and p["padding"] == "VALID":
            return
        b.pool(x, p["k"], p["stride"], p["padding"], p["kind"])
    op = b.ops[-1]
    rule, = inplace.rules(op)
    _assert_sound(rule, x.nbytes, op.outputs[0].nbytes, lambda back: _window_trace(op, back))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.sampled_from([(DType.INT8, DType.INT8), (DType.INT8, DType.FLOAT32),
                                              (DType.FLOAT32, DType.INT8), (DType.INT16, DType.INT16)]))
def test_elementwise_bounds_are_safe_and_tight(n, types):
    b = Builder(types[0])
    kind = "RELU" if types[0] == types[1] else ("DEQUANTIZE" if types[1] == DType.FLOAT32 else "QUANTIZE")
    b.op(kind, [b.input((1, n))], None, dtype=types[1])
    rule, = inplace.rules(b.ops[-1])
    ei, eo = types[0].size, types[1].size
    fwd, bwd = _assert_sound(rule, n * ei, n * eo, lambda back: _flat_trace(n, ei, eo, back))
    if rule.forward < INF:  # spans are exact here, so the bounds are the tightest ones
        assert not fwd[rule.forward + 1]
    if rule.backward > -INF:
        assert not bwd[rule.backward - 1]


def test_same_size_elementwise_runs_exactly_in_place_both_ways():
    b = Builder()
    x = b.input((1, 4, 4, 8))
    b.add(b.unary(x, "RELU6"), x)
    for op in b.ops:
        for r in inplace.rules(op):
            assert (r.forward, r.backward) == (0, 0)


def test_broadcast_operand_gets_no_rule():
    b = Builder()
    full, vec = b.input((1, 3, 3, 4)), b.input((1, 1, 1, 4))
    b.add(full, vec, "MUL")
    assert [r.slot for r in inplace.rules(b.ops[-1])] == [0]


def test_fully_connected_batch_one_cannot_overlap():
    b = Builder()
    b.fc(b.input((1, 64)), 12)
    rule, = inplace.rules(b.ops[-1])
    assert rule.forward == -12 and rule.backward == 64  # touching, never overlapping


def test_depthwise_3x3_needs_about_one_row():
    b = Builder()
    b.dw(b.input((1, 25, 5, 64)))
    rule, = inplace.rules(b.ops[-1])
    row = 5 * 64
    assert -2 * row <= rule.forward <= -row and row <= rule.backward <= 2 * row


def test_ops_without_a_declaration_get_no_rule():
    b = Builder()
    x = b.input((1, 8))
    b.op("SOFTMAX", [x], None)
    assert inplace.rules(b.ops[-1]) == []
