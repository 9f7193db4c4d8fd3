"""Helium (MVE) weight layouts: the 16-lane blocking of mf_conv2d_s8_gemm chosen when the target core has MVE.

The lowering knows the target core (Lowerer.core: --core, or the --board's CPU). On a core with
Helium (Cortex-M55) a convolution whose window runs are whole 16-value chunks (in_c % 16 == 0,
or a gathered window, in_c % 4 != 0, padded to 16) gets its weights blocked in chunks of 16
values, each [4 channels][16 values], so that the kernel's loop (runtime_c/include/mf_gemm16.h)
takes one VMLADAVA.S8 (16 MACs) per channel per chunk instead of one VMLADAVA.S16 per 8
values. The segments the kernel lists stay the same (their MF_SEG_N codes are then multiples
of 4); the layout is flagged in the lshift field (MF_L16), which the shortcut keeps below 33.
A depthwise conv on channels a multiple of 8 gets its weights in pairs of channel groups [tap][8
channels] and its channel table even channels first (runtime_c/include/mf_dwconv2d_s8_mve8.h:
VMULLB / VMULLT on 8 channels a load), flagged the same way.
Without a target core, or on other cores, the portable layouts stay. A library laid out for
Helium runs on Helium, or through the portable loops (host, Cortex-M0 / M3, unoptimized builds);
the DSP assembly builds (Cortex-M4 / M7, optimized) leave these layouts out.
"""

from __future__ import annotations

import numpy as np

from ..ir import Op
from . import fast
from .call import ConstArray

MVE_CORES = ("cortex-m55",)  # cores whose fast kernels take the Helium paths (MF_MVE)
L16 = 64  # mf_gemm16.h MF_L16: the flag in lshift (lshift itself is 1..32)
GEMM_KERNELS = ("mf_conv2d_s8_gemm", "mf_conv2d_s8_gemm_strided")
DW_KERNELS = ("mf_dwconv2d_s8_dsp", "mf_dwconv2d_s8_dsp_strided")
# DSP-assembly kernels that a Helium build runs through the portable GEMM loop, without the
# 16-lane layout: on a Helium core the lowering skips them for the next kernel of its table
DSP_ONLY = ("mf_conv2d_s8_pair", "mf_conv2d_s8_narrow")
PAIR_ORDER = np.array([0, 2, 4, 6, 1, 3, 5, 7])  # a pair of groups' channels: even, then odd


def laid_out_for_helium(compiled) -> bool:
    """Some call of the build (a cascade's bands, an IF's branches, the init calls included) has
    its weights laid out for Helium: the MF_L16 flag in its lshift."""
    def walk(calls):
        for c in calls:
            if lanes16(c.params):
                return True
            inner = [*getattr(c, "bands", {}).values(), *(x for b in c.branches for x in b.calls.values())]
            if inner and walk(inner):
                return True
        return False
    return walk([*compiled.calls, *(compiled.init.calls if compiled.init else [])])


def has_mve(core: str | None) -> bool:
    return core in MVE_CORES


def kernels_for(table: tuple[str, ...], core: str | None) -> tuple[str, ...]:
    """A lowering's kernel table for the target core (Helium cores skip the DSP-only kernels)."""
    return tuple(k for k in table if not (has_mve(core) and k in DSP_ONLY))


def gemm16_depth(op: Op) -> int | None:
    """The weight bytes per channel of the 16-lane layout, or None when the window's segments
    are not whole 16-value chunks."""
    _, kh, kw, ic = op.inputs[1].shape
    if ic % 4:
        depth = -(kh * kw * ic) // 16 * -16
        return depth if depth <= fast.GATHER_MAX else None
    return kh * kw * ic if ic % 16 == 0 else None


def retarget(kernel: str, op: Op, params: dict, core: str | None) -> dict:
    """A fast kernel's params for the target core: the Helium layouts of a GEMM or a depthwise
    conv that suits them, else the params unchanged."""
    if has_mve(core) and kernel in DW_KERNELS:
        return dw_pairs(op, params)
    if not has_mve(core) or kernel not in GEMM_KERNELS:
        return params
    depth = gemm16_depth(op)
    if depth is None:
        return params
    taps = fast.conv_taps(op)
    weights = fast.block_weights(taps, [16] * (depth // 16))
    return {**params, "depth": depth, "lshift": int(params["lshift"]) | L16,
            "weights": ConstArray("weights", weights)}


def dw_pairs(op: Op, params: dict) -> dict:
    """mf_dwconv2d_s8_mve8.h's layout, for channels a multiple of 8: weights [pair of groups][tap]
    [8 channels], the channel table of each pair even channels first, then odd ones."""
    taps = fast.dw_taps(op)  # [c, t]
    c, t = taps.shape
    lshift = int(params["lshift"]) & ~fast.DW_W16  # (the DSP layout's flag: Helium takes the int8 one)
    if c % 8:
        return {**params, "lshift": lshift, "weights": ConstArray("weights", fast.dw_words(taps))}
    pairs = taps.reshape(c // 8, 8, t).transpose(0, 2, 1)
    q = params["quant"].data.reshape(c // 4, 4, 4).transpose(0, 2, 1).reshape(c, 4)  # per channel
    order = (np.arange(c) // 8) * 8 + PAIR_ORDER[np.arange(c) % 8]
    table = q[order].reshape(c // 4, 4, 4).transpose(0, 2, 1).reshape(-1)
    return {**params, "lshift": lshift | L16, "weights": ConstArray("weights", fast.words(pairs)),
            "quant": ConstArray("quant", np.ascontiguousarray(table))}


def lanes16(params: dict) -> bool:
    """The params are in the 16-lane layout (for tests and reports)."""
    return bool(int(params.get("lshift", params.get("k.lshift", 0))) & L16)


__all__ = ["MVE_CORES", "L16", "has_mve", "kernels_for", "gemm16_depth", "retarget", "dw_pairs", "lanes16",
           "laid_out_for_helium"]
