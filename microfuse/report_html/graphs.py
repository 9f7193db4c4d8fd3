"""The graphs to draw: source ops, fused kernel calls, and an inspected model, as nodes and edges."""

from __future__ import annotations

from .fmt import count, family, shape, si
from .graph_layout import Edge, GraphLayout, Node, layout


def _io_nodes(tensors: list[dict], role: str) -> list[Node]:
    return [Node((f"{role} · {t.get('name', '')}", f"{shape(t.get('shape'))} {t.get('dtype', '')}"),
                 f"graph {role} {t.get('name', '')}\n{shape(t.get('shape'))} {t.get('dtype', '')}",
                 f"io io-{role}", io=True) for t in tensors]


def _tensor_line(names: list, tensors: dict) -> str:
    return ", ".join(f"{n} {shape((tensors.get(n) or {}).get('shape'))}" for n in names)


def _connect(nodes_inputs: list[list[str]], origin: dict[str, int], offset: int, tensors: dict) -> list[Edge]:
    """Edges from each tensor's origin node to the node (offset + k) that reads it."""
    edges: dict[tuple[int, int], list[str]] = {}
    for k, names in enumerate(nodes_inputs):
        for name in names:
            src = origin.get(name)
            if src is not None and src != offset + k:
                edges.setdefault((src, offset + k), []).append(name)
    return [Edge(s, d, "\n".join(f"{n}: {shape((tensors.get(n) or {}).get('shape'))}" for n in names))
            for (s, d), names in sorted(edges.items())]


def _outputs(outputs: list[dict], origin: dict[str, int], first: int, tensors: dict) -> list[Edge]:
    return _connect([[t.get("name")] for t in outputs], origin, first, tensors)


def source_graph(report: dict) -> GraphLayout:
    """The model as read: one box per TFLite op, in execution order."""
    graph = report.get("graph") or {}
    ops, tensors = graph.get("source") or [], graph.get("tensors") or {}
    call_of = {i: c.get("index", k) for k, c in enumerate(report.get("calls") or []) for i in c.get("source_ops", [])}
    inputs, outputs = report.get("inputs") or [], report.get("outputs") or []
    nodes = _io_nodes(inputs, "input")
    origin = {t.get("name"): k for k, t in enumerate(inputs)}
    for op in ops:
        act = op.get("activation") or "NONE"
        title = f"op {op.get('index')} {op.get('kind')}" + ("" if act == "NONE" else f" + {act}")
        outs = op.get("outputs") or []
        line = " ".join(shape((tensors.get(n) or {}).get("shape")) for n in outs[:2]) + f" · {si(op.get('macs'))} MACs"
        call = call_of.get(op.get("index"))
        tip = (f"op {op.get('index')} {op.get('kind')} '{op.get('name', '')}'\nactivation: {act}\n"
               f"in: {_tensor_line(op.get('inputs') or [], tensors)}\nout: {_tensor_line(outs, tensors)}\n"
               f"MACs: {count(op.get('macs'))}\n" + (f"runs in kernel call {call}" if call is not None
                                                    else "no kernel call (alias or folded)"))
        badge = f"call {call}" if call is not None else "alias"
        nodes.append(Node((title, line), tip, f"fam-{family(op.get('kind', ''))}", badge))
        for name in outs:
            origin[name] = len(nodes) - 1
    edges = _connect([op.get("inputs") or [] for op in ops], origin, len(inputs), tensors)
    edges += _outputs(outputs, origin, len(nodes), tensors)
    return layout(nodes + _io_nodes(outputs, "output"), edges)


def _call_origins(report: dict, first_call_node: int) -> dict[str, int]:
    """Tensor name -> node that produces it after fusion. Ops that became no call (RESHAPE and other
    aliases) pass their input's origin through, so edges connect the calls around them."""
    graph = report.get("graph") or {}
    calls = report.get("calls") or []
    origin = {t.get("name"): k for k, t in enumerate(report.get("inputs") or [])}
    node_of_op = {i: first_call_node + k for k, c in enumerate(calls) for i in c.get("source_ops", [])}
    for op in graph.get("source") or []:
        node = node_of_op.get(op.get("index"))
        if node is None:
            node = next((origin[n] for n in op.get("inputs") or [] if n in origin), None)
        for name in op.get("outputs") or []:
            if node is not None:
                origin[name] = node
    for k, c in enumerate(calls):
        for t in c.get("outputs") or []:
            origin[t.get("name")] = first_call_node + k
    return origin


def fused_graph(report: dict) -> GraphLayout:
    """What runs: one box per kernel call, grouping the source ops it fused."""
    tensors = (report.get("graph") or {}).get("tensors") or {}
    kinds = {op.get("index"): op.get("kind") for op in (report.get("graph") or {}).get("source") or []}
    calls, inputs, outputs = report.get("calls") or [], report.get("inputs") or [], report.get("outputs") or []
    nodes = _io_nodes(inputs, "input")
    for c in calls:
        srcs = c.get("source_ops") or []
        outs = c.get("outputs") or []
        line = " ".join(shape(t.get("shape")) for t in outs[:2]) + f" · {si(c.get('macs'))} MACs"
        tip = (f"call {c.get('index')} {c.get('kernel', '')} ({c.get('kind', '')})\n"
               f"fuses ops: {_op_list(srcs, kinds)}\n"
               f"in: {_io_line(c.get('inputs') or [])}\nout: {_io_line(outs)}\n"
               f"MACs: {count(c.get('macs'))}, weights {count(c.get('const_bytes'))} B, "
               f"scratch {count(c.get('scratch_bytes'))} B")
        for note in c.get("notes") or []:
            tip += f"\nnote: {note}"
        badge = ("ops " if len(srcs) > 1 else "op ") + ",".join(map(str, srcs))
        css = f"fam-{family(c.get('kind', ''))}" + (" fused" if len(srcs) > 1 else "")
        nodes.append(Node((f"call {c.get('index')} {c.get('kind', '')}", line), tip, css, badge))
    origin = _call_origins(report, len(inputs))
    edges = _connect([[t.get("name") for t in c.get("inputs") or []] for c in calls], origin, len(inputs), tensors)
    edges += _outputs(outputs, origin, len(nodes), tensors)
    return layout(nodes + _io_nodes(outputs, "output"), edges)


def _op_list(indices: list, kinds: dict) -> str:
    return ", ".join(f"{i} {kinds.get(i, '?')}" for i in indices)


def _io_line(tensors: list[dict]) -> str:
    return ", ".join(f"{t.get('name')} {shape(t.get('shape'))} @{t.get('offset')}" for t in tensors)


def inspect_graph(data: dict) -> GraphLayout:
    """An inspected model: op boxes, graph inputs (activations nobody produces) and outputs
    (activations nobody reads)."""
    ops = data.get("ops") or []
    produced = {t.get("name") for op in ops for t in op.get("outputs") or []}
    read = {t.get("name") for op in ops for t in op.get("inputs") or []}
    inputs, seen = [], set()
    for op in ops:
        for t in op.get("inputs") or []:
            if not t.get("const") and t.get("name") not in produced and t.get("name") not in seen:
                seen.add(t.get("name"))
                inputs.append(t)
    outputs = [t for op in ops for t in op.get("outputs") or [] if t.get("name") not in read]
    tensors = {t.get("name"): t for op in ops for t in [*(op.get("inputs") or []), *(op.get("outputs") or [])]}
    nodes = _io_nodes(inputs, "input")
    origin = {t.get("name"): k for k, t in enumerate(inputs)}
    for op in ops:
        act = op.get("activation") or "NONE"
        outs = op.get("outputs") or []
        title = f"op {op.get('index')} {op.get('op')}" + ("" if act == "NONE" else f" + {act}")
        line = " ".join(shape(t.get("shape")) for t in outs[:2]) + f" · {si(op.get('macs'))} MACs"
        tip = (f"op {op.get('index')} {op.get('op')}\nactivation: {act}\n"
               f"in: {_inspect_line(op.get('inputs') or [])}\nout: {_inspect_line(outs)}\n"
               f"MACs: {count(op.get('macs'))}\nalive at this step: {count(op.get('alive_bytes'))} bytes")
        nodes.append(Node((title, line), tip, f"fam-{family(op.get('op', ''))}"))
        for t in outs:
            origin[t.get("name")] = len(nodes) - 1
    edges = _connect([[t.get("name") for t in op.get("inputs") or [] if not t.get("const")] for op in ops],
                     origin, len(inputs), tensors)
    edges += _outputs(outputs, origin, len(nodes), tensors)
    return layout(nodes + _io_nodes(outputs, "output"), edges)


def _inspect_line(tensors: list[dict]) -> str:
    return ", ".join(f"{t.get('name')} {shape(t.get('shape'))} {t.get('dtype', '')}"
                     + (" (const)" if t.get("const") else "") for t in tensors)
