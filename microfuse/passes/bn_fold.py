"""Float batch-norm folding: a MUL and / or ADD by per-channel constants after a float conv,
depthwise or fully-connected op becomes part of its weights and bias.

    y = (W x + b) * s + c   ==   (W * s) x + (b * s + c)      (s, c per output channel)

Each op folds on its own (MUL, then the ADD that follows it, through the rewriting to a
fixpoint). The producer must have no activation (it would run before the scale) and no
epilogue; the MUL's / ADD's fused activation moves to the producer. The new weights and bias
are rounded to float32 once, so results differ from the unfolded chain by float rounding
only (the tests allow 1e-5 relative).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..ir import DType, Graph, Op, Tensor
from .fuse import accept
from .pattern import Match, Pattern, Rewriter, Rule, graph_rewrite

PRODUCERS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
RULE = "batchnorm"
CHANNEL_AXIS = {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 3, "FULLY_CONNECTED": 0}  # of the weights


def channel_constant(t: Tensor, channels: int) -> np.ndarray | None:
    """The per-channel values of a constant broadcast along the last axis ([C], [1,..,1,C],
    or one value), as float64 [channels]; None when it is anything else."""
    if not t.is_const or t.dtype != DType.FLOAT32:
        return None
    shape = tuple(t.shape)
    if any(d != 1 for d in shape[:-1]) or (shape and shape[-1] not in (1, channels)):
        return None
    data = np.asarray(t.data, np.float64).reshape(-1)
    return np.broadcast_to(data, (channels,)).copy() if data.size in (1, channels) else None


def _problem(m: Match, rw: Rewriter, values) -> str | None:
    producer, op = m["producer"], m["op"]
    mid = producer.outputs[0]
    why = rw.view.private(mid, op)
    if why:
        return why
    if mid.dtype != DType.FLOAT32 or op.outputs[0].dtype != DType.FLOAT32:
        return "not a float32 chain (int8 scales are requantized, not folded)"
    if producer.fused or producer.attrs.activation != "NONE":
        return "the producer has an activation or an epilogue that would run before the scale"
    if values is None:
        return "the other operand is not a per-channel float32 constant"
    if tuple(op.outputs[0].shape) != tuple(mid.shape):
        return "the constant broadcasts the output to another shape"
    return None


def _scaled_weights(op: Op, scale: np.ndarray) -> Tensor:
    w = op.inputs[1]
    shape = [1] * len(w.shape)
    shape[CHANNEL_AXIS[op.kind]] = -1
    data = (np.asarray(w.data, np.float64) * scale.reshape(shape)).astype(np.float32)
    return Tensor(f"{w.name}_bn", tuple(w.shape), DType.FLOAT32, None, data)


def _bias(op: Op, channels: int, scale: np.ndarray, shift: np.ndarray) -> Tensor:
    b = op.inputs[2] if len(op.inputs) > 2 else None
    base = np.zeros(channels) if b is None else np.asarray(b.data, np.float64).reshape(-1)
    data = (base * scale + shift).astype(np.float32)
    name = f"{b.name}_bn" if b is not None else f"{op.name}_bias_bn"
    return Tensor(name, (channels,), DType.FLOAT32, None, data)


def fold(m: Match, rw: Rewriter) -> list[Op] | None:
    producer, op = m["producer"], m["op"]
    other = op.inputs[1 - m.slot["producer"]]
    if not other.is_const:
        return None  # a residual, not a batch norm (passes/fuse.py's business): no candidate
    channels = producer.outputs[0].shape[-1]
    values = channel_constant(other, channels)
    why = _problem(m, rw, values)
    if why:
        rw.decline(RULE, m.all, why)
        return None
    if op.kind == "MUL":
        scale, shift = values, np.zeros(channels)
        weights = _scaled_weights(producer, scale)
    else:
        scale, shift = np.ones(channels), values
        weights = producer.inputs[1]
    inputs = [producer.inputs[0], weights, _bias(producer, channels, scale, shift), *producer.inputs[3:]]
    attrs = replace(producer.attrs, activation=op.attrs.activation)
    new = Op(producer.kind, inputs, list(op.outputs), attrs, producer.name, producer.index)
    return accept(rw, RULE, m, [new])


RULES = [Rule(RULE, Pattern(("MUL", "ADD"), src=(Pattern(PRODUCERS, name="producer"),), name="op",
                            commutative=True), fold)]


def bn_fold(graph: Graph, rewriter: Rewriter | None = None) -> Graph:
    """The graph with every float MUL / ADD by a per-channel constant folded into its producer."""
    return graph_rewrite(graph, RULES, rewriter or Rewriter(graph))


__all__ = ["bn_fold", "RULES", "channel_constant"]
