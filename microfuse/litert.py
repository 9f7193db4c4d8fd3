"""The second oracle: LiteRT's BUILTIN_REF reference kernels, for the models where TFLM is known wrong."""

from __future__ import annotations

import numpy as np

from .errors import TargetError
from .ir import DType, Graph

_MISSING = "the LiteRT oracle needs ai-edge-litert: pip install ai-edge-litert"


def tflm_known_wrong(graph: Graph) -> str | None:
    """Why TFLM's answer for this model (as read) cannot be the reference, or None."""
    for op in graph.ops:
        if op.kind != "SPACE_TO_BATCH_ND":
            continue
        x, out = op.inputs[0], op.outputs[0]
        if out.index >= 0 and any(f"op {op.index} SPACE_TO_BATCH_ND" in n for n in graph.notes):
            return (f"op {op.index} SPACE_TO_BATCH_ND has a dynamic batch that TFLM never resizes "
                    "(tflite-micro #3185: it computes from stale arena bytes)")
        pads = op.inputs[2].data if len(op.inputs) > 2 and op.inputs[2] is not None else None
        if x.dtype == DType.INT8 and x.quant is not None and x.quant.zero_point[0] != 0 \
                and pads is not None and np.asarray(pads).any():
            return (f"op {op.index} SPACE_TO_BATCH_ND pads int8 with 0 in TFLM, not with the zero point "
                    f"{x.quant.zero_point[0]} (tflite-micro #1646)")
    return None


def run(model: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The model's outputs under LiteRT with its reference kernels (OpResolverType.BUILTIN_REF)."""
    return run_sequence(model, [inputs])[0]


def run_sequence(model: bytes, samples: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """The outputs of each invoke of one fresh interpreter fed `samples` in order (state carries)."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        raise TargetError(_MISSING) from None
    interp = Interpreter(model_content=bytes(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interp.allocate_tensors()
    details = interp.get_input_details()
    found = []
    for inputs in samples:
        if len(inputs) != len(details):
            raise TargetError(f"the model has {len(details)} input(s), {len(inputs)} given")
        for d, x in zip(details, inputs):
            interp.set_tensor(d["index"], np.asarray(x, dtype=d["dtype"]).reshape(d["shape"]))
        interp.invoke()
        found.append([np.array(interp.get_tensor(d["index"]), copy=True) for d in interp.get_output_details()])
    return found
