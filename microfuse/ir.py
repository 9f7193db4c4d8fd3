"""The graph IR: tensors, ops and the graph that orders them, with its invariants."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable

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
    UINT32 = ("uint32", "uint32_t")  # the TFLM signal library's spectra and energies
    UINT64 = ("uint64", "uint64_t")
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
    # State that outlives an invoke (a variable tensor, a resource variable): it lives in the
    # state area, never in the arena; `init` is its value at the start of a stream (None: the
    # value TFLM resets variable tensors to, the zero point for int8 and 0 otherwise).
    variable: bool = False
    init: np.ndarray | None = None

    @property
    def is_const(self) -> bool:
        return self.data is not None

    @property
    def in_arena(self) -> bool:
        """Whether the planner places it: neither a constant (flash) nor state (the state area)."""
        return self.data is None and not self.variable

    def initial(self) -> np.ndarray:
        """A variable's value at the start of a stream."""
        if self.init is not None:
            return np.asarray(self.init, dtype=self.dtype.np).reshape(self.shape)
        fill = self.quant.zero_point[0] if self.dtype == DType.INT8 and self.quant else 0
        return np.full(self.shape, fill, dtype=self.dtype.np)

    @property
    def elements(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.elements * self.dtype.size

    def __repr__(self) -> str:
        return f"Tensor({self.name!r}, {list(self.shape)}, {self.dtype})"


class OpAttrs:
    """Base of every op family's attrs dataclass (microfuse/ops/attrs.py, ops/internal.py)."""


@dataclass(eq=False)
class Op:
    """One operation: a TFLite builtin kind with typed attrs and the tensors it links."""

    kind: str  # TFLite builtin name, e.g. "CONV_2D", or an internal kind (ops/internal.py)
    inputs: list[Tensor | None]  # None marks an omitted optional input (TFLite's -1)
    outputs: list[Tensor]
    attrs: OpAttrs | None = None  # the op family's attrs dataclass (see microfuse.ops)
    name: str = ""
    index: int = -1  # operator index in the source .tflite, -1 if made by a pass
    fused: list[Epilogue] = field(default_factory=list)  # epilogue steps absorbed by fusion

    @property
    def where(self) -> str:
        """How messages name this op: 'op 7 CONV_2D'."""
        return f"op {self.index} {self.kind}"

    def __repr__(self) -> str:
        return f"Op({self.index}, {self.kind}, {self.name!r})"


@dataclass(frozen=True, eq=False)
class Epilogue:
    """One step applied, in registers, to each value the fused kernel would have stored.

    kind "unary": a chain of unary element-wise ops (int8: one lookup table); "add", "sub",
    "mul": a binary op whose other operand (`operand`, same shape as the output) is read at
    the same index. `input` is the value flowing in (the tensor the unfused chain stored),
    `output` what the step produces; `sources` are the absorbed ops, in order.
    """

    kind: str
    sources: tuple[Op, ...]
    input: Tensor
    output: Tensor
    operand: Tensor | None = None
    operand_slot: int = 1  # the operand's input slot in the binary op (0: it is input 1)

    @property
    def label(self) -> str:
        return "+".join(op.kind.lower() for op in self.sources)


def own_output(op: Op) -> Tensor:
    """The tensor the op itself computes before any epilogue (its output when unfused)."""
    return op.fused[0].input if op.fused else op.outputs[0]


def first_operand_slot(op: Op) -> int:
    """Where epilogue operands start in op.inputs (the planner's contract in plan/inplace.py)."""
    return 1 if op.kind in ("AVERAGE_POOL_2D", "MAX_POOL_2D") else 3


def with_step(op: Op, step: Epilogue) -> Op:
    """A copy of `op` that also applies `step`: it writes the step's output, and a binary
    step's operand joins its inputs after the weight/bias slots."""
    inputs = list(op.inputs)
    if step.operand is not None:
        inputs += [None] * (first_operand_slot(op) - len(inputs))
        inputs.append(step.operand)
    fused = list(op.fused)
    if fused and fused[-1].kind == "unary" and step.kind == "unary":
        last = fused.pop()  # consecutive unary ops are one step (one table for int8)
        step = Epilogue("unary", last.sources + step.sources, last.input, step.output)
    return Op(op.kind, inputs, [step.output], op.attrs, op.name, op.index, [*fused, step])


def split(op: Op) -> tuple[Epilogue | None, Epilogue | None, Epilogue | None]:
    """(unary before, binary, unary after) of a fused op's epilogue; raise on other shapes."""
    steps = list(op.fused)
    pre = steps.pop(0) if steps and steps[0].kind == "unary" else None
    binary = steps.pop(0) if steps and steps[0].kind != "unary" else None
    post = steps.pop(0) if steps and steps[0].kind == "unary" else None
    if steps:
        raise ValueError(f"{op.where}: epilogue {[s.kind for s in op.fused]} has more than one binary step")
    if binary is None and pre is not None:
        pre, post = None, pre
    return pre, binary, post


Inferred = list[tuple[tuple[int, ...], "DType | None"]]  # per output: shape, dtype (None: the tensor's)


@dataclass(eq=False)
class Graph:
    """Ops in execution order (an op's position is its time step), inputs and outputs."""

    ops: list[Op]
    inputs: list[Tensor]
    outputs: list[Tensor]
    name: str = "model"
    metadata: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the reader changed, for the user (one line each)
    init: "Graph | None" = None  # ops run once before the first invoke (a computing CALL_ONCE subgraph)

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
        """Tensors that need arena memory: everything that is neither a constant nor state."""
        return [t for t in self.tensors() if t.in_arena]

    def state(self) -> list[Tensor]:
        """Tensors that outlive an invoke (Tensor.variable), in first-use order."""
        return [t for t in self.tensors() if t.variable]

    def verify(self, infer: Callable[[Op], Inferred] | None = None) -> None:
        """Check the invariants; raise ModelError naming the first broken one. With `infer`
        (the op registry's shape rules, microfuse.ops.verify passes them) outputs must also
        have the shape and dtype their op gives."""
        available = {id(t) for t in self.inputs} | {id(t) for t in self.state()}  # state: from the start
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
            if infer is not None:
                _check_shapes(op, infer(op))
        for t in self.outputs:
            if id(t) not in available and not t.is_const:
                raise ModelError(f"graph output '{t.name}' is never produced")


def short_name(name: str, limit: int = 40) -> str:
    """A readable handle for messages: TFLite joins fused source names with ';', keep the first."""
    first = name.split(";")[0]
    return first if len(first) <= limit else first[:limit - 3] + "..."


def _check_shapes(op: Op, expected: Inferred) -> None:
    """Outputs must have the shape and dtype the op's own rule gives."""
    for t, (shape, dtype) in zip(op.outputs, expected):
        if tuple(t.shape) != tuple(shape) or (dtype is not None and t.dtype != dtype):
            raise ModelError(
                f"{op.where}: output '{t.name}' is {list(t.shape)} {t.dtype}, "
                f"but the op gives {[int(d) for d in shape]} {dtype or t.dtype}"
            )
