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


def build_report(compiled, banner: str) -> dict:
    plan, offsets = compiled.plan, compiled.plan.offsets
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
        "board": None,
        "firmware": None,
        "bench": None,
        "calls": calls,
        "notes": list(compiled.notes),
    }
