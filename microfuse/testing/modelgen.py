"""Single-op and tiny multi-op test graphs (float32 or int8) with random, converter-like weights
and quantization; every one loads and runs in TFLM once written."""

from __future__ import annotations

import numpy as np

from .. import ops as opdefs
from ..ir import DType, Graph, Op, Quant, Tensor
from ..ops.attrs import (ActivationAttrs, ConcatAttrs, ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs,
                         LeakyReluAttrs, NoAttrs, PoolAttrs, ReducerAttrs, ReshapeAttrs, SoftmaxAttrs)
from . import ptq

INT8, FLOAT32 = DType.INT8, DType.FLOAT32
UNARY_KINDS = ("RELU", "RELU6", "LEAKY_RELU", "HARD_SWISH", "LOGISTIC", "TANH")


class Net:
    """Builds a float32 graph op by op (output shapes from ops.infer), then its int8 twin."""

    def __init__(self, name: str, rng: np.random.Generator):
        self.name, self.rng = name, rng
        self.ops: list[Op] = []
        self.inputs: list[Tensor] = []
        self.per_channel: set[int] = set()  # op positions whose weights get one scale per channel
        self._n = 0

    def _name(self, what: str) -> str:
        self._n += 1
        return f"{what}_{self._n}"

    def input(self, shape) -> Tensor:
        t = Tensor(self._name("input"), tuple(shape), FLOAT32)
        self.inputs.append(t)
        return t

    def const(self, data: np.ndarray, what: str) -> Tensor:
        data = np.asarray(data)
        dtype = DType.INT32 if data.dtype.kind in "iu" else FLOAT32
        return Tensor(self._name(what), tuple(data.shape), dtype, data=data.astype(dtype.np))

    def op(self, kind: str, inputs: list[Tensor | None], attrs=None, per_channel: bool = False) -> Tensor:
        out = Tensor(self._name(kind.lower()), (), FLOAT32)
        op = Op(kind, inputs, [out], attrs, name=out.name, index=len(self.ops))
        shape, dtype = opdefs.infer(op)[0]
        out.shape, out.dtype = tuple(int(d) for d in shape), dtype or FLOAT32
        if per_channel:
            self.per_channel.add(len(self.ops))
        self.ops.append(op)
        return out

    def weights(self, shape, fan_in: int, channel_axis: int) -> Tensor:
        """Glorot-like weights whose channels differ in size (so per-channel scales differ)."""
        w = self.rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=shape)
        spread = 10 ** self.rng.uniform(-0.5, 0.5, size=shape[channel_axis])
        bshape = [1] * len(shape)
        bshape[channel_axis] = -1
        return self.const((w * spread.reshape(bshape)).astype(np.float32), "weights")

    def bias(self, n: int) -> Tensor:
        return self.const(self.rng.normal(0.0, 0.5, size=n).astype(np.float32), "bias")

    def finish(self, outputs: list[Tensor], dtype: DType, input_quant: list[Quant] | None = None) -> Graph:
        graph = Graph(self.ops, self.inputs, outputs, name=self.name)
        graph.verify(opdefs.infer)
        if dtype == FLOAT32:
            return graph
        if dtype != INT8:
            raise ValueError(f"modelgen makes float32 or int8 graphs, not {dtype}")
        return ptq.quantize_graph(graph, self.rng, self.per_channel, input_quant=input_quant)


def _pair(v) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


# -- convolutions and dense ---------------------------------------------------------------------

def conv2d(rng, in_shape=(1, 8, 8, 3), out_ch=4, kernel=(3, 3), stride=(1, 1), padding="SAME",
           dilation=(1, 1), activation="NONE", per_channel=True, bias=True, dtype=INT8) -> Graph:
    (kh, kw), (sh, sw), (dh, dw) = _pair(kernel), _pair(stride), _pair(dilation)
    net = Net("conv2d", rng)
    x = net.input(in_shape)
    w = net.weights((out_ch, kh, kw, in_shape[3]), kh * kw * in_shape[3], 0)
    attrs = ConvAttrs(padding, sw, sh, activation, dw, dh)
    y = net.op("CONV_2D", [x, w, net.bias(out_ch) if bias else None], attrs, per_channel)
    return net.finish([y], dtype)


def depthwise(rng, in_shape=(1, 8, 8, 4), multiplier=1, kernel=(3, 3), stride=(1, 1), padding="SAME",
              dilation=(1, 1), activation="NONE", per_channel=True, dtype=INT8) -> Graph:
    """Always with a bias: TFLM's DEPTHWISE_CONV_2D crashes without one (the converter always adds it)."""
    (kh, kw), (sh, sw), (dh, dw) = _pair(kernel), _pair(stride), _pair(dilation)
    out_ch = in_shape[3] * multiplier
    net = Net("depthwise", rng)
    x = net.input(in_shape)
    w = net.weights((1, kh, kw, out_ch), kh * kw, 3)
    attrs = DepthwiseAttrs(padding, sw, sh, multiplier, activation, dw, dh)
    y = net.op("DEPTHWISE_CONV_2D", [x, w, net.bias(out_ch)], attrs, per_channel)
    return net.finish([y], dtype)


def fully_connected(rng, in_shape=(1, 16), units=8, activation="NONE", per_channel=False, bias=True,
                    keep_num_dims=False, dtype=INT8) -> Graph:
    depth = in_shape[-1]
    net = Net("fully_connected", rng)
    x = net.input(in_shape)
    w = net.weights((units, depth), depth, 0)
    attrs = FullyConnectedAttrs(activation, 0, keep_num_dims)
    y = net.op("FULLY_CONNECTED", [x, w, net.bias(units) if bias else None], attrs, per_channel)
    return net.finish([y], dtype)


def pool(rng, kind="MAX", in_shape=(1, 8, 8, 4), filter=(2, 2), stride=(2, 2), padding="VALID",
         activation="NONE", dtype=INT8) -> Graph:
    """kind: 'MAX' or 'AVERAGE'."""
    (fh, fw), (sh, sw) = _pair(filter), _pair(stride)
    net = Net(f"{kind.lower()}_pool", rng)
    x = net.input(in_shape)
    y = net.op(f"{kind}_POOL_2D", [x], PoolAttrs(padding, sw, sh, fw, fh, activation))
    return net.finish([y], dtype)


# -- element-wise -------------------------------------------------------------------------------

def binary(rng, kind="ADD", shape_a=(1, 4, 4, 8), shape_b=None, activation="NONE", const_b=False,
           dtype=INT8) -> Graph:
    """ADD, SUB or MUL; shape_b broadcasts against shape_a; const_b makes b a constant."""
    shape_b = tuple(shape_a if shape_b is None else shape_b)
    net = Net(kind.lower(), rng)
    a = net.input(shape_a)
    b = net.const(rng.normal(0, 1, size=shape_b).astype(np.float32), "operand") if const_b else net.input(shape_b)
    y = net.op(kind, [a, b], ActivationAttrs(activation))
    return net.finish([y], dtype)


def add(rng, **kw) -> Graph:
    return binary(rng, "ADD", **kw)


def sub(rng, **kw) -> Graph:
    return binary(rng, "SUB", **kw)


def mul(rng, **kw) -> Graph:
    return binary(rng, "MUL", **kw)


def unary(rng, kind="RELU", shape=(1, 4, 4, 8), alpha=0.2, dtype=INT8) -> Graph:
    """One of UNARY_KINDS; alpha is LEAKY_RELU's slope."""
    if kind not in UNARY_KINDS:
        raise ValueError(f"unary kind must be one of {UNARY_KINDS}, not {kind!r}")
    net = Net(kind.lower(), rng)
    x = net.input(shape)
    y = net.op(kind, [x], LeakyReluAttrs(float(np.float32(alpha))) if kind == "LEAKY_RELU" else None)
    if kind in ("LOGISTIC", "TANH"):  # inputs within about +-4: the curved part, not only the flat tails
        return net.finish([y], dtype, [ptq.range_quant(-rng.uniform(3, 5), rng.uniform(3, 5))])
    return net.finish([y], dtype)


def softmax(rng, shape=(1, 10), beta=1.0, dtype=INT8) -> Graph:
    net = Net("softmax", rng)
    y = net.op("SOFTMAX", [net.input(shape)], SoftmaxAttrs(float(np.float32(beta))))
    return net.finish([y], dtype)


# -- shape and data movement ---------------------------------------------------------------------

def pad(rng, shape=(1, 4, 4, 3), paddings=((0, 0), (1, 1), (2, 0), (0, 0)), dtype=INT8) -> Graph:
    net = Net("pad", rng)
    x = net.input(shape)
    y = net.op("PAD", [x, net.const(np.array(paddings, np.int32), "paddings")], NoAttrs())
    return net.finish([y], dtype)


def mean(rng, shape=(1, 4, 4, 8), axes=(1, 2), keep_dims=True, dtype=INT8) -> Graph:
    net = Net("mean", rng)
    x = net.input(shape)
    y = net.op("MEAN", [x, net.const(np.array(axes, np.int32), "axes")], ReducerAttrs(keep_dims))
    return net.finish([y], dtype)


def concatenation(rng, shapes=((1, 4, 4, 3), (1, 4, 4, 5)), axis=-1, dtype=INT8) -> Graph:
    net = Net("concatenation", rng)
    xs = [net.input(s) for s in shapes]
    y = net.op("CONCATENATION", xs, ConcatAttrs(axis, "NONE"))
    return net.finish([y], dtype)


def reshape(rng, in_shape=(1, 4, 4, 2), new_shape=(1, 32), dtype=INT8) -> Graph:
    net = Net("reshape", rng)
    x = net.input(in_shape)
    target = net.const(np.array(new_shape, np.int32), "shape")
    y = net.op("RESHAPE", [x, target], ReshapeAttrs(tuple(int(d) for d in new_shape)))
    return net.finish([y], dtype)


# -- quantization boundary ops (built directly: there is no float twin to calibrate) -----------

def quantize(rng, shape=(1, 4, 4, 3), src=FLOAT32) -> Graph:
    """float32 -> int8 (QUANTIZE), or int8 -> int8 with a new scale (requantize) when src is INT8."""
    x = Tensor("input", tuple(shape), src, ptq.random_quant(rng) if src == INT8 else None)
    # float inputs in tests are ~N(0, 1): cover about +-4 with some offset
    out_q = ptq.random_quant(rng) if src == INT8 else ptq.range_quant(-rng.uniform(2, 5), rng.uniform(2, 5))
    y = Tensor("output", tuple(shape), INT8, out_q)
    return _single("quantize", Op("QUANTIZE", [x], [y], NoAttrs(), name="quantize", index=0))


def dequantize(rng, shape=(1, 4, 4, 3)) -> Graph:
    x = Tensor("input", tuple(shape), INT8, ptq.random_quant(rng))
    y = Tensor("output", tuple(shape), FLOAT32)
    return _single("dequantize", Op("DEQUANTIZE", [x], [y], NoAttrs(), name="dequantize", index=0))


def _single(name: str, op: Op) -> Graph:
    graph = Graph([op], [op.inputs[0]], [op.outputs[0]], name=name)
    graph.verify(opdefs.infer)
    return graph


# -- tiny multi-op graphs ------------------------------------------------------------------------

def small_cnn(rng, in_shape=(1, 12, 12, 1), classes=5, dtype=INT8) -> Graph:
    """conv+relu -> depthwise+relu6 (stride 2) -> max pool -> reshape -> fully connected -> softmax."""
    net = Net("small_cnn", rng)
    x = net.input(in_shape)
    c = in_shape[3]
    x = net.op("CONV_2D", [x, net.weights((4, 3, 3, c), 9 * c, 0), net.bias(4)],
               ConvAttrs("SAME", 1, 1, "RELU"), per_channel=True)
    x = net.op("DEPTHWISE_CONV_2D", [x, net.weights((1, 3, 3, 4), 9, 3), net.bias(4)],
               DepthwiseAttrs("SAME", 2, 2, 1, "RELU6"), per_channel=True)
    x = net.op("MAX_POOL_2D", [x], PoolAttrs("VALID", 2, 2, 2, 2))
    flat = int(np.prod(x.shape[1:]))
    x = net.op("RESHAPE", [x, net.const(np.array([1, flat], np.int32), "shape")], ReshapeAttrs((1, flat)))
    w = net.weights((classes, flat), flat, 0)
    w.data *= 0.25  # modest logits, so the softmax spreads over several classes
    x = net.op("FULLY_CONNECTED", [x, w, net.bias(classes)], FullyConnectedAttrs())
    y = net.op("SOFTMAX", [x], SoftmaxAttrs(1.0))
    return net.finish([y], dtype)


def residual(rng, shape=(1, 8, 8, 8), dtype=INT8) -> Graph:
    """conv+relu -> conv, added back to the block input, relu: a ResNet basic block."""
    net = Net("residual", rng)
    x = net.input(shape)
    c = shape[3]
    h = net.op("CONV_2D", [x, net.weights((c, 3, 3, c), 9 * c, 0), net.bias(c)],
               ConvAttrs("SAME", 1, 1, "RELU"), per_channel=True)
    h = net.op("CONV_2D", [h, net.weights((c, 3, 3, c), 9 * c, 0), net.bias(c)],
               ConvAttrs("SAME", 1, 1, "NONE"), per_channel=True)
    y = net.op("ADD", [x, h], ActivationAttrs("RELU"))
    return net.finish([y], dtype)


__all__ = ["Net", "conv2d", "depthwise", "fully_connected", "pool", "binary", "add", "sub", "mul", "unary",
           "softmax", "pad", "mean", "concatenation", "reshape", "quantize", "dequantize", "small_cnn",
           "residual", "UNARY_KINDS"]


def merge(graphs: list[Graph], name: str = "cases") -> Graph:
    """One graph holding every case side by side (tensors renamed to stay unique)."""
    ops, inputs, outputs, seen = [], [], [], set()
    for i, g in enumerate(graphs):
        for t in g.tensors():
            if id(t) not in seen:
                seen.add(id(t))
                t.name = f"c{i}_{t.name}"
                t.index = -1
        ops += g.ops
        inputs += g.inputs
        outputs += g.outputs
    for k, op in enumerate(ops):
        op.index = k
    graph = Graph(ops, inputs, outputs, name=name)
    graph.verify(opdefs.infer)
    return graph
