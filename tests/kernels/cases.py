"""Random single-op cases for the kernel suites: converter-like but adversarial quantization, window
geometry, weights and biases, and the corpus models' own ops (run by tests/harness.py)."""

from __future__ import annotations

import numpy as np

from microfuse import ops
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.testing import inputs
from microfuse.testing.ptq import f32
from microfuse.tflite import reader
from tests.conftest import MODEL_FILES
from tests.harness import Case

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def rand_quant(rng: np.random.Generator, lo: float = -2.5, hi: float = -0.5) -> Quant:
    """A random per-tensor int8 quantization: scale 10^lo..10^hi, any zero point."""
    return Quant((f32(10 ** rng.uniform(lo, hi)),), (int(rng.integers(-128, 128)),))


def act_quant(rng: np.random.Generator, scale: float | None = None) -> Quant:
    """A per-tensor int8 activation quantization: any zero point, scale 0.001..1 (or given)."""
    if scale is None:
        return rand_quant(rng, -3, 0)
    return Quant((f32(scale),), (int(rng.integers(-128, 128)),))


def weight_quant(rng: np.random.Generator, channels: int, axis: int, per_channel: bool) -> Quant:
    n = channels if per_channel else 1
    scales = tuple(f32(10 ** rng.uniform(-3, -1)) for _ in range(n))
    return Quant(scales, (0,) * n, axis if per_channel else None)


def out_quant(rng: np.random.Generator, x: Quant, w: Quant, taps: int) -> Quant:
    """An output scale that puts typical accumulators across the int8 range, sometimes
    beyond it (saturation) and sometimes well inside (small multipliers)."""
    spread = 74.0 * 73.0 * np.sqrt(taps) * x.scale[0] * float(np.median(w.scale))
    return act_quant(rng, spread * 3 / 128 * 10 ** rng.uniform(-0.7, 0.7))


def int8_weights(rng: np.random.Generator, shape) -> np.ndarray:
    return rng.integers(-127, 128, size=shape).astype(np.int8)


def int32_bias(rng: np.random.Generator, n: int, x: Quant, w: Quant) -> Tensor:
    data = np.round(rng.normal(0, 20000, size=n)).astype(np.int32)
    scales = tuple(f32(x.scale[0] * s) for s in w.scale)
    return Tensor("bias", (n,), DType.INT32, Quant(scales, (0,) * len(scales), 0 if len(scales) > 1 else None), data)


def float_tensor(rng: np.random.Generator, name: str, shape, scale: float = 1.0) -> Tensor:
    return Tensor(name, tuple(shape), DType.FLOAT32, data=(rng.normal(0, scale, size=shape)).astype(np.float32))


def tensor(name: str, shape, dtype: DType = DType.INT8, quant: Quant | None = None, data=None) -> Tensor:
    return Tensor(name, tuple(int(d) for d in shape), dtype, quant, data)


def single(kind: str, inputs: list[Tensor], output: Tensor, attrs=None) -> Graph:
    """A one-op graph with the given output shape; its non-constant operands are the graph inputs."""
    op = Op(kind, inputs, [output], attrs, name=kind.lower())
    return Graph([op], [t for t in inputs if t is not None and not t.is_const], [output], name=kind.lower())


def single_op(kind: str, operands: list[Tensor | None], out: Tensor, attrs) -> Graph:
    """A one-op graph whose output shape comes from the op's own rule; its first operand is the input."""
    op = Op(kind, operands, [out], attrs, name=kind.lower(), index=0)
    shape, _ = ops.infer(op)[0]
    out.shape = tuple(int(d) for d in shape)
    graph = Graph([op], [operands[0]], [out], name=kind.lower())
    graph.verify()
    problems = ops.problems(op)
    assert not problems, problems
    return graph


def random_conv(rng: np.random.Generator, in_hw: tuple[int, int], weights: tuple[int, int, int, int], attrs) -> Graph:
    """A one-CONV_2D graph on random int8 data: weights (oc, kh, kw, ic), a batch of 1 or 2, per-channel
    weight scales most of the time, a bias most of the time."""
    oc, kh, kw, ic = weights
    xq, wq = act_quant(rng), weight_quant(rng, oc, 0, rng.random() < 0.7)
    x = Tensor("input", (int(rng.choice([1, 1, 2])), *in_hw, ic), DType.INT8, xq)
    wt = Tensor("weights", weights, DType.INT8, wq, int8_weights(rng, weights))
    b = int32_bias(rng, oc, xq, wq) if rng.random() < 0.8 else None
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, kh * kw * ic))
    return single_op("CONV_2D", [x, wt, b], y, attrs)


def geometry(rng: np.random.Generator) -> dict:
    """Random window geometry whose output is not empty."""
    while True:
        g = dict(n=int(rng.choice([1, 1, 1, 2])), h=int(rng.integers(1, 13)), w=int(rng.integers(1, 13)),
                 kh=int(rng.integers(1, 6)), kw=int(rng.integers(1, 6)),
                 sh=int(rng.integers(1, 4)), sw=int(rng.integers(1, 4)),
                 dh=int(rng.choice([1, 1, 2, 3])), dw=int(rng.choice([1, 1, 2, 3])),
                 padding=str(rng.choice(["SAME", "VALID"])), act=str(rng.choice(ACTIVATIONS)))
        eff_h, eff_w = (g["kh"] - 1) * g["dh"] + 1, (g["kw"] - 1) * g["dw"] + 1
        if g["padding"] == "SAME" or (eff_h <= g["h"] and eff_w <= g["w"]):
            return g


def feed(rng: np.random.Generator, graph: Graph, extreme: bool = False) -> list[np.ndarray]:
    """The graph's first input: random, or (when `extreme`) all at the int8 minimum or maximum."""
    return [inputs.extreme_or_random(graph.inputs[0], rng, extreme)]


def corpus_cases(kinds: tuple[str, ...], rng: np.random.Generator) -> list[Case]:
    """Every op of `kinds` in the corpus models, alone in a graph, with random inputs: the real
    shapes and quantization our kernels must handle."""
    assert MODEL_FILES, "the corpus of models is missing"
    found = []
    for path in MODEL_FILES:
        for op in reader.read(path).ops:
            if op.kind in kinds:
                graph = Graph([op], [op.inputs[0]], [op.outputs[0]], name=op.kind.lower())
                found.append(Case(f"{path.name} {op.where} '{op.name}'", graph, feed(rng, graph)))
    return found
