"""IF's branches and WHILE's cond and body, read as graphs of their own (inputs, ops, outputs)
hung on the op's attrs."""

from __future__ import annotations

from dataclasses import replace

from ..errors import ModelError, UnsupportedError
from ..ir import Graph, Op
from . import schema as S
from .flatbuf import I32, U32


FIELDS = {"IF": ("then_subgraph_index", "else_subgraph_index"),
          "WHILE": ("cond_subgraph_index", "body_subgraph_index")}


def control_op(reader, index: int, kind: str, table, where: str) -> Op:
    """IF (a bool condition, then the branches' operands) or WHILE (the loop-carried tensors);
    attrs carry both subgraphs as graphs."""
    attrs = reader.attrs(kind, table, where)
    ins = [reader.tensor(k, f"{where} input {j}") for j, k in enumerate(table.scalars("inputs", I32))]
    outs = [reader.tensor(k, f"{where} output {j}") for j, k in enumerate(table.scalars("outputs", I32))]
    branches = tuple(read(reader, int(getattr(attrs, f)), where) for f in FIELDS[kind])
    return Op(kind, ins, outs, replace(attrs, branches=branches), name=outs[0].name if outs else "", index=index)


def read(reader, sub: int, where: str) -> Graph:
    """Subgraph `sub` as a Graph; subgraph ops (IF, WHILE, CALL_ONCE) and resources inside are refused."""
    if not 0 < sub < reader.n_subgraphs:
        what = "is the main subgraph" if sub == 0 else f"is out of range ({reader.n_subgraphs} subgraphs)"
        raise ModelError(f"{where}: subgraph {sub} {what}; it must name another subgraph")
    g = reader.subgraphs[sub]
    saved = reader.tensor_tables, reader._tensors, reader.state.subgraph
    reader.tensor_tables, reader._tensors = g.tables("tensors", "tensor", S.TENSOR), {}
    reader.state.subgraph = sub
    try:
        ops = []
        for j, t in enumerate(g.tables("operators", "op", S.OPERATOR)):
            kind = reader.kind(t.scalar("opcode_index", U32), f"{where} subgraph {sub} op {j}")
            if kind in ("IF", "WHILE", "CALL", "CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"):
                raise UnsupportedError(f"{where}: subgraph {sub} op {j} is {kind}; microfuse runs subgraphs "
                                       "made of plain ops (no nested subgraphs or resource variables)")
            ops.append(reader.operator(j, t))
        inputs = [reader.tensor(k, f"subgraph {sub} input {j}") for j, k in enumerate(g.scalars("inputs", I32))]
        outputs = [reader.tensor(k, f"subgraph {sub} output {j}") for j, k in enumerate(g.scalars("outputs", I32))]
    except UnsupportedError as e:
        raise UnsupportedError(str(e) if str(e).startswith(where) else f"{where} (subgraph {sub}): {e}") from None
    finally:
        reader.tensor_tables, reader._tensors, reader.state.subgraph = saved
    return Graph(ops, inputs, outputs, name=f"subgraph{sub}")
