"""State ops: READ_VARIABLE and ASSIGN_VARIABLE on a resource's state tensor (tflite/resources.py);
VAR_HANDLE and CALL_ONCE, which the reader takes in and which leave no op of their own."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import DType, Op
from .attrs import Attrs
from .registry import OpDef, register

ANY = frozenset(DType)


def _infer_read(op: Op):
    return [(op.inputs[0].shape, op.inputs[0].dtype)]


def _reads_state(op: Op) -> str | None:
    if not op.inputs or op.inputs[0] is None or not op.inputs[0].variable:
        return "input 0 must be a resource variable (made by VAR_HANDLE)"
    return None


def _same_as_state(op: Op) -> str | None:
    state, value = op.inputs[0], op.inputs[1]
    if tuple(value.shape) != tuple(state.shape) or value.dtype != state.dtype:
        return (f"assigns a {list(value.shape)} {value.dtype} value to resource '{state.name}' of "
                f"{list(state.shape)} {state.dtype}; microfuse needs one shape per resource")
    return None


register(
    OpDef("READ_VARIABLE", None, _infer_read, (_reads_state,), dtypes=ANY),
    OpDef("ASSIGN_VARIABLE", None, lambda op: [], (_reads_state, _same_as_state), dtypes=ANY),
)
@dataclass(frozen=True)
class CallOnceAttrs(Attrs):
    init_subgraph_index: int = 0


# Read into the state area by tflite/resources.py, never ops of the graph (no kernel, no types).
_BY_READER = lambda op: f"{op.kind} is taken in by the reader and is never an op of the graph"  # noqa: E731
register(
    OpDef("VAR_HANDLE", None, lambda op: [], (_BY_READER,), dtypes=frozenset(),
          listed="a resource variable: one tensor in the state area (no kernel)"),
    OpDef("CALL_ONCE", CallOnceAttrs, lambda op: [], (_BY_READER,), dtypes=frozenset(),
          listed="its init subgraph's assigned constants become the initial state; "
                 "a computing init subgraph runs on the first invoke / NAME_init()"),
)
