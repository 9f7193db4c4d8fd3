"""The fusion cost model: objectives weigh instructions, arena and flash differently; IC ResNet-8's
residual ADDs join their convs when the reference kernels are used; CODE_BYTES is measured."""

from __future__ import annotations

from _fusion import NO_CASCADE


import pytest

from microfuse.pipeline import Options
from microfuse.passes import cost
from microfuse.passes.cost import Estimate, decide
from microfuse.passes.explain import format_decisions
from microfuse.testing.stages import compile_model

from conftest import NEEDS_ARM, model  # noqa: E402  (tests/ is on sys.path: pytest rootdir conftest)
from _fusion import check_cost_table, measured_code_bytes
from tests import figures
BASE = Estimate(1_000_000, 200_000, 40_000, 100_000)


def test_objectives_trade_instructions_arena_and_flash():
    faster_more_code = Estimate(-50_000, -8_000, 0, 480)
    assert decide(BASE, faster_more_code, "speed").fuse
    assert not decide(BASE, faster_more_code, "size").fuse
    smaller_slower = Estimate(+200_000, 0, -2_000, 0)
    assert decide(BASE, smaller_slower, "size").fuse
    assert not decide(BASE, smaller_slower, "speed").fuse
    # balanced: -1% memory does not pay for +20% instructions, -5% memory pays for +1%
    assert not decide(BASE, smaller_slower, "balanced").fuse
    assert decide(BASE, Estimate(+10_000, 0, -3_000, 0), "balanced").fuse
    verdict = decide(BASE, faster_more_code, "size")
    assert "loses for size" in verdict.reason and "flash +480 B" in verdict.reason


def test_ic_resnet8_joins_each_add_to_its_conv_and_the_arena_drops():
    path = model("mlperf_ic_resnet8_int8")
    plain = compile_model(str(path), Options(fuse=False, optimize="size"))
    fused = compile_model(str(path), Options(optimize="size", passes=NO_CASCADE))
    assert len(plain.source.ops) == 16 and len(plain.calls) == 15  # the RESHAPE is an alias
    assert len(fused.calls) == 12
    joined = [c for c in fused.calls if c.label == "conv_2d+add"]
    assert len(joined) == 3 and all(c.sources[1].attrs.activation == "RELU" for c in joined)
    assert [d["ops"] for d in fused.fusion if d["decision"] == "fused"] == [[2, 3], [6, 7], [10, 11]]
    assert fused.plan.arena_bytes < plain.plan.arena_bytes
    size = compile_model(str(path), Options(optimize="size")).plan.arena_bytes  # with its cascades
    figures.arena("IC ResNet-8 --optimize size", size, figures.SIZE_ARENA[figures.IC])
    text = format_decisions(fused.fusion)
    # other patterns (global pool, horizontal) weigh their candidates too
    assert text.splitlines()[0].startswith("fusion: 3 of ") and "residual" in text


def test_every_decision_has_a_reason_under_every_objective():
    path = str(model("mlperf_ic_resnet8_int8"))
    for objective in cost.OBJECTIVES:
        decisions = compile_model(path, Options(optimize=objective)).fusion
        assert decisions and all(d["reason"] and d["decision"] in ("fused", "declined") for d in decisions)


KERNEL_FILES = ["mf_conv2d_s8", "mf_dwconv2d_s8", "mf_fc_s8", "mf_fc_s8_pc", "mf_pool_avg_s8", "mf_pool_max_s8",
                "mf_conv2d_f32", "mf_dwconv2d_f32", "mf_fc_f32", "mf_pool_avg_f32", "mf_pool_max_f32"]


@pytest.mark.qemu
@NEEDS_ARM
def test_code_bytes_table_matches_the_cortex_m4_build(tmp_path):
    files = [name for stem in KERNEL_FILES for name in (stem, stem + "_ep")]
    check_cost_table(measured_code_bytes(tmp_path, files))