"""Conformance of the int16 element-wise kernels (ADD, SUB, MUL with broadcasting and a constant
operand, LEAKY_RELU, RELU, RELU6) against TFLite Micro, seeded: random shapes, int16 quantizations (power-of-two scales
too: TFLM's micro ADD/SUB take the general path for them as well), every fused activation, random
and all-minimum / all-maximum inputs."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Quant
from microfuse.lower import lower
from microfuse.ops.attrs import ActivationAttrs, LeakyReluAttrs
from microfuse.testing import inputs
from microfuse.testing.modelgen import merge
from microfuse.testing.ptq import f32
from tests.harness import case_count, check_graph
from tests.kernels.cases import ACTIVATIONS, single, tensor
from tests.kernels.test_elementwise import random_shapes

I16 = DType.INT16


def q16(rng: np.random.Generator, pot: bool = False) -> Quant:
    """An int16 activation quantization: symmetric as the converter makes it, now and then an
    offset zero point (TFLM's kernels take any); `pot`: a power-of-two scale."""
    scale = 2.0 ** -int(rng.integers(8, 16)) if pot else f32(10 ** rng.uniform(-4.5, -1.5))
    zero = int(rng.integers(-1000, 1000)) if rng.random() < 0.2 else 0
    return Quant((float(scale),), (zero,))


def check_all(graphs, rng):
    graph = merge(graphs)
    check_graph(graph, samples=inputs.samples(graph, 2, rng))


def addsub_case(rng: np.random.Generator, kind: str, big: bool = False):
    """`big`: thousands of elements, so that a multiplier one ulp off shows (seanet's SUB in float
    multipliers differs on ~1 element in 1,500)."""
    sa, sb = random_shapes(rng, 5)
    if big:
        sa = sb = (1, int(rng.integers(2, 5)), int(rng.integers(40, 80)), 16)
    pot = rng.random() < 0.3
    a, b = tensor("a", sa, I16, q16(rng, pot)), tensor("b", sb, I16, q16(rng, pot))
    if rng.random() < 0.2:  # a constant operand, either side
        const = b if rng.random() < 0.7 else a
        const.data = rng.integers(-32768, 32768, size=const.shape).astype(np.int16)
    out = tensor("out", tuple(np.broadcast_shapes(sa, sb)), I16, q16(rng, pot))
    act = ACTIVATIONS[int(rng.integers(0, len(ACTIVATIONS)))]
    return single(kind, [a, b], out, ActivationAttrs(act))


@pytest.mark.parametrize("kind", ["ADD", "SUB"])
def test_addsub_int16_matches_tflm(kind):
    rng = np.random.default_rng(1700 + (kind == "SUB"))
    graphs = [addsub_case(rng, kind, big=i < 4) for i in range(case_count(14))]
    assert any(g.ops[0].inputs[0].shape != g.ops[0].inputs[1].shape for g in graphs)  # broadcasts run
    check_all(graphs, rng)


def test_addsub_int16_constant_operand_uses_the_k_kernel():
    rng = np.random.default_rng(6)
    a = tensor("a", (1, 2, 2, 4), I16, q16(rng))
    b = tensor("b", (4,), I16, q16(rng), data=np.arange(4, dtype=np.int16))
    call = lower(single("SUB", [b, a], tensor("o", (1, 2, 2, 4), I16, q16(rng)), ActivationAttrs("NONE")).ops[0])
    assert call.kernel == "mf_sub_s16_k" and call.inputs == [a] and call.params["constant_index"] == 0
    assert call.params["left_shift"] == 15


def leaky_case(rng: np.random.Generator, big: bool = False):
    shape = tuple(int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 5))))
    if big:  # float instead of double multipliers differ on ~14 of the 65536 inputs
        shape = (1, 2, int(rng.integers(40, 80)), 16)
    x = tensor("x", shape, I16, q16(rng))
    # the converter often gives the output the input's quantization, else a scale near it
    near = Quant((f32(x.quant.scale[0] * 10 ** rng.uniform(-0.3, 0.3)),), (0,))
    y = tensor("y", shape, I16, x.quant if rng.random() < 0.25 else near if rng.random() < 0.8 else q16(rng))
    return single("LEAKY_RELU", [x], y, LeakyReluAttrs(f32(rng.uniform(-0.5, 1.5))))


def test_leaky_relu_int16_matches_tflm():
    rng = np.random.default_rng(1710)
    check_all([leaky_case(rng, big=i < 4) for i in range(case_count(14))], rng)


ALL_INT16 = np.arange(-32768, 32768, dtype=np.int16)


def test_leaky_relu_int16_on_every_input():
    """Every one of the 65,536 inputs, for random quantizations and alphas (float instead of
    double multipliers differ on ~14 of them)."""
    rng = np.random.default_rng(1711)
    graphs = [leaky_case(rng) for _ in range(case_count(4, 12))]
    for g in graphs:
        g.inputs[0].shape = g.outputs[0].shape = ALL_INT16.shape
    graph = merge(graphs)
    check_graph(graph, samples=[[ALL_INT16.copy() for _ in graph.inputs]])


def mul_case(rng: np.random.Generator):
    sa, sb = random_shapes(rng, 4)  # TFLM's MUL broadcasts in 4-D only
    if rng.random() < 0.3:
        sa = sb = (1, 2, int(rng.integers(40, 80)), 16)
    a, b = tensor("a", sa, I16, q16(rng)), tensor("b", sb, I16, q16(rng))
    for t in (a, b):
        t.quant = Quant(t.quant.scale, (0,))  # TFLM's int16 MUL: zero points 0
    if rng.random() < 0.2:
        b.data = rng.integers(-32768, 32768, size=b.shape).astype(np.int16)
    # products need a larger output scale: around s1 * s2 * 2^15, sometimes saturating
    so = f32(a.quant.scale[0] * b.quant.scale[0] * 2.0 ** 15 * 10 ** rng.uniform(-0.5, 1.0))
    out = tensor("out", tuple(np.broadcast_shapes(sa, sb)), I16, Quant((so,), (0,)))
    return single("MUL", [a, b], out, ActivationAttrs(ACTIVATIONS[int(rng.integers(0, len(ACTIVATIONS)))]))


def test_mul_int16_matches_tflm():
    rng = np.random.default_rng(1720)
    check_all([mul_case(rng) for _ in range(case_count(14))], rng)


def relu_case(rng: np.random.Generator, kind: str):
    shape = tuple(int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 5))))
    x = tensor("x", shape, I16, Quant((f32(10 ** rng.uniform(-4.5, -2.5)),), (0,)))
    if kind == "RELU6":  # TFLM's int16 RELU6 clamps in the input's quantization (any zero point)
        x.quant = q16(rng)
    near = Quant((f32(x.quant.scale[0] * 10 ** rng.uniform(-0.3, 0.3)),), (0,))
    return single(kind, [x], tensor("y", shape, I16, x.quant if rng.random() < 0.3 else near))


@pytest.mark.parametrize("kind", ["RELU", "RELU6"])
def test_relu_int16_on_every_input(kind):
    rng = np.random.default_rng(1730 + (kind == "RELU6"))
    graphs = [relu_case(rng, kind) for _ in range(case_count(4, 12))]
    for g in graphs:
        g.inputs[0].shape = g.outputs[0].shape = ALL_INT16.shape
    graph = merge(graphs)
    check_graph(graph, samples=[[ALL_INT16.copy() for _ in graph.inputs]])


def test_int16_mul_and_relu_need_zero_points_0():
    rng = np.random.default_rng(8)
    g = mul_case(rng)
    g.ops[0].outputs[0].quant = Quant(g.ops[0].outputs[0].quant.scale, (3,))
    assert ops.problems(g.ops[0]) == ["int16 tensor 'out' has zero point 3; TFLM's int16 MUL needs 0"]


def test_an_int16_chain_is_bit_exact_and_planned_in_place():
    """QUANTIZE float32 -> int16, ADD, LEAKY_RELU, TANH, MUL, QUANTIZE int16 -> int8 through the
    whole pipeline (passes, balanced kernel choice): bit-exact, and the element-wise kernels'
    access orders let outputs overlap their inputs (the arena is below the whole-tensor bound)."""
    from microfuse.inspect import alive_bytes_per_step
    from microfuse.ir import Graph, Op
    from microfuse.ops.attrs import NoAttrs
    from microfuse.pipeline import Options
    from microfuse.testing import stages

    def q(scale):
        return Quant((scale,), (0,))

    x = tensor("x", (1, 2, 64, 16), DType.FLOAT32)
    a, b, s, lr, t, m = (tensor(n, x.shape, I16, q(sc)) for n, sc in
                         (("a", 2 ** -10), ("b", 3e-4), ("s", 4e-4), ("l", 4e-4), ("t", 2 ** -15), ("m", 5e-4)))
    o = tensor("o", x.shape, DType.INT8, Quant((0.01,), (3,)))
    graph = Graph([Op("QUANTIZE", [x], [a], NoAttrs(), "q", 0), Op("ADD", [a, b], [s], ActivationAttrs("NONE"), "add", 1),
                   Op("LEAKY_RELU", [s], [lr], LeakyReluAttrs(0.3), "lrelu", 2), Op("TANH", [lr], [t], None, "tanh", 3),
                   Op("MUL", [t, lr], [m], ActivationAttrs("RELU"), "mul", 4), Op("QUANTIZE", [m], [o], NoAttrs(), "q2", 5)],
                  [x, b], [o], name="chain")
    rng = np.random.default_rng(1740)
    check_graph(graph, samples=inputs.samples(graph, 3, rng), options=Options())
    compiled = stages.compile_model(graph, Options())
    assert [c.kernel for c in compiled.calls] == ["mf_quantize_f32_s16", "mf_add_s16", "mf_leaky_relu_s16",
                                                  "mf_tanh_s16", "mf_mul_s16", "mf_requantize_s16_s8"]
    assert compiled.plan.arena_bytes < max(alive_bytes_per_step(graph))
