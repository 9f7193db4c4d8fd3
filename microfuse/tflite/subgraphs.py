"""IF's branch subgraphs, read as graphs of their own (inputs, ops, outputs) hung on the IF op."""

from __future__ import annotations

from dataclasses import replace

from ..errors import ModelError, UnsupportedError
from ..ir import Graph, Op
from . import schema as S
from .flatbuf import I32, U32


def if_op(reader, index: int, table, where: str) -> Op:
    """IF: a bool condition and the operands its branches take; attrs carry both branch graphs."""
    attrs = reader.attrs("IF", table, where)
    ins = [reader.tensor(k, f"{where} input {j}") for j, k in enumerate(table.scalars("inputs", I32))]
    outs = [reader.tensor(k, f"{where} output {j}") for j, k in enumerate(table.scalars("outputs", I32))]
    branches = tuple(read(reader, sub, where) for sub in (attrs.then_subgraph_index, attrs.else_subgraph_index))
    return Op("IF", ins, outs, replace(attrs, branches=branches), name=outs[0].name if outs else "", index=index)


def read(reader, sub: int, where: str) -> Graph:
    """Subgraph `sub` as a Graph; subgraph ops (IF, WHILE, CALL_ONCE) and resources inside are refused."""
    if not 0 < sub < reader.n_subgraphs:
        raise ModelError(f"{where}: subgraph {sub} out of range ({reader.n_subgraphs} subgraphs)")
    g = reader.subgraphs[sub]
    saved = reader.tensor_tables, reader._tensors, reader.state.subgraph
    reader.tensor_tables, reader._tensors = g.tables("tensors", "tensor", S.TENSOR), {}
    reader.state.subgraph = sub
    try:
        ops = []
        for j, t in enumerate(g.tables("operators", "op", S.OPERATOR)):
            kind = reader.kind(t.scalar("opcode_index", U32), f"{where} subgraph {sub} op {j}")
            if kind in ("IF", "WHILE", "CALL", "CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"):
                raise UnsupportedError(f"{where}: subgraph {sub} op {j} is {kind}; microfuse runs IF branches "
                                       "made of plain ops (no nested subgraphs or resource variables)")
            ops.append(reader.operator(j, t))
        inputs = [reader.tensor(k, f"subgraph {sub} input {j}") for j, k in enumerate(g.scalars("inputs", I32))]
        outputs = [reader.tensor(k, f"subgraph {sub} output {j}") for j, k in enumerate(g.scalars("outputs", I32))]
    except UnsupportedError as e:
        raise UnsupportedError(str(e) if str(e).startswith(where) else f"{where} (subgraph {sub}): {e}") from None
    finally:
        reader.tensor_tables, reader._tensors, reader.state.subgraph = saved
    return Graph(ops, inputs, outputs, name=f"subgraph{sub}")
