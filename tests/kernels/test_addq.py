"""The fused residual ADD as one linear function of its inputs (mf_finish.h mf_addq_pairs,
lower/fast.py _addq_linear) vs TFLite Micro: convs (the two-pixel and the GEMM kernel), depthwise
convs and fully-connected ops ending in an ADD whose two input scales are 1/14..14 apart (equal
scales too), odd channel counts (a last element after the pairs), extreme zero points, on the
host (the C loop) and under QEMU mps2-an386 (the assembly), each call also over its input at the
planner's tightest forward and backward (reverse = 1) shifts. And the form itself, simulated in
numpy on every pair of int8 inputs against TFLite's arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.fixedpoint import mul_by_quantized_multiplier
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.lower import ConstArray, fast
from microfuse.ops.attrs import ActivationAttrs, ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs
from microfuse.quant import quantize_multiplier
from microfuse.testing.modelgen import merge
from microfuse.testing.stages import lowered
from tests.harness import always_fuse, case_count, on_qemu  # noqa: F401 (a fixture)
from tests.kernels import placements
from tests.kernels.cases import act_quant, int8_weights, int32_bias, out_quant, single_op, weight_quant

SEED = 29
RATIOS = (1.0, 0.07, 0.26, 0.5, 0.7, 1.3, 2.0, 3.9, 14.0)  # residual scale / the op's output scale
ZEROS = (-128, 127, 0, -128, 5)


def base_graph(rng, i: int) -> Graph:
    oc = (1, 3, 5, 7, 13, 16, 33, 64)[i % 8]
    kind = i % 4
    h, w = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    if kind == 3:  # fully connected
        depth = int(rng.integers(4, 40))
        xq, wq = act_quant(rng), weight_quant(rng, oc, 0, False)
        x = Tensor("input", (int(rng.integers(1, 3)), depth), DType.INT8, xq)
        wt = Tensor("weights", (oc, depth), DType.INT8, wq, int8_weights(rng, (oc, depth)))
        y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, depth))
        return single_op("FULLY_CONNECTED", [x, wt, int32_bias(rng, oc, xq, wq)], y,
                         FullyConnectedAttrs("NONE", 0, False))
    if kind == 2:  # depthwise: channels a multiple of 4
        c = max(4, oc + (-oc) % 4)
        xq, wq = act_quant(rng), weight_quant(rng, c, 3, True)
        x = Tensor("input", (1, h, w, c), DType.INT8, xq)
        wt = Tensor("weights", (1, 3, 3, c), DType.INT8, wq, int8_weights(rng, (1, 3, 3, c)))
        y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, 9))
        return single_op("DEPTHWISE_CONV_2D", [x, wt, int32_bias(rng, c, xq, wq)], y,
                         DepthwiseAttrs("SAME", 1, 1, 1, "NONE", 1, 1))
    ic, k = (32, 1) if kind == 0 else (16 if i % 8 < 4 else 8, 3)  # 8 channels: the GEMM kernel
    xq, wq = act_quant(rng), weight_quant(rng, oc, 0, True)
    x = Tensor("input", (1, h, w, ic), DType.INT8, xq)
    wt = Tensor("weights", (oc, k, k, ic), DType.INT8, wq, int8_weights(rng, (oc, k, k, ic)))
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, k * k * ic))
    return single_op("CONV_2D", [x, wt, int32_bias(rng, oc, xq, wq)], y,
                     ConvAttrs("SAME", 1 + (i % 5 == 1), 1, "NONE", 1, 1))


def add_graph(rng, i: int) -> Graph:
    graph = base_graph(rng, i)
    y = graph.outputs[0]
    scale = float(y.quant.scale[0]) * RATIOS[i % len(RATIOS)]
    r = Tensor("residual", y.shape, DType.INT8, Quant((np.float32(scale),), (ZEROS[i % len(ZEROS)],)))
    out = Tensor("after_add", y.shape, DType.INT8,
                 act_quant(rng, max(scale, float(y.quant.scale[0])) * float(rng.uniform(0.6, 4))))
    act = ActivationAttrs("RELU" if i % 7 == 3 else "NONE")
    op = Op("ADD", [y, r] if i % 2 else [r, y], [out], act, "add", index=1)
    return Graph([*graph.ops, op], [*graph.inputs, r], [out], name=graph.name)


def prepared(count_local: int, count_ci: int = 36):
    rng = np.random.default_rng(SEED)
    graph = merge([add_graph(rng, i) for i in range(case_count(count_local, count_ci))], "addq")
    data, want = placements.tflm_case(graph, SEED + 1)
    calls = lowered(graph)
    return calls, placements.picked(calls, data, want, lambda c: isinstance(c.params.get("k.addq"), ConstArray))


def linear(calls) -> list[int]:
    return [int(np.asarray(c.params["k.addq"].data)[12]) for c in calls
            if isinstance(c.params.get("k.addq"), ConstArray)]


def test_addq_linear_matches_tflm_on_host_in_overlapping_arenas(tmp_path, always_fuse):
    calls, runs = prepared(18)
    assert sum(linear(calls)) >= 0.9 * len(linear(calls)) > 10
    assert any(r.call.params.get(r.call.reverse_key or "", 0) == 1 for r in runs)
    failures = placements.run(runs, tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_addq_linear_matches_tflm_under_qemu_m4_in_overlapping_arenas(tmp_path, always_fuse):
    """The assembly loop (mf_addq_pairs) on Cortex-M4F."""
    calls, runs = prepared(18)
    assert sum(linear(calls)) >= 0.9 * len(linear(calls)) > 10
    failures = placements.run(runs, tmp_path, "qemu-mps2-an386")
    assert not failures, "\n".join(failures)


def _reference(x: np.ndarray, mult: int, shift: int, left: int) -> np.ndarray:
    return np.array([mul_by_quantized_multiplier(int(v) << left, mult, shift) for v in x], np.int64)


@pytest.mark.parametrize("case", range(24))
def test_addq_form_is_tflite_add_on_every_pair(case):
    """The asm's arithmetic (mf_finish.h MF_AQ_CALC) in numpy, the int32 sum checked, on all
    65,536 input pairs, for scale ratios 1/20..20, extreme zero points and output scales."""
    rng = np.random.default_rng(case)
    s1 = 10 ** rng.uniform(-3, 0)
    s2 = s1 * (1.0 if case % 6 == 0 else 10 ** rng.uniform(-1.3, 1.3))
    so = max(s1, s2) * 10 ** rng.uniform(-0.5, 1)
    z1, z2, zo = ((-128, 127, -128), (127, -128, 127))[case % 2] if case % 3 == 0 else rng.integers(-128, 128, 3)
    twice = 2 * max(s1, s2)
    (m1, e1), (m2, e2), (mo, eo) = (quantize_multiplier(r) for r in (s1 / twice, s2 / twice,
                                                                      twice / ((1 << 20) * so)))
    ep = {"ep.left_shift": 20, "ep.v_offset": -int(z1), "ep.v_multiplier": m1, "ep.v_shift": e1,
          "ep.r_offset": -int(z2), "ep.r_multiplier": m2, "ep.r_shift": e2, "ep.output_multiplier": mo,
          "ep.output_shift": eo, "ep.output_offset": int(zo)}
    table = fast._addsub_table(ep)
    assert not isinstance(table, str), "every seeded quantization has a provably exact shortcut table"
    found, a, b, c = (int(v) for v in np.asarray(table.data)[12:])
    q = np.arange(-128, 128, dtype=np.int64)
    sv, sr = _reference(q - z1, m1, e1, 20), _reference(q - z2, m2, e2, 20)
    want = np.clip(np.array([mul_by_quantized_multiplier(int(v), mo, eo) for v in
                             (sv[:, None] + sr[None, :]).ravel()]).reshape(256, 256) + zo, -128, 127)
    assert found  # seeded: every case here has the form (a rare quantization has not: the C loop)
    # rows: the op's value, columns: the residual; SMMLA: c + floor((x << 24) * m / 2^32)
    t = c + (((q << 24) * a) >> 32)[:, None] + (((q << 24) * b) >> 32)[None, :]
    assert np.all(np.abs(t) < 1 << 31)
    assert np.array_equal(np.clip(t >> 21, -128, 127), want)
