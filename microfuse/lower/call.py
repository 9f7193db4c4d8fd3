"""What lowering produces: one Call of a runtime_c kernel, with its compile-time arrays."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import ops as opdefs
from ..ir import Op, Tensor


@dataclass(eq=False)
class ConstArray:
    """A compile-time array emitted as `static const` data in flash (weights, LUTs...)."""

    name: str  # C identifier suffix, unique within its call: "weights", "mult", "lut"
    data: np.ndarray  # its dtype gives the C element type


def largest(bounds) -> dict[str, int]:
    """Each macro's largest value over the dicts (KernelSpec.sizes of several calls)."""
    out: dict[str, int] = {}
    for b in bounds:
        for k, v in b.items():
            out[k] = max(out.get(k, v), v)
    return out


def finish_calls(calls) -> None:
    """Every call's params in the form its build chose (KernelSpec.finish), from the sizes of
    all of them: a choice that must be the same for every call of a kernel in one build."""
    config = largest(c.sizes for c in calls)
    for c in calls:
        c.finish(config)


@dataclass(eq=False)
class Call:
    """One kernel invocation: `kernel(&params, inputs..., outputs..., [scratch])`.

    `spec` is the kernel's KernelSpec (lower/kernels.py): its C name, params struct, files.
    Inputs and outputs are arena tensors, passed as typed pointers in this order.
    `params` fills every field of the params struct (kernels.make checks it): ints, floats,
    ConstArray (a pointer to flash data) or str (a raw C expression). A scratch size > 0 adds
    a `void *` arena scratch argument after the outputs. A state size > 0 adds, last, a `void *`
    to that many bytes of the state area that the kernel keeps for itself between invokes (TFLM
    keeps such state in op data, e.g. a noise estimate), zeroed by NAME_init / NAME_reset.
    `op` is the graph op lowered.
    """

    spec: object  # KernelSpec (typed loosely: lower/kernels.py imports this module)
    params: dict[str, object]
    inputs: list[Tensor]
    outputs: list[Tensor]
    sources: list[Op]
    scratch: int = 0
    notes: list[str] = field(default_factory=list)
    op: Op | None = None
    state: int = 0
    branches: list = field(default_factory=list)  # IF, WHILE: a Branch per subgraph (lower/control.py)

    @property
    def kernel(self) -> str:
        return self.spec.name

    @property
    def params_type(self) -> str:
        return self.spec.params

    @property
    def files(self) -> tuple[str, ...]:
        return self.spec.files

    @property
    def sizes(self) -> dict[str, int]:
        """The stack-buffer bounds this call needs (KernelSpec.sizes), an IF's branches' included."""
        own = self.spec.sizes(self.params) if self.spec.sizes else {}
        inner = [c for b in self.branches for c in b.calls.values()]
        return largest([own, *(c.sizes for c in inner)])

    def finish(self, config: dict[str, int]) -> None:
        """The params in the build's form (KernelSpec.finish), an IF's branches' included."""
        if self.spec.finish:
            self.params = self.spec.finish(self.params, config)
        for c in [c for b in self.branches for c in b.calls.values()]:
            c.finish(config)

    @property
    def reversible(self) -> bool:
        return self.reverse_key is not None

    @property
    def reverse_key(self) -> str | None:
        """The params field that makes the kernel run its units last first (None: forward only)."""
        if not self.spec.reversible:
            return None
        return next(key for key in ("reverse", "k.reverse") if key in self.params)

    @property
    def macs(self) -> int:
        """Multiply-accumulates of the source ops (conv, depthwise and fully-connected count)."""
        return sum(opdefs.macs(op) for op in self.sources)

    @property
    def constants(self) -> list[ConstArray]:
        """The compile-time arrays the call emits (a cascade: its band calls', each once)."""
        return [v for v in self.params.values() if isinstance(v, ConstArray)]

    @property
    def const_bytes(self) -> int:
        """Flash bytes of the call's constant arrays."""
        return sum(np.asarray(v.data).nbytes for v in self.constants)

    @property
    def label(self) -> str:
        return "+".join(op.kind.lower() for op in self.sources)
