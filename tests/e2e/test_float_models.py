"""Float models on an emulated Cortex-M4F: their kernels call expf, roundf and tanhf, so the firmware
links libm (targets/firmware.py); the outputs stay within verify's float tolerance of TFLite Micro."""

from __future__ import annotations

import pytest
from conftest import QEMU, model

from microfuse.verify import verify

pytestmark = QEMU


@pytest.mark.parametrize("name", ["tiny/vww_96_float", "tflm/magic_wand_float"])
def test_float_model_within_tolerance_on_m4f(name):
    verdict, _, _ = verify(model(name), "qemu-mps2-an386", n=1, seed=11)
    assert verdict.ok, verdict.line(True)
