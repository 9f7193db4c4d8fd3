"""What each kernel assumes of its operands (count, constness, rank, type, length), and that its
requantization multipliers are representable: a declarative table, checked for every op by problems()."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..ir import DType, Op, Tensor

# QuantizeMultiplier's (multiplier, shift) covers reals up to 2^30, above it clamps (no real model
# needs that); below 2^-31 it flushes to zero, as TFLM does for dead channels' tiny filter scales.
MULTIPLIER_MAX = 2.0 ** 30
INT32_HEADROOM = 2 ** 31 - 2 ** 9  # a requantized value plus a zero point must still fit int32


@dataclass(frozen=True)
class Operand:
    """One input as the kernel reads it. dtype: 'data' (the op's input type), 'weights' (int8 for
    int8 data, else the data type), 'bias' (int32 for int8 data, else float32), 'int32', or None."""

    role: str
    const: bool | None = None  # True: a constant; False: an activation in the arena; None: either
    rank: int | None = None
    dtype: str | None = None
    length: Callable[[Op], int] | None = None  # a rank-1 operand's required length
    optional: bool = False  # may be absent (index -1 or missing)


@dataclass(frozen=True)
class Spec:
    inputs: tuple[Operand, ...]
    more_inputs: bool = False  # further inputs like the last one (CONCATENATION)
    outputs: int = 1


DATA4 = Operand("data", const=False, rank=4, dtype="data")
DATA = Operand("data", dtype="data")
ACTIVATION = Operand("data", const=False, dtype="data")
_CONV = (DATA4, Operand("filter", const=True, rank=4, dtype="weights"),
         Operand("bias", const=True, rank=1, dtype="bias", length=lambda op: op.inputs[1].shape[0], optional=True))
_DEPTHWISE = (DATA4, Operand("filter", const=True, rank=4, dtype="weights"),
              Operand("bias", const=True, rank=1, dtype="bias", length=lambda op: op.inputs[1].shape[3],
                      optional=True))
_FC = (Operand("data", const=False, dtype="data"), Operand("weights", const=True, rank=2, dtype="weights"),
       Operand("bias", const=True, rank=1, dtype="bias", length=lambda op: op.inputs[1].shape[0], optional=True))

SPECS: dict[str, Spec] = {
    "CONV_2D": Spec(_CONV),
    "DEPTHWISE_CONV_2D": Spec(_DEPTHWISE),
    "FULLY_CONNECTED": Spec(_FC),
    "AVERAGE_POOL_2D": Spec((DATA4,)),
    "MAX_POOL_2D": Spec((DATA4,)),
    "ADD": Spec((DATA, DATA)),
    "SUB": Spec((DATA, DATA)),
    "MUL": Spec((DATA, DATA)),
    "SOFTMAX": Spec((ACTIVATION,)),
    "MEAN": Spec((ACTIVATION, Operand("axes", const=True, dtype="int32"))),
    "PAD": Spec((ACTIVATION, Operand("paddings", const=True, rank=2))),
    "CONCATENATION": Spec((DATA,), more_inputs=True),
}


_WEIGHTS = {DType.INT8: {DType.INT8}, DType.INT16: {DType.INT8},
            DType.FLOAT32: {DType.FLOAT32, DType.INT8}}  # float data with int8 weights: hybrid
_BIAS = {DType.INT8: {DType.INT32}, DType.INT16: {DType.INT64, DType.INT32}, DType.FLOAT32: {DType.FLOAT32}}


_RETYPING = {("SOFTMAX", DType.INT8, DType.INT16)}  # ops whose output type may differ from the input's


def _dtype_ok(t: Tensor, want: str | None, data: DType) -> bool:
    if want is None:
        return True
    allowed = {"data": {data}, "int32": {DType.INT32}, "weights": _WEIGHTS.get(data, {data}),
               "bias": _BIAS.get(data, {t.dtype})}[want]
    return t.dtype in allowed


def _operand(op: Op, i: int, spec: Operand, data: DType) -> str | None:
    t = op.inputs[i] if i < len(op.inputs) else None
    if t is None:
        return None if spec.optional else f"input {i} ({spec.role}) is missing"
    what = f"input {i} ({spec.role}) '{t.name}'"
    if spec.const is True and not t.is_const:
        return f"{what} must be a constant"
    if spec.const is False and t.is_const:
        return f"{what} is a constant; the kernel reads it from the arena (fold it or feed it as an input)"
    if spec.rank is not None and len(t.shape) != spec.rank:
        return f"{what} must have rank {spec.rank}, has shape {list(t.shape)}"
    if not _dtype_ok(t, spec.dtype, data):
        return f"{what} has type {t.dtype}, which the {op.kind} kernel does not take here"
    if spec.length is not None and t.shape[0] != spec.length(op):
        return f"{what} has {t.shape[0]} values, the op needs {spec.length(op)}"
    return None


def wiring(op: Op) -> list[str]:
    """Operand count, constness, rank, type and length against the op's spec (every op: outputs)."""
    if not op.outputs:
        return [] if op.kind == "ASSIGN_VARIABLE" else ["the op has no outputs"]  # it writes state
    found = [f"output {i} '{t.name}' is a constant" for i, t in enumerate(op.outputs) if t.is_const]
    spec = SPECS.get(op.kind)
    if spec is None or found:
        return found
    if len(op.outputs) != spec.outputs:
        return [f"expects {spec.outputs} output(s), has {len(op.outputs)}"]
    needed = sum(not s.optional for s in spec.inputs)
    extra_ok = spec.more_inputs or op.fused  # a fused epilogue appends its operands (passes/)
    if len(op.inputs) < needed or (len(op.inputs) > len(spec.inputs) and not extra_ok):
        return [f"expects {needed}-{len(spec.inputs)} inputs, has {len(op.inputs)}"]
    data = op.inputs[0].dtype if op.inputs and op.inputs[0] is not None else None
    if data is None:
        return ["input 0 (data) is missing"]
    more = len(op.inputs) - len(spec.inputs) if spec.more_inputs else 0
    roles = [*spec.inputs, *[spec.inputs[-1]] * more]
    found = [m for i, s in enumerate(roles) if (m := _operand(op, i, s, data))]
    out = op.outputs[0]
    if op.kind != "MEAN" and not op.fused and out.dtype != data and (op.kind, data, out.dtype) not in _RETYPING:
        found.append(f"output '{out.name}' has type {out.dtype}, the input {data}")
    return found


# -- requantization multipliers ---------------------------------------------------------------

def _scales(t: Tensor | None) -> list[float]:
    return [float(s) for s in t.quant.scale] if t is not None and t.quant is not None else []


def _max_abs(t: Tensor | None) -> int:
    if t is None or t.data is None or not t.elements:
        return 0
    data = np.asarray(t.data)
    return max(-int(data.min()), int(data.max()))  # no abs(): -128 has none in int8


def _acc_bound(op: Op) -> float:
    """The largest |int32 accumulator| an int8 conv/FC can reach: taps * 255 * max|w| + max|bias|."""
    shape = op.inputs[1].shape
    taps = math.prod(shape[1:]) if op.kind != "DEPTHWISE_CONV_2D" else shape[1] * shape[2]
    bias = op.inputs[2] if len(op.inputs) > 2 else None
    return taps * 255 * _max_abs(op.inputs[1]) + _max_abs(bias)


def _reals(op: Op) -> list[tuple[float, float, Callable[[], str]]]:
    """(largest real multiplier, largest |value| it multiplies, how it is made) per rescale the
    kernel does; the text is made only for a message."""
    ins = [t for t in op.inputs if t is not None]
    if not ins or ins[0].dtype != DType.INT8 or not op.outputs or not _scales(op.outputs[0]):
        return []
    s_out = _scales(op.outputs[0])[0]
    if op.kind in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED") and len(ins) > 1 and ins[1].is_const:
        s_in, s_w = _scales(ins[0]), max(_scales(ins[1]), default=0.0)
        return [(s_in[0] * s_w / s_out, _acc_bound(op),
                 lambda: f"input scale {s_in[0]:g} x filter scale {s_w:g} / output scale {s_out:g}")]
    if op.kind == "MUL" and len(ins) == 2 and _scales(ins[1]):
        s1, s2 = _scales(ins[0])[0], _scales(ins[1])[0]
        return [(s1 * s2 / s_out, 255.0 * 255.0,
                 lambda: f"input scales {s1:g} x {s2:g} / output scale {s_out:g}")]
    return [(s / s_out, 0.0, lambda s=s: f"input scale {s:g} / output scale {s_out:g}")
            for t in ins if not t.is_const and t.dtype == DType.INT8 for s in _scales(t)[:1]]


def multipliers(op: Op) -> list[str]:
    """Every rescale representable as TFLite's (multiplier, shift), and unable to overflow int32."""
    if op.fused:  # checked as read, before fusion merged scales of several ops
        return []
    for real, bound, what in _reals(op):
        if not math.isfinite(real) or real > MULTIPLIER_MAX:
            return [f"effective requantization multiplier {real:g} ({what()}) is above 2^30, "
                    "the largest TFLite represents"]
        if real * bound >= INT32_HEADROOM:
            return [f"effective requantization multiplier {real:g} ({what()}) overflows int32 for "
                    f"accumulators up to {bound:g}"]
    return []


def problems(op: Op) -> list[str]:
    """The operand wiring first (the multiplier check reads the operands it checks)."""
    return wiring(op) or multipliers(op)
