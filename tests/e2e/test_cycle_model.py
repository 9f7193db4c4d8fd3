"""The Cortex-M4 cycle plugin: hand-computed cycles of small sequences, counts that agree with the timer."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import QEMU, model
from microfuse.boards import load_board
from microfuse.pipeline import Options, build
from microfuse.targets import cycles
from microfuse.targets.firmware import build_firmware
from microfuse.targets.qemu import QemuSession
from microfuse.verify import make_samples

pytestmark = QEMU
BENCH = Path(__file__).resolve().parents[2] / "bench" / "speed.py"

# Every snippet runs between two calls of an empty function `mark`; the plugin's counters at the
# marks differ by the snippet plus `bx lr` returning from the first mark and the `bl` to the
# second: 2 instructions, 3 + 3 cycles (1 each, +2 for the taken branch).
FRAME_INSNS, FRAME_CYCLES = 2, 6
SNIPPETS = {  # name: (Thumb-2 assembly, instructions, cycles worked out by hand from docs/cycle-model.md)
    "alu": ("adds r0, #1; lsls r1, r0, #2; add.w r2, r1, r0, lsl #3; ubfx r3, r2, #1, #4", 4, 4),
    # 2, then 1 behind a load (twice), a store behind a load 1, a store behind a store 2, 1, 2
    "load_pipelining": ("ldr r1, [r5]; ldr r2, [r5, #4]; ldrb r3, [r5, #8]; str r3, [r5, #12];"
                        "str r3, [r5, #12]; adds r0, #1; ldr r1, [r5]", 7, 2 + 1 + 1 + 1 + 2 + 1 + 2),
    "multiply": ("mul r3, r1, r2; mla r3, r1, r2, r3; smlad r3, r1, r2, r3; smull r3, r4, r1, r2;"
                 "mls r3, r1, r2, r3; smlabb r3, r1, r2, r3", 6, 1 + 2 + 1 + 1 + 2 + 1),
    "dual_and_multiple": ("ldrd r0, r1, [r5]; strd r0, r1, [r5, #8]; push {r0-r3}; pop {r0-r3};"
                          "ldm r5, {r0-r2}", 5, 3 + 3 + 5 + 5 + 4),
    # subs 3 times, bne taken twice (1 + 2) and falling through once (1)
    "loop": ("movs r0, #3; 1: subs r0, #1; bne 1b", 7, 1 + 3 + 3 + 3 + 1),
    # a skipped conditional instruction is charged like an executed one
    "it_block": ("cmp r0, r0; it ne; addne r1, r1", 3, 3),
    # cbz taken (1 + 2) over two nops, cbz not taken (1)
    "compare_and_branch": ("movs r0, #0; cbz r0, 1f; nop; nop; 1: adds r0, #1; cbz r0, 2f; nop; 2:", 5,
                           1 + 3 + 1 + 1 + 1),
    # tbb 2 + 2 taken, jumping over one nop
    "table_branch": ("movs r0, #1; tbb [pc, r0]; 1: .byte 0, (2f - 1b) / 2; nop; 2: nop", 3, 1 + 4 + 1),
    "divide": ("movs r1, #7; movs r2, #2; udiv r3, r1, r2", 3, 1 + 1 + 7),
    "float": ("vmov s0, r0; vadd.f32 s1, s0, s0; vmla.f32 s1, s0, s0; vdiv.f32 s2, s1, s0;"
              "vsqrt.f32 s3, s2; vldr s4, [r5]; vpush {s0-s3}; vpop {s0-s3}", 8, 1 + 1 + 3 + 14 + 14 + 2 + 5 + 5),
}

SNIPPET_FIRMWARE = """
    .syntax unified
    .thumb
    .section .vectors, "a"
    .word 0x20010000
    .word reset + 1
    .text
    .thumb_func
mark:
    bx lr
    .thumb_func
reset:
    ldr r0, =0xE000ED88        @ CPACR: enable the FPU
    ldr r1, [r0]
    orr r1, r1, #0xF00000
    str r1, [r0]
    dsb
    isb
    ldr r5, =data
    movs r0, #5
    bl mark
    {body}
    bl mark
    movs r0, #0x18             @ semihosting SYS_EXIT, ADP_Stopped_ApplicationExit
    ldr r1, =0x20026
    bkpt 0xab
    .ltorg
    .data
    .align 2
data:
    .word 1, 2, 3, 4, 5, 6
"""
LINK = "SECTIONS { . = 0; .text : { KEEP(*(.vectors)) *(.text*) } . = 0x20000000; .data : { *(.data*) } }\n"


def run_snippet(body: str, work: Path) -> tuple[list[cycles.Mark], dict[str, int]]:
    src, ld, elf, out = work / "t.S", work / "t.ld", work / "t.elf", work / "marks.txt"
    src.write_text(SNIPPET_FIRMWARE.replace("{body}", body.replace(";", "\n    ")))
    ld.write_text(LINK)
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard",
                    "-nostdlib", "-nostartfiles", f"-T{ld}", "-Wl,-e,reset", str(src), "-o", str(elf)],
                   check=True, capture_output=True, text=True)
    subprocess.run(["qemu-system-arm", "-machine", "mps2-an386", "-nographic", "-monitor", "none",
                    "-kernel", str(elf), "-semihosting-config", "enable=on,target=native",
                    "-icount", "shift=0,sleep=off", *cycles.plugin_args(elf, out, symbol="mark")],
                   check=True, capture_output=True, timeout=30)
    marks = cycles.MarkReader(out).new_marks()
    return marks, cycles.read_summary(out)[1]


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_hand_written_sequences_cost_what_the_model_says(name, tmp_path):
    body, insns, want = SNIPPETS[name]
    marks, classes = run_snippet(body, tmp_path)
    assert len(marks) == 2
    assert marks[1].instructions - marks[0].instructions == insns + FRAME_INSNS
    assert marks[1].cycles - marks[0].cycles == want + FRAME_CYCLES
    assert classes["unknown"] == 0


def test_the_plugin_is_built_once_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROFUSE_CACHE", str(tmp_path))
    first = cycles.plugin_path()
    assert first.parent.parent == tmp_path and first.is_file()
    stamp = first.stat().st_mtime_ns
    assert cycles.plugin_path() == first and first.stat().st_mtime_ns == stamp
    assert list(first.parent.glob("*.tmp")) == []


def test_only_the_cortex_m4_boards_get_a_cycle_model():
    assert cycles.cycle_model(load_board("qemu-mps2-an386")) == "cortex-m4"
    for name in ("qemu-mps2-an500", "qemu-mps3-an547", "qemu-mps2-an385", "nucleo-l4r5zi", "host"):
        assert cycles.cycle_model(load_board(name)) is None


def test_plugin_counts_the_instructions_the_timer_counts_and_repeats(tmp_path):
    board = load_board("qemu-mps2-an386")
    compiled = build(model("mlperf_ad_autoencoder_int8"), tmp_path / "lib", Options(name="ad"))
    elf = build_firmware(board, tmp_path / "lib", "ad", tmp_path / "fw")
    sample = make_samples(compiled.graph, 1, seed=3)[2]
    with QemuSession(board, elf, cycles=True) as s:
        runs = []
        for _ in range(2):
            count = s.invoke(sample)[1]
            start, end = s.marks
            runs.append((count, end.instructions - start.instructions, end.cycles - start.cycles))
    (count, exact, estimate), again = runs
    tick = round(1e9 / board.timer.hz)  # the timer's resolution in instructions
    assert abs(exact - count) < tick and again == runs[0]
    assert exact < estimate < 2 * exact


def load_speed():
    spec = importlib.util.spec_from_file_location("speed_cycles", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_profile_classifies_every_instruction_and_splits_cycles_per_call(tmp_path):
    speed, board = load_speed(), load_board("qemu-mps2-an386")
    row = speed.measure("kws", board, "balanced", tmp_path, per_op=True, check=False)
    assert row.classes["unknown"] == 0 and row.classes["ldrd_strd"] > 0
    per_call = sum(op["cycles"] for op in row.per_op)
    assert row.cycles <= per_call <= row.cycles * 1.01  # the trace hook adds a few per call
    assert row.cycle_ratio == round(row.cycles / speed.TFLM_CMSIS_NN_M4_CYCLES["kws"], 3)
    assert row.l4r5_ratio == round(row.cycles / 5_184_000, 3)
    assert row.ratio == round(row.instructions / 7_697_759, 3) and row.stack < 1700  # KWS: 1,592 B


def test_bench_counts_each_call_only_with_per_op():
    tiny = Path(__file__).resolve().parents[2] / "examples" / "tiny_cnn_int8.tflite"
    cli = [sys.executable, "-m", "microfuse", "bench", str(tiny), "--board", "qemu-mps2-an386"]
    total = subprocess.run(cli, capture_output=True, text=True, check=True).stdout
    table = subprocess.run([*cli, "--per-op"], capture_output=True, text=True, check=True).stdout
    assert table.splitlines()[0] == total.splitlines()[0]  # the same totals either way
    assert "per kernel call: add --per-op" in total and "conv_2d" not in total
    assert "cyc/MAC" in table and len(table.splitlines()) > len(total.splitlines()) + 2
    found = json.loads(subprocess.run([*cli, "--per-op", "--json"], capture_output=True, text=True,
                                      check=True).stdout)
    assert found["cycles"] <= sum(op["cycles"] for op in found["per_op"]) <= found["cycles"] * 1.02


def test_profile_sums_the_cycles_per_function():
    """bench/profile.py: the plugin's cycles per block, summed per function of the firmware; the
    kernels show under their build's names and every block falls inside a function."""
    tiny = Path(__file__).resolve().parents[2] / "examples" / "tiny_cnn_int8.tflite"
    script = BENCH.parent / "profile.py"
    out = subprocess.run([sys.executable, str(script), str(tiny), "--top", "100"], capture_output=True,
                         text=True, check=True).stdout
    rows = [line.split() for line in out.splitlines() if line.endswith("%") and not line.startswith("function")]
    names = [r[0] for r in rows]
    assert any(n.startswith("tiny_cnn_int8_mf_conv2d") for n in names), names
    assert "?" not in names and "mf_vectors" not in names
    assert 99.0 <= sum(float(r[2].rstrip("%")) for r in rows) <= 100.5
