"""`microfuse inspect`: per-op shapes, MACs and live activation bytes, and the arena lower bound."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass

from . import ops
from .ir import Graph, Op, Tensor


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]
    dtype: str
    const: bool

    @classmethod
    def of(cls, t: Tensor) -> TensorInfo:
        return cls(t.name, tuple(t.shape), str(t.dtype), t.is_const)

    def label(self) -> str:
        text = f"{'x'.join(map(str, self.shape)) or 'scalar'} {self.dtype}"
        return f"({text})" if self.const else text  # parentheses mark weights and other constants


@dataclass(frozen=True)
class OpRow:
    index: int
    op: str
    activation: str  # fused activation, "NONE" when the op has none
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    macs: int
    alive_bytes: int

    def label(self) -> str:
        return self.op if self.activation == "NONE" else f"{self.op}+{self.activation}"


@dataclass(frozen=True)
class Inspection:
    model: str
    ops: tuple[OpRow, ...]
    macs: int
    weights_bytes: int
    lower_bound_bytes: int
    lower_bound_step: int | None  # None only for a graph without ops
    state_bytes: int = 0  # tensors and kernels' own state that outlive an invoke (the state area)

    def to_json(self) -> dict:
        d = asdict(self)
        for row in d["ops"]:
            for t in [*row["inputs"], *row["outputs"]]:
                t["shape"] = list(t["shape"])
        d["ops"] = list(d["ops"])
        return d


def live_ranges(graph: Graph) -> dict[int, tuple[Tensor, int, int]]:
    """id(tensor) -> (tensor, first step, last step) for every activation (constants excluded).

    A tensor is alive from the step that produces it (graph inputs: step 0) to its last consuming
    step; graph outputs stay alive to the last step. Aliasing (RESHAPE sharing) is ignored here.
    """
    last_step = max(len(graph.ops) - 1, 0)
    ranges: dict[int, tuple[Tensor, int, int]] = {}

    def touch(t: Tensor | None, step: int) -> None:
        if t is None or not t.in_arena:  # constants, and state (its own area, alive throughout)
            return
        _, first, last = ranges.get(id(t), (t, step, step))
        ranges[id(t)] = (t, min(first, step), max(last, step))

    for t in graph.inputs:
        touch(t, 0)
    for step, op in enumerate(graph.ops):
        for t in [*op.inputs, *op.outputs]:
            touch(t, step)
    for t in graph.outputs:
        touch(t, last_step)
    return ranges


def alive_bytes_per_step(graph: Graph) -> list[int]:
    """Bytes of activations alive at each step; its maximum is the arena's lower bound."""
    alive = [0] * len(graph.ops)
    for t, first, last in live_ranges(graph).values():
        for step in range(first, min(last, len(alive) - 1) + 1):
            alive[step] += t.nbytes
    return alive


def _activation(op: Op) -> str:
    return getattr(op.attrs, "activation", "NONE") or "NONE"


def inspect_graph(graph: Graph, model: str) -> Inspection:
    alive = alive_bytes_per_step(graph)
    rows = tuple(
        OpRow(op.index if op.index >= 0 else step, op.kind, _activation(op),
              tuple(TensorInfo.of(t) for t in op.inputs if t is not None),
              tuple(TensorInfo.of(t) for t in op.outputs), ops.macs(op), alive[step])
        for step, op in enumerate(graph.ops)
    )
    peak = max(alive, default=0)
    return Inspection(
        model=model,
        ops=rows,
        macs=sum(r.macs for r in rows),
        weights_bytes=sum(t.nbytes for t in graph.tensors() if t.is_const),
        lower_bound_bytes=peak,
        lower_bound_step=alive.index(peak) if alive else None,
        state_bytes=sum(t.nbytes for t in graph.state()) + sum(ops.own_state(op) for op in graph.ops),
    )


_NUMBER_LIST = re.compile(r"\[\n\s*(-?\d+(?:,\n\s*-?\d+)*)\n\s*\]")


def json_text(ins: Inspection) -> str:
    """Indented JSON, with lists of numbers (shapes) kept on one line."""
    text = json.dumps(ins.to_json(), indent=2)
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)


def format_table(ins: Inspection) -> str:
    """The human-readable report: one line per op, then the totals."""
    header = ("#", "op", "inputs", "outputs", "MACs", "alive bytes")
    body = [(str(r.index), r.label(), ", ".join(t.label() for t in r.inputs),
             ", ".join(t.label() for t in r.outputs), f"{r.macs:,}", f"{r.alive_bytes:,}") for r in ins.ops]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    right = {0, 4, 5}  # numbers are right-aligned

    def line(row) -> str:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    lines = [ins.model, line(header), *(line(row) for row in body), ""]
    where = "" if ins.lower_bound_step is None else f" at step {ins.lower_bound_step}"
    if ins.lower_bound_step is not None:
        where += f" ({ins.ops[ins.lower_bound_step].label()})"
    lines += [
        f"ops: {len(ins.ops)}",
        f"MACs: {ins.macs:,}",
        f"weights: {ins.weights_bytes:,} bytes",
        f"activation lower bound: {ins.lower_bound_bytes:,} bytes{where}",
        *([f"state: {ins.state_bytes:,} bytes (kept from one invoke to the next, apart from the arena)"]
          if ins.state_bytes else []),
        "(constant inputs in parentheses; a tensor is alive from its producer to its last consumer)",
    ]
    return "\n".join(lines)
