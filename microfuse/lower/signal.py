"""Lowering of TFLM's signal-library custom ops (ops/signal.py) to the mf_signal.c kernels."""

from __future__ import annotations

import math

import numpy as np

from .. import ops as opdefs
from ..ir import DType, Op
from .call import Call, ConstArray
from .kernels import ELEMENT, KernelSpec, declare, make
from .registry import lowering

I16, U32, U64 = DType.INT16, DType.UINT32, DType.UINT64

declare({"mf_signal_window_params": ("size", "window_size", "shift", "window"),
         "mf_signal_fft_auto_scale_params": ("size",),
         "mf_signal_rfft_params": ("frames", "input_length", "fft_length", "twiddles", "super_twiddles", "factors"),
         "mf_signal_energy_params": ("bins", "start", "end"),
         "mf_signal_filter_bank_params": ("channels", "weights", "unweights", "freq_starts", "weight_starts",
                                          "widths"),
         "mf_signal_filter_bank_sqrt_params": ("size",),
         "mf_signal_pcan_params": ("size", "snr_shift", "gain_lut"),
         "mf_signal_filter_bank_log_params": ("size", "correction_bits", "output_scale")},
        KernelSpec("mf_signal_window_s16", "mf_signal_window_params", "mf_signal.c", access=ELEMENT),
        # reads every input before its first store: no in-place
        KernelSpec("mf_signal_fft_auto_scale_s16", "mf_signal_fft_auto_scale_params", "mf_signal.c"),
        KernelSpec("mf_signal_rfft_s16", "mf_signal_rfft_params", "mf_signal.c",
                   scratch=lambda op: 4 * op.attrs.fft_length),
        KernelSpec("mf_signal_energy_s16", "mf_signal_energy_params", "mf_signal.c"),
        KernelSpec("mf_signal_filter_bank_u32", "mf_signal_filter_bank_params", "mf_signal.c"),
        KernelSpec("mf_signal_filter_bank_sqrt_u64", "mf_signal_filter_bank_sqrt_params", "mf_signal.c"),
        KernelSpec("mf_signal_pcan_u32", "mf_signal_pcan_params", "mf_signal.c"),
        KernelSpec("mf_signal_filter_bank_log_u32", "mf_signal_filter_bank_log_params", "mf_signal.c",
                   access=ELEMENT))


def _i16(op: Op, i: int, name: str) -> ConstArray:
    return ConstArray(name, np.asarray(op.inputs[i].data, np.int16).reshape(-1))


@lowering("CUSTOM:SignalWindow", I16)
def window(op: Op, lw) -> Call:
    params = dict(size=op.inputs[0].elements, window_size=op.inputs[1].elements, shift=op.attrs.shift,
                  window=_i16(op, 1, "window"))
    return make("mf_signal_window_s16", params, op.inputs[:1], op.outputs, [op])


@lowering("CUSTOM:SignalFftAutoScale", I16)
def fft_auto_scale(op: Op, lw) -> Call:
    return make("mf_signal_fft_auto_scale_s16", dict(size=op.inputs[0].elements), op.inputs, op.outputs, [op])


def kiss_factors(n: int) -> list[int]:
    """kissfft's kf_factor: (radix, remaining length) pairs, radix 4 first, then 2, 3, 5, ..."""
    found, p, root = [], 4, math.floor(math.sqrt(n))
    while n > 1:
        while n % p:
            p = {4: 2, 2: 3}.get(p, p + 2)
            if p > root:
                p = n
        n //= p
        found += [p, n]
    return found


def kiss_cexp(phases) -> np.ndarray:
    """kissfft's FIXED_POINT kf_cexp: floor(0.5 + 32767 cos/sin(phase)) in double (libm's cos/sin)."""
    return np.array([[math.floor(0.5 + 32767 * math.cos(ph)), math.floor(0.5 + 32767 * math.sin(ph))]
                     for ph in phases], np.int16).reshape(-1)


@lowering("CUSTOM:SignalRfft", I16)
def rfft(op: Op, lw) -> Call:
    n = op.attrs.fft_length
    half = n // 2
    pi = 3.141592653589793238462643383279502884197169399375105820974944
    params = dict(frames=op.inputs[0].elements // op.inputs[0].shape[-1], input_length=op.inputs[0].shape[-1],
                  fft_length=n, twiddles=ConstArray("twiddles", kiss_cexp(-2 * pi * i / half for i in range(half))),
                  super_twiddles=ConstArray("super_twiddles", kiss_cexp(
                      -3.14159265358979323846264338327 * ((i + 1) / half + 0.5) for i in range(half // 2))),
                  factors=ConstArray("factors", np.array(kiss_factors(half), np.int32)))
    return make("mf_signal_rfft_s16", params, op.inputs, op.outputs, [op], scratch=4 * n)


@lowering("CUSTOM:SignalEnergy", I16)
def energy(op: Op, lw) -> Call:
    params = dict(bins=op.outputs[0].elements, start=op.attrs.start_index, end=op.attrs.end_index)
    return make("mf_signal_energy_s16", params, op.inputs, op.outputs, [op])


@lowering("CUSTOM:SignalFilterBank", U32)
def filter_bank(op: Op, lw) -> Call:
    names = ("weights", "unweights", "freq_starts", "weight_starts", "widths")
    params = dict(channels=op.attrs.num_channels, **{n: _i16(op, i + 1, n) for i, n in enumerate(names)})
    return make("mf_signal_filter_bank_u32", params, op.inputs[:1], op.outputs, [op])


@lowering("CUSTOM:SignalFilterBankSquareRoot", U64)
def filter_bank_sqrt(op: Op, lw) -> Call:
    return make("mf_signal_filter_bank_sqrt_u64", dict(size=op.inputs[0].elements), op.inputs, op.outputs, [op])


@lowering("CUSTOM:SignalPCAN", U32)
def pcan(op: Op, lw) -> Call:
    params = dict(size=op.inputs[0].elements, snr_shift=op.attrs.snr_shift, gain_lut=_i16(op, 2, "gain_lut"))
    return make("mf_signal_pcan_u32", params, op.inputs[:2], op.outputs, [op])


@lowering("CUSTOM:SignalFilterBankLog", U32)
def filter_bank_log(op: Op, lw) -> Call:
    params = dict(size=op.inputs[0].elements, correction_bits=op.attrs.input_correction_bits,
                  output_scale=op.attrs.output_scale)
    return make("mf_signal_filter_bank_log_u32", params, op.inputs, op.outputs, [op])


declare({"mf_spectral_subtraction_params": ("size", "smoothing_bits", "subtraction_bits", "clamping", "smoothing",
                                            "one_minus_smoothing", "alternate_smoothing",
                                            "alternate_one_minus_smoothing", "min_signal_remaining")},
        KernelSpec("mf_spectral_subtraction_u32", "mf_spectral_subtraction_params", "mf_spectral.c"))


@lowering("CUSTOM:SignalFilterBankSpectralSubtraction", U32)
def spectral_subtraction(op: Op, lw) -> Call:
    """The noise estimate TFLM keeps in op data is the kernel's own state (ops/signal.py)."""
    a = op.attrs
    params = dict(size=a.num_channels, smoothing_bits=a.smoothing_bits, subtraction_bits=a.spectral_subtraction_bits,
                  clamping=int(bool(a.clamping)), smoothing=a.smoothing, one_minus_smoothing=a.one_minus_smoothing,
                  alternate_smoothing=a.alternate_smoothing,
                  alternate_one_minus_smoothing=a.alternate_one_minus_smoothing,
                  min_signal_remaining=a.min_signal_remaining)
    return make("mf_spectral_subtraction_u32", params, op.inputs, op.outputs, [op], state=opdefs.own_state(op))
