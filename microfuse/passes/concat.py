"""CONCATENATION eliminated: each producer writes straight into its slice of the output.

The output becomes one buffer; every input becomes a views.Slice of it (the same name,
shape and quantization, at a byte offset, with a row stride) and the concatenation a
CONCAT_VIEW (no call, no copy). Along the outermost non-unit axis a slice is one run of
bytes, so any kernel can write it; along the last axis (channels in NHWC) it is strided,
and only producers whose kernels take an output stride qualify (conv, depthwise, pools,
fully-connected, horizontally fused siblings; their reference and fast kernels take an
`out_stride`). Declined, with the reason logged, when:
- the copy is not plain: int8 inputs quantized unlike the output (TFLM refuses them anyway);
- an input is a graph input or output, a constant, listed twice, made by an alias or
  another eliminated concatenation, or not made by an op with a kernel;
- an input is read by another op as well: a strided slice must be read by the concat
  only; a contiguous one may be read by other kernels, never by an alias;
- the producer has no kernel variant for the slice (lowering is tried), or the cost model
  says it loses.
"""

from __future__ import annotations

from dataclasses import replace as dc_replace

from .. import ops as opdefs
from .. import views
from ..ir import DType, Graph, Op, Tensor
from .fuse import cost_model, kernel_problem
from .pattern import Rewriter, View

RULE = "concat"
STRIDED_PRODUCERS = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D", "FULLY_CONNECTED",
                     "SIBLINGS")


def eliminate_concat(graph: Graph, rewriter: Rewriter | None = None) -> Graph:
    """The graph with every winning concatenation turned into slices of its output."""
    rw = rewriter or Rewriter(graph)
    done: set[int] = set()  # concats already decided (a declined one is not retried)
    while True:
        rw.view = View(graph)
        target = next((op for op in graph.ops if op.kind == "CONCATENATION" and id(op) not in done), None)
        if target is None:
            return graph
        done.add(id(target))
        graph = _eliminate(target, rw) or graph


def _eliminate(op: Op, rw: Rewriter) -> Graph | None:
    view = rw.view
    producers = [view.producer(t) for t in op.inputs]
    involved = [op, *{id(p): p for p in producers if p is not None}.values()]
    layouts = views.slice_layout(op)
    why = _refusal(op, producers, layouts, view)
    if why:
        rw.decline(RULE, involved, why)
        return None
    out = op.outputs[0]
    swap: dict[int, Op] = {}  # old op id -> its replacement
    slices = []
    for t, layout, producer in zip(op.inputs, layouts, producers):
        s = views.make_slice(t, out, layout)
        slices.append(s)
        current = swap.get(id(producer), producer)
        swap[id(producer)] = _writing(current, t, s)
        for reader in view.consumers(t):
            if reader is not op:
                current = swap.get(id(reader), reader)
                swap[id(reader)] = _reading(current, t, s)
    swap[id(op)] = Op(views.CONCAT_VIEW, slices, [out], op.attrs, op.name, op.index)
    after = Graph([swap.get(id(o), o) for o in rw.graph.ops], list(rw.graph.inputs), list(rw.graph.outputs),
                  rw.graph.name, dict(rw.graph.metadata))
    changed = [o for o in after.ops if o.kind != views.CONCAT_VIEW and o not in rw.graph.ops]
    problem = kernel_problem(rw, changed)
    if problem:
        rw.decline(RULE, involved, f"no kernel: {problem}")
        return None
    verdict = cost_model(rw).judge(rw.graph, after, rw.optimize)
    strided = sum(s.strided for s in slices)
    what = f"{len(slices)} slices ({strided} strided): " if verdict.fuse else ""
    rw.decide(RULE, involved, verdict.fuse, what + verdict.reason)
    return after if verdict.fuse else None


def _refusal(op: Op, producers: list[Op | None], layouts, view) -> str | None:
    out = op.outputs[0]
    if out.dtype not in (DType.INT8, DType.FLOAT32):
        return f"{out.dtype} concatenation"
    if out.dtype == DType.INT8 and any(t.quant != out.quant for t in op.inputs):
        return "an input is quantized unlike the output (not a plain copy)"
    if len({id(t) for t in op.inputs}) != len(op.inputs):
        return "an input is listed twice"
    axis = op.attrs.axis % len(out.shape)
    for t, producer, (_, rows, row_bytes, stride) in zip(op.inputs, producers, layouts):
        strided = rows > 1 and stride != row_bytes
        why = _input_refusal(op, t, producer, strided, axis, view)
        if why:
            return why
    return None


def _input_refusal(op: Op, t: Tensor, producer: Op | None, strided: bool, axis: int, view) -> str | None:
    name = f"'{t.name}'"
    if t.is_const:
        return f"input {name} is a constant"
    if producer is None:
        return f"input {name} is a graph input"
    if view.is_output(t):
        return f"input {name} is a graph output"
    if views.is_slice(t):
        return f"input {name} is already a slice of another buffer"
    d = opdefs.REGISTRY.get(producer.kind)
    if d is None or d.alias:
        return f"input {name} is made by {producer.kind} (no kernel of its own)"
    others = [c for c in view.consumers(t) if c is not op]
    if strided:
        if axis != len(t.shape) - 1:
            return f"input {name} would be strided on axis {axis}, not the last one"
        if producer.kind not in STRIDED_PRODUCERS:
            return f"input {name} would be strided and {producer.kind} kernels write dense outputs only"
        if others:
            return f"input {name} is also read by {others[0].where} (a strided slice is read by the concat only)"
    for c in others:
        dc = opdefs.REGISTRY.get(c.kind)
        if dc is None or dc.alias:
            return f"input {name} is also read by {c.where}, an alias"
    return None


def _writing(op: Op, old: Tensor, new: Tensor) -> Op:
    """A copy of op writing `new` where it wrote `old` (a fused op's last step too)."""
    outputs = [new if t is old else t for t in op.outputs]
    fused = [dc_replace(step, output=new) if step.output is old else step for step in op.fused]
    return Op(op.kind, list(op.inputs), outputs, op.attrs, op.name, op.index, fused)


def _reading(op: Op, old: Tensor, new: Tensor) -> Op:
    """A copy of op reading `new` where it read `old` (an epilogue operand too)."""
    inputs = [new if t is old else t for t in op.inputs]
    fused = [dc_replace(step, operand=new) if step.operand is old else step for step in op.fused]
    return Op(op.kind, inputs, list(op.outputs), op.attrs, op.name, op.index, fused)


__all__ = ["eliminate_concat", "RULE"]
