"""Totals on every build: report.json's flash and RAM per core, checked against the toolchain itself;
with --bench, per-call counts that add up to the bench's total and ms at the board's clock."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from microfuse import cli, oracle
from microfuse.boards import load_board
from microfuse.report import latency_section
from tests.conftest import NEEDS_ARM, model

MLPERF = ["mlperf_kws_dscnn_int8", "mlperf_vww_mobilenetv1_96_int8", "mlperf_ic_resnet8_int8",
          "mlperf_ad_autoencoder_int8"]


def toolchain_code_bytes(lib: Path, name: str, cflags: list[str], tmp: Path) -> int:
    """.text bytes of the folder's objects, compiled and listed here with gcc and size directly."""
    total = 0
    for src in sorted(lib.glob("*.c")):
        obj = tmp / f"{src.stem}.o"
        subprocess.run(["arm-none-eabi-gcc", *cflags, "-ffunction-sections", "-fdata-sections",
                        f"-D{name.upper()}_NO_STATIC_ARENA", f"-I{lib}", "-c", str(src), "-o", str(obj)], check=True)
        listing = subprocess.run(["arm-none-eabi-size", "-A", str(obj)], check=True, capture_output=True, text=True)
        total += sum(int(n) for sec, n in re.findall(r"^(\.text\S*)\s+(\d+)", listing.stdout, re.M))
    return total


def build(args: list[str], capsys) -> tuple[dict, str]:
    assert cli.main(["build", *args]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    out = Path(args[args.index("-o") + 1])
    return json.loads((out / "report.json").read_text()), line


@pytest.mark.qemu
@NEEDS_ARM
@pytest.mark.parametrize("name", MLPERF)
def test_mlperf_totals_bench_and_tflm_card(name, tmp_path, capsys):
    out = tmp_path / "out"
    rep, line = build([str(model(name)), "-o", str(out), "--name", "m", "--bench", "qemu-mps2-an386"], capsys)
    (m4,) = rep["footprint"]
    assert m4["core"] == "cortex-m4"
    objs = tmp_path / "objs"
    objs.mkdir()
    assert m4["code_bytes"] == toolchain_code_bytes(out, "m", m4["cflags"], objs) > 1000
    assert m4["flash_bytes"] == m4["code_bytes"] + m4["constants_bytes"] + m4["data_bytes"]
    assert m4["ram_bytes"] == rep["arena_bytes"] + m4["data_bytes"] + m4["bss_bytes"] + m4["stack_bytes"]
    assert m4["constants_bytes"] >= rep["constants"]["bytes"] == rep["weights_bytes"]
    assert 100 < m4["stack_bytes"] < 4096  # (AD: 132 B)
    # the bench painted the stack: that figure replaces the call-graph bound, which covers it
    assert m4["stack_source"] == "painted under qemu-mps2-an386 during the bench"
    assert m4["stack_bytes"] == rep["bench"]["stack_bytes"] <= m4["stack_bound_bytes"]
    # the one-line summary carries the totals and the latency
    assert f"flash {m4['flash_bytes']:,} B + RAM {m4['ram_bytes']:,} B on cortex-m4" in line
    lat, bench = rep["latency"], rep["bench"]
    assert lat["basis"] in ("instructions", "cycles") and lat["clock_hz"] == 25_000_000
    assert sum(c["instructions"] for c in lat["per_call"]) == bench["instructions"] == lat["instructions"]
    assert len(lat["per_call"]) == rep["kernel_calls"]
    assert abs(lat["timer_reads"]) <= 50 * rep["kernel_calls"]  # a few instructions and a tick per read
    assert lat["ms"] == pytest.approx(1e3 * bench[lat["basis"]] / 25e6)
    if bench.get("cycles") is not None:  # the QEMU cycle model: per-call estimates beside instructions
        assert sum(c["cycles"] for c in lat["per_call"]) == bench["cycles"]
    assert rep["tflm_plan"]["head_bytes"] == oracle.arena_usage(model(name))["head"]
    page = (out / "report.html").read_text()
    assert f"TFLM would plan {rep['tflm_plan']['head_bytes']:,} B for activations (+ its per-op data)" in page
    assert "TFLM-like" not in page and f"{lat['per_call'][0][lat['basis']]:,}" in page
    assert f"{lat['ms']:,.2f} ms" in page


@NEEDS_ARM
def test_board_core_measured_beside_the_default(tmp_path, capsys):
    out = tmp_path / "out"
    rep, _ = build([str(model("mlperf_kws_dscnn_int8")), "-o", str(out), "--board", "qemu-mps2-an500"], capsys)
    m4, m7 = rep["footprint"]
    assert m4["core"] == "cortex-m4" and m7["core"] == "qemu-mps2-an500 (cortex-m7)"
    assert "-mcpu=cortex-m7" in m7["cflags"]
    # A Helium-laid-out library refuses a Cortex-M4 build (NAME.c #error): only the board's core
    rep, _ = build([str(model("mlperf_kws_dscnn_int8")), "-o", str(tmp_path / "m55"), "--board", "qemu-mps3-an547"],
                   capsys)
    (m55,) = rep["footprint"]
    assert m55["core"] == "qemu-mps3-an547 (cortex-m55)" and "-mcpu=cortex-m55" in m55["cflags"]
    assert m55["code_bytes"] != m4["code_bytes"]  # Helium paths are other code
    page = (out / "report.html").read_text()
    assert "M4 DSP" in page and "M7 DSP" in page and "plain C" in page
    assert "M55 Helium" in (tmp_path / "m55" / "report.html").read_text()


@NEEDS_ARM
def test_core_option_and_weights_breakdown(tmp_path, capsys):
    out = tmp_path / "out"
    rep, line = build([str(model("mlperf_kws_dscnn_int8")), "-o", str(out), "--core", "cortex-m0plus"], capsys)
    assert rep["footprint"][0]["core"] == "cortex-m0plus" and "on cortex-m0plus" in line
    assert "kernel calls + 1 alias" in line and "whole-tensor lower bound" in line
    consts = rep["constants"]
    assert consts["model_file_bytes"] == 24_376  # what `microfuse inspect` prints for KWS
    assert sum(consts["by_kind"].values()) == consts["bytes"] == rep["weights_bytes"]
    assert {"weights", "requantization", "lookup tables"} <= set(consts["by_kind"])
    page = (out / "report.html").read_text()
    assert f"The model file holds {consts['model_file_bytes']:,} B" in page


def test_unknown_core_is_a_one_line_error(tmp_path, capsys):
    code = cli.main(["build", str(model("mlperf_ad_autoencoder_int8")), "-o", str(tmp_path / "o"), "--core", "z80"])
    assert code == 2 and "unknown core 'z80'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_latency_prefers_cycles_and_adds_up():
    board = load_board("qemu-mps3-an547")
    bench = {"board": board.name, "instructions": 1000, "cycles": 1500, "repeatable": True,
             "per_op": [{"call": 0, "instructions": 610, "cycles": 905}, {"call": 1, "instructions": 405, "cycles": 601}]}
    lat = latency_section(bench, board, None)
    assert lat["basis"] == "cycles" and lat["estimated"] and lat["clock_hz"] == board.clock_hz
    assert [c["cycles"] for c in lat["per_call"]] == [902, 598]  # 6 cycles of timer reads, 3 off each
    assert sum(c["instructions"] for c in lat["per_call"]) == 1000
    assert lat["ms"] == pytest.approx(1500 / board.clock_hz * 1e3)
    assert latency_section(bench, board, 100_000_000)["ms"] == pytest.approx(0.015)
    without = latency_section({**bench, "cycles": None,
                               "per_op": [{k: v for k, v in p.items() if k != "cycles"} for p in bench["per_op"]]},
                              board, None)
    assert without["basis"] == "instructions" and not without["estimated"]


def test_every_board_has_a_clock():
    from microfuse.boards import load_all

    assert all(b.clock_hz for b in load_all() if not b.is_host)


@pytest.mark.parametrize("text, hz", [("80e6", 80_000_000), ("80MHz", 80_000_000), ("32768", 32768)])
def test_clock_option(text, hz):
    assert cli._hz(text) == hz


def test_bad_clock_exits_2(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["build", "m.tflite", "--clock", "fast"])
    assert e.value.code == 2 and "not a clock" in capsys.readouterr().err


def test_without_the_arm_toolchain_the_build_works_without_totals(tmp_path, capsys, monkeypatch):
    import shutil as sh

    real = sh.which
    monkeypatch.setattr(sh, "which", lambda tool, *a, **k: None if tool.startswith("arm-none-eabi") else real(tool))
    rep, line = build([str(model("mlperf_ad_autoencoder_int8")), "-o", str(tmp_path / "o")], capsys)
    assert rep["footprint"] == [] and "no flash/RAM totals: arm-none-eabi-gcc not found" in line
    assert "total flash" not in (tmp_path / "o" / "report.html").read_text()


@NEEDS_ARM
def test_a_relative_output_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep, _ = build([str(model("mlperf_ad_autoencoder_int8")), "-o", "out/ad"], capsys)
    assert rep["footprint"][0]["code_bytes"] > 1000


@NEEDS_ARM
def test_stack_bound_counts_frames_inline_asm_allocates(tmp_path):
    """gcc's -fstack-usage does not see a `sub sp` inside inline asm (mf_dot.h keeps its loop
    state in such a frame); the bound adds what the disassembly moves the stack pointer by."""
    from microfuse.targets.footprint import compile_objects, core_flags, stack_bound

    src = tmp_path / "src"
    src.mkdir()
    (src / "k.c").write_text(
        "void leaf(volatile int *p);\n"
        "void leaf(volatile int *p) { __asm volatile(\"sub sp, sp, #200\\n\\tstr r0, [sp]\\n\\t"
        "add sp, sp, #200\" ::: \"memory\"); *p = 1; }\n"
        "void root(void);\nvoid root(void) { volatile int x = 0; leaf(&x); }\n")
    compile_objects([src / "k.c"], src, core_flags("cortex-m4"), tmp_path)
    gcc_alone = sum(int(line.split()[-2]) for line in (tmp_path / "k.su").read_text().splitlines())
    assert stack_bound(tmp_path, "root")["bytes"] >= gcc_alone + 200
