"""SPACE_TO_BATCH_ND -> CONV_2D / DEPTHWISE_CONV_2D -> BATCH_TO_SPACE_ND (TensorFlow's old lowering
of a dilated convolution) folded back into one conv dilated by the block size.

With block b, paddings (pt, pb) and crops (ct, cb) on an axis, output row Y of the chain is
the inner (VALID, stride 1) conv of batch slot Y + ct mod b at row (Y + ct) div b, whose tap k
reads padded row Y + ct + k * b, i.e. input row Y + ct - pt + k * b. That is a conv with
dilation b and explicit top padding pt - ct; the bottom padding follows from the output
size. SPACE_TO_BATCH_ND pads with its output zero point (0.0 for float), which is what a
conv's padding taps read when both keep one quantization: the same bits.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..ir import DType, Graph, Op
from .fuse import accept
from .pad_fold import _same_quant
from .pattern import Match, Pattern, Rewriter, Rule, graph_rewrite

RULE = "dilate"
CONVS = ("CONV_2D", "DEPTHWISE_CONV_2D")


def _ints(op: Op, slot: int) -> list[int] | None:
    t = op.inputs[slot] if slot < len(op.inputs) else None
    return None if t is None or not t.is_const else [int(v) for v in np.asarray(t.data).reshape(-1)]


def _problem(m: Match, rw: Rewriter) -> str | None:
    s2b, conv, b2s = m["s2b"], m["conv"], m["b2s"]
    why = rw.view.private(s2b.outputs[0], conv) or rw.view.private(conv.outputs[0], b2s)
    if why:
        return why
    if conv.inputs[0] is not s2b.outputs[0] or b2s.inputs[0] is not conv.outputs[0]:
        return "the chain does not run through the conv's input and output"
    block, pads, block2, crops = _ints(s2b, 1), _ints(s2b, 2), _ints(b2s, 1), _ints(b2s, 2)
    if None in (block, pads, block2, crops) or len(block) != 2 or len(pads) != 4 or len(crops) != 4:
        return "block shapes, paddings and crops must be constant and 2-D spatial"
    if block != block2:
        return f"block shapes differ ({block} and {block2})"
    if min(block + pads + crops) < 0 or min(block) < 1:
        return "negative paddings or crops"
    a = conv.attrs
    if a.padding != "VALID" or (a.stride_h, a.stride_w, a.dilation_h, a.dilation_w) != (1, 1, 1, 1):
        return "the inner conv is not VALID with stride 1 and dilation 1"
    if conv.fused:
        return "the conv already has an epilogue"
    x = s2b.inputs[0]
    if x.dtype not in (DType.INT8, DType.FLOAT32):
        return f"{x.dtype} tensors"
    if not _same_quant(x, s2b.outputs[0]) or not _same_quant(conv.outputs[0], b2s.outputs[0]):
        return "SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND changes the quantization"
    return None


def dilated_pads(m: Match) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of the equivalent dilated conv, or None when a side would
    need negative padding (the chain crops into the image)."""
    s2b, conv, b2s = m["s2b"], m["conv"], m["b2s"]
    block, pads, crops = _ints(s2b, 1), _ints(s2b, 2), _ints(b2s, 2)
    _, h, w, _ = s2b.inputs[0].shape
    _, oh, ow, _ = b2s.outputs[0].shape
    _, kh, kw, _ = conv.inputs[1].shape
    found = []
    for axis, (size, out, k) in enumerate(((h, oh, kh), (w, ow, kw))):
        b, before, crop = block[axis], pads[2 * axis], crops[2 * axis]
        top = before - crop
        last_read = out - 1 - top + (k - 1) * b  # input row the last output's last tap reads
        found += [top, last_read - (size - 1)]
    return tuple(found) if min(found) >= 0 else None


def fold_dilated(m: Match, rw: Rewriter) -> list[Op] | None:
    s2b, conv, b2s = m["s2b"], m["conv"], m["b2s"]
    why = _problem(m, rw)
    pads = None if why else dilated_pads(m)
    if why or pads is None:
        rw.decline(RULE, m.all, why or "the crops cut into the image (negative padding)")
        return None
    bh, bw = _ints(s2b, 1)
    attrs = replace(conv.attrs, padding="EXPLICIT", pads=pads, dilation_h=bh, dilation_w=bw)
    new = Op(conv.kind, [s2b.inputs[0], *conv.inputs[1:]], list(b2s.outputs), attrs, conv.name, conv.index)
    return accept(rw, RULE, m, [new])


RULES = [Rule(RULE, Pattern("BATCH_TO_SPACE_ND", src=(Pattern(CONVS, src=(Pattern("SPACE_TO_BATCH_ND", name="s2b"),),
                                                             name="conv"),), name="b2s"), fold_dilated)]


def dilate(graph: Graph, rewriter: Rewriter | None = None) -> Graph:
    """The graph with every space-to-batch dilated conv made one dilated conv."""
    return graph_rewrite(graph, RULES, rewriter or Rewriter(graph))


__all__ = ["dilate", "RULES", "dilated_pads"]
