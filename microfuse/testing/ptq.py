"""Post-training int8 quantization of a float test graph the way TFLite's converter does it,
with TFLM (float kernels) as the calibrator."""

from __future__ import annotations

import numpy as np

from .. import oracle
from .. import ops as opdefs
from ..ir import DType, Graph, Op, Quant, Tensor
from ..tflite import writer

# Outputs whose quantization TFLM's int8 kernels fix (Prepare rejects anything else).
FIXED_OUTPUT = {"LOGISTIC": (1 / 256, -128), "TANH": (1 / 128, 0), "SOFTMAX": (1 / 256, -128)}
# Ops that move or select values without rescaling: the converter gives output = input quant.
# (TFLM's int8 RELU6 clamps in the input's scale and never requantizes, so it belongs here too.)
SAME_AS_INPUT = {"MAX_POOL_2D", "AVERAGE_POOL_2D", "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "PAD", "RELU6",
                 "CONCATENATION", "SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND"}
# Ops with int8 weights (input 1, symmetric, channel axis) and an int32 bias (input 2).
WEIGHT_AXIS = {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 3, "FULLY_CONNECTED": 0}
# Calibrated ranges are widened a little: a few calibration runs see fewer extremes than tests do.
MARGIN = 1.25


def f32(x: float) -> float:
    """A Python float that a .tflite file stores exactly (scales are float32 there)."""
    return float(np.float32(x))


def random_quant(rng: np.random.Generator) -> Quant:
    """An input quantization like a real model's: scale 0.006..0.1, zero point well inside int8."""
    return Quant((f32(10 ** rng.uniform(-2.2, -1.0)),), (int(rng.integers(-100, 101)),))


def range_quant(lo: float, hi: float) -> Quant:
    """Asymmetric int8 quantization covering [lo, hi] (widened to include 0, as TFLite does)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if hi - lo < 1e-6:
        hi = lo + 1e-3  # a constant tensor still needs a usable scale
    scale = f32((hi - lo) / 255.0)
    zero_point = int(np.clip(np.round(-128 - lo / scale), -128, 127))
    return Quant((scale,), (zero_point,))


def quantize_graph(graph: Graph, rng: np.random.Generator, per_channel: set[int], samples: int = 4,
                   input_quant: list[Quant] | None = None) -> Graph:
    """The int8 twin of a float32 graph: input quantization random (or `input_quant`), activations
    calibrated, weights symmetric (per channel for the op positions in `per_channel`), biases int32."""
    in_quant = _input_quants(graph, rng)
    if input_quant is not None:
        in_quant = {id(t): q for t, q in zip(graph.inputs, input_quant)}
    ranges = calibrate(graph, in_quant, rng, samples)
    new: dict[int, Tensor] = {id(t): _retype(t, in_quant[id(t)]) for t in graph.inputs}
    ops = []
    for pos, op in enumerate(graph.ops):
        inputs = []
        for i, t in enumerate(op.inputs):
            inputs.append(_operand(op, i, t, new, pos in per_channel))
            if t is not None:
                new[id(t)] = inputs[-1]  # the bias needs the weights' scales
        outputs = [_output(op, t, inputs, ranges) for t in op.outputs]
        new.update({id(t): o for t, o in zip(op.outputs, outputs)})
        ops.append(Op(op.kind, inputs, outputs, op.attrs, name=op.name, index=op.index))
    result = Graph(ops, [new[id(t)] for t in graph.inputs], [new[id(t)] for t in graph.outputs],
                   name=graph.name, metadata=dict(graph.metadata))
    result.verify(opdefs.infer)
    return result


def calibrate(graph: Graph, in_quant: dict[int, Quant], rng: np.random.Generator, samples: int
              ) -> dict[int, tuple[float, float]]:
    """Per tensor id: (min, max) over float runs on random int8 inputs, dequantized."""
    model = writer.write(graph)
    order = writer.tensor_order(graph)
    lo = {id(t): np.inf for t in order}
    hi = {id(t): -np.inf for t in order}
    for _ in range(samples):
        feeds = []
        for t in graph.inputs:
            q = in_quant[id(t)]
            raw = rng.integers(-128, 128, size=t.shape)
            feeds.append(((raw - q.zero_point[0]) * q.scale[0]).astype(np.float32))
        values = oracle.run_all_tensors(model, feeds)
        for i, t in enumerate(order):
            lo[id(t)] = min(lo[id(t)], float(values[i].min(initial=0.0)))
            hi[id(t)] = max(hi[id(t)], float(values[i].max(initial=0.0)))
    return {k: (lo[k], hi[k]) for k in lo}


def _input_quants(graph: Graph, rng: np.random.Generator) -> dict[int, Quant]:
    quants = {id(t): random_quant(rng) for t in graph.inputs}
    for op in graph.ops:  # int8 concatenation copies bytes: its inputs must share one quantization
        if op.kind == "CONCATENATION":
            shared = [t for t in op.inputs if id(t) in quants]
            for t in shared[1:]:
                quants[id(t)] = quants[id(shared[0])]
    return quants


def _retype(t: Tensor, quant: Quant | None, dtype: DType = DType.INT8, data=None) -> Tensor:
    return Tensor(t.name, tuple(t.shape), dtype, quant, data)


def _operand(op: Op, i: int, t: Tensor | None, new: dict[int, Tensor], per_channel: bool) -> Tensor | None:
    if t is None or id(t) in new:
        return None if t is None else new[id(t)]
    if not t.is_const or t.dtype != DType.FLOAT32:
        return _retype(t, t.quant, t.dtype, t.data)  # integer constants (shapes, axes, paddings)
    data = np.asarray(t.data, dtype=np.float64)
    if op.kind in WEIGHT_AXIS and i == 1:
        return _weights(t, data, WEIGHT_AXIS[op.kind] if per_channel else None)
    if op.kind in WEIGHT_AXIS and i == 2:
        x, w = new[id(op.inputs[0])].quant, new[id(op.inputs[1])].quant
        scales = np.asarray(w.scale) * x.scale[0]
        q = np.clip(np.round(data / scales), -(2 ** 31), 2 ** 31 - 1).astype(np.int32)
        return _retype(t, Quant(tuple(f32(s) for s in scales), (0,) * len(scales), 0 if len(scales) > 1 else None),
                       DType.INT32, q)
    quant = range_quant(data.min(), data.max())
    q = np.clip(np.round(data / quant.scale[0]) + quant.zero_point[0], -128, 127).astype(np.int8)
    return _retype(t, quant, DType.INT8, q)


def _weights(t: Tensor, data: np.ndarray, axis: int | None) -> Tensor:
    """Symmetric int8 in [-127, 127], zero point 0, one scale per channel of `axis` (or one)."""
    if axis is None:
        peak = np.array([np.abs(data).max()])
    else:
        peak = np.abs(np.moveaxis(data, axis, 0).reshape(data.shape[axis], -1)).max(axis=1)
    scales = np.array([f32(s) for s in np.where(peak > 0, peak / 127.0, 1.0)])
    shape = [1] * data.ndim
    if axis is not None:
        shape[axis] = -1
    q = np.clip(np.round(data / scales.reshape(shape)), -127, 127).astype(np.int8)
    return _retype(t, Quant(tuple(scales.tolist()), (0,) * len(scales), axis), DType.INT8, q)


def _output(op: Op, t: Tensor, inputs: list[Tensor | None], ranges: dict) -> Tensor:
    if op.kind in FIXED_OUTPUT:
        scale, zp = FIXED_OUTPUT[op.kind]
        return _retype(t, Quant((f32(scale),), (zp,)))
    if op.kind in SAME_AS_INPUT:
        return _retype(t, inputs[0].quant)
    lo, hi = ranges[id(t)]
    return _retype(t, range_quant(lo * MARGIN, hi * MARGIN))
