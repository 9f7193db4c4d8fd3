"""mf_conv2d_s8_pair: CONV_2D int8 two output pixels at a time (mf_conv2d_s8_pair_body.h).

It shares mf_conv2d_s8_gemm's params, weight layout and channel table (lower/fast.py), and takes
the convs on whole 8-value chunks whose channels fit its stage of both pixels (or that need no
stage); it pairs pixels when their window fits its sign-extended buffer."""

from __future__ import annotations

from ..ir import Op
from . import fast
from .common import requant_params
from .kernels import WINDOW, KernelSpec, declare

PAIR_OUT_MAX = 128  # mf_conv2d_s8_pair_body.h MF_PAIR_OUT_MAX: output channels of the stage
PAIR_WIDE = 576  # MF_PAIR_WIDE's bound: window values of a pixel in the sign-extended buffer (a
# build sets MF_PAIR_WIDE to its largest paired window, pair_sizes); a bigger window runs pixel by
# pixel (mf_fast_blocks, as mf_conv2d_s8_gemm): one kernel, one fused variant
# In-channel bounds: the two-pixel loop pays per pass what a 1x1 conv on 8 or 16 channels cannot
# amortise (those, and first layers, are the small-channel kernels'); a bigger window can.
MIN_IN_C_1X1, MIN_IN_C = 32, 16


def pair_fits(op: Op, level: str) -> bool:
    """The op suits the two-pixel loop (runs of whole 8-value chunks; its channels fit the stage
    of both pixels, or it needs none) and mf_conv2d_s8_gemm's params (its weights and table,
    which this kernel shares)."""
    _, kh, kw, ic = op.inputs[1].shape
    least = MIN_IN_C_1X1 if kh * kw == 1 else MIN_IN_C
    if ic % 8 or ic < least or op.attrs.dilation_w != 1 or not fast.conv_gemm_fits(op, level):
        return False
    return op.outputs[0].shape[-1] <= PAIR_OUT_MAX or unstaged(op)


def unstaged(op: Op) -> bool:
    """No fused epilogue, no clamp, whole blocks of 4 channels: the kernel stores its blocks
    straight into the output (mf_conv2d_s8_pair_body.h `direct`), so any out_c fits."""
    taps = fast.conv_taps(op)
    fields = fast.quant_fields(requant_params(op, op.inputs[1], 0, taps), taps)
    return not op.fused and not fields["clamp"] and op.outputs[0].shape[-1] % 4 == 0


def pair_sizes(params: dict) -> dict[str, int]:
    """The build's MF_PAIR_WIDE: its largest paired window sizes the stack buffer."""
    depth = params.get("depth", params.get("k.depth"))
    return {"MF_PAIR_WIDE": depth} if depth <= PAIR_WIDE else {}


MAC_COST = 1.2
_FILE, _EP_FILE = "mf_conv2d_s8_pair.c", "mf_conv2d_s8_pair_ep.c"
declare({}, KernelSpec("mf_conv2d_s8_pair", "mf_conv2d_s8_gemm_params", _FILE,
                       fits=fast.dense(pair_fits), prepare=fast.conv_gemm_prepare, reversible=True,
                       mac_cost=MAC_COST, access=WINDOW, sizes=pair_sizes),
        *(KernelSpec(f"mf_conv2d_s8_pair_{v}", "mf_conv2d_s8_gemm_ep_params", _EP_FILE,
                     base="mf_conv2d_s8_pair", variant=v, reversible=True, mac_cost=MAC_COST,
                     access=WINDOW, sizes=pair_sizes)
          for v in ("add", "lut", "mul", "rsub", "sub")))
