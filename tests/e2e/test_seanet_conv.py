"""The SEANet 16x8 conv layers of the corpus (../shared/models/seanet/conv*, transpose_conv*: TFLM's
own integration tests, one layer each, cut from a speech model) compile and are bit-exact with
TFLite Micro: every one on the host (random and all-minimum / all-maximum inputs), two on an
emulated Cortex-M4."""

from __future__ import annotations

import pytest

from microfuse.verify import verify
from tests.conftest import model
from tests.harness import on_qemu

CONV = [f"seanet/conv{i}" for i in range(0, 21, 2)]
TRANSPOSE_CONV = [f"seanet/transpose_conv{i}" for i in range(0, 5, 2)]


@pytest.mark.parametrize("name", CONV + TRANSPOSE_CONV)
def test_seanet_layer_bit_exact_on_host(name):
    verdict, _, _ = verify(model(name), "host", n=3, seed=12)
    assert verdict.ok, verdict.line(False)


@on_qemu
@pytest.mark.parametrize("name", ["seanet/conv2", "seanet/transpose_conv0"])
def test_seanet_layer_bit_exact_on_m4(name):
    verdict, _, _ = verify(model(name), "qemu-mps2-an386", n=2, seed=13)
    assert verdict.ok, verdict.line(False)
