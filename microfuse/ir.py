"""The graph IR: tensors, ops and the graph that orders them, with its invariants."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ModelError


class DType(enum.Enum):
    """Element types microfuse knows, with their numpy and C spellings."""

    INT8 = ("int8", "int8_t")
    UINT8 = ("uint8", "uint8_t")
    INT16 = ("int16", "int16_t")
    INT32 = ("int32", "int32_t")
    INT64 = ("int64", "int64_t")
    FLOAT32 = ("float32", "float")
    BOOL = ("bool", "bool")

    @property
    def np(self) -> np.dtype:
        return np.dtype(self.value[0])

    @property
    def c(self) -> str:
        return self.value[1]

    @property
    def size(self) -> int:
        return self.np.itemsize

    def __str__(self) -> str:
        return self.value[0]


@dataclass(frozen=True)
class Quant:
    """Affine quantization: real = scale * (q - zero_point), per tensor or per axis."""

    scale: tuple[float, ...]
    zero_point: tuple[int, ...]
    axis: int | None = None  # None: per-tensor (one scale); else the quantized dimension

    @property
    def per_axis(self) -> bool:
        return self.axis is not None and len(self.scale) > 1


@dataclass(eq=False)
class Tensor:
    """A value in the graph; constants carry their data, activations do not."""

    name: str
    shape: tuple[int, ...]
    dtype: DType
    quant: Quant | None = None
    data: np.ndarray | None = None
    index: int = -1  # index in the source .tflite subgraph, -1 if made by a pass

    @property
    def is_const(self) -> bool:
        return self.data is not None

    @property
    def elements(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.elements * self.dtype.size

    def __repr__(self) -> str:
        return f"Tensor({self.name!r}, {list(self.shape)}, {self.dtype})"


@dataclass(eq=False)
class Op:
    """One operation: a TFLite builtin kind with typed attrs and the tensors it links."""

    kind: str  # TFLite builtin name, e.g. "CONV_2D"
    inputs: list[Tensor | None]  # None marks an omitted optional input (TFLite's -1)
    outputs: list[Tensor]
    attrs: Any = None  # the op family's attrs dataclass (see microfuse.ops)
    name: str = ""
    index: int = -1  # operator index in the source .tflite, -1 if made by a pass
    fused: list[Any] = field(default_factory=list)  # epilogue steps absorbed by fusion

    @property
    def where(self) -> str:
        """How messages name this op: 'op 7 CONV_2D'."""
        return f"op {self.index} {self.kind}"

    def __repr__(self) -> str:
        return f"Op({self.index}, {self.kind}, {self.name!r})"


@dataclass(eq=False)
class Graph:
    """Ops in execution order (an op's position is its time step), inputs and outputs."""

    ops: list[Op]
    inputs: list[Tensor]
    outputs: list[Tensor]
    name: str = "model"
    metadata: dict[str, bytes] = field(default_factory=dict)

    def tensors(self) -> list[Tensor]:
        """Every tensor used, each once, in first-use order (inputs first)."""
        seen: dict[int, Tensor] = {}
        for t in self.inputs:
            seen.setdefault(id(t), t)
        for op in self.ops:
            for t in [*op.inputs, *op.outputs]:
                if t is not None:
                    seen.setdefault(id(t), t)
        for t in self.outputs:
            seen.setdefault(id(t), t)
        return list(seen.values())

    def producer(self, t: Tensor) -> Op | None:
        for op in self.ops:
            if any(o is t for o in op.outputs):
                return op
        return None

    def consumers(self, t: Tensor) -> list[Op]:
        return [op for op in self.ops if any(i is t for i in op.inputs)]

    def activations(self) -> list[Tensor]:
        """Tensors that need arena memory: everything that is not a constant."""
        return [t for t in self.tensors() if not t.is_const]

    def verify(self) -> None:
        """Check the invariants; raise ModelError naming the first broken one."""
        available = {id(t) for t in self.inputs}
        produced: set[int] = set()
        for step, op in enumerate(self.ops):
            for t in op.inputs:
                if t is None or t.is_const or id(t) in available:
                    continue
                raise ModelError(f"{op.where}: input '{t.name}' is used before it is produced (step {step})")
            for t in op.outputs:
                if t.is_const:
                    raise ModelError(f"{op.where}: output '{t.name}' is a constant")
                if id(t) in produced or id(t) in {id(i) for i in self.inputs}:
                    raise ModelError(f"{op.where}: tensor '{t.name}' is written twice")
                produced.add(id(t))
                available.add(id(t))
            _check_shapes(op)
        for t in self.outputs:
            if id(t) not in available and not t.is_const:
                raise ModelError(f"graph output '{t.name}' is never produced")


def short_name(name: str, limit: int = 40) -> str:
    """A readable handle for messages: TFLite joins fused source names with ';', keep the first."""
    first = name.split(";")[0]
    return first if len(first) <= limit else first[:limit - 3] + "..."


def _check_shapes(op: Op) -> None:
    """Outputs must have the shape and dtype the op's own rule gives."""
    from . import ops as opdefs  # late import: ops depends on ir

    expected = opdefs.infer(op)
    for t, (shape, dtype) in zip(op.outputs, expected):
        if tuple(t.shape) != tuple(shape) or (dtype is not None and t.dtype != dtype):
            raise ModelError(
                f"{op.where}: output '{t.name}' is {list(t.shape)} {t.dtype}, "
                f"but the op gives {list(shape)} {dtype or t.dtype}"
            )
