"""Recurrent ops that carry state between invokes: UNIDIRECTIONAL_SEQUENCE_LSTM (and SVDF)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..ir import DType, Op
from .attrs import Attrs
from .registry import OpDef, register

# UNIDIRECTIONAL_SEQUENCE_LSTM's 24 input slots (TFLite's lstm_shared.h).
INPUT, HIDDEN, CELL = 0, 18, 19
GATES = {"forget": (2, 6, 13), "input": (1, 5, 12), "cell": (3, 7, 14), "output": (4, 8, 15)}  # W_x, W_h, bias
PEEPHOLE, PROJECTION, LAYER_NORM = (9, 10, 11), (16, 17), (20, 21, 22, 23)


@dataclass(frozen=True)
class LstmAttrs(Attrs):
    activation: str = "TANH"  # the cell gate's activation
    cell_clip: float = 0.0
    proj_clip: float = 0.0
    time_major: bool = False
    asymmetric_quantize_inputs: bool = False
    diagonal_recurrent_tensors: bool = False
    OPTIONS: ClassVar = {"activation": "fused_activation_function"}


def _n_cell(op: Op) -> int:
    return op.inputs[GATES["forget"][0]].shape[0]


def _infer(op: Op):
    x = op.inputs[INPUT]
    return [((*x.shape[:-1], _n_cell(op)), x.dtype)]


def _macs(op: Op) -> int:
    x = op.inputs[INPUT]
    rows = x.elements // x.shape[-1]
    n = _n_cell(op)
    return rows * 4 * n * (x.shape[-1] + n)


def _slots(op: Op) -> str | None:
    if len(op.inputs) != 24:
        return f"needs 24 inputs, got {len(op.inputs)}"
    if len(op.inputs[INPUT].shape) != 3:
        return f"input must be rank 3 ([batch, time, features] or time-major), got {list(op.inputs[INPUT].shape)}"
    return None


def _variants(op: Op) -> str | None:
    """TFLM's LSTM computes the standard (Keras) cell only; its Prepare refuses the rest."""
    has = lambda slots: any(s < len(op.inputs) and op.inputs[s] is not None for s in slots)  # noqa: E731
    if op.inputs[GATES["input"][0]] is None:
        return "CIFG (no input gate) is not supported: TFLite Micro's LSTM needs all four gates"
    for what, slots in (("peephole weights", PEEPHOLE), ("a projection", PROJECTION),
                        ("layer normalization", LAYER_NORM)):
        if has(slots):
            return f"{what} is not supported: TFLite Micro's LSTM computes the standard cell only"
    return None


def _operands(op: Op) -> str | None:
    x = op.inputs[INPUT]
    n, depth = _n_cell(op), x.shape[-1]
    for gate, (wx, wh, b) in GATES.items():
        for slot, shape in ((wx, (n, depth)), (wh, (n, n)), (b, (n,))):
            t = op.inputs[slot]
            if t is None or not t.is_const:
                return f"the {gate} gate's input {slot} must be a constant"
            if tuple(t.shape) != shape:
                return f"the {gate} gate's input {slot} is {list(t.shape)}, expected {list(shape)}"
    for slot, what in ((HIDDEN, "hidden"), (CELL, "cell")):
        t = op.inputs[slot]
        if t is None or not t.variable or t.elements != _batches(op) * n:
            return f"the {what} state (input {slot}) must be a variable tensor of {_batches(op) * n} values"
    return None


def _batches(op: Op) -> int:
    return op.inputs[INPUT].shape[1 if op.attrs.time_major else 0]


def _types(op: Op) -> str | None:
    x, h, c = op.inputs[INPUT], op.inputs[HIDDEN], op.inputs[CELL]
    weights = [op.inputs[s] for g in GATES.values() for s in g[:2]]
    biases = [op.inputs[g[2]] for g in GATES.values()]
    if x.dtype == DType.FLOAT32:
        if any(t.dtype != DType.FLOAT32 for t in (*weights, *biases, h, c)):
            return "a float32 LSTM needs float32 weights, biases and states (hybrid LSTM is not supported)"
        return None
    wide = x.dtype == DType.INT16  # TFLM's 16x8 LSTM: int16 activations, int64 biases
    want = ((weights, DType.INT8, "weights"), (biases, DType.INT64 if wide else DType.INT32, "biases"),
            ([h], x.dtype, "hidden state"), ([c], DType.INT16, "cell state"))
    for ts, dtype, what in want:
        if any(t.dtype != dtype for t in ts):
            return f"an {x.dtype} LSTM needs {dtype} {what} (TFLite Micro's {'16x8' if wide else '8x8'}->16 LSTM)"
    for t in (x, h, c, *weights):
        if t.quant is None or len(t.quant.scale) != 1:
            return f"'{t.name}' must be quantized per tensor"
    if any(int(t.quant.zero_point[0]) for t in (*weights, c)):
        return "weights and the cell state must be symmetric (zero point 0)"
    return None


def _activation(op: Op) -> str | None:
    if op.attrs.activation != "TANH":  # TFLM's LSTM evaluates only sigmoid or tanh; the file can say only TANH
        return f"cell gate activation {op.attrs.activation} is not supported (TFLite Micro's LSTM: TANH)"
    return None


def _cell(op: Op) -> str | None:
    """The standard cell, then its operands, then their types: each check assumes the one before."""
    return _slots(op) or _variants(op) or _operands(op) or _types(op)


register(OpDef("UNIDIRECTIONAL_SEQUENCE_LSTM", LstmAttrs, _infer, (_cell, _activation), _macs,
               frozenset({DType.INT8, DType.INT16, DType.FLOAT32})))


# -- SVDF: input [batch, n_input], feature weights [filters, n_input], time weights [filters, memory],
# optional bias [units], state [batch, memory * filters] (variable); units = filters / rank.

@dataclass(frozen=True)
class SvdfAttrs(Attrs):
    rank: int = 1
    activation: str = "NONE"
    asymmetric_quantize_inputs: bool = False
    OPTIONS: ClassVar = {"activation": "fused_activation_function"}


def _svdf_infer(op: Op):
    x, wf = op.inputs[0], op.inputs[1]
    return [((x.shape[0], wf.shape[0] // max(1, op.attrs.rank)), x.dtype)]


def _svdf_macs(op: Op) -> int:
    x, wf, wt = op.inputs[0], op.inputs[1], op.inputs[2]
    return x.shape[0] * wf.shape[0] * (x.shape[1] + wt.shape[1])


def _svdf_operands(op: Op) -> str | None:
    if len(op.inputs) != 5:
        return f"needs 5 inputs, got {len(op.inputs)}"
    x, wf, wt, b, s = op.inputs
    if len(x.shape) != 2:
        return f"input must be [batch, features], got {list(x.shape)}"
    if wf is None or wt is None or not wf.is_const or not wt.is_const:
        return "the feature and time weights must be constants"
    if len(wf.shape) != 2 or len(wt.shape) != 2 or wf.shape[1] != x.shape[1] or wt.shape[0] != wf.shape[0]:
        return f"weights {list(wf.shape)} and {list(wt.shape)} do not fit an input of {x.shape[1]} features"
    if op.attrs.rank < 1 or wf.shape[0] % op.attrs.rank:
        return f"{wf.shape[0]} filters do not split into rank {op.attrs.rank}"
    units = wf.shape[0] // op.attrs.rank
    if b is None:
        return "needs a bias: TFLite Micro's SVDF reads it unconditionally (and crashes without)"
    if not b.is_const or tuple(b.shape) != (units,):
        return f"the bias must be a constant of {units} values"
    if s is None or not s.variable or tuple(s.shape) != (x.shape[0], wf.shape[0] * wt.shape[1]):
        return f"the state (input 4) must be a variable tensor [{x.shape[0]}, {wf.shape[0] * wt.shape[1]}]"
    return None


def _svdf_types(op: Op) -> str | None:
    x, wf, wt, b, s = op.inputs
    if x.dtype == DType.FLOAT32:
        if any(t is not None and t.dtype != DType.FLOAT32 for t in (wf, wt, b, s)):
            return "a float32 SVDF needs float32 weights, bias and state (hybrid SVDF is not supported)"
        if op.attrs.activation not in ("NONE", "RELU", "RELU_N1_TO_1", "RELU6"):
            return f"activation {op.attrs.activation} is not supported"
        return None
    if wf.dtype != DType.INT8 or wt.dtype not in (DType.INT8, DType.INT16) or s.dtype != wt.dtype:
        return "an int8 SVDF needs int8 feature weights and int8 or int16 time weights and state of one type"
    if b.dtype != DType.INT32:
        return "an int8 SVDF needs an int32 bias"
    if any(t.quant is None or len(t.quant.scale) != 1 for t in (x, wf, wt, s, op.outputs[0])):
        return "input, weights, state and output must be quantized per tensor"
    if int(wf.quant.zero_point[0]) or int(wt.quant.zero_point[0]):
        return "weights must be symmetric (zero point 0)"
    return None


def _svdf(op: Op) -> str | None:
    return _svdf_operands(op) or _svdf_types(op)


register(OpDef("SVDF", SvdfAttrs, _svdf_infer, (_svdf,), _svdf_macs))
