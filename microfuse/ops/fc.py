"""FULLY_CONNECTED: input flattened to [batch, depth], weights [units, depth], optional bias."""

from __future__ import annotations

from ..ir import DType, Op
from .registry import OpDef, register
from .attrs import FullyConnectedAttrs
from .common import accumulator_fits, activation_supported, const_input, quantized_if_int8, rank, symmetric_if_int16
from .conv import BIAS_TYPES, DTYPES, not_hybrid


def _infer(op: Op):
    units, depth = op.inputs[1].shape
    x = op.inputs[0].shape
    if op.attrs.keep_num_dims:
        return [((*x[:-1], units), op.inputs[0].dtype)]
    batch = int(_prod(x)) // depth
    return [((batch, units), op.inputs[0].dtype)]


def _prod(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _macs(op: Op) -> int:
    units, depth = op.inputs[1].shape
    return _prod(op.inputs[0].shape) // depth * units * depth


def _depth(op: Op) -> str | None:
    units, depth = op.inputs[1].shape
    if depth <= 0 or _prod(op.inputs[0].shape) % depth:
        return f"input of {_prod(op.inputs[0].shape)} elements does not split into rows of {depth}"
    return None


def _format(op: Op) -> str | None:
    return "shuffled weights format is not supported" if op.attrs.weights_format else None


def _bias(op: Op) -> str | None:
    bias = op.inputs[2] if len(op.inputs) > 2 else None
    want = BIAS_TYPES[op.inputs[0].dtype]
    if bias is not None and (not bias.is_const or bias.dtype not in want):
        return f"bias must be a constant {' or '.join(str(t) for t in want)} tensor"
    return None


register(OpDef("FULLY_CONNECTED", FullyConnectedAttrs, _infer,
               (rank(2, 1), const_input(1, "weights"), not_hybrid, _depth, _format, _bias,
                quantized_if_int8, symmetric_if_int16, activation_supported, accumulator_fits), _macs, DTYPES))
