"""The fusion cost model: a graph's estimated instructions, bytes moved, arena peak and flash, and
whether a rewrite wins under the objective (--optimize size | speed | balanced).

Instructions are counted for the reference kernels on a Cortex-M4-like core: a MAC costs
MAC_COST, each element read or written through the arena MEM_COST, each output element a
loop overhead, each op's arithmetic per element OP_COST, each call CALL_COST. The arena peak
is the planner's own bound in the graph's order (whole tensors alive per step, less what the
declared in-place overlaps can save: plan/liveness.py). Flash is the constant data of every
call plus the code of every distinct kernel (CODE_BYTES, measured with arm-none-eabi-gcc -Os
-ffunction-sections for Cortex-M4; tests/passes/test_fuse_cost.py re-measures it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ops as opdefs
from ..errors import MicrofuseError
from ..ir import Graph, Op

MAC_COST = 3  # reference kernels: load weight, load input, multiply-accumulate
# Fast kernels (lower/fast.py, --optimize balanced|speed): dual 16-bit MACs (SMLAD) on
# pre-extended weights, about one instruction per MAC with their loads.
# instructions per MAC of the fast kernels, measured on qemu-mps2-an386 (bench/speed.py --per-op)
FAST_MAC_COST = {"mf_conv2d_s8_gemm": 1.4, "mf_dwconv2d_s8_dsp": 4, "mf_fc_s8_dsp": 1.4}
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
DEFAULT_CODE_BYTES = 400
CODE_BYTES = {
    "mf_add_f32": 288, "mf_add_f32_k": 306, "mf_mul_f32": 288, "mf_mul_f32_k": 306, "mf_sub_f32": 288,
    "mf_sub_f32_k": 306, "mf_add_s8": 454, "mf_add_s8_k": 472, "mf_mul_s8": 536, "mf_mul_s8_k": 468,
    "mf_sub_s8": 454, "mf_sub_s8_k": 472, "mf_concat_f32": 106, "mf_concat_s8": 102, "mf_conv2d_f32": 408,
    "mf_conv2d_f32_ep": 728, "mf_conv2d_f32_ep_res": 748, "mf_conv2d_s8": 472, "mf_conv2d_s8_add": 652,
    "mf_conv2d_s8_lut": 480, "mf_conv2d_s8_mul": 602, "mf_conv2d_s8_rsub": 652, "mf_conv2d_s8_sub": 652,
    "mf_dequantize_s8_f32": 42, "mf_dequantize_u8_f32": 42, "mf_dwconv2d_f32": 376,
    "mf_dwconv2d_f32_ep": 692, "mf_dwconv2d_f32_ep_res": 716, "mf_dwconv2d_s8": 444,
    "mf_dwconv2d_s8_add": 614, "mf_dwconv2d_s8_lut": 464, "mf_dwconv2d_s8_mul": 566,
    "mf_dwconv2d_s8_rsub": 614, "mf_dwconv2d_s8_sub": 614, "mf_fc_f32": 164, "mf_fc_f32_ep": 520,
    "mf_fc_f32_ep_res": 544, "mf_fc_s8": 296, "mf_fc_s8_add": 438, "mf_fc_s8_lut": 286, "mf_fc_s8_mul": 390,
    "mf_fc_s8_rsub": 438, "mf_fc_s8_sub": 438, "mf_fc_s8_pc": 304, "mf_fc_s8_pc_add": 444,
    "mf_fc_s8_pc_lut": 294, "mf_fc_s8_pc_mul": 396, "mf_fc_s8_pc_rsub": 444, "mf_fc_s8_pc_sub": 444,
    "mf_lut_s8": 24, "mf_lut_s8_u8": 24, "mf_lut_u8_s8": 24, "mf_mean_f32": 238, "mf_mean_s8": 358,
    "mf_pad_f32": 310, "mf_pad_s8": 312, "mf_pool_avg_f32": 324, "mf_pool_avg_f32_ep": 676,
    "mf_pool_avg_f32_ep_res": 688, "mf_pool_avg_s8": 252, "mf_pool_avg_s8_lut": 260, "mf_pool_max_f32": 308,
    "mf_pool_max_f32_ep": 664, "mf_pool_max_f32_ep_res": 676, "mf_pool_max_s8": 216,
    "mf_pool_max_s8_lut": 226, "mf_quantize_f32_s8": 128, "mf_softmax_f32": 176, "mf_softmax_s8": 488,
    "mf_batch_to_space_f32": 456, "mf_batch_to_space_s8": 456, "mf_space_to_batch_f32": 468,
    "mf_space_to_batch_s8": 470, "mf_hard_swish_f32": 76, "mf_leaky_relu_f32": 42, "mf_logistic_f32": 104,
    "mf_relu6_f32": 64, "mf_relu_f32": 44, "mf_tanh_f32": 32,
    # conv / depthwise fused with a global average pool or MEAN (runtime_c/include/mf_gap.h)
    "mf_conv2d_s8_gap": 740, "mf_conv2d_s8_gap_lut": 750, "mf_conv2d_s8_gap_add": 934,
    "mf_conv2d_s8_gap_sub": 934, "mf_conv2d_s8_gap_rsub": 934, "mf_conv2d_s8_gap_mul": 894,
    "mf_dwconv2d_s8_gap": 696, "mf_dwconv2d_s8_gap_lut": 710, "mf_dwconv2d_s8_gap_add": 884,
    "mf_dwconv2d_s8_gap_sub": 884, "mf_dwconv2d_s8_gap_rsub": 884, "mf_dwconv2d_s8_gap_mul": 832,
    "mf_conv2d_f32_gap": 684, "mf_conv2d_f32_gap_ep": 994, "mf_conv2d_f32_gap_ep_res": 1074,
    "mf_dwconv2d_f32_gap": 620, "mf_dwconv2d_f32_gap_ep": 956, "mf_dwconv2d_f32_gap_ep_res": 1034,
    # conv / depthwise fused row by row with a max / average pool (runtime_c/include/mf_pool_rows.h)
    "mf_conv2d_s8_pool": 924, "mf_conv2d_s8_pool_lut": 936, "mf_conv2d_s8_pool_add": 1138,
    "mf_conv2d_s8_pool_sub": 1138, "mf_conv2d_s8_pool_rsub": 1138, "mf_conv2d_s8_pool_mul": 1090,
    "mf_dwconv2d_s8_pool": 898, "mf_dwconv2d_s8_pool_lut": 914, "mf_dwconv2d_s8_pool_add": 1100,
    "mf_dwconv2d_s8_pool_sub": 1100, "mf_dwconv2d_s8_pool_rsub": 1100, "mf_dwconv2d_s8_pool_mul": 1048,
    "mf_conv2d_f32_pool": 996, "mf_conv2d_f32_pool_ep": 1340, "mf_conv2d_f32_pool_ep_res": 1396,
    "mf_dwconv2d_f32_pool": 936, "mf_dwconv2d_f32_pool_ep": 1304, "mf_dwconv2d_f32_pool_ep_res": 1352,
    # horizontal siblings (runtime_c/include/mf_multi.h): the shared loop and an N-output entry
    "mf_conv2d_s8_x2": 590, "mf_conv2d_s8_x3": 594, "mf_conv2d_s8_x4": 598,
    "mf_fc_s8_x2": 350, "mf_fc_s8_x3": 354, "mf_fc_s8_x4": 358,
}
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
    """Estimates graphs, caching each op's lowering (ops a rewrite leaves alone keep their identity)."""

    def __init__(self, optimize: str = "balanced"):
        self.optimize = optimize  # lowering picks the kernel variants of this level
        self._calls: dict[int, tuple[Op, object]] = {}

    def call(self, op: Op):
        """The op's kernel call, or None for an alias (no call) or an op that cannot be lowered."""
        hit = self._calls.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        from .. import lower  # late: lowering imports the passes' epilogue module

        call = None
        if not opdefs.REGISTRY.get(op.kind) or not opdefs.REGISTRY[op.kind].alias:
            try:
                with lower.optimizing(self.optimize):
                    call = lower.lower(op)
            except (MicrofuseError, StopIteration):
                call = None
        self._calls[id(op)] = (op, call)  # keeps op alive, so its id is never reused
        return call

    def estimate(self, graph: Graph) -> Estimate:
        instructions = moved = flash = 0
        kernels: set[str] = set()
        for op in graph.ops:
            call = self.call(op)
            if call is None:
                continue
            instructions += call_instructions(call)
            moved += sum(t.nbytes for t in [*call.inputs, *call.outputs])
            flash += const_bytes(call)
            kernels.add(call.kernel)
        flash += sum(CODE_BYTES.get(k, DEFAULT_CODE_BYTES) for k in kernels)
        return Estimate(instructions, moved, peak_bytes(graph, self.scratch), flash)

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


def call_instructions(call) -> int:
    """Estimated instructions of one kernel call (see the module docstring)."""
    out = sum(t.elements for t in call.outputs)
    total = CALL_COST + mac_cost(call.kernel) * call.macs + LOOP_COST * out
    total += MEM_COST * (sum(t.elements for t in call.inputs) + out)
    int8 = call.outputs[0].dtype.np.kind != "f"
    luts = [op for op in call.sources if int8 and op.kind in LUT_KINDS]
    total += LUT_COST * out if luts else 0  # an int8 unary chain is one table load
    if len(call.outputs) > 1:  # horizontal siblings: each source computes its own output only
        return total + sum(OP_COST.get(op.kind, 1) * t.elements for op, t in zip(call.sources, call.outputs))
    first = call.sources[0]
    if first.fused and first.fused[-1].kind == "pool":
        # a conv fused row by row with its pool (passes/pool_rows.py) still computes, stores in
        # its ring and rereads every conv output element: the conv's per-element work is the
        # unfused conv's, on its own output, not on the pooled one
        mid = first.fused[-1].input.elements
        total += (LOOP_COST + 2 * MEM_COST + OP_COST.get(first.kind, 1)) * mid
        total -= OP_COST.get(first.kind, 1) * out  # counted above instead
    for op in call.sources:
        if "POOL" in op.kind:
            total += POOL_TAP_COST * out * op.attrs.filter_h * op.attrs.filter_w
        elif op not in luts:
            total += OP_COST.get(op.kind, 1) * out
    return total


def mac_cost(kernel: str) -> int:
    """Instructions per MAC of a kernel or of its fused variants (`<kernel>_<epilogue>`)."""
    for name, value in FAST_MAC_COST.items():
        if kernel == name or kernel.startswith(name + "_"):
            return value
    return MAC_COST


def const_bytes(call) -> int:
    from ..lower import ConstArray

    return sum(np.asarray(v.data).nbytes for v in call.params.values() if isinstance(v, ConstArray))


def peak_bytes(graph: Graph, scratch=None) -> int:
    """The planner's overlap-aware bound on the arena peak, in the graph's own op order
    (with each op's kernel scratch when `scratch(op)` gives it)."""
    from ..plan import liveness

    try:
        bufs = liveness.build(graph, scratch)
    except MicrofuseError:
        return 0
    order = list(graph.ops)
    life = liveness.lifetimes(bufs, order)
    _, overlap = liveness.step_bytes(bufs, order, life, liveness.live_pairs(bufs, order, life))
    return max(overlap, default=0)
