"""Model builders for the concatenation and horizontal-fusion tests: Inception-like blocks,
fire modules, contiguous concats, with the concat inputs sharing the output's quantization
(the TFLite converter does that; TFLM refuses an int8 concat otherwise)."""

from __future__ import annotations


from microfuse.ir import DType, Graph, Quant
from microfuse.ops.attrs import ConcatAttrs, ConvAttrs, FullyConnectedAttrs, LeakyReluAttrs, PoolAttrs
from microfuse.testing.modelgen import Net
from microfuse.testing.ptq import range_quant

INT8, FLOAT32 = DType.INT8, DType.FLOAT32


def conv(net: Net, x, out_ch: int, k: int = 3, stride: int = 1, act: str = "NONE"):
    c = x.shape[3]
    return net.op("CONV_2D", [x, net.weights((out_ch, k, k, c), k * k * c, 0), net.bias(out_ch)],
                  ConvAttrs("SAME", stride, stride, act), per_channel=True)


def fc(net: Net, x, units: int, act: str = "NONE"):
    return net.op("FULLY_CONNECTED", [x, net.weights((units, x.shape[-1]), x.shape[-1], 0), net.bias(units)],
                  FullyConnectedAttrs(act))


def pool(net: Net, x, kind: str = "MAX", k: int = 3, stride: int = 1):
    return net.op(f"{kind}_POOL_2D", [x], PoolAttrs("SAME", stride, stride, k, k))


def concat(net: Net, xs, axis: int = -1):
    return net.op("CONCATENATION", list(xs), ConcatAttrs(axis))


def share_concat_quant(graph: Graph) -> Graph:
    """Give every concat's inputs and output one quantization: a pool input's if one is a
    pool's output (pools keep their input's), else one covering every input's range."""
    for op in graph.ops:
        if op.kind != "CONCATENATION" or op.outputs[0].dtype != INT8:
            continue
        pooled = [t for t in op.inputs if graph.producer(t) is not None and "POOL" in graph.producer(t).kind]
        if pooled:
            q = pooled[0].quant
        else:
            lo = min(t.quant.scale[0] * (-128 - t.quant.zero_point[0]) for t in op.inputs)
            hi = max(t.quant.scale[0] * (127 - t.quant.zero_point[0]) for t in op.inputs)
            q = range_quant(lo, hi)
        for t in [*op.inputs, *op.outputs]:
            t.quant = Quant(q.scale, q.zero_point)
    for op in graph.ops:  # a pool keeps its (possibly changed) input's quantization
        if "POOL" in op.kind and op.outputs[0].dtype == INT8:
            op.outputs[0].quant = op.inputs[0].quant
    return graph


def inception(rng, dtype=INT8, shape=(1, 8, 8, 6)) -> Graph:
    """1x1 conv, 1x1 -> 3x3 conv, 3x3 max pool -> 1x1 conv, and a 3x3 max pool on the block
    input, concatenated on channels, then a 1x1 conv."""
    net = Net("inception", rng)
    x = net.input(shape)
    a = conv(net, x, 5, k=1, act="RELU")
    b = conv(net, conv(net, x, 4, k=1, act="RELU"), 6, k=3, act="RELU")
    c = conv(net, pool(net, x), 3, k=1)
    d = pool(net, conv(net, x, 4, k=3), "AVERAGE")
    y = concat(net, [a, b, c, d])
    return share_concat_quant(net.finish([conv(net, y, 4, k=1)], dtype))


def fire(rng, dtype=INT8, shape=(1, 6, 6, 8)) -> Graph:
    """SqueezeNet's fire module: squeeze 1x1, expand 1x1 and expand 3x3, concatenated."""
    net = Net("fire", rng)
    x = net.input(shape)
    s = conv(net, x, 3, k=1, act="RELU")
    y = concat(net, [conv(net, s, 4, k=1, act="RELU"), conv(net, s, 4, k=3, act="RELU")])
    return share_concat_quant(net.finish([pool(net, y, "AVERAGE", 2, 2)], dtype))


def contiguous(rng, dtype=INT8) -> Graph:
    """Concatenation along the outermost non-unit axis, so each slice is one run: two FC heads
    [1, u] joined on axis 1, and a conv map [1, 4, 4, 4] and a leaky-relu map [1, 2, 4, 4]
    (element-wise: no stride support needed) joined on axis 1."""
    net = Net("contiguous", rng)
    x = net.input((1, 4, 4, 3))
    flat = net.input((1, 12))
    z = net.input((1, 2, 4, 4))
    heads = concat(net, [fc(net, flat, 5, "RELU"), fc(net, flat, 7)], axis=1)
    rows = concat(net, [conv(net, x, 4), net.op("LEAKY_RELU", [z], LeakyReluAttrs(0.2))], axis=1)
    return share_concat_quant(net.finish([heads, rows], dtype))
