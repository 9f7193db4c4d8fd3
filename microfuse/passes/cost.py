"""The fusion cost model: a graph's estimated instructions, bytes moved, arena peak and flash, and
whether a rewrite wins under the objective (--optimize size | speed | balanced).

Instructions are counted on a Cortex-M4-like core: a MAC costs the kernel's own cost per MAC
(its KernelSpec, lower/kernels.py), each element read or written through the arena MEM_COST,
each output element a loop overhead, each op's arithmetic per element OP_COST, each call
CALL_COST. The arena peak is the planner's own bound in the graph's order (whole tensors alive
per step, less what the declared in-place overlaps can save), given by the build (Context.peak).
Flash is the constant data of every call plus the measured code bytes of every distinct kernel
(KernelSpec.code_bytes). The calls come from the kernel catalog the context carries: this
module never lowers an op itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from ..errors import MicrofuseError
from ..ir import Graph, Op
from ..ops.internal import CONV_POOL


class Catalog(Protocol):
    """The kernels, as the passes see them (the build gives a lower.Lowerer)."""

    def problem(self, op: Op) -> str | None:
        """Why op has no kernel (the error's text), or None."""

    def call(self, op: Op):
        """The op's kernel call (its .spec, .inputs, .outputs, .sources, .scratch, .macs), or
        None for an alias or an op without a kernel."""

# SRAM is the scarcer memory: a microcontroller typically has 4-8x more flash than SRAM, so a
# flash byte weighs a quarter of an arena byte when the objective trades them.
FLASH_WEIGHT = 0.25
MEM_COST = 2  # load or store of one element, with its address arithmetic
LOOP_COST = 3  # per output element of a loop
CALL_COST = 40  # call, prologue, params
OP_COST = {  # per output element, the op's own arithmetic
    "CONV_2D": 12, "DEPTHWISE_CONV_2D": 12, "FULLY_CONNECTED": 12,  # requantize, clamp
    "ADD": 30, "SUB": 30, "MUL": 15,  # int8: three / one requantization
    "RELU": 2, "RELU6": 2, "LEAKY_RELU": 3, "HARD_SWISH": 6, "LOGISTIC": 25, "TANH": 25,
    "QUANTIZE": 2, "PAD": 1, "SPACE_TO_BATCH_ND": 4, "BATCH_TO_SPACE_ND": 4,
}
POOL_TAP_COST = 2  # per window tap of a pool
LUT_COST = 1  # an int8 unary chain: one table load
LUT_KINDS = frozenset({"RELU", "RELU6", "LEAKY_RELU", "HARD_SWISH", "LOGISTIC", "TANH", "QUANTIZE"})
OBJECTIVES = ("size", "speed", "balanced")


@dataclass(frozen=True)
class Estimate:
    instructions: int
    moved_bytes: int  # activation bytes read and written by the calls (each tensor once per call)
    peak_bytes: int  # arena peak bound in the graph's order
    flash_bytes: int  # constant data and kernel code

    def minus(self, other: "Estimate") -> "Estimate":
        return Estimate(self.instructions - other.instructions, self.moved_bytes - other.moved_bytes,
                        self.peak_bytes - other.peak_bytes, self.flash_bytes - other.flash_bytes)


@dataclass(frozen=True)
class Verdict:
    fuse: bool
    reason: str
    delta: Estimate


class CostModel:
    """Estimates graphs from the catalog's calls (memoised there: each op is lowered once)."""

    def __init__(self, catalog: Catalog, peak: Callable | None = None):
        self.catalog = catalog
        self.peak = peak  # (graph, scratch, access) -> arena bound; None: the peak is not weighed

    def call(self, op: Op):
        return self.catalog.call(op)

    def estimate(self, graph: Graph) -> Estimate:
        instructions = moved = flash = 0
        kernels: dict[str, int] = {}
        for op in graph.ops:
            call = self.call(op)
            if call is None:
                continue
            instructions += call_instructions(call)
            moved += sum(t.nbytes for t in [*call.inputs, *call.outputs])
            flash += call.const_bytes
            kernels[call.kernel] = call.spec.code_bytes
        flash += sum(kernels.values())
        peak = self.peak(graph, self.scratch, self.access) if self.peak is not None else 0
        return Estimate(instructions, moved, peak, flash)

    def access(self, op: Op) -> str | None:
        """The access order the op's kernel declares (plan/inplace.py), None without a call."""
        call = self.call(op)
        return call.spec.access if call is not None else None

    def scratch(self, op: Op) -> int:
        call = self.call(op)
        return call.scratch if call is not None else 0

    def judge(self, before: Graph, after: Graph, optimize: str) -> Verdict:
        """Does replacing `before` by `after` win under the objective?"""
        b, a = self.estimate(before), self.estimate(after)
        return decide(b, a.minus(b), optimize)


def decide(base: Estimate, d: Estimate, optimize: str) -> Verdict:
    if optimize not in OBJECTIVES:
        raise MicrofuseError(f"--optimize must be one of {', '.join(OBJECTIVES)}, not '{optimize}'")
    memory = d.peak_bytes + FLASH_WEIGHT * d.flash_bytes
    if optimize == "speed":
        score = (d.instructions, d.peak_bytes)
    elif optimize == "size":
        score = (memory, d.instructions)
    else:  # relative change of time plus relative change of memory
        rel = d.instructions / max(base.instructions, 1) + \
            memory / max(base.peak_bytes + FLASH_WEIGHT * base.flash_bytes, 1)
        score = (rel, d.instructions)
    fuse = score < (0, 0)
    text = (f"{'wins' if fuse else 'loses'} for {optimize}: instructions {round(d.instructions):+,}, "
            f"arena peak {d.peak_bytes:+,} B, flash {d.flash_bytes:+,} B, moved {d.moved_bytes:+,} B")
    return Verdict(fuse, text, d)


MOVE_COST = 0.5  # per byte a cascade's ring move copies (word copies, load and store)


def call_instructions(call) -> int:
    """Estimated instructions of one kernel call (see the module docstring)."""
    if hasattr(call, "runs"):  # a CASCADE (lower/cascade.py): its band calls and ring moves
        return round(sum(n * call_instructions(c) for c, n in call.runs()) + MOVE_COST * call.moved_bytes())
    out = sum(t.elements for t in call.outputs)
    total = CALL_COST + call.spec.mac_cost * call.macs + LOOP_COST * out
    total += MEM_COST * (sum(t.elements for t in call.inputs) + out)
    int8 = call.outputs[0].dtype.np.kind != "f"
    luts = [op for op in call.sources if int8 and op.kind in LUT_KINDS]
    total += LUT_COST * out if luts else 0  # an int8 unary chain is one table load
    if len(call.outputs) > 1:  # horizontal siblings: each source computes its own output only
        return total + sum(OP_COST.get(op.kind, 1) * t.elements for op, t in zip(call.sources, call.outputs))
    first = call.sources[0]
    if call.op is not None and call.op.kind == CONV_POOL:
        # a conv fused row by row with its pool (passes/pool_rows.py) still computes, stores in
        # its ring and rereads every conv output element: the conv's per-element work is the
        # unfused conv's, on its own output, not on the pooled one
        mid = call.op.attrs.conv.outputs[0].elements
        total += (LOOP_COST + 2 * MEM_COST + OP_COST.get(first.kind, 1)) * mid
        total -= OP_COST.get(first.kind, 1) * out  # counted above instead
    for op in call.sources:
        if "POOL" in op.kind:
            total += POOL_TAP_COST * out * op.attrs.filter_h * op.attrs.filter_w
        elif op not in luts:
            total += OP_COST.get(op.kind, 1) * out
    return total
