"""microfuse.tflm_plan reproduces TFLM's GreedyMemoryPlanner: its head equals the wheel's on real models."""

from __future__ import annotations

import pytest

from microfuse import oracle, tflm_plan
from microfuse.tflm_plan import Request
from microfuse.tflite import reader
from tests.conftest import model

CORPUS = ["mlperf_kws_dscnn_int8", "mlperf_vww_mobilenetv1_96_int8", "mlperf_ic_resnet8_int8",
          "mlperf_ad_autoencoder_int8", "tflm_micro_speech_int8", "tflm_simple_add", "tiny/sww_ref_int8",
          "tiny/ic_resnet8_float", "tflm/magic_wand_float", "seanet/strided_slice10"]


@pytest.mark.parametrize("name", CORPUS)
def test_head_equals_the_wheels(name):
    path = model(name)
    assert tflm_plan.plan(reader.read(path)).head_bytes == oracle.arena_usage(path)["head"]


def test_largest_first_and_first_fitting_gap():
    # a (0..1, 64) and c (2..3, 64) share offset 0; b (1..2, 32) overlaps both and goes above them;
    # d (3..3, 16) fits into the gap below c? no: c holds 0..64 at scope 3, so d goes to 64
    reqs = [Request("a", 64, 0, 1), Request("b", 32, 1, 2), Request("c", 64, 2, 3), Request("d", 16, 3, 3)]
    assert tflm_plan.greedy(reqs) == (0, 64, 0, 64)


def test_a_gap_between_placed_buffers_is_used():
    # big (0..2) at 0, mid (0..0) at 256; small (1..1) fits into [0, 256)? no, big is there: it
    # goes above big at 256, where mid (not alive at 1) leaves room
    reqs = [Request("big", 256, 0, 2), Request("mid", 128, 0, 0), Request("small", 64, 1, 1)]
    assert tflm_plan.greedy(reqs) == (0, 256, 256)


def test_equal_sizes_place_the_later_added_first():
    # both alive together: TFLM fills its sort array from the tail, so id 1 is placed at 0
    assert tflm_plan.greedy([Request("x", 32, 0, 1), Request("y", 32, 0, 1)]) == (32, 0)


def test_sizes_are_aligned_and_constants_skipped():
    g = reader.read(model("mlperf_ad_autoencoder_int8"))
    reqs = tflm_plan.requests(g)
    assert all(r.size % 16 == 0 for r in reqs)
    assert len(reqs) == len([t for t in g.tensors() if not t.is_const])
    assert reqs[0].first == 0 and max(r.last for r in reqs) == len(g.ops)
