"""Fast int8 kernel variants (runtime_c/include/mf_fast.h): when they fit, and their compile-time data.

The conv, depthwise and fully-connected lowerings list these kernels before the reference ones
(their KernelSpecs in lower/kernels.py name these fits / prepare functions); `pick` takes the
first that fits. A fast kernel
fits when the optimisation level allows it (--optimize size keeps the reference kernels), its
shape suits the kernel, and `fast_quant` can prove the shortcut requantization exact for every
channel. Its `prepare` turns the reference params (geometry, folded bias, multipliers) into the
fast kernel's: the int8 weights blocked and interleaved for the kernel's loop (still one byte
per weight: the kernels sign-extend them on the fly), a per-channel table, a row of the input
zero point for padded convolutions, and the shortcut constants of a fused residual ADD / SUB.
None of the fast kernels uses arena scratch and the convolutions run backward too, so they keep
the reference kernels' arena: `balanced` (the default) and `speed` pick the same kernels.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .. import quant, views
from ..fixedpoint import mul_by_quantized_multiplier
from ..ir import Op, own_output, split
from .call import ConstArray
from .common import bias_of, depth_multiplier, filter_scales, per_tensor_int8, requant_params
from .epilogue import epilogue_params

INT32 = 2**31
FAST_LEVELS = ("balanced", "speed")  # --optimize levels that use the fast kernels
GATHER_MAX = 160  # mf_fast.h MF_GATHER_MAX: bytes of the stack buffer for in_c % 4 != 0 windows
DW_TAPS_MAX = 32  # mf_dwconv2d_s8_dsp_body.h MF_DW_TAPS_MAX: a depthwise window's taps
SEGMENTS_MAX = 16  # mf_conv2d_s8_gemm_body.h MF_GEMM_SEGMENTS: runs of a convolution window
ROWS_MAX = 16  # MF_DW_ROWS_MAX, MF_GEMM_ROWS: a window's rows


def enabled(level: str) -> bool:
    """Fast kernels are wanted at this level. (A fused epilogue is fine: each fast kernel has
    declared fused variants, which pick() offers for such ops.)"""
    return level in FAST_LEVELS


def dense(fits: Callable[[Op, str], bool]) -> Callable[[Op, str], bool]:
    """`fits`, for ops writing a whole tensor (the plain fast kernels)."""
    return lambda op, level: not views.strided(op.outputs[0]) and fits(op, level)


def strided(fits: Callable[[Op, str], bool]) -> Callable[[Op, str], bool]:
    """`fits`, for ops writing a channel slice of a wider tensor (an eliminated concatenation):
    the `_strided` entry points, whose loop takes `out_stride` (the plain ones fold it away)."""
    return lambda op, level: views.strided(op.outputs[0]) and fits(op, level)


def word_aligned(op: Op) -> bool:
    """The input starts on a word boundary (every planned buffer does; a concatenation's slice
    may not), so the kernels' word loads of whole channel groups stay aligned."""
    x = op.inputs[0]
    return not views.is_slice(x) or x.offset % 4 == 0


def words(data: np.ndarray) -> np.ndarray:
    """int8 bytes (a multiple of 4) as the little-endian int32 words the kernels load."""
    return np.ascontiguousarray(np.asarray(data, np.int8).reshape(-1)).view("<i4").astype(np.int32)


def pad_to(a: np.ndarray, axis: int, multiple: int) -> np.ndarray:
    extra = -a.shape[axis] % multiple
    if not extra:
        return a
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, extra)
    return np.pad(a, widths)


def block_weights(taps: np.ndarray, chunks: list[int]) -> np.ndarray:
    """int8 weights [channels, depth] -> the words of mf_fast_blocks' layout: channels in blocks of 4
    (zero channels pad the last), and per block the depth cut into `chunks` (8 or 4 values; they
    may run past `depth`, zero-padded), each chunk interleaved [4 channels][chunk values]."""
    total = sum(chunks)
    w = pad_to(np.asarray(taps, np.int8), 0, 4)
    w = np.pad(w, ((0, 0), (0, total - w.shape[1])))
    blocks = w.reshape(-1, 4, total)
    parts, start = [], 0
    for size in chunks:
        parts.append(blocks[:, :, start:start + size].reshape(len(blocks), 4 * size))
        start += size
    return words(np.concatenate(parts, axis=1))


def fast_quant(bias: np.ndarray, mult: np.ndarray, shift: np.ndarray, out_zp: int,
               taps: np.ndarray) -> np.ndarray | None:
    """The [channels, 5] table (bias, mult, lshift, rshift, round) of the kernels' requantization
    (mf_fast.h: mf_fast_requant4, mf_fast_blocks), or None when the shortcut is not provably
    exact for some channel (taps: int8 weights [channels, n]).

    The shortcut needs, per channel: a right shift of 1..31, |acc| * 2^(left+1) < 2^31 for
    every accumulator the int8 inputs can produce (|acc| <= |bias| + 128 * sum|w|), and no
    overflow in r + round."""
    absw = np.abs(np.asarray(taps, np.int64)).sum(axis=1)
    rows = []
    for b, m, s, aw in zip(np.asarray(bias, np.int64), np.asarray(mult, np.int64),
                           np.asarray(shift, np.int64), absw):
        b, m, s, aw = int(b), int(m), int(s), int(aw)
        left, right = max(s, 0), max(-s, 0)
        bound = (abs(b) + 128 * aw) << (left + 1)
        r_bound = (bound * m) // 2**32 + 1
        rnd = (1 << max(right - 1, 0)) + (int(out_zp) << right)
        if 1 <= right <= 31 and bound < INT32 and r_bound + abs(rnd) + 1 < INT32:
            rows.append((b, m, left + 1, right, rnd))
            continue
        const = constant_output(b, m, s, aw)
        if const is None:
            return None
        # A channel whose every reachable accumulator requantizes to `const` (dead channels:
        # zero multiplier, or a huge bias with a tiny scale): multiplier 0, (1 + 2 v) >> 1 = v.
        rows.append((b, 0, 0, 1, 1 + 2 * (const + int(out_zp))))
    return np.array(rows, np.int64).astype(np.int32).reshape(-1, 5)


def constant_output(bias: int, mult: int, shift: int, abs_w: int) -> int | None:
    """The requantized value if it is the same for every accumulator the int8 inputs can produce
    (|acc - bias| <= 128 * sum|w|), else None. TFLite's requantization is monotonic in the
    accumulator when it does not shift left (no wrap-around), so the two ends decide."""
    if mult == 0:
        return 0
    lo, hi = bias - 128 * abs_w, bias + 128 * abs_w
    if shift > 0 or lo < -INT32 or hi >= INT32:
        return None
    a = mul_by_quantized_multiplier(lo, mult, shift)
    return a if a == mul_by_quantized_multiplier(hi, mult, shift) else None


def quant_of(params: dict, taps: np.ndarray) -> np.ndarray | None:
    """fast_quant from a reference kernel's params (bias / mult / shift arrays or scalars)."""
    n = taps.shape[0]
    mult, shift = params["mult"], params["shift"]
    mult = mult.data if isinstance(mult, ConstArray) else np.full(n, mult)
    shift = shift.data if isinstance(shift, ConstArray) else np.full(n, shift)
    return fast_quant(params["bias"].data, mult, shift, params["out_zero_point"], taps)


def quant_blocks(table: np.ndarray) -> tuple[ConstArray, int] | None:
    """mf_fast.h's channel table from fast_quant's rows (bias, mult, lshift, rshift, round):
    blocks of 4 channels [bias x4, mult x4, round x4, rshift x4] (padded channels repeat the last
    row and are never stored), and the op's one left shift; None if the live channels' left
    shifts differ (a dead channel, multiplier 0, gives its constant whatever the shift)."""
    shifts = {int(ls) for m, ls in zip(table[:, 1], table[:, 2]) if m != 0}
    if len(shifts) > 1:
        return None
    extra = -len(table) % 4
    if extra:
        table = np.concatenate([table, np.repeat(table[-1:], extra, axis=0)])
    blocks = table.reshape(-1, 4, 5)[:, :, [0, 1, 4, 3]].transpose(0, 2, 1)
    return ConstArray("quant", np.ascontiguousarray(blocks).reshape(-1)), shifts.pop() if shifts else 1


def quant_fields(ref: dict, taps: np.ndarray) -> dict | None:
    """The requantization fields of a fast kernel (quant, lshift, act_min/max, clamp), or None
    when the shortcut is not exact for the op."""
    table = quant_of(ref, taps)
    blocks = None if table is None else quant_blocks(table)
    if blocks is None:
        return None
    lo, hi = ref["act_min"], ref["act_max"]
    return dict(act_min=lo, act_max=hi, clamp=int(lo > -128 or hi < 127), lshift=blocks[1],
                quant=blocks[0])


# -- the shortcut rescaling of a fused residual ADD / SUB -------------------------------------------

def _srdhm(a: np.ndarray, b: int) -> np.ndarray:
    """TFLite's SaturatingRoundingDoublingHighMul on int64 arrays (b >= 0: no saturation case)."""
    ab = a * b
    n = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    return np.where(n >= 0, n >> 31, -((-n) >> 31))


def _rdivpot(x: np.ndarray, e: int) -> np.ndarray:
    mask = (1 << e) - 1
    return (x >> e) + ((x & mask) > (mask >> 1) + (x < 0)).astype(np.int64)


def _wrap(x: np.ndarray) -> np.ndarray:
    return (x + INT32) % (2 * INT32) - INT32


def _reference_scale(x: np.ndarray, pre_shift: int, mult: int, shift: int) -> np.ndarray:
    """mf_requantize((x << pre_shift), mult, shift) as TFLite Micro computes it."""
    left, right = max(shift, 0), max(-shift, 0)
    return _rdivpot(_srdhm(_wrap(_wrap(x << pre_shift) << left), mult), right)


def _fast_scale(x: np.ndarray, lshift: int, mult: int, rnd: int, rshift: int) -> np.ndarray | None:
    """mf_fast_scale on int64 arrays, or None if an int32 step of the C code would overflow."""
    xs = x << lshift
    if np.any(np.abs(xs) >= INT32):
        return None
    t = ((xs * mult + INT32) >> 32) + rnd + (xs >> 31)  # SMMLAR(xs, mult, rnd) + sign of xs
    if np.any(np.abs(t) >= INT32 - 1):
        return None
    return t >> rshift


def _shortcut(x: np.ndarray, want: np.ndarray, pre_shift: int, mult: int, shift: int,
              extra_round: int = 0) -> tuple[int, int, int, int] | None:
    """(lshift, mult, round, rshift) with which mf_fast_scale(x) equals want + extra_round for
    every x (extra_round: a zero point folded into the rounding term), or None."""
    left, right = pre_shift + max(shift, 0), max(-shift, 0)
    # right >= 1: the shortcut itself; right == 0: scale by 2 more and halve exactly
    lshift, rshift = (left + 1, right) if right >= 1 else (left + 2, 1)
    rnd = (1 << (rshift - 1)) + (extra_round << rshift)
    got = _fast_scale(x, lshift, mult, rnd, rshift)
    if got is None or not np.array_equal(got, want + extra_round):
        return None
    return lshift, mult, rnd, rshift


def distinct(x: np.ndarray) -> np.ndarray:
    """The sorted distinct values of x (by sorting: numpy's hash-based unique is far slower here)."""
    s = np.sort(x)
    return s[np.concatenate(([True], s[1:] != s[:-1]))]


def fast_addsub(op: Op) -> ConstArray | str:
    """The mf_fast_addsub table of a fused residual ADD / SUB, when the shortcut rescaling gives
    TFLite's result for every pair of int8 values (checked exhaustively); else "NULL" (the
    kernel runs the reference epilogue steps)."""
    if not op.fused:
        return "NULL"
    _, binary, _ = split(op)
    if binary is None or binary.sources[0].kind not in ("ADD", "SUB"):
        return "NULL"
    ep = epilogue_params(op)
    key = tuple(int(ep[f"ep.{k}"]) for k in _ADDSUB_KEY)
    if key not in _ADDSUB_MEMO:  # one exhaustive check per quantization (a cascade's bands share it)
        _ADDSUB_MEMO[key] = _addsub_table(ep)
    return _ADDSUB_MEMO[key]


_ADDSUB_KEY = ("left_shift", "v_offset", "v_multiplier", "v_shift", "r_offset", "r_multiplier", "r_shift",
               "output_multiplier", "output_shift", "output_offset")
_ADDSUB_MEMO: dict[tuple, ConstArray | str] = {}


def _addsub_table(ep: dict) -> ConstArray | str:
    ls = int(ep["ep.left_shift"])
    v = np.arange(-128, 128, dtype=np.int64)
    sides = []
    for off, m, s in ((ep["ep.v_offset"], ep["ep.v_multiplier"], ep["ep.v_shift"]),
                      (ep["ep.r_offset"], ep["ep.r_multiplier"], ep["ep.r_shift"])):
        x = v + int(off)
        found = _shortcut(x, _reference_scale(x, ls, int(m), int(s)), ls, int(m), int(s))
        if found is None:
            return "NULL"
        sides.append((x, _reference_scale(x, ls, int(m), int(s)), found))
    (_, sv, vq), (_, sr, rq) = sides
    diff = (sv[:, None] - sr[None, :]).ravel()  # SUB; RSUB is its negation
    raw = distinct(np.concatenate([(sv[:, None] + sr[None, :]).ravel(), diff, -diff]))
    om, os_, zo = int(ep["ep.output_multiplier"]), int(ep["ep.output_shift"]), int(ep["ep.output_offset"])
    oq = _shortcut(raw, _reference_scale(raw, 0, om, os_), 0, om, os_, extra_round=zo)
    if oq is None:
        return "NULL"
    lin = _addq_linear(sv, sr, om, os_, zo)
    return ConstArray("addq", np.array([*vq, *rq, *oq, *lin], np.int64).astype(np.int32))


ADDQ_SHIFT = 21  # mf_finish.h MF_AQ_CALC's `ssat ..., asr #21`


def _addq_linear(sv: np.ndarray, sr: np.ndarray, om: int, os_: int, zo: int) -> list[int]:
    """An ADD's output as one linear function of its two int8 inputs v (the op's value) and r
    (the residual), for mf_finish.h's two-element loop: [1, a, b, c] with
        out = ssat8((c + floor((v << 24) a / 2^32) + floor((r << 24) b / 2^32)) >> 21)
    (two SMMLAs) equal to TFLite's ADD on all 65,536 input pairs, else [0, 0, 0, 0]. The
    slopes come from a least-squares fit of TFLite's unrounded result, c from the bounds every
    pair puts on it."""
    q = np.arange(-128, 128, dtype=np.int64)
    raw = sv[:, None] + sr[None, :]
    want = np.clip(_reference_scale(raw.ravel(), 0, om, os_).reshape(256, 256) + zo, -128, 127)
    # Least squares of k (sv[v] + sr[r]) over the whole grid: the two slopes are each side's own
    # 1-D regression on q (v and r vary independently), no 65,536-row solve
    k, centred = om / 2.0**31 * 2.0**os_, q - q.mean()
    fit = [k * float(centred @ side) / float(centred @ centred) for side in (sv, sr)]
    scale = 1 << (ADDQ_SHIFT + 8)
    lo_rows, hi_rows = want > -128, want < 127  # the saturated outputs bound c on one side
    for da, db in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
        a, b = round(fit[0] * scale) + da, round(fit[1] * scale) + db
        if max(abs(a), abs(b)) >= INT32:
            break
        f = ((q * a) >> 8)[:, None] + ((q * b) >> 8)[None, :]
        lo = int(np.max((want[lo_rows] << ADDQ_SHIFT) - f[lo_rows]))
        hi = int(np.min(((want[hi_rows] + 1) << ADDQ_SHIFT) - f[hi_rows]))
        if lo < hi:
            c = (lo + hi) // 2
            t = f + c
            if abs(c) < INT32 and np.all(np.abs(t) < INT32) and \
                    np.array_equal(np.clip(t >> ADDQ_SHIFT, -128, 127), want):
                return [1, a, b, c]
    return [0, 0, 0, 0]


# -- CONV_2D: mf_conv2d_s8_gemm ---------------------------------------------------------------

GEOMETRY = ("batches", "in_h", "in_w", "in_c", "out_h", "out_w", "out_c", "k_h", "k_w",
            "stride_h", "stride_w", "dilation_h", "dilation_w", "pad_h", "pad_w")


def conv_taps(op: Op) -> np.ndarray:
    w = np.asarray(op.inputs[1].data, np.int8)
    return w.reshape(w.shape[0], -1)


def conv_gemm_fits(op: Op, level: str) -> bool:
    if not enabled(level) or not word_aligned(op):
        return False
    taps = conv_taps(op)
    _, kh, kw, ic = op.inputs[1].shape
    if ic % 4:
        if -taps.shape[1] // 8 * -8 > GATHER_MAX:
            return False
    elif kh > ROWS_MAX or (3 * kh if ic % 8 == 0 and op.attrs.dilation_w == 1 else kh * kw) > SEGMENTS_MAX:
        return False
    return quant_fields(requant_params(op, op.inputs[1], 0, taps), taps) is not None


def conv_chunks(ref: dict, depth: int) -> list[int]:
    """mf_fast_blocks chunks of a window: per tap in_c values (a 4 first if in_c % 8 == 4, then
    8s), or, for in_c % 4 != 0, the gathered window in 8s."""
    c = ref["in_c"]
    if c % 4:
        return [8] * (-depth // 8 * -1)
    return ([4] * (c % 8 // 4) + [8] * (c // 8)) * (ref["k_h"] * ref["k_w"])


def needs_padding(ref: dict) -> bool:
    """Some window reaches outside the image."""
    reach_h = (ref["out_h"] - 1) * ref["stride_h"] + (ref["k_h"] - 1) * ref["dilation_h"]
    reach_w = (ref["out_w"] - 1) * ref["stride_w"] + (ref["k_w"] - 1) * ref["dilation_w"]
    return bool(ref["pad_h"] or ref["pad_w"] or reach_h - ref["pad_h"] >= ref["in_h"]
                or reach_w - ref["pad_w"] >= ref["in_w"])


def zero_row(ref: dict, taps: int = 1) -> ConstArray | str:
    """`taps` * in_c bytes of the input zero point, read by the taps outside the image ("NULL":
    no window reaches outside)."""
    if not needs_padding(ref):
        return "NULL"
    return ConstArray("zrow", words(np.full(taps * ref["in_c"], ref["in_zero_point"], np.int8)))


def conv_gemm_prepare(op: Op, ref: dict) -> dict:
    """mf_conv2d_s8_gemm params from the reference kernel's params."""
    taps = conv_taps(op)
    chunks = conv_chunks(ref, taps.shape[1])
    zrow = zero_row(ref, ref["k_w"]) if ref["in_c"] % 4 == 0 else "NULL"  # a whole window row
    params = {k: ref[k] for k in GEOMETRY}
    params.update(depth=sum(chunks), in_zero_point=ref["in_zero_point"], **quant_fields(ref, taps),
                  weights=ConstArray("weights", block_weights(taps, chunks)), zrow=zrow,
                  addq=fast_addsub(op))
    return params


# -- DEPTHWISE_CONV_2D: mf_dwconv2d_s8_dsp -------------------------------------------------------

def dw_taps(op: Op) -> np.ndarray:
    """The depthwise weights as [channels, k_h * k_w]."""
    w = np.asarray(op.inputs[1].data, np.int8)
    return w.reshape(-1, w.shape[3]).T


DW_W16 = 128  # mf_dwconv2d_s8_dsp_body.h MF_W16: the lshift flag of dw_block_words' layout
DW_FOLD_MAX = 8  # the largest left shift an int8 weight takes into an int16 lane


def dw_fits(op: Op, level: str) -> bool:
    _, kh, kw, _ = op.inputs[1].shape
    if (not enabled(level) or depth_multiplier(op) != 1 or op.inputs[0].shape[3] % 4 or kh * kw > DW_TAPS_MAX
            or kh > ROWS_MAX):
        return False
    taps = dw_taps(op)
    fields = quant_fields(requant_params(op, op.inputs[1], 3, taps), taps)
    return fields is not None and fields["lshift"] <= DW_FOLD_MAX


def dw_sizes(params: dict) -> dict[str, int]:
    """The code a build's depthwise calls need (mf_dwconv2d_s8_dsp_body.h), stored straight out (no
    clamp): a 3x3 window, stride and dilation 1 along the row, four at a time (MF_DW_QUADS,
    mf_dw_quads.h) where its rows hold four pixels or more, and pairs of neighbours (MF_DW_ADJ)
    where some are left over two or three at a time; stride 2, pixels two columns apart
    (MF_DW_STEP2); any other pairs (MF_DW_SPREAD). A build leaves out what none of its calls needs
    (KWS: five-wide rows, stride 1, a quad and a single pixel a row: neither the pairs nor the
    other loops). MF_DW_SIGN: 1 if the call's requantization needs the pairs', quads' and single
    pixels' sign step (dw_sign), so a build whose calls all have a ReLU's output zero point leaves
    it out (a fused variant's call keeps it: dw_ep_sizes)."""
    p = params
    sign = {"MF_DW_SIGN": int(dw_sign(p["quant"].data))}  # (mf_dw_pixels' too, a clamped call's)
    if p["clamp"]:
        return {"MF_DW_SPREAD": 0, **sign}
    if (p["k_h"], p["k_w"], p["stride_w"], p["dilation_w"]) == (3, 3, 2, 1):
        # padding 1 on the right only (SAME over an even width): a row's pairs in one run to its
        # right border (mf_dwconv2d_s8_dsp_loop's edge2)
        edges = int(p["pad_w"] == 0 and p["in_w"] == 2 * p["out_w"] and p["out_w"] % 2 == 0)
        return {"MF_DW_SPREAD": 0, "MF_DW_STEP2": 1, **({"MF_DW_EDGES": 1} if edges else {}), **sign}
    if (p["k_h"], p["k_w"], p["stride_w"], p["dilation_w"]) != (3, 3, 1, 1):
        return {"MF_DW_SPREAD": 1, **sign}
    if p["out_w"] < 4:
        return {"MF_DW_SPREAD": 0, "MF_DW_ADJ": 1, **sign}
    # a row's first four by addresses, its run of interior pixels four at a time, its last four by
    # addresses (mf_dwconv2d_s8_dsp_loop): with padding 0 or 1 only a rest of 2 or 3 pairs
    pairs = p["pad_w"] > 1 or p["out_w"] % 4 >= 2
    # padding 1: a row from its left border in one call where that is two quads or more, or one
    # and a run after it (mf_dwconv2d_s8_dsp_loop's row_quads; the interior [1, min(in_w - 1, out_w)))
    fours, interior = min(p["out_w"], p["in_w"]) // 4, min(p["in_w"] - 1, p["out_w"]) - 1
    edges = int(p["pad_w"] == 1 and (fours >= 2 or interior >= 4))
    return {"MF_DW_SPREAD": 0, "MF_DW_QUADS": 1, **({"MF_DW_ADJ": 1} if pairs else {}), "MF_DW_EDGES": edges,
            **sign}


def dw_ep_sizes(params: dict) -> dict[str, int]:
    """A fused depthwise variant's call (mf_dwconv2d_s8_dsp_ep.c): its pixels go through
    mf_dw_pixels, a weak helper of which the build keeps one copy for every file, so it keeps the
    sign step (MF_DW_SIGN) for the whole build."""
    return {"MF_DW_SIGN": 1}


def dw_sign(quant: np.ndarray) -> bool:
    """Whether the pairs' and quads' requantization needs its sign step (MF_DW_SIGN) for this
    channel table (quant_blocks: [bias x4, mult x4, round x4, rshift x4] a group). Without it a
    negative accumulator a gives SMMLAR(a, mult, round) <= round (a * mult + 2^31 < 2^31), so at
    most round >> rshift after the shift, where the step would give one less: where that is -128
    or less (round = 2^(rshift - 1) + out_zp << rshift: the output zero point -128) both saturate
    to -128, which is TFLite's value too (its scaling of a negative accumulator is at most 0, the
    zero point added, the clamp at -128). A dead channel (mult 0, round 1 + 2 v, rshift 1) gives v
    either way."""
    t = np.asarray(quant, np.int64).reshape(-1, 4, 4)
    mult, rnd, rshift = t[:, 1], t[:, 2], t[:, 3]
    live = mult != 0
    return bool(np.any(live & ((mult < 0) | ((rnd >> rshift) > -128))))


def dw_words(taps: np.ndarray) -> np.ndarray:
    """The int8 layout (Helium's mf_dw_pixel_mve): words [group][tap][4 channels]."""
    c, t = taps.shape
    return words(taps.reshape(c // 4, 4, t).transpose(0, 2, 1))


def dw_block_words(taps: np.ndarray, table: np.ndarray, lshift: int) -> np.ndarray:
    """The DSP and portable layout, the left shift folded in (acc << s == bias << s + sum of x (w << s)
    modulo 2**32, so the kernels skip the shift): per group of 4 channels its biases << s, then per
    tap the int16 lanes (w0, w2) << s and (w1, w3) << s, the halves SMLABB / SMLATT take."""
    c, t = taps.shape
    g = c // 4
    w = taps.astype(np.int64).reshape(g, 4, t) << lshift  # [group, channel, tap], |w| <= 2**15

    def lanes(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        return (lo & 0xFFFF) | ((hi & 0xFFFF) << 16)

    pairs = np.stack([lanes(w[:, 0], w[:, 2]), lanes(w[:, 1], w[:, 3])], axis=2).reshape(g, 2 * t)
    bias = (np.asarray(table, np.int64).reshape(g, 4, 4)[:, 0, :] << lshift) & 0xFFFFFFFF
    block = np.concatenate([bias, pairs], axis=1).astype(np.uint32)
    return np.ascontiguousarray(block).reshape(-1).view(np.int32)


def dw_prepare(op: Op, ref: dict) -> dict:
    """mf_dwconv2d_s8_dsp params from the reference kernel's params."""
    taps = dw_taps(op)  # [c, t]
    params = {k: ref[k] for k in GEOMETRY}
    fields = quant_fields(ref, taps)
    lshift = int(fields["lshift"])
    params.update(in_zero_point=ref["in_zero_point"], **fields, zrow=zero_row(ref), addq=fast_addsub(op))
    params.update(lshift=lshift | DW_W16,
                  weights=ConstArray("weights", dw_block_words(taps, fields["quant"].data, lshift)))
    return params


# -- FULLY_CONNECTED: mf_fc_s8_dsp --------------------------------------------------------------

# A dense layer takes mf_fc_s8_dsp from this many MACs on. Below, its code (with mf_fast_blocks,
# about 1.8 KB) costs more than the cycles it saves: a conv model's classifier head (KWS 768 MACs,
# VWW 512, IC 640) runs the reference kernel, ~3 K cycles slower, 1.5 KB smaller.
DENSE_MACS_MIN = 1024


def fc_fits(op: Op, level: str) -> bool:
    units, depth = op.inputs[1].shape
    rows = op.inputs[0].elements // depth
    if not enabled(level) or not word_aligned(op) or (depth % 4 and rows > 1):
        return False  # every row must start on a word boundary
    if rows * depth * units < DENSE_MACS_MIN:
        return False
    table = fc_table(op)
    return table is not None and quant_blocks(table) is not None


def fc_table(op: Op) -> np.ndarray | None:
    """fast_quant of a fully-connected op, from the same constants as its reference lowering."""
    x, w, y = op.inputs[0], op.inputs[1], own_output(op)  # before a fused epilogue
    in_scale, in_zp = per_tensor_int8(x, op, "input")
    out_scale, out_zp = per_tensor_int8(y, op, "output")
    scales = filter_scales(w, op, 0)
    taps = np.asarray(w.data, np.int8)
    b = bias_of(op)
    bias = quant.fold_input_offset(None if b is None else b.data, taps, in_zp)
    if len(scales) == 1:
        m, s = quant.dense_multiplier(in_scale, scales[0], out_scale)
        mult, shift = np.full(len(taps), m), np.full(len(taps), s)
    else:
        mult, shift = quant.conv_multipliers(in_scale, scales, out_scale, len(scales))
    return fast_quant(bias, mult, shift, out_zp, taps)


def fc_chunks(depth: int) -> list[int]:
    """mf_fast_blocks chunks of a row: 8s, then the last depth % 8 values zero-padded to a 4 or
    an 8 (mf_fc_s8_dsp_body.h)."""
    rest = depth % 8
    return [8] * (depth // 8) + ([4] if 0 < rest <= 4 else [8] if rest else [])


def fc_prepare(op: Op, ref: dict) -> dict:
    """mf_fc_s8_dsp params from the reference kernel's params."""
    taps = np.asarray(op.inputs[1].data, np.int8)
    params = dict(rows=ref["rows"], depth=ref["depth"], units=ref["units"], **quant_fields(ref, taps),
                  weights=ConstArray("weights", block_weights(taps, fc_chunks(ref["depth"]))),
                  addq=fast_addsub(op))
    return params
