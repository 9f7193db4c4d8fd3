"""Kernels of 16-bit activation ("16x8") models: QUANTIZE between integer types, float32 <-> int16."""

from __future__ import annotations

from ..ir import DType
from .kernels import ELEMENT, KernelSpec, declare

INT8, INT16, INT32 = DType.INT8, DType.INT16, DType.INT32
_SHORT = {INT8: "s8", INT16: "s16", INT32: "s32"}
# TFLM quantize_common.cc: the integer pairs its Requantize runs that no byte table covers
REQUANTIZE = {(src, dst): f"mf_requantize_{_SHORT[src]}_{_SHORT[dst]}"
              for src, dst in ((INT16, INT8), (INT16, INT16), (INT16, INT32), (INT8, INT16), (INT8, INT32),
                               (INT32, INT8), (INT32, INT16))}

declare({"mf_requantize_params": ("size", "input_zero_point", "output_zero_point", "multiplier", "shift")},
        *(KernelSpec(name, "mf_requantize_params", "mf_requantize.c", access=ELEMENT) for name in REQUANTIZE.values()),
        KernelSpec("mf_quantize_f32_s16", "mf_affine_params", "mf_quantize_f32.c", access=ELEMENT),
        KernelSpec("mf_dequantize_s16_f32", "mf_affine_params", "mf_dequantize_f32.c", access=ELEMENT))
