"""Conformance of int16 LOGISTIC and TANH (TFLM's 256-entry sigmoid table with interpolation)
against TFLite Micro on every one of the 65,536 inputs, for power-of-two and general input scales;
and the table itself, re-measured from TFLM's TANH."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Quant
from microfuse.lower.int16_tables import SIGMOID_TABLE
from microfuse.testing import inputs
from microfuse.testing.modelgen import merge
from microfuse.testing.ptq import f32
from tests.harness import case_count, check_graph, on_qemu, reference
from tests.kernels.cases import single, tensor

I16 = DType.INT16
ALL_INT16 = np.arange(-32768, 32768, dtype=np.int16)
OUT = Quant((2.0 ** -15,), (0,))


def sigmoid_case(rng: np.random.Generator, kind: str, shape=ALL_INT16.shape):
    """Input scales as converters give (range / 32768 for ranges 0.5..12), a third powers of two
    (TFLM's multiplier-free branch, with left shift 0 or 1)."""
    if rng.random() < 0.35:
        scale = 2.0 ** -int(rng.choice([12, 11, 13, 14]))
    else:
        scale = f32(10 ** rng.uniform(np.log10(0.5), np.log10(12.0)) / 32768)
    x = tensor("x", shape, I16, Quant((float(scale),), (0,)))
    return single(kind, [x], tensor("y", shape, I16, OUT))


@pytest.mark.parametrize("kind", ["LOGISTIC", "TANH"])
def test_sigmoid_int16_on_every_input(kind):
    rng = np.random.default_rng(1800 + (kind == "TANH"))
    graphs = [sigmoid_case(rng, kind) for _ in range(case_count(6, 16))]
    graph = merge(graphs)
    check_graph(graph, samples=[[ALL_INT16.copy() for _ in graph.inputs]])


def test_the_sigmoid_table_is_tflms():
    """TANH with a scale that makes the kernel's input exactly 2x: x = 128 k reads entry k with no
    interpolation (output = entry - 32768); entry 255 from its interpolation with entry 254."""
    scale = f32(16384.5 / (12288 * 2 ** 13))  # multiplier 2^14, shift 13
    x = np.concatenate([np.arange(255) * 128, [128 * 254 + 127]]).astype(np.int16)
    graph = single("TANH", [tensor("x", x.shape, I16, Quant((scale,), (0,)))], tensor("y", x.shape, I16, OUT))
    ((y,),) = reference(graph, [[x]])
    # the last input reads entries 254 and 255 at fraction 254/256: entry 254 + the step (< 64), entry 255
    assert list(SIGMOID_TABLE) == list(y.astype(np.int64) + 32768)


def test_int16_sigmoid_limits_say_so():
    rng = np.random.default_rng(9)
    g = sigmoid_case(rng, "LOGISTIC", (4,))
    g.ops[0].outputs[0].quant = Quant((1 / 256,), (0,))
    assert ops.problems(g.ops[0]) == ["int16 LOGISTIC needs output scale 2^-15 (1/32768), got 0.00390625"]
    g = sigmoid_case(rng, "TANH", (4,))
    g.ops[0].inputs[0].quant = Quant((3.0,), (0,))
    assert ops.problems(g.ops[0]) == ["int16 TANH input scale 3 is above TFLM's limit 32767/12288"]


def softmax_case(rng: np.random.Generator, src: DType):
    from microfuse.ops.attrs import SoftmaxAttrs
    from tests.kernels.cases import rand_quant

    rank = int(rng.integers(1, 5))
    shape = tuple(int(d) for d in rng.integers(1, 4, size=rank - 1)) + (int(rng.integers(1, 40)),)
    beta = 1.0 if rng.random() < 0.5 else f32(rng.uniform(0.2, 3.0))
    if src == DType.INT8:
        x, y = tensor("x", shape, quant=rand_quant(rng, -2.5, 0.0)), tensor("y", shape, I16, Quant((1 / 65536,), (-32768,)))
    else:
        x = tensor("x", shape, I16, Quant((f32(10 ** rng.uniform(-4.5, -2.5)),), (0,)))
        y = tensor("y", shape, I16, Quant((1 / 32768,), (0,)))
    return single("SOFTMAX", [x], y, SoftmaxAttrs(beta))


def test_softmax_int8_to_int16_matches_tflm():
    rng = np.random.default_rng(1810)
    graphs = [softmax_case(rng, DType.INT8) for _ in range(case_count(12, 40))]
    graph = merge(graphs)
    check_graph(graph, samples=inputs.samples(graph, 3, rng))


def test_softmax_int16_matches_tflm():
    rng = np.random.default_rng(1811)
    graphs = [softmax_case(rng, I16) for _ in range(case_count(12, 40))]
    graph = merge(graphs)
    check_graph(graph, samples=inputs.samples(graph, 4, rng))


@on_qemu
def test_every_int16_kernel_on_qemu(tmp_path):
    """One model with a case of every int16 kernel, built for the Cortex-M4 and compared with TFLM."""
    from microfuse.tflite import writer
    from microfuse.verify import verify
    from tests.kernels import test_int16_elementwise as E, test_int16_quantize as Q

    rng = np.random.default_rng(1820)
    graphs = [sigmoid_case(rng, k, (1000,)) for k in ("LOGISTIC", "TANH")]
    graphs += [softmax_case(rng, src) for src in (DType.INT16, DType.INT8)]
    graphs += [E.addsub_case(rng, k) for k in ("ADD", "SUB")] + [E.mul_case(rng), E.leaky_case(rng)]
    graphs += [E.relu_case(rng, k) for k in ("RELU", "RELU6")] + [Q.quantize_case(rng, s, d) for s, d in Q.PAIRS]
    path = tmp_path / "int16.tflite"
    path.write_bytes(writer.write(merge(graphs)))
    verdict, _, _ = verify(path, "qemu-mps2-an386", n=2, seed=20)
    assert verdict.ok, verdict.line(False)
