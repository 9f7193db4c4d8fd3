"""Small synthetic graphs for planner tests, built with ir.Tensor / ir.Op and the op shape rules."""

from __future__ import annotations

import numpy as np

from microfuse import ops
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.ops.attrs import (ActivationAttrs, ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs,
                                 PoolAttrs, ReshapeAttrs)

Q = Quant((0.05,), (0,))


class Builder:
    """Appends ops to a graph, inferring each output's shape from the op's rule."""

    def __init__(self, dtype: DType = DType.INT8, seed: int = 0):
        self.ops: list[Op] = []
        self.inputs: list[Tensor] = []
        self.dtype = dtype
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def _name(self, what: str) -> str:
        self.count += 1
        return f"{what}{self.count}"

    def input(self, shape: tuple[int, ...]) -> Tensor:
        t = Tensor(self._name("in"), tuple(shape), self.dtype, Q)
        self.inputs.append(t)
        return t

    def const(self, shape: tuple[int, ...], dtype: DType | None = None) -> Tensor:
        dtype = dtype or self.dtype
        data = self.rng.integers(-3, 4, size=shape).astype(dtype.np)
        return Tensor(self._name("w"), tuple(shape), dtype, Q, data)

    def op(self, kind: str, inputs: list[Tensor | None], attrs, dtype: DType | None = None) -> Tensor:
        op = Op(kind, inputs, [], attrs, name=self._name(kind.lower()), index=len(self.ops))
        (shape, inferred), = ops.infer(op)
        out = Tensor(op.name + ":0", tuple(shape), dtype or inferred or inputs[0].dtype, Q)
        op.outputs.append(out)
        self.ops.append(op)
        return out

    def conv(self, x: Tensor, cout: int, k: int = 3, stride: int = 1, padding: str = "SAME",
             dilation: int = 1) -> Tensor:
        w = self.const((cout, k, k, x.shape[3]))
        b = self.const((cout,), DType.INT32)
        return self.op("CONV_2D", [x, w, b], ConvAttrs(padding, stride, stride, "NONE", dilation, dilation))

    def dw(self, x: Tensor, k: int = 3, stride: int = 1, padding: str = "SAME", mult: int = 1) -> Tensor:
        w = self.const((1, k, k, x.shape[3] * mult))
        b = self.const((x.shape[3] * mult,), DType.INT32)
        return self.op("DEPTHWISE_CONV_2D", [x, w, b], DepthwiseAttrs(padding, stride, stride, mult))

    def pool(self, x: Tensor, k: int | tuple[int, int] = 2, stride: int = 2, padding: str = "VALID",
             kind: str = "AVERAGE_POOL_2D") -> Tensor:
        kh, kw = (k, k) if isinstance(k, int) else k
        return self.op(kind, [x], PoolAttrs(padding, stride, stride, kw, kh))

    def add(self, a: Tensor, b: Tensor, kind: str = "ADD") -> Tensor:
        return self.op(kind, [a, b], ActivationAttrs())

    def unary(self, x: Tensor, kind: str = "RELU") -> Tensor:
        return self.op(kind, [x], None)

    def fc(self, x: Tensor, units: int) -> Tensor:
        depth = x.shape[-1]
        return self.op("FULLY_CONNECTED", [x, self.const((units, depth)), self.const((units,), DType.INT32)],
                       FullyConnectedAttrs())

    def reshape(self, x: Tensor, shape: tuple[int, ...]) -> Tensor:
        return self.op("RESHAPE", [x, None], ReshapeAttrs(tuple(shape)))

    def graph(self, outputs: list[Tensor], name: str = "synthetic") -> Graph:
        g = Graph(list(self.ops), list(self.inputs), list(outputs), name)
        g.verify()
        return g


def kws_like() -> Graph:
    """The DS-CNN keyword-spotting shape chain (25x5x64 activations)."""
    b = Builder()
    x = b.conv(b.input((1, 49, 10, 1)), 64, k=3, stride=2)
    for _ in range(4):
        x = b.conv(b.dw(x), 64, k=1)
    x = b.pool(x, k=(25, 5), stride=1)
    x = b.reshape(x, (1, 64))
    return b.graph([b.fc(x, 12)])


def residual() -> Graph:
    """A ResNet block: the skip tensor stays alive across two convolutions."""
    b = Builder()
    x = b.conv(b.input((1, 8, 8, 3)), 8)
    y = b.conv(b.conv(x, 8), 8)
    z = b.add(x, y)
    side = b.conv(z, 16, k=1, stride=2)
    main = b.conv(b.conv(z, 16, stride=2), 16)
    return b.graph([b.add(side, main)])


UNARY = ["RELU", "RELU6", "LOGISTIC", "TANH", "HARD_SWISH"]


def random_graph(draw, st, max_ops: int = 8) -> Graph:
    """A random graph with branches (hypothesis `draw` and `strategies` passed in)."""
    b = Builder(draw(st.sampled_from([DType.INT8, DType.FLOAT32])), seed=draw(st.integers(0, 9)))
    x = b.input((1, draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 3))))
    pool = [x]
    for _ in range(draw(st.integers(1, max_ops))):
        src = draw(st.sampled_from(pool))
        kind = draw(st.sampled_from(["conv", "dw", "unary", "add", "pool", "reshape", "requant"]))
        if kind == "conv":
            t = b.conv(src, draw(st.integers(1, 3)), draw(st.sampled_from([1, 3])), draw(st.integers(1, 2)))
        elif kind == "dw":
            k, stride = draw(st.sampled_from([1, 3])), draw(st.integers(1, 2))
            t = b.dw(src, k, stride, mult=draw(st.integers(1, 2)))
        elif kind == "unary":
            t = b.unary(src, draw(st.sampled_from(UNARY)))
        elif kind == "add":
            same = [p for p in pool if p.shape == src.shape and p.dtype == src.dtype]
            other = draw(st.sampled_from(same)) if draw(st.booleans()) else b.input((1, 1, 1, src.shape[3]))
            other.dtype = src.dtype
            t = b.add(src, other, draw(st.sampled_from(["ADD", "SUB", "MUL"])))
        elif kind == "pool":
            t = b.pool(src, 2, 2, "SAME", draw(st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"])))
        elif kind == "reshape":
            n, h, w, c = src.shape
            t = b.reshape(src, (n, w, h, c))
        elif src.dtype == DType.INT8:
            t = b.op("QUANTIZE", [b.op("DEQUANTIZE", [src], None, DType.FLOAT32)], None, DType.INT8)
        else:
            t = b.op("DEQUANTIZE", [b.op("QUANTIZE", [src], None, DType.INT8)], None, DType.FLOAT32)
        pool.append(t)
    outs = [pool[-1]]
    if draw(st.booleans()) and len(pool) > 2:
        extra = draw(st.sampled_from(pool[1:-1]))
        if extra not in outs:
            outs.append(extra)
    if draw(st.booleans()):
        flat = b.reshape(outs[0], (1, outs[0].elements))
        outs[0] = b.fc(flat, draw(st.integers(1, 6)))
    return b.graph(outs)
