"""The SEANet "16x8" layers of ../shared/models/seanet/ whose ops are int16 ADD, SUB, LEAKY_RELU
and QUANTIZE: each compiles and is bit-exact with TFLM on the host (random, all-minimum and
all-maximum inputs), and a sample of two on qemu-mps2-an386."""

from __future__ import annotations

import pytest

from microfuse.verify import verify
from tests.conftest import CI, MODELS
from tests.harness import on_qemu

SEANET = MODELS / "seanet"
FAMILIES = ("add", "sub", "leaky_relu", "quantize")
FILES = sorted(p for family in FAMILIES for p in SEANET.glob(f"{family}[0-9]*.tflite"))
REASON = f"needs the SEANet models in {SEANET} (absent; CI=true requires them)"
PARAMS = FILES or [pytest.param(SEANET / "absent.tflite", id="seanet-absent",
                                marks=pytest.mark.skipif(not CI, reason=REASON))]
QEMU_SAMPLE = ("sub0", "leaky_relu20")  # a broadcast SUB with two graph inputs; a rescaling LEAKY_RELU


@pytest.mark.parametrize("path", PARAMS, ids=lambda p: getattr(p, "stem", str(p)))
def test_seanet_layer_bit_exact_on_host(path):
    assert path.is_file(), f"SEANet model {path} is missing"
    verdict, _, _ = verify(path, "host", n=3, seed=12)
    assert verdict.ok, verdict.line(False)


def test_the_corpus_holds_every_family():
    if not FILES and not CI:
        pytest.skip(REASON)
    assert {p.stem.rstrip("0123456789") for p in FILES} == set(FAMILIES)


@on_qemu
@pytest.mark.parametrize("name", QEMU_SAMPLE)
def test_seanet_layer_bit_exact_on_qemu(name):
    path = SEANET / f"{name}.tflite"
    if not path.is_file() and not CI:
        pytest.skip(REASON)
    verdict, _, counts = verify(path, "qemu-mps2-an386", n=2, seed=13)
    assert verdict.ok, verdict.line(False)
    assert min(counts) > 0
