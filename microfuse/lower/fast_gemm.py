"""mf_conv2d_s8_pair: CONV_2D int8 two output pixels at a time (mf_conv2d_s8_pair_body.h); and
mf_conv2d_s8_narrow, its block loop on the gathered windows of a conv on 1..4 input channels.

It shares mf_conv2d_s8_gemm's params (lower/fast.py) but has its own weight layout, which holds
the channel table too (pair_stream: per block of 4 channels its biases, pair_weights' mixed words,
its requantization; the params' quant is NULL), and
takes the convs on whole 8-value chunks whose window fits its sign-extended buffer and whose
channels fit its stage of both pixels (or that need no stage)."""

from __future__ import annotations

import numpy as np

from ..errors import UnsupportedError
from ..ir import Op
from . import fast
from .call import ConstArray
from .common import requant_params
from .kernels import WINDOW, KernelSpec, declare

PAIR_OUT_MAX = 128  # mf_conv2d_s8_pair_body.h MF_PAIR_OUT_MAX: output channels of the stage
PAIR_UNROLL = 16  # mf_conv2d_s8_pair_body.h MF_PAIR_CHUNKS's bound: 8-value chunks unrolled (224 B of code each)
PAIR_SHORT = 8 * PAIR_UNROLL  # MF_PAIR_SHORT: a window of up to that many values runs no turn test
PAIR_WIDE = 576  # MF_PAIR_WIDE's bound: window values of a pixel in the sign-extended buffer (a
# build sets MF_PAIR_WIDE to its largest paired window, pair_sizes; every pixel goes through it, a
# lone one too: a bigger window keeps mf_conv2d_s8_gemm)
# In-channel bounds: one pass per block of 4 channels makes even a 1x1 conv on 8 channels cheaper
# paired than through mf_fast_blocks, but a model whose only such conv is small (the tiny example's
# 8->16, 8 pixels a row) then links both kernels, +5 KB of flash: from 16 (VWW's 16->32 pointwise
# pairs), and from 8 where an output row takes at least WIDE_ROW_MACS (VWW's 8->16 at 48x48, 6 K a
# row: 14.75 -> 14.24 M est. M4 cycles, its firmware 1.4 KB smaller without the gemm kernel). A row,
# not the whole conv: a cascade lowers its members a band of rows at a time.
# A strided 1x1 conv on fewer than 32 keeps the gemm kernel: IC's 16->32 shortcut paired takes the
# default build's plan 1 KB more arena.
MIN_IN_C_1X1, MIN_IN_C, MIN_IN_C_STRIDED_1X1, MIN_IN_C_WIDE_1X1 = 16, 16, 32, 8
WIDE_ROW_MACS = 4096


def pair_fits(op: Op, level: str) -> bool:
    """The op suits the two-pixel loop (runs of whole 8-value chunks; its channels fit the stage
    of both pixels, or it needs none) and mf_conv2d_s8_gemm's params (its weights and table,
    which this kernel shares)."""
    _, kh, kw, ic = op.inputs[1].shape
    strided = op.attrs.stride_h > 1 or op.attrs.stride_w > 1
    pixels = int(np.prod(op.outputs[0].shape[:-1]))  # one pixel alone: the gemm's loop is cheaper
    wide = op.outputs[0].shape[2] * ic * op.outputs[0].shape[-1] >= WIDE_ROW_MACS
    least = MIN_IN_C if kh * kw > 1 else MIN_IN_C_STRIDED_1X1 if strided else \
        MIN_IN_C_WIDE_1X1 if wide else MIN_IN_C_1X1
    if ic % 8 or ic < least or kh * kw * ic > PAIR_WIDE or op.attrs.dilation_w != 1 or pixels < 2 \
            or not fast.conv_gemm_fits(op, level) or not mixable(op):
        return False
    return op.outputs[0].shape[-1] <= PAIR_OUT_MAX or unstaged(op)


def unstaged(op: Op) -> bool:
    """No fused epilogue, no clamp, whole blocks of 4 channels: the kernel stores its blocks
    straight into the output (mf_conv2d_s8_pair_body.h `direct`), so any out_c fits."""
    taps = fast.conv_taps(op)
    fields = fast.quant_fields(requant_params(op, op.inputs[1], 0, taps), taps)
    return not op.fused and not fields["clamp"] and op.outputs[0].shape[-1] % 4 == 0


def pair_sizes(params: dict, fused: bool = False) -> dict[str, int]:
    """The build's MF_PAIR_WIDE: its largest paired window sizes the stack buffer; MF_PAIR_WINDOWS:
    1 when some call reads windows, 0 when all are pointwise (1x1, stride 1, no padding: the loop
    reads a pixel's one run itself, and the window readers are compiled out); MF_PAIR_RUNS: 1 when
    some call is pointwise and stores straight (no epilogue nor clamp, whole blocks: its pairs go
    through mf_pair_run as one run), else the assembly's run check is compiled out; MF_PAIR_TIES
    (pair_ties); MF_PAIR_CHUNKS (pair_chunks): the chunk loop's unrolled chunks; MF_PAIR_SHORT: 1
    when some call's window is at most PAIR_SHORT values (within the unrolled chunks in any build:
    its blocks skip the chunk loop's test, which costs a longer window's first partial turn a
    stub); MF_PAIR_BUFS 0 (narrow_sizes sets 1)."""
    def field(name: str) -> int:
        return params.get(name, params.get(f"k.{name}"))

    depth = field("depth")
    pointwise = all(field(f) == 1 for f in ("k_h", "k_w", "stride_h", "stride_w")) \
        and field("pad_h") == 0 and field("pad_w") == 0
    runs = pointwise and not fused and not field("clamp") and field("out_c") % 4 == 0
    return {"MF_PAIR_WINDOWS": int(not pointwise), "MF_PAIR_RUNS": int(runs), "MF_PAIR_BUFS": 0,
            "MF_PAIR_TIES": pair_ties(params),
            "MF_PAIR_SHORT": int(depth <= PAIR_SHORT), "MF_PAIR_CHUNKS": pair_chunks(depth),
            **fix_sizes(params), **({"MF_PAIR_WIDE": depth} if depth <= PAIR_WIDE else {})}


def pair_chunks(depth: int) -> int:
    """MF_PAIR_CHUNKS for a window of `depth` values: its 8-value chunks (a last half one counted)
    up to a power of two, from 4 (the loop's table is indexed by the count mod the chunks) to
    PAIR_UNROLL, so that a build's largest (KernelSpec.sizes) unrolls every window of up to
    PAIR_SHORT values whole: such a window is entered at its count from the end, with no turn test,
    and only a window over PAIR_SHORT (stream's PAIR_LONG) takes turns of PAIR_UNROLL chunks."""
    chunks = -(-depth // 8)
    return min(PAIR_UNROLL, max(4, 1 << (chunks - 1).bit_length()))


def pair_ties(params: dict) -> int:
    """MF_PAIR_TIES: 1 when some live channel of the call's stream (pair_stream) requantizes to an
    output zero point other than -128, so that the assembly must round a negative accumulator's
    ties away from zero as TFLite does; 0 when all are -128: a negative accumulator's value is then
    -128 or less however its ties round, and saturates to -128 (mf_conv2d_s8_pair_body.h
    MF_PAIR_RQ). The zero point is in the round, 2^(s-1) + zp 2^s (an odd channel's 128 times that
    plus 64); a dead channel (multiplier 0) gives its constant either way."""
    def field(name: str):
        return params.get(name, params.get(f"k.{name}"))

    stream = np.asarray(field("weights").data, np.int64).reshape(-1, PAIR_BLOCK + field("depth"))
    if stream[0, -2] & PAIR_FIXED:
        return 0  # (pair_fix takes no stream with ties)
    table = stream[:, -10:-2].reshape(-1, 2)  # per channel: mult, round
    s = (stream[:, -2:, None] >> np.array([0, PAIR_ODD_SHIFT])) & 0xFF  # [block, word, channel in word]
    odd = np.arange(len(table)) % 2 == 1
    rnd = np.where(odd, table[:, 1] >> 7, table[:, 1])
    s = s.reshape(-1)
    zp = (rnd - (1 << (s - 1))) >> s
    return int(np.any((table[:, 0] != 0) & (zp != -128)))


def pair_ep_sizes(params: dict) -> dict[str, int]:
    """pair_sizes of a call with a fused epilogue (never a run)."""
    return pair_sizes(params, fused=True)


MIX_BOUND = 1 << 23  # |accumulator| of an odd channel: 256 times it must fit an int32 (mixed)
# mf_pair_blocks shifts left by 1 (the shortcut's left + 1 with left 0: lower/fast.py fast_quant
# takes no channel with a left shift), an odd channel's 256 acc right by 7
MIX_LSHIFT = 1


def mixable(op: Op) -> bool:
    """The op's weights and table suit pair_weights' mixed words (mf_pair_blocks' odd channels):
    no weight pair whose mixed int16 lane leaves int16, and every live odd channel's accumulator
    within MIX_BOUND (|bias| + 128 sum|w|) and its stored round (pair_stream) within 2^30, and the
    loop's left shift, MIX_LSHIFT."""
    taps = fast.conv_taps(op)
    fields = fast.quant_fields(requant_params(op, op.inputs[1], 0, taps), taps)
    return fields is not None and mixed_fits(taps, fields["quant"].data, int(fields["lshift"]))


def mixed_fits(taps: np.ndarray, quant: np.ndarray, lshift: int) -> bool:
    """mixable on int8 weights [channels, depth] and mf_fast.h's channel table (blocks of 4)."""
    w = fast.pad_to(np.asarray(taps, np.int64), 0, 4)
    if lshift != MIX_LSHIFT or np.any((w[1::2] == -128) & (w[0::2] < 0)):
        return False
    q = np.asarray(quant, np.int64).reshape(-1, 4, 4)  # [block, bias / mult / round / rshift, channel]
    bias, mult = q[:, 0].reshape(-1), q[:, 1].reshape(-1)
    bound = np.abs(bias) + 128 * np.abs(w).sum(axis=1)
    odd = np.arange(len(bias)) % 2 == 1
    # an odd channel's round as pair_stream stores it, 128 r + 64, plus SMMLA's high word of 256
    # acc m (under 2^30: |256 acc| < 2^31, m < 2^31) within an int32
    odd_round = 128 * q[:, 2].reshape(-1) + 64
    return not np.any(odd & (mult != 0) & ((bound >= MIX_BOUND) | (np.abs(odd_round) >= 2**30)))


def pair_weights(taps: np.ndarray) -> np.ndarray:
    """int8 weights [channels, depth] (depth % 4 == 0) -> mf_pair_blocks' words: channels in blocks
    of 4 (zero channels pad the last), per block per 4 window values v0..v3 four words, for the
    even values (v0, v2) then the odd ones (v1, v3), channels 0-1 then 2-3, each word two int16
    lanes, (v, v+2), of the channels mixed: 256 w[c'] + w[c] (bytes [c v, c' v, c v+2, c' v+2]
    with c''s bytes less the borrow of c's sign). SXTB16 gives channel c's int16 pair; the word
    itself, multiplied with the buffer's (v, v+2) pairs of both pixels, 256 times channel c''s sum
    plus c's, which mf_pair_blocks takes apart at the end. mixed_fits: every lane fits int16."""
    w = fast.pad_to(np.asarray(taps, np.int8), 0, 4)
    nb, depth = w.shape[0] // 4, w.shape[1]
    # axes (block, group of 4 values, half h, channel pair, value pair k, channel in pair): v = 2k + h
    w = w.reshape(nb, 2, 2, depth // 4, 2, 2).transpose(0, 3, 5, 1, 4, 2).astype(np.int16)
    w[..., 1] -= w[..., 0] < 0  # the high byte of the lane 256 w[c'] + w[c]
    if np.any(w[..., 1] < -128):
        raise UnsupportedError("pair_weights: a mixed lane out of int16 range (mixed_fits)")
    return fast.words(w.astype(np.int8))


PAIR_ODD_SHIFT = 9  # an odd channel's right shift in its shift word: bits 9-16 (0-7: the even one's)
PAIR_LAST = 1 << 8  # MF_PAIR_LAST: the last block's flag, between channel 2's and 3's right shifts
PAIR_LONG = 1 << 31  # MF_PAIR_LONG: every block's of a window over PAIR_SHORT values
PAIR_BLOCK = 14  # a block's words in pair_stream besides its weights: 4 biases, 8 mult / round, 2 shifts


def pair_stream(taps: np.ndarray, quant: ConstArray) -> ConstArray:
    """mf_pair_blocks' one stream of words: per block of 4 channels its biases (the odd channels'
    mixed as their weights: 256 b[c'] + b[c], wrapping as the accumulator does), its pair_weights
    words, then per channel (multiplier, round) from mf_fast.h's channel table, an odd channel's
    round as 128 r + 64 (mixed_fits keeps it within 2^30; the assembly requantizes the odd
    channels' 256 acc with it, MF_PAIR_RQO), and the right shifts two to a word, channels 0 and 1
    (s0 + 2^9 s1), 2 and 3 (ASR takes a register's low byte: one word serves two channels, a shift
    right by 9 between them); the word of channels 2 and 3 carries the last block's PAIR_LAST in
    bit 8, between its shifts, and PAIR_LONG in bit 31 where the window is over PAIR_SHORT values
    (the chunk loop's turns, MF_PAIR_SHORT), so that the one ASRS by 9 that gives channel 3's shift
    also sets C (the last block: the loop walks one pointer and needs no count) and N (the turns)."""
    q = np.asarray(quant.data, np.int64).reshape(-1, 4, 4).copy()  # [block, field, channel]
    nb = len(q)
    q[:, 0, 1::2] = 256 * q[:, 0, 1::2] + q[:, 0, 0::2]
    q[:, 2, 1::2] = 128 * q[:, 2, 1::2] + 64  # (MF_PAIR_RQO: SMMLA of 256 acc, over 128)
    shifts = q[:, 3, 0::2] + (q[:, 3, 1::2] << PAIR_ODD_SHIFT)  # [block, channels 0-1, 2-3]
    shifts[:, 1] |= PAIR_LONG * (np.asarray(taps).shape[1] > PAIR_SHORT)  # (the sign bit)
    shifts[-1, 1] |= PAIR_LAST  # the last block's flag
    q = (q + 2**31) % 2**32 - 2**31
    shifts = (shifts + 2**31) % 2**32 - 2**31
    w = pair_weights(taps).reshape(nb, -1)
    table = q[:, 1:3].transpose(0, 2, 1).reshape(nb, 8)  # [block, channel, mult / round]
    stream = np.concatenate([q[:, 0], w, table, shifts], axis=1).astype(np.int32)
    return ConstArray("weights", np.ascontiguousarray(stream).reshape(-1))


PAIR_FIX = 16  # mf_conv2d_s8_pair_body.h MF_PAIR_FIX: SSAT's right shift of pair_fix's even channels
PAIR_FIXED = 1 << 30  # in every block's first shift word of a stream in pair_fix's form


def _stream(params: dict) -> tuple[str, np.ndarray]:
    """The params' key of a pair stream and its blocks [block, words] (int64)."""
    key = "weights" if "weights" in params else "k.weights"
    depth = params.get("depth", params.get("k.depth"))
    return key, np.asarray(params[key].data, np.int64).reshape(-1, PAIR_BLOCK + depth)


def _even_fields(blocks: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per block its even channels' (0 and 2) bias, multiplier, round and right shift [block, 2],
    and their weights' sum |w| (the low bytes of each mixed lane, pair_weights)."""
    depth = blocks.shape[1] - PAIR_BLOCK
    table = blocks[:, 4 + depth:4 + depth + 8]
    w = (blocks[:, 4:4 + depth] & 0xFFFFFFFF).astype(np.uint32).view(np.uint8).reshape(len(blocks), -1, 2, 2, 4)
    absw = np.abs(w[..., [0, 2]].astype(np.int8).astype(np.int64)).sum(axis=(1, 2, 4))  # [block, pair]
    return blocks[:, [0, 2]], table[:, [0, 4]], table[:, [1, 5]], blocks[:, -2:] & 0xFF, absw


def pair_fixable(params: dict) -> bool:
    """The call's stream can take pair_fix's form: no ties (pair_ties), and each live even channel's
    left shift k = 1 + PAIR_FIX - s (s its right shift) at least 2 (so the round stays whole) and
    keeping every accumulator the int8 inputs can produce (|bias| + 128 sum|w|) within an int32."""
    _, blocks = _stream(params)
    if blocks[0, -2] & PAIR_FIXED:
        return True
    if pair_ties(params):
        return False
    bias, mult, _, s, absw = _even_fields(blocks)
    k = 1 + PAIR_FIX - s
    bound = (np.abs(bias) + 128 * absw) << np.clip(k, 0, 17)
    return not np.any((mult != 0) & ((s < 1) | (k < 2) | (bound >= 2**31)))


def pair_fix(blocks: np.ndarray) -> np.ndarray:
    """A stream's blocks with the even channels requantized at a fixed right shift: TFLite's
    value for accumulator a (no ties: pair_ties), floor((2 a m + 2^31 + r 2^32) / 2^(32 + s))
    with the round r's output zero point and rounding, equals floor((a 2^k m + R 2^32) /
    2^(32 + PAIR_FIX)) with k = 1 + PAIR_FIX - s and R = 2^(k - 2) + r 2^(k - 1) (the numerator
    and the divisor times 2^(PAIR_FIX - s)): the assembly's LSL by k, SMMLA's high word plus R,
    and SSAT's immediate shift (mf_conv2d_s8_pair_body.h MF_PAIR_FIX), one instruction fewer than
    SMMLAR's rounding then a shift by register. k replaces s in the shift words, R the round; a
    dead channel (multiplier 0) gets floor(R / 2^PAIR_FIX) = floor(r / 2), its value as before."""
    out = blocks.copy()
    depth = blocks.shape[1] - PAIR_BLOCK
    for word, rnd in ((-2, 4 + depth + 1), (-1, 4 + depth + 5)):  # channels 0 and 2
        k = 1 + PAIR_FIX - (blocks[:, word] & 0xFF)
        out[:, rnd] = (1 << (k - 2)) + blocks[:, rnd] * (1 << (k - 1))
        out[:, word] = (blocks[:, word] & ~0xFF) | k
    out[:, -2] |= PAIR_FIXED
    return (out + 2**31) % 2**32 - 2**31


def fix_sizes(params: dict) -> dict[str, int]:
    """MF_PAIR_FIX: PAIR_FIX where the call's stream is in pair_fix's form; MF_PAIR_KEEP: 1 where
    it cannot take it, which keeps the whole build's streams as pair_stream makes them
    (pair_finish: one requantization in the assembly for all calls)."""
    _, blocks = _stream(params)
    fixed = bool(blocks[0, -2] & PAIR_FIXED)
    return {"MF_PAIR_FIX": PAIR_FIX if fixed else 0, "MF_PAIR_KEEP": int(not pair_fixable(params))}


def pair_finish(params: dict, config: dict[str, int]) -> dict:
    """The call's stream in pair_fix's form when every paired call of the build can take it."""
    key, blocks = _stream(params)
    if config.get("MF_PAIR_KEEP", 1) or blocks[0, -2] & PAIR_FIXED:
        return params
    return {**params, key: ConstArray(params[key].name, pair_fix(blocks).astype(np.int32).reshape(-1))}


def pair_prepare(op: Op, ref: dict) -> dict:
    params = fast.conv_gemm_prepare(op, ref)
    return {**params, "quant": "NULL", "weights": pair_stream(fast.conv_taps(op), params["quant"])}


MAC_COST = 1.25  # instructions per MAC measured: KWS's 64-channel 1x1 convs (1.43 before one pass a block)
_FILE, _EP_FILE = "mf_conv2d_s8_pair.c", "mf_conv2d_s8_pair_ep.c"
declare({}, KernelSpec("mf_conv2d_s8_pair", "mf_conv2d_s8_gemm_params", _FILE,
                       fits=fast.dense(pair_fits), prepare=pair_prepare, reversible=True,
                       mac_cost=MAC_COST, access=WINDOW, sizes=pair_sizes, finish=pair_finish),
        *(KernelSpec(f"mf_conv2d_s8_pair_{v}", "mf_conv2d_s8_gemm_ep_params", _EP_FILE,
                     base="mf_conv2d_s8_pair", variant=v, reversible=True, mac_cost=MAC_COST,
                     access=WINDOW, sizes=pair_ep_sizes, finish=pair_finish)
          for v in ("add", "lut", "mul", "rsub", "sub")))


# -- mf_conv2d_s8_narrow: few input channels ------------------------------------------------------

NARROW_IN_C = 4  # in_c bound: more channels have runs of 4 or 8 values for the gemm or pair kernel
# Strided only: IC's stride-1 first conv taken off mf_conv2d_s8_gemm shifts the balanced residual
# fusion's flash trade-off (its ADD fuses into the other conv), and the cascade's rings grow by 1 KB
NARROW_MIN_STRIDE = 2
NARROW_BAND = 1024  # mf_conv2d_s8_narrow.c MF_NARROW_BAND's bound (VWW's 96-pixel RGB rows: 3 x 292)
# the stack bytes of the pair buffers a call storing straight widens ahead (MF_NARROW_WIDE, one
# mf_pair_run for them all: VWW's 112-byte windows 4 pairs a run), for a call of at least
# NARROW_RUN_MIN pairs (KWS's cascade's rows of 5 pixels gain too little for the stack). A run
# saves a call's prologue and epilogue per pair but its first, about 68 cycles: VWW's est. M4
# cycles and stack by bytes here (main before runs: 10,750,800, 1,616 B): 224: 10,748,665,
# 1,516 B (the pair kernel's frame the peak); 336: 10,735,610, 1,608 B; 448: 10,729,081,
# 1,720 B; 672: 10,722,552, 1,944 B; 1008: 10,718,202, 2,280 B. (Two more pairs in the band's
# first bytes on VWW's rows inside the image, which read only their right end from it: 448 bytes
# 10,724,608 cycles, 1,736 B, but 352 B more code; 224: 10,731,407, 1,516 B.) 336, 3 pairs: the
# most that keeps the stack within what it was before runs.
NARROW_RUN_BYTES = 336
NARROW_RUN_MIN = 4


def narrow_order(w: np.ndarray) -> np.ndarray:
    """OHWI weights -> [channels, values] as narrow_reads reads a window (then zero-padded)."""
    # each window row's whole words of its k_w * in_c values, then the rows' leftover values
    # together (a 3x3 RGB window: 6 words and 3 values in 7 words, not 9)
    oc, kh, kw, ic = w.shape
    rows = w.reshape(oc, kh, kw * ic)
    whole = kw * ic // 4 * 4
    order = np.concatenate([rows[:, :, :whole].reshape(oc, -1), rows[:, :, whole:].reshape(oc, -1)], axis=1)
    return fast.pad_to(order, 1, 4)


def narrow_depth(op: Op) -> int:
    """narrow_order's values, whole 4-value groups (mf_pair_blocks enters a window of 8 n + 4
    values at its first chunk's second half)."""
    _, kh, kw, ic = op.inputs[1].shape
    whole = kw * ic // 4 * 4
    return kh * whole + -(-kh * (kw * ic - whole) // 4) * 4


def narrow_reads(k_h: int, k_w: int, in_c: int, out_w: int, stride_w: int,
                 pitch: int | None = None) -> np.ndarray:
    """Where mf_narrow_widen reads a window, in narrow_order's order: the offsets from its first
    tap of each window row's whole words, then of the rows' leftover values, its rows `pitch` bytes
    apart (None: band rows, mf_narrow_band, a row of output pixels' columns apart; else input rows).
    The same for every window of a call read from the band, or from the input: made here, not per
    call at run time. The leftover values' offsets padded to whole 4s with 0 (the kernel packs
    them four at a time; narrow_order's weights there are zero)."""
    width = -(-((out_w - 1) * stride_w + k_w) * in_c // 4) * 4 if pitch is None else pitch
    run = k_w * in_c
    whole = run // 4 * 4
    words = [ky * width + g for ky in range(k_h) for g in range(0, whole, 4)]
    rest = [ky * width + g for ky in range(k_h) for g in range(whole, run)]
    return np.array(words + rest + [0] * (-len(rest) % 4), np.int32)


def narrow_band(k_h: int, k_w: int, in_c: int, out_w: int, stride_w: int) -> int:
    """Bytes of an output row's padded input rows (mf_narrow_band), each rounded up to a word."""
    return k_h * (-(-((out_w - 1) * stride_w + k_w) * in_c // 4) * 4)


def narrow_fits(op: Op, level: str) -> bool:
    """A strided conv on 1..4 input channels the kernel and mf_conv2d_s8_gemm's table suit."""
    # more than one pixel, horizontal dilation 1, window and band within the stack buffers, no
    # fused epilogue (the kernel finishes with a clamp only)
    _, kh, kw, ic = op.inputs[1].shape
    pixels = int(np.prod(op.outputs[0].shape[:-1]))
    band = narrow_band(kh, kw, ic, op.outputs[0].shape[2], op.attrs.stride_w)
    if ic > NARROW_IN_C or op.fused or pixels < 2 or kh > fast.ROWS_MAX or op.attrs.dilation_w != 1 \
            or op.attrs.stride_w < NARROW_MIN_STRIDE or narrow_depth(op) > fast.GATHER_MAX \
            or band > NARROW_BAND or not fast.conv_gemm_fits(op, level) or not mixable(op):
        return False
    return op.outputs[0].shape[-1] <= PAIR_OUT_MAX or unstaged(op)


def narrow_prepare(op: Op, ref: dict) -> dict:
    """mf_conv2d_s8_gemm's params with narrow_order's weights in the pair layout, and in `zrow`
    (no padding row here: the bands pad) the window's read lists, narrow_reads: in the band, then
    in the input (a pair whose windows lie inside the image is read from there)."""
    rows = narrow_order(np.asarray(op.inputs[1].data, np.int8))
    depth = narrow_depth(op)
    padded = np.pad(rows, ((0, 0), (0, depth - rows.shape[1])))  # zero weights past the window
    params = fast.conv_gemm_prepare(op, ref)
    geometry = [params[k] for k in ("k_h", "k_w", "in_c", "out_w", "stride_w")]
    pitch = params["dilation_h"] * params["in_w"] * params["in_c"]
    reads = np.concatenate([narrow_reads(*geometry), narrow_reads(*geometry, pitch)])
    return {**params, "depth": depth, "zrow": ConstArray("reads", reads), "quant": "NULL",
            "weights": pair_stream(padded, params["quant"])}


def narrow_sizes(params: dict) -> dict[str, int]:
    """The build's stack buffers: its largest window and band, and two bands if a pair straddles rows;
    MF_NARROW_STAGED 1 when some call finishes through the stage (a clamp, or a block's channels
    part-used), else the kernel's staged loop is compiled out; a call storing straight widens
    pairs ahead into NARROW_RUN_BYTES of buffers (MF_NARROW_WIDE words) for one mf_pair_run
    (MF_PAIR_BUFS)."""
    band = narrow_band(*(params[k] for k in ("k_h", "k_w", "in_c", "out_w", "stride_w")))
    straddles = params["out_w"] % 2 == 1 and params["batches"] * params["out_h"] > 1
    staged = bool(params["clamp"]) or params["out_c"] % 4 != 0
    pairs = params["batches"] * params["out_h"] * params["out_w"] // 2
    pairs = 1 if staged or pairs < NARROW_RUN_MIN else min(pairs, NARROW_RUN_BYTES // (4 * params["depth"]))
    # (the words, not the pairs: a build's largest, each call's pairs those of its depth)
    return {"MF_NARROW_DEPTH": params["depth"], "MF_NARROW_BAND": band, "MF_NARROW_BANDS": 1 + straddles,
            "MF_NARROW_STAGED": int(staged), "MF_NARROW_WIDE": pairs * params["depth"], "MF_PAIR_BUFS": int(pairs > 1),
            "MF_PAIR_TIES": pair_ties(params),
            "MF_PAIR_SHORT": int(params["depth"] <= PAIR_SHORT), "MF_PAIR_CHUNKS": pair_chunks(params["depth"]),
            **fix_sizes(params)}


# instructions per MAC measured: KWS's first conv (1 -> 64 channels, 10x4) about 1.3; VWW's (8
# channels, where each block's requantization and the windows weigh more) 2.25
NARROW_MAC_COST = 1.3
declare({}, KernelSpec("mf_conv2d_s8_narrow", "mf_conv2d_s8_gemm_params", "mf_conv2d_s8_narrow.c",
                       fits=fast.dense(narrow_fits), prepare=narrow_prepare, reversible=True,
                       mac_cost=NARROW_MAC_COST, access=WINDOW, sizes=narrow_sizes, finish=pair_finish))
