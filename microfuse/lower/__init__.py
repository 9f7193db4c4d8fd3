"""Lowering: each supported op (or fused op) becomes one Call of a runtime_c kernel.

    Lowerer(level).lower(op) -> Call      # level: --optimize size | balanced | speed

A Lowerer lowers each op once (a memo keyed on the op object: the IR's ops are never changed
after they are made, passes build new ones) and is what the passes ask through their context
(`problem(op)`, `call(op)`) and what the build plans and emits from, so a model's ops are
lowered once per level. Lowerers of the other levels (`at`) share the memo family: a fused
op's parts lowered with the reference kernels are lowered once too.
"""

from __future__ import annotations

from .. import ops as opdefs
from ..errors import MicrofuseError, UnsupportedError
from ..ir import Op
# the families: importing one registers its lowerings (lower/registry.py)
from . import conv, data, elementwise, fc, pool, reduce, siblings, softmax  # noqa: F401
from . import add_n, arith, cast, compare, conv16, int16, math, matmul, movement, pool_s16  # noqa: F401
from . import reduce_ops, resize, rnn, select, signal, split, state, tconv  # noqa: F401
from . import int32  # noqa: F401
from . import control  # noqa: F401  (IF, WHILE)
from . import cascade  # noqa: F401  (CASCADE: band calls of the members)
from .call import Call, ConstArray
from .kernels import SPECS, KernelSpec
from .registry import LOWERINGS, OPTIMIZE_LEVELS, lowering


class Lowerer:
    """Lowers ops at one --optimize level, each op once (see the module docstring)."""

    def __init__(self, level: str = "size", _family: dict[str, "Lowerer"] | None = None,
                 core: str | None = None):
        if level not in OPTIMIZE_LEVELS:
            raise UnsupportedError(f"--optimize '{level}' must be one of {', '.join(OPTIMIZE_LEVELS)}")
        self.level = level
        self.core = core  # the target core (e.g. "cortex-m55": Helium layouts, lower/mve.py), or None
        self._family = {} if _family is None else _family
        self._family[level] = self
        self._memo: dict[int, tuple[Op, Call | MicrofuseError]] = {}
        self.lowered = 0  # lowerings run (memo misses), for the tests that guard the memo

    def at(self, level: str) -> "Lowerer":
        """The lowerer of another level, sharing this one's family."""
        return self._family.get(level) or Lowerer(level, self._family, self.core)

    def lower(self, op: Op) -> Call:
        hit = self._memo.get(id(op))
        if hit is None or hit[0] is not op:
            hit = (op, self._run(op))
            self._memo[id(op)] = hit  # keeps op alive, so its id is never reused
        if isinstance(hit[1], MicrofuseError):
            raise hit[1]
        return hit[1]

    def _run(self, op: Op) -> Call | MicrofuseError:
        self.lowered += 1
        first = opdefs.data_input(op)
        fn = LOWERINGS.get((op.kind, first.dtype)) if first is not None else None
        try:
            if fn is None:
                raise UnsupportedError(f"{op.where} '{op.name}': no {first.dtype if first else ''} kernel for {op.kind}")
            call = fn(op, self)
        except MicrofuseError as e:
            if not str(e).startswith(op.where):  # a helper's error: say which op it is about
                return type(e)(f"{op.where} '{op.name}': {e}")
            return e
        call.op = op
        return call

    # -- the kernel catalog the passes see (passes.Context.catalog) --------------------------------

    def problem(self, op: Op) -> str | None:
        """Why `op` has no kernel at this level (the error's text), or None."""
        try:
            self.lower(op)
        except MicrofuseError as e:
            return str(e)
        return None

    def call(self, op: Op) -> Call | None:
        """The op's call, or None for an alias (no call) or an op without a kernel."""
        d = opdefs.REGISTRY.get(op.kind)
        if d is not None and d.alias:
            return None
        try:
            return self.lower(op)
        except MicrofuseError:
            return None


def lower(op: Op, level: str = "size", core: str | None = None) -> Call:
    """One op's call at --optimize `level` for `core` (a fresh memo: for tests and tools)."""
    return Lowerer(level, core=core).lower(op)


__all__ = ["Call", "ConstArray", "KernelSpec", "Lowerer", "LOWERINGS", "OPTIMIZE_LEVELS", "SPECS", "lower",
           "lowering"]
