"""SPLIT, SPLIT_V, UNPACK: one input cut along an axis into several outputs (data movement only)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir import DType, Op
from .attrs import Attrs
from .registry import OpDef, register

# The types TFLM registers for them (split.cc, split_v.cc, unpack.cc); SPLIT's first input is its axis.
TYPES = frozenset({DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32})


@dataclass(frozen=True)
class SplitAttrs(Attrs):
    num_splits: int = 0


@dataclass(frozen=True)
class UnpackAttrs(Attrs):
    num: int = 0
    axis: int = 0


def data_of(op: Op):
    return op.inputs[1] if op.kind == "SPLIT" else op.inputs[0]


def axis_of(op: Op) -> int:
    """The split axis, non-negative."""
    rank = len(data_of(op).shape)
    if op.kind == "UNPACK":
        return op.attrs.axis % rank
    t = op.inputs[0] if op.kind == "SPLIT" else op.inputs[2]
    return int(np.asarray(t.data).reshape(-1)[0]) % rank


def sizes(op: Op) -> list[int]:
    """Each output's extent along the axis."""
    dim = data_of(op).shape[axis_of(op)]
    if op.kind == "UNPACK":
        return [1] * dim
    if op.kind == "SPLIT":
        return [dim // op.attrs.num_splits] * op.attrs.num_splits
    given = [int(v) for v in np.asarray(op.inputs[1].data).reshape(-1)]
    if given.count(-1) == 1:  # one size may be inferred, as TFLite does
        given[given.index(-1)] = dim - (sum(given) + 1)
    return given


def _infer(op: Op):
    shape, axis = list(data_of(op).shape), axis_of(op)
    found = []
    for n in sizes(op):
        out = shape[:axis] + ([] if op.kind == "UNPACK" else [n]) + shape[axis + 1:]
        found.append((tuple(out), data_of(op).dtype))
    return found


def _constants(op: Op) -> str | None:
    need = {"SPLIT": (0,), "SPLIT_V": (1, 2), "UNPACK": ()}[op.kind]
    if any(i >= len(op.inputs) or op.inputs[i] is None or not op.inputs[i].is_const for i in need):
        return "the axis and the sizes must be constants"
    return None


def _data_type(op: Op) -> str | None:
    t = data_of(op)
    if t.dtype not in TYPES:
        allowed = ", ".join(sorted(str(d) for d in TYPES))
        return f"input type {t.dtype} is not supported (supported: {allowed})"
    if t.is_const:
        return "the input is a constant (fold it)"
    return None


def _even(op: Op) -> str | None:
    if _constants(op):
        return None
    s, dim = sizes(op), data_of(op).shape[axis_of(op)]
    if op.kind == "SPLIT" and (op.attrs.num_splits <= 0 or dim % op.attrs.num_splits):
        return f"{dim} does not split into {op.attrs.num_splits} equal parts"
    if sum(s) != dim or min(s, default=0) < 0:
        return f"sizes {s} do not add up to the axis' {dim}"
    if len(s) != len(op.outputs):
        return f"{len(s)} parts but {len(op.outputs)} outputs"
    return None


register(
    OpDef("SPLIT", SplitAttrs, _infer, (_constants, _data_type, _even), dtypes=frozenset({DType.INT32})),
    OpDef("SPLIT_V", SplitAttrs, _infer, (_constants, _data_type, _even), dtypes=TYPES),
    OpDef("UNPACK", UnpackAttrs, _infer, (_data_type, _even), dtypes=TYPES),
)
