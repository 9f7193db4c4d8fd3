"""Instructions and estimated cycles per inference of the MLPerf Tiny models under QEMU, beside TFLM + CMSIS-NN.

    PYTHONPATH=. python bench/speed.py [--boards qemu-mps2-an386,qemu-mps2-an500]
        [--models kws,vww,ic,ad] [--optimize balanced] [--per-op] [--check] [--json out.json]

For each model and board: the model is built with microfuse (the --optimize level picks the
kernels; the default is the build's default, balanced), linked into the board's standard firmware (boards/common/harness.c) and invoked once
under QEMU with -icount shift=0; the harness times invoke() with the board timer, so the count is
instructions (40-instruction resolution on the MPS2 boards, identical run to run). Each board's
count is compared with TFLM + CMSIS-NN's on the same emulated core (issue 17's table).
On a board with a cycle model (the Cortex-M4F, qemu-mps2-an386) QEMU also runs the cycle plugin
(microfuse/targets/cycles.py, docs/cycle-model.md): estimated zero-wait-state cycles, compared
with TFLM + CMSIS-NN's estimate under the same model and with the best published MLPerf Tiny
latencies on an STM32L4R5 (Cortex-M4 at 120 MHz, real hardware with flash wait states).
flash = .text + .data of that firmware minus the model's constant arrays (the call<N>_<name>
symbols of NAME.c: weights, biases, multipliers, LUTs — whatever layout the kernels chose), so it
is code + read-only data of the runtime, the kernels' parameter structs, the harness and libc.
--per-op also builds bench/profile_main.c with -DMF_TRACE: a timestamp after every kernel call
(per-op instructions and cycles, with the trace hook's own few instructions included) and a
painted stack (peak stack of invoke(), in bytes below the stack pointer at its call, the way
TFLM + CMSIS-NN's stack figures were measured).
--check compares the outputs with TFLite Micro (microfuse.oracle) on the same input, and on a
second, different input invoked right after it (so arena leftovers cannot pass for outputs).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from microfuse import oracle  # noqa: E402
from microfuse.boards import Board, load_board  # noqa: E402
from microfuse.pipeline import Options, build  # noqa: E402
from microfuse.targets.cycles import cycle_model, plugin_args, read_summary  # noqa: E402
from microfuse.targets.firmware import COMMON_DIR, build_firmware, write_glue  # noqa: E402
from microfuse.targets.qemu import QemuSession  # noqa: E402

MODELS_DIR = ROOT.parent / "shared" / "models"
MODELS = {
    "kws": "mlperf_kws_dscnn_int8.tflite",
    "vww": "mlperf_vww_mobilenetv1_96_int8.tflite",
    "ic": "mlperf_ic_resnet8_int8.tflite",
    "ad": "mlperf_ad_autoencoder_int8.tflite",
}
# TFLM @90b983c2 + CMSIS-NN @4ab83cc3 (-O2), instructions per inference on each emulated core,
# identical outputs (issue 17).
TFLM_CMSIS_NN = {
    "qemu-mps2-an386": {"kws": 7_697_759, "vww": 24_101_518, "ic": 29_863_022, "ad": 582_860},  # M4F
    "qemu-mps2-an500": {"kws": 7_643_535, "vww": 24_025_134, "ic": 30_025_862, "ad": 583_164},  # M7
    "qemu-mps3-an547": {"kws": 1_813_564, "vww": 6_557_924, "ic": 4_910_951, "ad": 149_925},    # M55, Helium
}
# TFLM + CMSIS-NN's estimated Cortex-M4 cycles under the same zero-wait model (issue 17).
TFLM_CMSIS_NN_M4_CYCLES = {"kws": 9_390_000, "vww": 29_860_000, "ic": 37_340_000, "ad": 730_000}
# Best published MLPerf Tiny latencies on an STM32L4R5 (Cortex-M4 at 120 MHz, real hardware with
# flash wait states): STM32Cube.AI for KWS, VWW and IC, Plumerai for AD.
L4R5_MS = {"kws": 43.2, "vww": 88.9, "ic": 165.1, "ad": 4.05}
L4R5_HZ = 120_000_000
# Issue 7's targets on qemu-mps2-an386 (0.7x TFLM + CMSIS-NN) and issue 4's arenas.
TARGET_INSTRUCTIONS = {"kws": 5_390_000, "vww": 16_870_000, "ic": 20_900_000, "ad": 408_000}
TARGET_ARENA = {"kws": 9_000, "vww": 40_000, "ic": 34_000, "ad": 768}
TARGET_BOARD = "qemu-mps2-an386"
TFLM_KWS_FLASH = 54_260  # bytes of code + read-only data of TFLM + CMSIS-NN's KWS firmware on M4F
# TFLM + CMSIS-NN's peak stack on M4F, bytes below the caller's stack pointer (issue 17).
TFLM_STACK = {"kws": 844, "vww": 844, "ic": 844, "ad": 556}
CONST_SYMBOL = re.compile(r"^call\d+_(?!params$)\w+$")


@dataclass
class Row:
    model: str
    board: str
    optimize: str
    instructions: int
    ratio: float | None  # instructions / TFLM+CMSIS-NN's on the same core (None: no figure)
    flash: int  # code + rodata + data, model constants excluded
    weights: int  # bytes of the model constants (call<N>_<name> arrays)
    arena: int
    exact: bool | None = None
    stack: int | None = None
    per_op: list[dict] = field(default_factory=list)
    cycles: int | None = None  # estimated zero-wait cycles (boards with a cycle model)
    cycle_ratio: float | None = None  # cycles / TFLM+CMSIS-NN's estimate under the same model
    l4r5_ratio: float | None = None  # cycles / the best published L4R5 latency x 120 MHz
    classes: dict[str, int] = field(default_factory=dict)  # executed instructions per class


def symbol_sizes(elf: Path) -> dict[str, int]:
    out = subprocess.run(["arm-none-eabi-nm", "-S", "--size-sort", str(elf)], capture_output=True,
                         text=True, check=True).stdout
    sizes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            sizes[parts[3]] = int(parts[1], 16)
    return sizes


def flash_split(elf: Path) -> tuple[int, int]:
    """(flash without the model constants, the model constants' bytes)."""
    out = subprocess.run(["arm-none-eabi-size", "-B", str(elf)], capture_output=True, text=True,
                         check=True).stdout.splitlines()[1].split()
    text, data = int(out[0]), int(out[1])
    consts = sum(s for name, s in symbol_sizes(elf).items() if CONST_SYMBOL.match(name))
    return text + data - consts, consts


def model_input(graph, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(-128, 128, size=t.shape).astype(t.dtype.np) for t in graph.inputs]


def profile(board: Board, lib: Path, name: str, work: Path, calls) -> tuple[list[dict], int, dict]:
    """Per-call instructions (and cycles), peak stack and instruction mix from bench/profile_main.c."""
    glue = write_glue(lib, name, work)
    elf = work / f"{name}_profile.elf"
    cmd = [board.compiler, *board.cflags, "-DMF_TRACE", "-ffunction-sections", "-fdata-sections",
           f"-I{lib}", f"-I{COMMON_DIR}", *map(str, sorted(lib.glob("*.c"))), str(glue),
           str(ROOT / "bench" / "profile_main.c"), str(COMMON_DIR / "semihost.c"), str(board.startup),
           str(board.timer.source), f"-T{board.linker_script}", f"-L{COMMON_DIR}",
           f"-Wl,--defsym=MF_STACK_SIZE={board.stack_bytes}", "-nostartfiles", "-Wl,--gc-sections",
           *board.ldflags, "-o", str(elf)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    marks_file = work / f"{name}_profile_cycles.txt"
    plugin = plugin_args(elf, marks_file) if cycle_model(board) else []
    qemu = ["qemu-system-arm", "-machine", board.qemu.machine, "-nographic", "-monitor", "none",
            "-kernel", str(elf), "-semihosting-config", "enable=on,target=native",
            "-icount", "shift=0,sleep=off", *board.qemu.args, *plugin]
    done = subprocess.run(qemu, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"profile firmware failed ({done.returncode}): {done.stdout[-500:]}")
    ticks, stack = {}, 0
    for line in (done.stdout + done.stderr).splitlines():
        parts = line.split()
        if parts[:1] == ["call"]:
            ticks[int(parts[1])] = int(parts[2])
        elif parts[:1] == ["stack"]:
            stack = int(parts[1])
    per_op = [dict(call=i, label=c.label, kernel=c.kernel, macs=c.macs,
                   instructions=board.count_from_ticks(ticks.get(i, 0))) for i, c in enumerate(calls)]
    classes = {}
    if plugin:
        marks = [ln.split() for ln in marks_file.read_text().splitlines() if ln.startswith("mark ")]
        cycles = [int(m[2]) for m in marks]  # the timer reads: before invoke, then after each call
        for op, start, end in zip(per_op, cycles, cycles[1:]):
            op["cycles"] = end - start
        classes = read_summary(marks_file)[1]
    return per_op, stack, classes


def measure(model: str, board: Board, optimize: str, work: Path, per_op: bool, check: bool) -> Row:
    path = MODELS_DIR / MODELS[model]
    lib = work / f"{model}_{board.name}_lib"
    compiled = build(path, lib, Options(name=model, optimize=optimize, board=board.name))  # its core's layouts
    elf = build_firmware(board, lib, model, work / f"{model}_{board.name}_fw")
    inputs = model_input(compiled.graph)
    second = model_input(compiled.graph, seed=1)
    with QemuSession(board, elf, cycles=cycle_model(board) is not None) as s:
        outs, count = s.invoke(inputs)
        cycles = s.marks[-1].cycles - s.marks[0].cycles if s.marks else None
        # A second, different input: a kernel that skips outputs shows the first one's leftovers
        outs2 = s.invoke(second)[0] if check else None
    flash, consts = flash_split(elf)
    row = Row(model, board.name, optimize, count, None, flash, consts, compiled.plan.arena_bytes)
    set_ratios(row, cycles)
    if check:
        row.exact = all(
            bytes(o) == np.ascontiguousarray(w).astype(t.dtype.np).tobytes()
            for x, got in ((inputs, outs), (second, outs2))
            for o, w, t in zip(got, oracle.run(path.read_bytes(), x), compiled.graph.outputs))
    if per_op:
        row.per_op, row.stack, row.classes = profile(board, lib, model, work, compiled.calls)
    return row


def set_ratios(row: Row, cycles: int | None) -> None:
    """Each board against its own core's TFLM + CMSIS-NN count; estimated cycles (M4F) against
    TFLM + CMSIS-NN's estimate and the L4R5's real-hardware latency."""
    row.ratio = _ratio(row.instructions, TFLM_CMSIS_NN.get(row.board, {}).get(row.model))
    row.cycles = cycles
    if cycles is not None:
        row.cycle_ratio = _ratio(cycles, TFLM_CMSIS_NN_M4_CYCLES[row.model])
        row.l4r5_ratio = _ratio(cycles, L4R5_MS[row.model] * L4R5_HZ / 1000)


def _ratio(ours: float, theirs: float | None) -> float | None:
    return None if theirs is None else round(ours / theirs, 3)


def targets_met(r: Row) -> str:
    """Issue 7's instruction target and issue 4's arena, on the board they are defined for."""
    if r.board != TARGET_BOARD:
        return "-"
    ok = r.instructions <= TARGET_INSTRUCTIONS[r.model] and r.arena <= TARGET_ARENA[r.model]
    return "yes" if ok else "NO"


def _x(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.3f}x"


def table(rows: list[Row]) -> str:
    head = ("| model | board | optimize | instructions | vs TFLM+CMSIS-NN, same core | est. M4 cycles "
            "| vs TFLM+CMSIS-NN est. | vs L4R5 real hw | flash (excl. weights) | weights | arena | stack "
            "| bit-exact | targets |\n"
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    lines = [head]
    for r in rows:
        cycles = "-" if r.cycles is None else f"{r.cycles:,}"
        lines.append(f"| {r.model} | {r.board} | {r.optimize} | {r.instructions:,} | {_x(r.ratio)} "
                     f"| {cycles} | {_x(r.cycle_ratio)} | {_x(r.l4r5_ratio)} "
                     f"| {r.flash:,} | {r.weights:,} | {r.arena:,} | {r.stack if r.stack is not None else '-'} "
                     f"| {'-' if r.exact is None else ('yes' if r.exact else 'NO')} | {targets_met(r)} |")
    return "\n".join(lines)


def references(rows: list[Row]) -> str:
    """What the ratio columns divide by, stated once."""
    lines = ["\nvs TFLM+CMSIS-NN, same core: instructions of TFLM + CMSIS-NN on the same emulated board "
             "(issue 17). est. M4 cycles: our zero-wait-state Cortex-M4 estimate (docs/cycle-model.md); "
             "vs TFLM+CMSIS-NN est.: its estimate under the same model; vs L4R5 real hw: the best "
             "published MLPerf Tiny latency on an STM32L4R5 (Cortex-M4, 120 MHz, flash wait states) "
             "in cycles, a real-hardware figure against our zero-wait estimate.",
             "| model | TFLM+CMSIS-NN est. M4 cycles | L4R5 latency | L4R5 cycles at 120 MHz "
             "| ours at 120 MHz, zero wait | TFLM+CMSIS-NN stack (B) |", "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r.cycles is None:
            continue
        lines.append(f"| {r.model} | {TFLM_CMSIS_NN_M4_CYCLES[r.model]:,} | {L4R5_MS[r.model]} ms "
                     f"| {round(L4R5_MS[r.model] * L4R5_HZ / 1000):,} | {r.cycles / L4R5_HZ * 1000:.1f} ms "
                     f"| {TFLM_STACK[r.model]} |")
    return "\n".join(lines) if len(lines) > 3 else ""


def op_table(row: Row) -> str:
    with_cycles = any("cycles" in op for op in row.per_op)
    lines = [f"\n{row.model} on {row.board}: per kernel call",
             "| call | op | kernel | MACs | instructions | per MAC |" + (" est. cycles | per MAC |" if with_cycles else ""),
             "|---:|---|---|---:|---:|---:|" + ("---:|---:|" if with_cycles else "")]
    for op in row.per_op:
        per = f"{op['instructions'] / op['macs']:.2f}" if op["macs"] else "-"
        line = (f"| {op['call']} | {op['label']} | {op['kernel']} | {op['macs']:,} "
                f"| {op['instructions']:,} | {per} |")
        if with_cycles:
            per = f"{op.get('cycles', 0) / op['macs']:.2f}" if op["macs"] else "-"
            line += f" {op.get('cycles', 0):,} | {per} |"
        lines.append(line)
    if row.classes:
        mix = ", ".join(f"{k} {v:,}" for k, v in row.classes.items() if v)
        lines.append(f"\nexecuted instructions by cycle class (whole profiling run): {mix}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="qemu-mps2-an386,qemu-mps2-an500")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--optimize", default="balanced", choices=("size", "speed", "balanced"))
    ap.add_argument("--per-op", action="store_true", help="per-call instructions and cycles, peak stack")
    ap.add_argument("--check", action="store_true", help="compare outputs with TFLite Micro")
    ap.add_argument("--json", help="also write the rows as JSON to this file")
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mf-speed-") as tmp:
        for board_name in args.boards.split(","):
            board = load_board(board_name)
            for model in args.models.split(","):
                rows.append(measure(model, board, args.optimize, Path(tmp), args.per_op, args.check))
                print(table(rows[-1:]).splitlines()[-1], flush=True, file=sys.stderr)
    print(table(rows))
    print(references(rows))
    for r in rows:
        if r.per_op:
            print(op_table(r))
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
