"""The variant and params of fused ops' epilogues (runtime_c/include/mf_epilogue.h).

An int8 epilogue is [table] -> [ADD | SUB | RSUB | MUL with a residual] -> [table]; its
constants are exactly what the unfused ops' lowerings compute (lower/elementwise.py), so the
fused kernel is bit-exact with the unfused chain. A float epilogue is a list of steps.
"""

from __future__ import annotations

import numpy as np

from .. import lut as luts
from ..errors import UnsupportedError
from ..ir import DType, Epilogue, Op, Tensor, split
from ..quant import activation_range, activation_range_float, quantize_multiplier
from .call import ConstArray
from .common import ADD_LEFT_SHIFT, addsub_multipliers, qp

F32_STEPS = 4  # mf_epilogue.h MF_EP_F32_STEPS
F32_KIND = {"RELU": 1, "RELU6": 2, "LEAKY_RELU": 3, "HARD_SWISH": 4, "LOGISTIC": 5, "TANH": 6,
            "ADD": 7, "SUB": 8, "RSUB": 9, "MUL": 10}


def variant(op: Op) -> str:
    """The fused variant an op's epilogue needs (KernelSpec.variant): "" (no epilogue), "lut",
    "add", "sub", "rsub", "mul" (int8), "ep" or "ep_res" (float)."""
    if not op.fused:
        return ""
    pre, binary, post = split(op)
    if op.outputs[0].dtype == DType.FLOAT32:
        return "ep" if binary is None else "ep_res"
    if binary is None:
        return "lut"
    kind = binary.sources[0].kind.lower()
    return "rsub" if kind == "sub" and binary.operand_slot == 0 else kind


def operands(op: Op) -> list[Tensor]:
    """The arena tensors an epilogue reads besides the kernel's input (the residual)."""
    return [s.operand for s in op.fused if s.operand is not None]


def table(step: Epilogue) -> np.ndarray:
    """One int8 table for a chain of unary ops."""
    return luts.compose([luts.lut_for(src) for src in step.sources])


def params_s8(op: Op) -> dict[str, object]:
    """The `ep.*` fields of an int8 epilogue."""
    pre, binary, post = split(op)
    fields: dict[str, object] = {}
    if pre is not None:
        fields["ep.pre"] = ConstArray("pre", table(pre))
    if post is not None:
        fields["ep.post"] = ConstArray("post", table(post))
    if binary is not None:
        fields.update(_binary_s8(binary))
    return fields


def _binary_s8(step: Epilogue) -> dict[str, object]:
    src = step.sources[0]
    out = src.outputs[0]
    (s1, z1), (s2, z2), (so, zo) = (qp(t, src) for t in (*src.inputs, out))
    v_slot = 1 - step.operand_slot  # which input of the binary op the fused value is
    zv, zr = (z1, z2)[v_slot], (z1, z2)[step.operand_slot]
    lo, hi = activation_range(src.attrs.activation, out)
    fields = {"ep.v_offset": -zv, "ep.r_offset": -zr, "ep.output_offset": zo, "ep.act_min": lo,
              "ep.act_max": hi}
    if src.kind == "MUL":
        mult, shift = quantize_multiplier(s1 * s2 / so)
        return {**fields, "ep.output_multiplier": mult, "ep.output_shift": shift}
    sides = addsub_multipliers(src, s1, s2, so)
    (vm, vs), (rm, rs), (om, os_) = sides[v_slot], sides[step.operand_slot], sides[2]
    return {**fields, "ep.left_shift": ADD_LEFT_SHIFT, "ep.v_multiplier": vm, "ep.v_shift": vs,
            "ep.r_multiplier": rm, "ep.r_shift": rs, "ep.output_multiplier": om, "ep.output_shift": os_}


def _hexf(x: float) -> str:
    """An exact C99 float literal."""
    return float(np.float32(x)).hex() + "f"


def params_f32(op: Op) -> dict[str, object]:
    """The `ep.*` fields of a float epilogue: its steps in order."""
    kinds, alphas, lo, hi = [], [], float("-inf"), float("inf")
    for step in op.fused:
        if step.kind == "unary":
            for src in step.sources:
                kinds.append(F32_KIND[src.kind])
                alphas.append(float(src.attrs.alpha) if src.kind == "LEAKY_RELU" else 0.0)
            continue
        src = step.sources[0]
        kind = "RSUB" if src.kind == "SUB" and step.operand_slot == 0 else src.kind
        kinds.append(F32_KIND[kind])
        alphas.append(0.0)
        lo, hi = activation_range_float(src.attrs.activation)
    if len(kinds) > F32_STEPS:
        raise UnsupportedError(f"{op.where} '{op.name}': a float epilogue holds at most {F32_STEPS} steps, "
                               f"not {len(kinds)}")
    return {"ep.steps": len(kinds), "ep.kind": "{" + ", ".join(map(str, kinds)) + "}",
            "ep.alpha": "{" + ", ".join(_hexf(a) for a in alphas) + "}", "ep.act_min": lo, "ep.act_max": hi}


def epilogue_params(op: Op) -> dict[str, object]:
    return params_f32(op) if op.outputs[0].dtype == DType.FLOAT32 else params_s8(op)
