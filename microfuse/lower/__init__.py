"""Lowering: each supported op (or fused chain) becomes one Call of a runtime_c kernel."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import MicrofuseError, UnsupportedError
from ..ir import DType, Op, Tensor


@dataclass(eq=False)
class ConstArray:
    """A compile-time array emitted as `static const` data in flash (weights, LUTs...)."""

    name: str  # C identifier suffix, unique within its call: "weights", "mult", "lut"
    data: np.ndarray  # its dtype gives the C element type


@dataclass(eq=False)
class Call:
    """One kernel invocation: `kernel(&params, inputs..., outputs..., [scratch])`.

    Inputs and outputs are arena tensors, passed as typed pointers in this order.
    `params` fills the kernel's `params_type` struct: ints, floats, ConstArray (a pointer to
    flash data) or str (a raw C expression). A scratch size > 0 adds a `void *` arena
    scratch argument after the outputs.
    """

    kernel: str
    params_type: str
    params: dict[str, object]
    inputs: list[Tensor]
    outputs: list[Tensor]
    sources: list[Op]
    files: tuple[str, ...]  # runtime_c/src/*.c this kernel needs (mf_common is always added)
    scratch: int = 0
    reverse_key: str | None = None  # the params field that makes the kernel run its units last first
    notes: list[str] = field(default_factory=list)

    @property
    def reversible(self) -> bool:
        return self.reverse_key is not None

    @property
    def macs(self) -> int:
        """Multiply-accumulates of the source ops (conv, depthwise and fully-connected count)."""
        from .. import ops

        return sum(ops.macs(op) for op in self.sources)

    @property
    def label(self) -> str:
        return "+".join(op.kind.lower() for op in self.sources)


# --optimize: which kernel variants the lowerings pick (lower/fast.py). The build lowers inside
# `optimizing(options.optimize)`; outside it (a lowering called on its own, as the kernel suites
# do) the level is "size": the reference kernels.
OPTIMIZE_LEVELS = ("size", "balanced", "speed")
_optimize = ["size"]


def optimize_level() -> str:
    return _optimize[-1]


@contextmanager
def optimizing(level: str):
    """Lower with kernel variants chosen for `level` (size | balanced | speed)."""
    if level not in OPTIMIZE_LEVELS:
        raise UnsupportedError(f"--optimize '{level}' must be one of {', '.join(OPTIMIZE_LEVELS)}")
    _optimize.append(level)
    try:
        yield
    finally:
        _optimize.pop()


Lowering = Callable[[Op], Call]
LOWERINGS: dict[tuple[str, DType], Lowering] = {}


def lowering(kind: str, *dtypes: DType):
    """Decorator: register a lowering for op `kind` when its first input has one of `dtypes`."""
    def register(fn: Lowering) -> Lowering:
        for dt in dtypes:
            LOWERINGS[(kind, dt)] = fn
        return fn
    return register


def lower(op: Op) -> Call:
    if op.fused and op.fused[-1].kind == "gap":  # a conv fused with its global pool (lower/gap.py)
        from .gap import lower_gap
        return lower_gap(op)
    if op.fused and op.fused[-1].kind == "pool":  # a conv fused with its pool, row by row
        from .pool_rows import lower_pool_rows
        return lower_pool_rows(op)
    first = next(t for t in op.inputs if t is not None)
    fn = LOWERINGS.get((op.kind, first.dtype))
    if fn is None:
        raise UnsupportedError(f"{op.where} '{op.name}': no {first.dtype} kernel for {op.kind}")
    return fn(op)


def lowering_problem(ops: list[Op], level: str) -> str | None:
    """Why one of `ops` has no kernel at --optimize `level` (the error's text), or None."""
    for op in ops:
        try:
            with optimizing(level):
                lower(op)
        except MicrofuseError as e:
            return str(e)
    return None


def _load_families() -> None:
    """Import every lowering module in this package so that they register themselves."""
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")


_load_families()
