"""When the fully-connected kernel of whole 8-value chunks (mf_fc_s8_dsp8, runtime_c/include/mf_fc_row.h) fits an op.

It runs mf_fc_s8_dsp's arithmetic with the same params and weights (fast.fc_prepare), minus what
it cannot do: a depth that is not a multiple of 8, units that are not a multiple of 4, a clamp
narrower than int8 (or a fused epilogue: it declares no fused variants), an output slice. Its
unrolled loop saves about one cycle per 8-value chunk of 4 units on a Cortex-M4 for some 600
bytes of code, so a layer must have ROW_MACS_MIN MACs to take it (a conv model's classifier
head, a few hundred MACs, is under fast.DENSE_MACS_MIN and takes the reference kernel).
"""

from __future__ import annotations

from .. import quant
from ..ir import Op, own_output
from . import fast

ROW_MACS_MIN = 1024


def fc_row_fits(op: Op, level: str) -> bool:
    """mf_fc_s8_dsp8 fits `op` (see the module docstring)."""
    units, depth = op.inputs[1].shape
    if depth % 8 or units % 4 or depth * units < ROW_MACS_MIN or not fast.fc_fits(op, level):
        return False
    lo, hi = quant.activation_range(op.attrs.activation, own_output(op))
    return lo == -128 and hi == 127
