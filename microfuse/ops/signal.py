"""TFLM's signal-library custom ops (signal/micro/kernels): audio front-end stages on int16/uint32/uint64."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import DType, Op
from .attrs import Attrs
from .registry import OpDef, register
from ..tflite.schema import TENSOR_TYPE_CODE

I16, I32, U32, U64 = DType.INT16, DType.INT32, DType.UINT32, DType.UINT64
PCAN_LUT = 4 * 32 - 6 + 3  # WideDynamicFunction reads lut[4 * msb - 6 + 2] for msb up to 32


@dataclass(frozen=True)
class WindowAttrs(Attrs):
    shift: int


@dataclass(frozen=True)
class RfftAttrs(Attrs):
    OPTIONS = {"type_code": "T"}  # TensorFlow adds the element type as option 'T'

    type_code: int
    fft_length: int


@dataclass(frozen=True)
class EnergyAttrs(Attrs):
    end_index: int
    start_index: int


@dataclass(frozen=True)
class FilterBankAttrs(Attrs):
    num_channels: int


@dataclass(frozen=True)
class PcanAttrs(Attrs):
    snr_shift: int


@dataclass(frozen=True)
class SpectralSubtractionAttrs(Attrs):
    alternate_one_minus_smoothing: int
    alternate_smoothing: int
    clamping: bool
    min_signal_remaining: int
    num_channels: int
    one_minus_smoothing: int
    smoothing: int
    smoothing_bits: int
    spectral_subtraction_bits: int


@dataclass(frozen=True)
class FilterBankLogAttrs(Attrs):
    input_correction_bits: int
    output_scale: int


def _operands(*want: tuple[DType, int | None, bool | None], outputs: tuple[tuple[DType, int | None], ...]):
    """Count, type, rank (None: any) and constness (None: either) of every operand, as TFLM's Prepare checks."""
    def check(op: Op) -> str | None:
        if len(op.inputs) != len(want) or len(op.outputs) != len(outputs) or None in op.inputs:
            return f"expects {len(want)} input(s) and {len(outputs)} output(s), has {len(op.inputs)} and {len(op.outputs)}"
        for i, (t, (dtype, rank, const)) in enumerate(zip(op.inputs, want)):
            if t.dtype != dtype or (rank is not None and len(t.shape) != rank):
                return f"input {i} '{t.name}' must be {dtype} of rank {rank}, is {t.dtype} {list(t.shape)}"
            if const is not None and t.is_const != const:
                return f"input {i} '{t.name}' must be {'a constant' if const else 'an activation'}"
        for i, (t, (dtype, rank)) in enumerate(zip(op.outputs, outputs)):
            if t.dtype != dtype or (rank is not None and len(t.shape) != rank):
                return f"output {i} '{t.name}' must be {dtype} of rank {rank}, is {t.dtype} {list(t.shape)}"
        return None
    return check


def _same(op: Op):
    return [(op.inputs[0].shape, None)]


def _window_size(op: Op) -> str | None:
    size, n = op.inputs[1].elements, op.inputs[0].elements
    if size == 0 or n % size:
        return f"input of {n} values is not a whole number of windows of {size}"
    return None if 0 <= op.attrs.shift < 32 else f"shift {op.attrs.shift} is outside 0..31"


def _infer_rfft(op: Op):
    return [((*op.inputs[0].shape[:-1], op.attrs.fft_length + 2), I16)]


def _rfft_config(op: Op) -> str | None:
    n, length = op.attrs.fft_length, op.inputs[0].shape[-1]
    if op.attrs.type_code != TENSOR_TYPE_CODE["INT16"]:
        return f"option T {op.attrs.type_code} is not int16 (int32 and float32 Rfft are not supported)"
    if n < 4 or n & (n - 1) or n > 1 << 16:
        return f"fft_length {n} must be a power of two from 4 to 65536 (kissfft radix 4 and 2 only)"
    return None if length <= n else f"frames of {length} values are longer than fft_length {n}"


def _energy_range(op: Op) -> str | None:
    a, n = op.attrs, op.inputs[0].shape[0] // 2
    if op.inputs[0].shape[0] % 2:
        return f"input of {op.inputs[0].shape[0]} int16 is not (real, imag) pairs"
    if not 0 <= a.start_index <= a.end_index <= n:
        return f"start_index {a.start_index} / end_index {a.end_index} are outside the {n} bins"
    return None


def _filter_bank_config(op: Op) -> str | None:
    x, weights, unweights, starts, weight_starts, widths = op.inputs
    n = op.attrs.num_channels
    if op.outputs[0].shape != (n,):
        return f"output must hold num_channels = {n} values, has shape {list(op.outputs[0].shape)}"
    if not starts.elements == weight_starts.elements == widths.elements == n + 1:
        return f"the channel start/width tensors must hold num_channels + 1 = {n + 1} values"
    if weights.elements != unweights.elements:
        return "weights and unweights differ in length"
    for c, (f, w, k) in enumerate(zip(starts.data.tolist(), weight_starts.data.tolist(), widths.data.tolist())):
        if min(f, w, k) < 0 or f + k > x.elements or w + k > weights.elements:
            return f"channel {c} reads past its input or weights (start {f}, weight start {w}, width {k})"
    return None


def _pcan_config(op: Op) -> str | None:
    x, noise, lut = op.inputs
    if not x.elements or x.elements != noise.elements or x.elements != op.outputs[0].elements:
        return "input, noise estimate and output must hold the same, non-zero number of values"
    if lut.elements < PCAN_LUT:
        return f"gain lut holds {lut.elements} values, the kernel reads {PCAN_LUT}"
    return None if 0 <= op.attrs.snr_shift < 64 else f"snr_shift {op.attrs.snr_shift} is outside 0..63"


def _subtraction_config(op: Op) -> str | None:
    a, n = op.attrs, op.inputs[0].elements
    if a.num_channels != n or not n:
        return f"num_channels {a.num_channels} must equal the input's {n} (non-zero) values"
    coefficients = (a.alternate_one_minus_smoothing, a.alternate_smoothing, a.min_signal_remaining,
                    a.one_minus_smoothing, a.smoothing)
    if min(coefficients) < 0 or max(coefficients) >= 1 << 32:
        return "the smoothing and min_signal_remaining coefficients must be uint32"
    if not (0 <= a.smoothing_bits < 32 and 0 <= a.spectral_subtraction_bits < 64):
        return (f"smoothing_bits {a.smoothing_bits} (0..31) or spectral_subtraction_bits "
                f"{a.spectral_subtraction_bits} (0..63) is out of range")
    return None


def _log_config(op: Op) -> str | None:
    a = op.attrs
    if not 0 <= a.input_correction_bits < 32:
        return f"input_correction_bits {a.input_correction_bits} is outside 0..31"
    return None if 0 <= a.output_scale < 1 << 16 else f"output_scale {a.output_scale} is outside 0..65535"


def _op(kind: str, attrs, infer, operands, extra=None, dtype: DType = I16, own_state=None) -> OpDef:
    """One signal op: its operand check first, then (only if the operands are right) the rest."""
    def check(op: Op) -> str | None:
        return operands(op) or (extra(op) if extra else None)
    return OpDef(f"CUSTOM:{kind}", attrs, infer, (check,), dtypes=frozenset({dtype}), own_state=own_state)


register(
    _op("SignalWindow", WindowAttrs, _same,
        _operands((I16, None, False), (I16, 1, True), outputs=((I16, None),)), _window_size),
    _op("SignalFftAutoScale", None, lambda op: [(op.inputs[0].shape, I16), ((), I32)],
        _operands((I16, 1, False), outputs=((I16, 1), (I32, 0)))),
    _op("SignalRfft", RfftAttrs, _infer_rfft, _operands((I16, None, False), outputs=((I16, None),)), _rfft_config),
    _op("SignalEnergy", EnergyAttrs, lambda op: [((op.inputs[0].shape[0] // 2,), U32)],
        _operands((I16, 1, False), outputs=((U32, 1),)), _energy_range),
    _op("SignalFilterBank", FilterBankAttrs, lambda op: [((op.attrs.num_channels,), U64)],
        _operands((U32, 1, False), *[(I16, 1, True)] * 5, outputs=((U64, 1),)), _filter_bank_config, U32),
    _op("SignalFilterBankSquareRoot", None, lambda op: [(op.inputs[0].shape, U32)],
        _operands((U64, 1, False), (I32, 0, False), outputs=((U32, 1),)), dtype=U64),
    _op("SignalPCAN", PcanAttrs, lambda op: [(op.inputs[0].shape, U32)],
        _operands((U32, 1, False), (U32, 1, False), (I16, 1, True), outputs=((U32, 1),)), _pcan_config, U32),
    _op("SignalFilterBankSpectralSubtraction", SpectralSubtractionAttrs,
        lambda op: [(op.inputs[0].shape, U32), (op.inputs[0].shape, U32)],
        _operands((U32, 1, False), outputs=((U32, 1), (U32, 1))), _subtraction_config, U32,
        own_state=lambda op: 4 * op.attrs.num_channels),  # the noise estimate: uint32 per channel
    _op("SignalFilterBankLog", FilterBankLogAttrs, lambda op: [(op.inputs[0].shape, I16)],
        _operands((U32, 1, False), outputs=((I16, 1),)), _log_config, U32),
)
