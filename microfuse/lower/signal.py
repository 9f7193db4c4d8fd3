"""Lowering of TFLM's signal-library custom ops (ops/signal.py) to the mf_signal.c kernels."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Op
from .call import Call, ConstArray
from .kernels import ELEMENT, KernelSpec, declare, make
from .registry import lowering

I16, U32, U64 = DType.INT16, DType.UINT32, DType.UINT64

declare({"mf_signal_window_params": ("size", "window_size", "shift", "window"),
         "mf_signal_fft_auto_scale_params": ("size",),
         "mf_signal_energy_params": ("bins", "start", "end"),
         "mf_signal_filter_bank_params": ("channels", "weights", "unweights", "freq_starts", "weight_starts",
                                          "widths"),
         "mf_signal_filter_bank_sqrt_params": ("size",),
         "mf_signal_pcan_params": ("size", "snr_shift", "gain_lut"),
         "mf_signal_filter_bank_log_params": ("size", "correction_bits", "output_scale")},
        KernelSpec("mf_signal_window_s16", "mf_signal_window_params", "mf_signal.c", access=ELEMENT),
        # reads every input before its first store: no in-place
        KernelSpec("mf_signal_fft_auto_scale_s16", "mf_signal_fft_auto_scale_params", "mf_signal.c"),
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
