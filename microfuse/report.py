"""report.json: what was built, where every tensor lives, and what each kernel call does."""

from __future__ import annotations

import numpy as np

from .lower import ConstArray


def _tensor(t, offsets) -> dict:
    return {"name": t.name, "shape": list(t.shape), "dtype": str(t.dtype), "bytes": t.nbytes,
            "offset": offsets.get(t)}


def _flash_bytes(call) -> int:
    return sum(np.asarray(v.data).nbytes for v in call.params.values() if isinstance(v, ConstArray))


def graph_section(graph) -> dict:
    """The source graph as read: ops with tensor names, and every tensor once."""
    from . import ops as opdefs

    source = [{
        "index": op.index, "kind": op.kind, "name": op.name,
        "activation": getattr(op.attrs, "activation", "NONE"),
        "inputs": [t.name for t in op.inputs if t is not None and not t.is_const],
        "outputs": [t.name for t in op.outputs],
        "macs": opdefs.macs(op),
    } for op in graph.ops]
    tensors = {t.name: {"shape": list(t.shape), "dtype": str(t.dtype), "bytes": t.nbytes, "const": t.is_const}
               for t in graph.tensors()}
    return {"source": source, "tensors": tensors}


def timeline_section(plan) -> tuple[list[dict], list[dict]]:
    """Buffers as rectangles (steps x arena bytes) and the bytes alive at each step."""
    from . import ops as opdefs

    overlap = {id(u.output): "in-place" if u.shift == 0 and u.output.nbytes == u.input.nbytes else "partial"
               for u in plan.overlaps}
    timeline = [{
        "tensor": b.name, "offset": b.offset, "bytes": b.size, "first_step": b.first, "last_step": b.last,
        "kind": "scratch" if b.scratch_of is not None else "activation",
        "overlaps": next((overlap[id(t)] for t in b.tensors if id(t) in overlap), None),
        "aliases": [t.name for t in b.tensors if t.name != b.name],
    } for b in plan.buffers]
    steps, call = [], 0
    for step, op in enumerate(plan.order):
        is_call = not opdefs.REGISTRY[op.kind].alias
        steps.append({"step": step, "call": call if is_call else None,
                      "alive_bytes": sum(b.size for b in plan.alive_at(step))})
        call += is_call
    return timeline, steps


def plan_section(plan) -> dict:
    s = plan.savings
    return {"arena_bytes": plan.arena_bytes, "lower_bound_bytes": plan.lower_bound_bytes,
            "overlap_bound_bytes": plan.overlap_bound_bytes, "peak_step": plan.peak_step,
            "savings": {"baseline_bytes": s.baseline_bytes, "reorder": s.reorder, "overlap": s.overlap,
                        "search": s.search}}


def build_report(compiled, banner: str) -> dict:
    plan, offsets = compiled.plan, compiled.plan.offsets
    timeline, steps = timeline_section(plan)
    calls = [{
        "index": i,
        "kernel": c.kernel,
        "kind": c.label,
        "source_ops": [op.index for op in c.sources],
        "inputs": [_tensor(t, offsets) for t in c.inputs],
        "outputs": [_tensor(t, offsets) for t in c.outputs],
        "macs": c.macs,
        "const_bytes": _flash_bytes(c),
        "scratch_bytes": c.scratch,
        "notes": list(c.notes),
    } for i, c in enumerate(compiled.calls)]
    return {
        "generator": banner,
        "name": compiled.name,
        "model": compiled.model_path,
        "command": compiled.options.command,
        "source_ops": len(compiled.source.ops),
        "kernel_calls": len(compiled.calls),
        "arena_bytes": plan.arena_bytes,
        "lower_bound_bytes": plan.lower_bound_bytes,
        "weights_bytes": sum(call["const_bytes"] for call in calls),
        "macs": sum(c.macs for c in compiled.calls),
        "inputs": [_tensor(t, offsets) for t in compiled.graph.inputs],
        "outputs": [_tensor(t, offsets) for t in compiled.graph.outputs],
        "graph": graph_section(compiled.source),
        "timeline": timeline,
        "steps": steps,
        "plan": plan_section(plan),
        "fusion": list(getattr(compiled, "fusion", [])),
        "board": None,
        "firmware": None,
        "bench": None,
        "calls": calls,
        "notes": list(compiled.notes),
    }
