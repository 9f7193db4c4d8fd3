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
        if t is None or t.is_const or t.elements != _batches(op) * n:
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
    want = ((weights, DType.INT8, "weights"), (biases, DType.INT32, "biases"), ([h], DType.INT8, "hidden state"),
            ([c], DType.INT16, "cell state"))
    for ts, dtype, what in want:
        if any(t.dtype != dtype for t in ts):
            return f"an int8 LSTM needs {dtype} {what} (TFLite Micro's 8x8->16 LSTM)"
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


register(OpDef("UNIDIRECTIONAL_SEQUENCE_LSTM", LstmAttrs, _infer, (_cell, _activation), _macs))
