"""Lowering of the state ops: READ_VARIABLE copies a resource into the arena, ASSIGN_VARIABLE back.

A kernel addresses a state tensor (Tensor.variable) like any other operand: it is in the Call's
inputs (read) or outputs (written), and the emitter passes its address in the state area.
"""

from __future__ import annotations

from ..ir import DType, Op
from .call import Call
from .kernels import KernelSpec, declare, make
from .registry import lowering

declare({"mf_copy_params": ("bytes",)}, KernelSpec("mf_copy", "mf_copy_params", "mf_copy.c"))


@lowering("READ_VARIABLE", *DType)
def lower_read(op: Op, lw) -> Call:
    state, out = op.inputs[0], op.outputs[0]
    return make("mf_copy", dict(bytes=state.nbytes), [state], [out], [op])


@lowering("ASSIGN_VARIABLE", *DType)
def lower_assign(op: Op, lw) -> Call:
    state, value = op.inputs
    return make("mf_copy", dict(bytes=state.nbytes), [value], [state], [op])
