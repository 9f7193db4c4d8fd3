"""Instructions per inference of the MLPerf Tiny models under QEMU, beside TFLM + CMSIS-NN.

    PYTHONPATH=. python bench/speed.py [--boards qemu-mps2-an386,qemu-mps2-an500]
        [--models kws,vww,ic,ad] [--optimize balanced] [--per-op] [--check] [--json out.json]

For each model and board: the model is built with microfuse (the --optimize level picks the
kernels; the default is the build's default, balanced), linked into the board's standard firmware (boards/common/harness.c) and invoked once
under QEMU with -icount shift=0; the harness times invoke() with the board timer, so the count is
instructions (40-instruction resolution on the MPS2 boards, identical run to run).
flash = .text + .data of that firmware minus the model's constant arrays (the call<N>_<name>
symbols of NAME.c: weights, biases, multipliers, LUTs — whatever layout the kernels chose), so it
is code + read-only data of the runtime, the kernels' parameter structs, the harness and libc.
--per-op also builds bench/profile_main.c with -DMF_TRACE: a timestamp after every kernel call
(per-op instructions, with the trace hook's own few instructions included) and a painted stack
(peak stack of invoke(), in bytes, measured below the profiler's frame).
--check compares the outputs with TFLite Micro (microfuse.oracle) on the same input.
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
from microfuse.build import Options, build  # noqa: E402
from microfuse.targets.firmware import COMMON_DIR, build_firmware, write_glue  # noqa: E402
from microfuse.targets.qemu import QemuSession  # noqa: E402

MODELS_DIR = ROOT.parent / "shared" / "models"
MODELS = {
    "kws": "mlperf_kws_dscnn_int8.tflite",
    "vww": "mlperf_vww_mobilenetv1_96_int8.tflite",
    "ic": "mlperf_ic_resnet8_int8.tflite",
    "ad": "mlperf_ad_autoencoder_int8.tflite",
}
# TFLM + CMSIS-NN on qemu-mps2-an386 (Cortex-M4F, -O2), instructions per inference (issue 7).
TFLM_CMSIS_NN = {"kws": 7_697_743, "vww": 24_101_542, "ic": 29_861_474, "ad": 582_884}
# Issue 7's targets on qemu-mps2-an386 (0.7x TFLM + CMSIS-NN) and issue 4's arenas.
TARGET_INSTRUCTIONS = {"kws": 5_390_000, "vww": 16_870_000, "ic": 20_900_000, "ad": 408_000}
TARGET_ARENA = {"kws": 9_000, "vww": 40_000, "ic": 34_000, "ad": 768}
TARGET_BOARD = "qemu-mps2-an386"
TFLM_KWS_FLASH = 54_260  # bytes of code + read-only data of TFLM + CMSIS-NN's KWS firmware on M4F
TFLM_STACK = 956
CONST_SYMBOL = re.compile(r"^call\d+_(?!params$)\w+$")


@dataclass
class Row:
    model: str
    board: str
    optimize: str
    instructions: int
    ratio: float | None  # instructions / TFLM+CMSIS-NN's (an386 figures)
    flash: int  # code + rodata + data, model constants excluded
    weights: int  # bytes of the model constants (call<N>_<name> arrays)
    arena: int
    exact: bool | None = None
    stack: int | None = None
    per_op: list[dict] = field(default_factory=list)


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


def model_input(graph) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.integers(-128, 128, size=t.shape).astype(t.dtype.np) for t in graph.inputs]


def profile(board: Board, lib: Path, name: str, work: Path, calls) -> tuple[list[dict], int]:
    """Per-call instructions and peak stack from bench/profile_main.c under QEMU."""
    glue = write_glue(lib, name, work)
    elf = work / f"{name}_profile.elf"
    cmd = [board.compiler, *board.cflags, "-DMF_TRACE", "-ffunction-sections", "-fdata-sections",
           f"-I{lib}", f"-I{COMMON_DIR}", *map(str, sorted(lib.glob("*.c"))), str(glue),
           str(ROOT / "bench" / "profile_main.c"), str(COMMON_DIR / "semihost.c"), str(board.startup),
           str(board.timer.source), f"-T{board.linker_script}", f"-L{COMMON_DIR}",
           f"-Wl,--defsym=MF_STACK_SIZE={board.stack_bytes}", "-nostartfiles", "-Wl,--gc-sections",
           *board.ldflags, "-o", str(elf)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    qemu = ["qemu-system-arm", "-machine", board.qemu.machine, "-nographic", "-monitor", "none",
            "-kernel", str(elf), "-semihosting-config", "enable=on,target=native",
            "-icount", "shift=0,sleep=off", *board.qemu.args]
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
    return per_op, stack


def measure(model: str, board: Board, optimize: str, work: Path, per_op: bool, check: bool) -> Row:
    path = MODELS_DIR / MODELS[model]
    lib = work / f"{model}_{board.name}_lib"
    compiled = build(path, lib, Options(name=model, optimize=optimize))
    elf = build_firmware(board, lib, model, work / f"{model}_{board.name}_fw")
    inputs = model_input(compiled.graph)
    with QemuSession(board, elf) as s:
        outs, count = s.invoke(inputs)
    flash, consts = flash_split(elf)
    ratio = count / TFLM_CMSIS_NN[model]
    row = Row(model, board.name, optimize, count, round(ratio, 3), flash, consts,
              compiled.plan.arena_bytes)
    if check:
        want = oracle.run(path.read_bytes(), inputs)
        row.exact = all(bytes(o) == np.ascontiguousarray(w).astype(t.dtype.np).tobytes()
                        for o, w, t in zip(outs, want, compiled.graph.outputs))
    if per_op:
        row.per_op, row.stack = profile(board, lib, model, work, compiled.calls)
    return row


def targets_met(r: Row) -> str:
    """Issue 7's instruction target and issue 4's arena, on the board they are defined for."""
    if r.board != TARGET_BOARD:
        return "-"
    ok = r.instructions <= TARGET_INSTRUCTIONS[r.model] and r.arena <= TARGET_ARENA[r.model]
    return "yes" if ok else "NO"


def table(rows: list[Row]) -> str:
    head = ("| model | board | optimize | instructions | vs TFLM+CMSIS-NN | flash (excl. weights) "
            "| weights | arena | stack | bit-exact | targets |\n"
            "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    lines = [head]
    for r in rows:
        lines.append(f"| {r.model} | {r.board} | {r.optimize} | {r.instructions:,} | {r.ratio:.3f}x "
                     f"| {r.flash:,} | {r.weights:,} | {r.arena:,} | {r.stack if r.stack is not None else '-'} "
                     f"| {'-' if r.exact is None else ('yes' if r.exact else 'NO')} | {targets_met(r)} |")
    return "\n".join(lines)


def op_table(row: Row) -> str:
    lines = [f"\n{row.model} on {row.board}: per kernel call",
             "| call | op | kernel | MACs | instructions | per MAC |", "|---:|---|---|---:|---:|---:|"]
    for op in row.per_op:
        per = f"{op['instructions'] / op['macs']:.2f}" if op["macs"] else "-"
        lines.append(f"| {op['call']} | {op['label']} | {op['kernel']} | {op['macs']:,} "
                     f"| {op['instructions']:,} | {per} |")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="qemu-mps2-an386,qemu-mps2-an500")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--optimize", default="balanced", choices=("size", "speed", "balanced"))
    ap.add_argument("--per-op", action="store_true", help="per-call instructions and peak stack")
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
    for r in rows:
        if r.per_op:
            print(op_table(r))
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
