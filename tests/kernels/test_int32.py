"""Conformance of int32 ADD, MUL, MAXIMUM and MINIMUM (broadcasting, a constant operand, every fused
activation) against TFLite Micro, seeded: full-range values (the sums and products wrap as TFLM's
int32 arithmetic does) and small ones (the activation clamps matter)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType
from microfuse.ops.attrs import ActivationAttrs
from microfuse.testing import inputs
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graphs
from tests.kernels.cases import single, tensor
from tests.kernels.test_elementwise import random_shapes

I32 = DType.INT32
ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def small(rng: np.random.Generator, shape) -> np.ndarray:
    return rng.integers(-1000, 1001, size=shape).astype(np.int32)


def int32_case(rng: np.random.Generator, kind: str):
    sa, sb = random_shapes(rng, 4)
    a, b = tensor("a", sa, I32), tensor("b", sb, I32)
    if rng.random() < 0.3:  # a constant operand, either side
        const = b if rng.random() < 0.7 else a
        const.data = small(rng, const.shape) if rng.random() < 0.5 else inputs.random(const, rng)
    attrs = ActivationAttrs(str(rng.choice(ACTIVATIONS))) if kind in ("ADD", "MUL") else None
    return single(kind, [a, b], tensor("out", tuple(np.broadcast_shapes(sa, sb)), I32), attrs)


@pytest.mark.parametrize("kind", ["ADD", "MUL", "MAXIMUM", "MINIMUM"])
def test_int32_matches_tflm(kind):
    rng = np.random.default_rng(1420 + ["ADD", "MUL", "MAXIMUM", "MINIMUM"].index(kind))
    graphs = [int32_case(rng, kind) for _ in range(case_count(12))]
    assert any(g.ops[0].inputs[0].shape != g.ops[0].inputs[1].shape for g in graphs)  # broadcasts run
    feeds = [t for g in graphs for t in g.inputs]
    samples = [inputs.sample(feeds, rng), [small(rng, t.shape) for t in feeds], [small(rng, t.shape) for t in feeds]]
    check_graphs(graphs, rng, samples)


def test_a_constant_operand_uses_the_k_kernel():
    a = tensor("a", (2, 3), I32)
    b = tensor("b", (3,), I32, data=np.arange(3, dtype=np.int32))
    call = lower(single("MUL", [b, a], tensor("o", (2, 3), I32), ActivationAttrs("RELU6")).ops[0])
    assert call.kernel == "mf_mul_i32_k" and call.inputs == [a] and call.params["constant_index"] == 0
    assert (call.params["q_min"], call.params["q_max"]) == (0, 6)


def test_concatenation_and_pack_with_constant_pieces_match_tflm():
    """The front end pads its spectrum with constant zeros: constant pieces are read from flash."""
    from tests.kernels.test_movement import _one, check, concat_case, pack_case

    def with_constants(graph_case, rng):
        op = graph_case[0].ops[0]
        pieces = list(op.inputs)
        for k in rng.choice(len(pieces), size=int(rng.integers(1, len(pieces))), replace=False):
            pieces[k].data = inputs.random(pieces[k], rng)  # some, never all: those fold
        return _one(op.kind, pieces, op.attrs)
    rng = np.random.default_rng(1430)
    made = [concat_case(rng, dtype) for dtype in (DType.INT16, I32) * case_count(4, 15)]
    made += [pack_case(rng, I32) for _ in range(case_count(6, 20))]
    check([with_constants(c, rng) for c in made if len(c[0].ops[0].inputs) > 1], rng)
