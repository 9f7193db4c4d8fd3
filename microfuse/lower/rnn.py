"""Lowering of UNIDIRECTIONAL_SEQUENCE_LSTM (int8 or int16 with int16 cell state, float32) and SVDF
(int8 with int16 or int8 state, float32): TFLM's Prepare done at compile time (gate and feature/time
multipliers, input and state offsets folded into biases, the cell state's tanh scaling)."""

from __future__ import annotations

import math

import numpy as np

from .. import quant
from ..errors import UnsupportedError
from ..ir import DType, Op
from ..ops.rnn import CELL, GATES, HIDDEN, INPUT
from .call import Call, ConstArray
from .common import float_act
from .int16_tables import SIGMOID_TABLE
from .kernels import KernelSpec, declare, make
from .registry import lowering

_GATE_S8 = ("w_in", "w_rec", "b_in", "b_rec", "m_in", "s_in", "m_rec", "s_rec")
_GATE_F32 = ("w_in", "w_rec", "b_in")
_SIZES = ("batches", "steps", "n_input", "n_cell", "time_major")
declare({"mf_lstm_gate_s8": _GATE_S8, "mf_lstm_gate_f32": _GATE_F32,
         "mf_lstm_s8_params": (*_SIZES, *((f"{g}_gate", "mf_lstm_gate_s8") for g in GATES), 
                               "fc_mult", "fc_shift", "ic_mult", "ic_shift", "oh_mult", "oh_shift", "hidden_zp",
                               "cell_clip", "tanh_mult", "tanh_shift", "sigmoid_table"),
         "mf_lstm_f32_params": (*_SIZES, *((f"{g}_gate", "mf_lstm_gate_f32") for g in GATES), "cell_clip")},
        KernelSpec("mf_lstm_s8", "mf_lstm_s8_params", "mf_lstm_s8.c", scratch=lambda op: 5 * _n(op) * 2),
        KernelSpec("mf_lstm_s16", "mf_lstm_s8_params", "mf_lstm_s8.c", scratch=lambda op: 5 * _n(op) * 2),
        KernelSpec("mf_lstm_f32", "mf_lstm_f32_params", "mf_lstm_f32.c", scratch=lambda op: 5 * _n(op) * 4))

GATE_SCALE = 2.0 ** -12  # TFLM: every gate's FC output is Q3.12
GATE_OUT_SCALE = 2.0 ** -15  # the sigmoid / tanh outputs are Q0.15


def _n(op: Op) -> int:
    return op.inputs[GATES["forget"][0]].shape[0]


def _sizes(op: Op) -> dict[str, int]:
    x, tm = op.inputs[INPUT], bool(op.attrs.time_major)
    steps, batches = (x.shape[0], x.shape[1]) if tm else (x.shape[1], x.shape[0])
    return dict(batches=batches, steps=steps, n_input=x.shape[2], n_cell=_n(op), time_major=int(tm))


def _scale(t) -> float:
    return float(np.float32(t.quant.scale[0]))


def _gate_s8(op: Op, gate: str) -> dict[str, object]:
    """One gate's two FCs as TFLM's CalculateOpDataFullyConnected sets them up (output scale
    2^-12, zero point 0), their input offsets folded into the int32 biases."""
    wx, wh, b = (op.inputs[s] for s in GATES[gate])
    x, h = op.inputs[INPUT], op.inputs[HIDDEN]
    w_in, w_rec = np.asarray(wx.data, np.int8), np.asarray(wh.data, np.int8)
    if x.dtype == DType.INT16:  # int64 biases and accumulators: the fold cannot overflow
        b_in = np.asarray(b.data, np.int64) - int(x.quant.zero_point[0]) * w_in.astype(np.int64).sum(axis=1)
        b_rec = -int(h.quant.zero_point[0]) * w_rec.astype(np.int64).sum(axis=1)
    else:
        try:
            b_in = quant.fold_input_offset(b.data, w_in, int(x.quant.zero_point[0]))
            b_rec = quant.fold_input_offset(None, w_rec, int(h.quant.zero_point[0]))
        except OverflowError as e:
            raise UnsupportedError(f"{op.where} '{op.name}': {gate} gate: {e}") from None
    m_in, s_in = quant.dense_multiplier(_scale(x), _scale(wx), GATE_SCALE)
    m_rec, s_rec = quant.dense_multiplier(_scale(h), _scale(wh), GATE_SCALE)
    values = dict(w_in=ConstArray(f"{gate}_w_in", w_in), w_rec=ConstArray(f"{gate}_w_rec", w_rec),
                  b_in=ConstArray(f"{gate}_b_in", b_in), b_rec=ConstArray(f"{gate}_b_rec", b_rec),
                  m_in=m_in, s_in=s_in, m_rec=m_rec, s_rec=s_rec)
    return {f"{gate}_gate.{k}": v for k, v in values.items()}


def cell_power(scale: float) -> int:
    """TFLM's CheckedLog2 of the cell state's scale (it keeps the rounded exponent whatever the
    fraction; std::round rounds halves away from zero)."""
    x = math.log2(scale)
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def tanh_scaling(power: int) -> tuple[int, int]:
    """(multiplier, right shift) TFLM's int16 tanh applies to a cell state at scale 2^power."""
    left = 15 + power - 3
    return (3, -left) if left < 0 else (3 << left, 0)


def _mul(s1: float, s2: float, out: float) -> tuple[int, int]:
    """CreateInterGateMulParams: the product of the scales over the output's, in double."""
    return quant.quantize_multiplier(float(s1) * float(s2) / float(out))


@lowering("UNIDIRECTIONAL_SEQUENCE_LSTM", DType.INT8, DType.INT16)
def lstm_s8(op: Op, lw) -> Call:
    h, c = op.inputs[HIDDEN], op.inputs[CELL]
    cs, hs = _scale(c), _scale(h)
    power = cell_power(cs)
    clip = float(np.float32(op.attrs.cell_clip))
    cell_clip = int(np.trunc(min(max(clip / cs, -32768.0), 32767.0))) if clip > 0 else -1
    fc_mult, fc_shift = _mul(GATE_OUT_SCALE, cs, cs)
    ic_mult, ic_shift = _mul(GATE_OUT_SCALE, GATE_OUT_SCALE, cs)
    oh_mult, oh_shift = _mul(GATE_OUT_SCALE, GATE_OUT_SCALE, hs)
    tanh_mult, tanh_shift = tanh_scaling(power)
    params = dict(_sizes(op), fc_mult=fc_mult, fc_shift=fc_shift, ic_mult=ic_mult, ic_shift=ic_shift,
                  oh_mult=oh_mult, oh_shift=oh_shift, hidden_zp=int(h.quant.zero_point[0]),
                  cell_clip=cell_clip, tanh_mult=tanh_mult, tanh_shift=tanh_shift,
                  sigmoid_table=ConstArray("sigmoid", SIGMOID_TABLE))
    for gate in GATES:
        params.update(_gate_s8(op, gate))
    return _call("mf_lstm_s16" if op.inputs[INPUT].dtype == DType.INT16 else "mf_lstm_s8", op, params, 2)


@lowering("UNIDIRECTIONAL_SEQUENCE_LSTM", DType.FLOAT32)
def lstm_f32(op: Op, lw) -> Call:
    params = dict(_sizes(op), cell_clip=float(np.float32(op.attrs.cell_clip)))
    for gate, slots in GATES.items():
        wx, wh, b = (np.asarray(op.inputs[s].data, np.float32) for s in slots)
        params.update({f"{gate}_gate.w_in": ConstArray(f"{gate}_w_in", wx),
                       f"{gate}_gate.w_rec": ConstArray(f"{gate}_w_rec", wh),
                       f"{gate}_gate.b_in": ConstArray(f"{gate}_b_in", b)})
    return _call("mf_lstm_f32", op, params, 4)


def _call(kernel: str, op: Op, params: dict, cell_bytes: int) -> Call:
    """Input: the sequence; outputs: the output sequence, then the two states the kernel
    updates in place (read at the start of the invoke, written at every step)."""
    return make(kernel, params, [op.inputs[INPUT]], [op.outputs[0], op.inputs[HIDDEN], op.inputs[CELL]], [op],
                scratch=5 * _n(op) * cell_bytes)


# -- SVDF ----------------------------------------------------------------------------------------

_SVDF = ("batches", "n_input", "n_filter", "memory", "rank")
declare({"mf_svdf_s8_params": (*_SVDF, "w_feature", "feature_offset", "w_time", "time_offset", "bias",
                               "mult1", "shift1", "state_zp", "mult2", "shift2", "out_zp"),
         "mf_svdf_f32_params": (*_SVDF, "w_feature", "w_time", "bias", "act_min", "act_max")},
        KernelSpec("mf_svdf_s8_s16", "mf_svdf_s8_params", "mf_svdf_s8.c"),
        KernelSpec("mf_svdf_s8_s8", "mf_svdf_s8_params", "mf_svdf_s8.c"),
        KernelSpec("mf_svdf_f32", "mf_svdf_f32_params", "mf_svdf_f32.c"))


def _svdf_sizes(op: Op) -> dict[str, int]:
    x, wf, wt = op.inputs[:3]
    return dict(batches=x.shape[0], n_input=x.shape[1], n_filter=wf.shape[0], memory=wt.shape[1],
                rank=int(op.attrs.rank))


def _f32_ratio(a, b, c) -> float:
    """TFLM's effective SVDF scales: a * b / c in float32, then widened to double (an absurd
    scale gives inf, which quantize_multiplier refuses)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return float(np.float32(np.float32(a) * np.float32(b)) / np.float32(c))


@lowering("SVDF", DType.INT8)
def svdf_s8(op: Op, lw) -> Call:
    x, wf, wt, b, s = op.inputs
    y = op.outputs[0]
    w_feature, w_time = np.asarray(wf.data, np.int8), np.asarray(wt.data, wt.dtype.np)
    mult1, shift1 = quant.quantize_multiplier(_f32_ratio(x.quant.scale[0], wf.quant.scale[0], s.quant.scale[0]))
    mult2, shift2 = quant.quantize_multiplier(_f32_ratio(s.quant.scale[0], wt.quant.scale[0], y.quant.scale[0]))
    try:
        feature_offset = quant.fold_input_offset(None, w_feature, int(x.quant.zero_point[0]))
        time_offset = quant.fold_input_offset(None, w_time, int(s.quant.zero_point[0]))
    except OverflowError as e:
        raise UnsupportedError(f"{op.where} '{op.name}': {e}") from None
    params = dict(_svdf_sizes(op), w_feature=ConstArray("w_feature", w_feature),
                  feature_offset=ConstArray("feature_offset", feature_offset),
                  w_time=ConstArray("w_time", w_time), time_offset=ConstArray("time_offset", time_offset),
                  bias=ConstArray("bias", np.asarray(b.data, np.int32)), mult1=mult1, shift1=shift1,
                  state_zp=int(s.quant.zero_point[0]), mult2=mult2, shift2=shift2,
                  out_zp=int(y.quant.zero_point[0]))
    kernel = "mf_svdf_s8_s16" if s.dtype == DType.INT16 else "mf_svdf_s8_s8"
    return make(kernel, params, [x], [y, s], [op])


@lowering("SVDF", DType.FLOAT32)
def svdf_f32(op: Op, lw) -> Call:
    x, wf, wt, b, s = op.inputs
    bias = ConstArray("bias", np.asarray(b.data, np.float32))
    params = dict(_svdf_sizes(op), w_feature=ConstArray("w_feature", np.asarray(wf.data, np.float32)),
                  w_time=ConstArray("w_time", np.asarray(wt.data, np.float32)), bias=bias, **float_act(op))
    return make("mf_svdf_f32", params, [x], [op.outputs[0], s], [op])
