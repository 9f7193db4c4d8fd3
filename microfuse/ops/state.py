"""State ops: READ_VARIABLE and ASSIGN_VARIABLE on a resource's state tensor (tflite/resources.py)."""

from __future__ import annotations

from ..ir import DType, Op
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
