"""PAD folded into the padding of the conv / depthwise / max pool that reads it (explicit pads).

A convolution's padding taps read its input zero point (int8: they add nothing after the
offset fold) or 0.0 (float); PAD fills with its output zero point or 0.0. When PAD keeps the
quantization of its input, the conv may read PAD's input directly with padding "EXPLICIT" of
(PAD's pads + the conv's own): the same bits without the padded copy in the arena.

MAX_POOL_2D skips taps outside the image rather than reading them, so the fold is exact only
when the pad value is at most every value the input can hold (-128, or the producer's fused
activation clamps above the pad value) and every window keeps at least one image tap.
AVERAGE_POOL_2D never folds: it divides by the number of in-image taps.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op, Tensor
from ..ops.common import window_kernel, window_pads
from .fuse import accept
from .pattern import Match, Pattern, Rewriter, Rule, graph_rewrite

TARGETS = ("CONV_2D", "DEPTHWISE_CONV_2D", "MAX_POOL_2D")
RULE = "pad"


def spatial_pads(pad: Op) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of a 4-D PAD that pads only height and width, else None."""
    if len(pad.inputs) < 2 or pad.inputs[1] is None or not pad.inputs[1].is_const:
        return None
    if len(pad.inputs) > 2 and pad.inputs[2] is not None:
        return None  # PADV2-style explicit constant: not the zero point
    p = np.asarray(pad.inputs[1].data).reshape(-1, 2)
    if p.shape[0] != 4 or (p < 0).any() or p[0].any() or p[3].any():
        return None
    return int(p[1, 0]), int(p[1, 1]), int(p[2, 0]), int(p[2, 1])


def _same_quant(a: Tensor, b: Tensor) -> bool:
    if a.dtype != b.dtype:
        return False
    if a.dtype == DType.FLOAT32:
        return True
    return (a.quant is not None and b.quant is not None and len(a.quant.scale) == 1
            and a.quant.scale == b.quant.scale and a.quant.zero_point == b.quant.zero_point)


def pad_value(t: Tensor) -> float:
    """What PAD writes into its output `t`: the zero point (int8) or 0.0 (float)."""
    return int(t.quant.zero_point[0]) if t.dtype == DType.INT8 else 0.0


def floor_of(t: Tensor, rw: Rewriter) -> float | None:
    """The least value `t` can hold, when its producer's fused activation bounds it (else None)."""
    if t.dtype == DType.INT8 and t.quant is None:
        return None
    producer = rw.view.producer(t)
    act = getattr(getattr(producer, "attrs", None), "activation", "NONE")
    if producer is None or producer.fused or act == "NONE":
        return -128 if t.dtype == DType.INT8 else None
    if t.dtype == DType.INT8:
        return quant.activation_range(act, t)[0]
    return quant.activation_range_float(act)[0]


def _every_window_sees_the_image(op: Op, pads: tuple[int, int, int, int]) -> bool:
    _, h, w, _ = op.inputs[0].shape  # the unpadded input
    _, oh, ow, _ = op.outputs[0].shape
    kh, kw, _, _ = window_kernel(op)
    a = op.attrs
    for out, size, k, stride, before in ((oh, h, kh, a.stride_h, pads[0]), (ow, w, kw, a.stride_w, pads[2])):
        starts = np.arange(out) * stride - before
        if ((starts + k <= 0) | (starts >= size)).any():
            return False
    return True


def _problem(m: Match, rw: Rewriter) -> str | None:
    pad, op = m["pad"], m["op"]
    src, mid = pad.inputs[0], pad.outputs[0]
    why = rw.view.private(mid, op)
    if why:
        return why
    if op.inputs[0] is not mid:
        return "the padded tensor is not the window's input"
    if src.dtype not in (DType.INT8, DType.FLOAT32) or spatial_pads(pad) is None:
        return "PAD is not a constant, non-negative height/width padding of an int8 or float32 tensor"
    if not _same_quant(src, mid):
        return "PAD changes the quantization (its pad value is not the input's zero point)"
    if op.fused:
        return "the window op already has an epilogue"
    if op.kind == "MAX_POOL_2D":
        floor = floor_of(src, rw)
        if floor is None or floor < pad_value(mid):
            return (f"the pad value {pad_value(mid)} may exceed values of '{src.name}' "
                    "(max pool skips padding instead of reading it)")
    return None


def fold_pad(m: Match, rw: Rewriter) -> list[Op] | None:
    pad, op = m["pad"], m["op"]
    why = _problem(m, rw)
    if why:
        rw.decline(RULE, m.all, why)
        return None
    extra = spatial_pads(pad)
    own = window_pads(op)
    pads = tuple(a + b for a, b in zip(extra, own))
    attrs = replace(op.attrs, padding="EXPLICIT", pads=pads)
    new = Op(op.kind, [pad.inputs[0], *op.inputs[1:]], list(op.outputs), attrs, op.name, op.index, list(op.fused))
    if op.kind == "MAX_POOL_2D" and not _every_window_sees_the_image(new, pads):
        rw.decline(RULE, m.all, "a pool window would hold padding only")
        return None
    return accept(rw, RULE, m, [new])


RULES = [Rule(RULE, Pattern(TARGETS, src=(Pattern("PAD", name="pad"),), name="op"), fold_pad)]


def pad_fold(graph: Graph, rewriter: Rewriter | None = None) -> Graph:
    """The graph with every exact PAD -> conv / depthwise / max pool folded."""
    return graph_rewrite(graph, RULES, rewriter or Rewriter(graph))


__all__ = ["pad_fold", "RULES", "spatial_pads"]
