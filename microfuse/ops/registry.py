"""The op registry: one OpDef per op kind (TFLite builtins and the internal kinds of internal.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ir import DType, Inferred, Op, Tensor

Shape = tuple[int, ...]


@dataclass(frozen=True)
class OpDef:
    """Everything microfuse knows about one TFLite builtin op, independent of kernels."""

    kind: str
    attrs: type | None  # dataclass built from the options table (see attrs.py)
    infer: Callable[[Op], Inferred]
    constraints: tuple[Callable[[Op], str | None], ...] = ()  # each returns a failure text or None
    macs: Callable[[Op], int] = lambda op: 0
    # types of the first input with a kernel (tests/unit/test_op_types.py: exactly the lowering
    # registry's); alias ops: every type
    dtypes: frozenset[DType] = frozenset({DType.INT8, DType.FLOAT32})
    alias: bool = False  # output shares the input's buffer (RESHAPE family): no kernel, no copy
    listed: str = ""  # what `microfuse ops` shows when the first input's types say too little
    data: int = 0  # the input whose type is the op's (TRANSPOSE_CONV: 2, after shape and filter)
    # evaluated at compile time (passes/fold.py) when this holds of the op and a test of which
    # tensors are known at compile time, whatever the types; its docstring is what `microfuse
    # ops` says about it
    folds: Callable[[Op, Callable[[Tensor], bool]], bool] | None = None
    # the bytes its kernel keeps for itself between invokes (TFLM: in the op's data, cleared by
    # Reset), so a model holding it runs as a stream; its lowering asks for them (Call.state)
    own_state: Callable[[Op], int] | None = None

    @property
    def keeps_state(self) -> bool:
        return self.own_state is not None


REGISTRY: dict[str, OpDef] = {}


def register(*defs: OpDef) -> None:
    for d in defs:
        REGISTRY[d.kind] = d


def data_input(op: Op):
    """The input whose dtype selects the op's kernels (`OpDef.data`; None if absent)."""
    d = REGISTRY.get(op.kind)
    i = d.data if d is not None else 0
    if i == 0:
        return next((t for t in op.inputs if t is not None), None)
    return op.inputs[i] if i < len(op.inputs) else None
