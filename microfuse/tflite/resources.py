"""Resource variables and the ops that run other subgraphs, as the reader meets them.

VAR_HANDLE names a resource (container, shared_name); READ_VARIABLE and ASSIGN_VARIABLE become
ops on one state tensor per resource (ir.Tensor.variable: it lives in the state area and keeps
its value from one invoke to the next). CALL_ONCE runs its subgraph on the first invoke: when
that subgraph only assigns constants to resource variables (what the TF converter writes for
variable initializers), its effect is the state's initial value, and the op itself goes away.
When it computes, its ops (those assigns included) are `Resources.init_ops`, compiled as code that
runs once before the first invoke (pipeline.py, emitted in NAME_init()).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError, UnsupportedError
from ..ir import Op, Tensor
from . import schema as S
from .flatbuf import I32, U8, U32

KINDS = frozenset({"VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"})
_SUBGRAPH_FIELDS = {"IF": ("then_subgraph_index", "else_subgraph_index"),
                    "WHILE": ("cond_subgraph_index", "body_subgraph_index")}
Key = tuple[str, str]


@dataclass
class Resources:
    handles: dict[tuple[int, int], Key] = field(default_factory=dict)  # (subgraph, tensor) -> resource
    inits: dict[Key, Tensor] = field(default_factory=dict)  # the constant CALL_ONCE assigns
    tensors: dict[Key, Tensor] = field(default_factory=dict)  # each resource's state tensor
    init_ops: list[Op] = field(default_factory=list)  # a computing CALL_ONCE subgraph's ops
    subgraph: int = 0  # the subgraph being read (its VAR_HANDLE outputs name resources)


def operator(reader, index: int, kind: str, table, where: str) -> Op | None:
    """The op for a resource or subgraph op of the subgraph being read (None: it leaves no op)."""
    res: Resources = reader.state
    if kind == "CALL_ONCE" and res.subgraph:
        raise UnsupportedError(f"{where}: a CALL_ONCE inside a CALL_ONCE subgraph; microfuse runs one level")
    if kind == "CALL_ONCE":
        _run_once(reader, table, where)
        return None
    if kind in ("IF", "WHILE") and not res.subgraph:
        from .subgraphs import control_op
        return control_op(reader, index, kind, table, where)
    if kind in _SUBGRAPH_FIELDS or kind == "CALL":
        raise UnsupportedError(f"{where}: {kind} runs other subgraphs; microfuse runs IF, WHILE and CALL_ONCE "
                               "from the main subgraph only, and not CALL (TFLM has no CALL kernel)")
    if kind == "VAR_HANDLE":
        _handle(reader, res.subgraph, table, where)
        return None
    ins = table.scalars("inputs", I32)
    key = _key_of(res, res.subgraph, ins, where)
    if kind == "READ_VARIABLE":
        out = reader.tensor(table.scalars("outputs", I32)[0], f"{where} output 0")
        return Op(kind, [_state(res, key, out, where)], [out], None, name=out.name, index=index)
    if len(ins) < 2:
        raise ModelError(f"{where}: needs a resource and a value, got {len(ins)} input(s)")
    value = reader.tensor(ins[1], f"{where} input 1")
    state = _state(res, key, value, where)
    return Op(kind, [state, value], [], None, name=state.name, index=index)


def _handle(reader, subgraph: int, table, where: str) -> None:
    got = table.scalar("builtin_options_type", U8)
    if got not in (0, S.OPTIONS_TYPE_CODE["VarHandleOptions"]):
        raise ModelError(f"{where}: builtin options are {S.OPTIONS_TYPE_NAME.get(got, got)}, expected VarHandleOptions")
    options = table.table("builtin_options", f"{where} options", S.VAR_HANDLE_OPTIONS) if got else None
    key = (options.string("container"), options.string("shared_name")) if options else ("", "")
    outs = table.scalars("outputs", I32)
    if len(outs) != 1:
        raise ModelError(f"{where}: has {len(outs)} outputs, expected the resource handle")
    reader.state.handles[(subgraph, outs[0])] = key


def _key_of(res: Resources, subgraph: int, ins, where: str) -> Key:
    if not ins or (subgraph, ins[0]) not in res.handles:
        raise UnsupportedError(f"{where}: input 0 is not a resource made by a VAR_HANDLE of the same subgraph")
    return res.handles[(subgraph, ins[0])]


def _state(res: Resources, key: Key, like: Tensor, where: str) -> Tensor:
    """The resource's state tensor; every use must agree on its shape and type."""
    t = res.tensors.get(key)
    name = key[1] or "resource"
    if t is None:
        init = res.inits.get(key)
        if init is not None and (tuple(init.shape) != tuple(like.shape) or init.dtype != like.dtype):
            raise UnsupportedError(f"{where}: resource '{name}' is {list(like.shape)} {like.dtype} here but "
                                   f"CALL_ONCE assigns it {list(init.shape)} {init.dtype}")
        # an unassigned resource reads as zeros (TFLM clears a resource's buffer when it allocates it)
        value = np.array(init.data) if init is not None else np.zeros(like.shape, like.dtype.np)
        t = res.tensors[key] = Tensor(name, tuple(like.shape), like.dtype, like.quant, None, -1,
                                      variable=True, init=value)
    elif tuple(t.shape) != tuple(like.shape) or t.dtype != like.dtype:
        raise UnsupportedError(f"{where}: resource '{name}' is {list(like.shape)} {like.dtype} here but "
                               f"{list(t.shape)} {t.dtype} elsewhere; microfuse needs one shape per resource")
    return t


def _run_once(reader, table, where: str) -> None:
    """Read the CALL_ONCE subgraph: constant assigns become initial values, anything it computes
    becomes init ops (TFLM requires an init subgraph without inputs and outputs)."""
    res: Resources = reader.state
    sub = int(reader.attrs("CALL_ONCE", table, where).init_subgraph_index)
    if not 0 < sub < reader.n_subgraphs:
        raise ModelError(f"{where}: init subgraph {sub} out of range ({reader.n_subgraphs} subgraphs)")
    if len(reader.subgraphs[sub].scalars("inputs", I32)) or len(reader.subgraphs[sub].scalars("outputs", I32)):
        raise ModelError(f"{where}: init subgraph {sub} has inputs or outputs (TFLM requires none)")
    saved = reader.tensor_tables, reader._tensors
    reader.tensor_tables, reader._tensors = reader.subgraphs[sub].tables("tensors", "tensor", S.TENSOR), {}
    res.subgraph, before = sub, set(res.tensors.values())
    try:
        tables = list(reader.subgraphs[sub].tables("operators", "op", S.OPERATOR))
        kinds = [reader.kind(t.scalar("opcode_index", U32), f"{where} subgraph {sub} op {j}")
                 for j, t in enumerate(tables)]
        for j, (t, kind) in enumerate(zip(tables, kinds)):
            inner = f"{where} (subgraph {sub} op {j} {kind})"
            if kind == "VAR_HANDLE":
                _handle(reader, sub, t, inner)
            elif kind == "ASSIGN_VARIABLE" and _assigns_constant(reader, res, sub, t, inner):
                continue
            else:
                op = reader.operator(j, t)
                if op is not None and op.kind == "ASSIGN_VARIABLE" and op.inputs[0] in before:
                    raise UnsupportedError(f"{inner}: resource '{op.inputs[0].name}' is used before the "
                                           "CALL_ONCE that initializes it")
                if op is not None:
                    op.name = f"init subgraph {sub}: {op.name}"
                    res.init_ops.append(op)
    except UnsupportedError as e:
        raise UnsupportedError(str(e) if str(e).startswith(where) else f"{where} (subgraph {sub}): {e}") from None
    finally:
        reader.tensor_tables, reader._tensors = saved
        res.subgraph = 0


def _assigns_constant(reader, res: Resources, sub: int, t, inner: str) -> bool:
    """An ASSIGN_VARIABLE of a constant is the resource's initial value (True); else an init op."""
    ins = t.scalars("inputs", I32)
    if len(ins) < 2:
        raise ModelError(f"{inner}: needs a resource and a value, got {len(ins)} input(s)")
    key = _key_of(res, sub, ins, inner)
    value = reader.tensor(ins[1], f"{inner} input 1")
    if key in res.inits or any(op.kind == "ASSIGN_VARIABLE" and op.inputs[0] is res.tensors.get(key)
                               for op in res.init_ops):
        raise UnsupportedError(f"{inner}: resource '{key[1]}' is assigned twice in the CALL_ONCE subgraph")
    if not value.is_const:
        return False
    if key in res.tensors:
        raise UnsupportedError(f"{inner}: resource '{key[1]}' is used before the CALL_ONCE that "
                               "initializes it")
    res.inits[key] = value
    return True
