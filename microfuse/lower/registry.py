"""The lowering registry: per (op kind, dtype of its first input), the function that lowers it."""

from __future__ import annotations

from typing import Callable

from ..ir import DType, Op
from .call import Call

# --optimize: which kernel variants the lowerings pick (lower/fast.py); "size": the reference kernels.
OPTIMIZE_LEVELS = ("size", "balanced", "speed")

Lowering = Callable[[Op, "object"], Call]  # (op, the Lowerer: its level, and lowering of parts)
LOWERINGS: dict[tuple[str, DType], Lowering] = {}


def lowering(kind: str, *dtypes: DType):
    """Decorator: register a lowering for op `kind` when its first input has one of `dtypes`."""
    def register(fn: Lowering) -> Lowering:
        for dt in dtypes:
            if (kind, dt) in LOWERINGS:  # two families claiming one op: a merge left both
                raise RuntimeError(f"two lowerings for {kind} {dt}: {LOWERINGS[(kind, dt)].__module__}, {fn.__module__}")
            LOWERINGS[(kind, dt)] = fn
        return fn
    return register
