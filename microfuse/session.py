"""`microfuse run` and `microfuse bench`: build for a board, then talk to it sample by sample."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from . import ops as opdefs
from .boards import Board, load_board
from .pipeline import Compiled, Options, load
from .errors import MicrofuseError, TargetError
from .progress import progress
from .targets import open_session
from .targets.cycles import MODEL_NOTE, cycle_model
from .targets.footprint import core_of
from .targets.firmware import build_firmware, build_with_firmware as build
from .targets.runner import open_runner
from .verify import make_samples


MAX_INPUT_BYTES = 1 << 30  # an input file bigger than this is not a microcontroller model's


def _regular_file(p: Path, what: str) -> None:
    """Refuse before reading: missing files, folders, FIFOs (they block), devices, huge files."""
    try:
        info = p.stat()
    except OSError as e:
        raise MicrofuseError(f"{what} '{p}': {e.strerror or e}") from None
    if not stat.S_ISREG(info.st_mode):
        raise MicrofuseError(f"{what} '{p}' is not a regular file")
    if info.st_size > MAX_INPUT_BYTES:
        raise MicrofuseError(f"{what} '{p}' is {info.st_size} bytes (more than {MAX_INPUT_BYTES})")


def load_arrays(path: str | Path, graph, reshape: bool = False) -> list[np.ndarray]:
    """Model inputs from .npy (one input) or .npz (arr_0, arr_1, ...), each of the input's exact
    dtype and shape (with `reshape`: its size)."""
    p = Path(path)
    _regular_file(p, "--input")
    try:
        data = np.load(p, allow_pickle=False)
        if isinstance(data, np.ndarray):
            arrays = [data]
        else:
            with data:
                arrays = [data[k] for k in data.files]
    except Exception as e:  # noqa: BLE001 - a corrupt file fails in zipfile, zlib, numpy: all one error
        raise MicrofuseError(f"cannot read inputs from '{p}': {type(e).__name__}: {e}") from None
    if len(arrays) != len(graph.inputs):
        raise MicrofuseError(f"'{p}' holds {len(arrays)} arrays; the model has {len(graph.inputs)} inputs")
    for t, a in zip(graph.inputs, arrays):
        fits = a.size == t.elements if reshape else tuple(a.shape) == tuple(t.shape)
        if not fits or a.dtype != t.dtype.np:
            hint = "" if reshape or a.size != t.elements else " (--reshape accepts another shape of that size)"
            raise MicrofuseError(f"input '{t.name}' needs {t.dtype} {list(t.shape)}, "
                                 f"'{p}' has {a.dtype} {list(a.shape)}{hint}")
    return arrays


def load_sequence(path: str | Path, graph, reshape: bool = False) -> list[list[np.ndarray]]:
    """A stateful model's stream: each input with a leading time axis (T, *shape), or one sample."""
    p = Path(path)
    _regular_file(p, "--input")
    try:
        data = np.load(p, allow_pickle=False)
        arrays = [data] if isinstance(data, np.ndarray) else [data[k] for k in data.files]
    except Exception as e:  # noqa: BLE001 - as load_arrays
        raise MicrofuseError(f"cannot read inputs from '{p}': {type(e).__name__}: {e}") from None
    if len(arrays) != len(graph.inputs):
        raise MicrofuseError(f"'{p}' holds {len(arrays)} arrays; the model has {len(graph.inputs)} inputs")
    seqs = []
    for t, a in zip(graph.inputs, arrays):
        one = a.size == t.elements if reshape else tuple(a.shape) == tuple(t.shape)
        many = a.ndim > 0 and (a[0].size == t.elements if reshape else tuple(a.shape[1:]) == tuple(t.shape))
        if a.dtype != t.dtype.np or not (one or many):
            raise MicrofuseError(f"input '{t.name}' needs {t.dtype} {list(t.shape)} or a sequence of them "
                                 f"[T, {', '.join(map(str, t.shape))}], '{p}' has {a.dtype} {list(a.shape)}")
        seqs.append(a.reshape((1 if one else a.shape[0], *t.shape)))
    if len({len(x) for x in seqs}) != 1:
        raise MicrofuseError(f"'{p}': the inputs' sequences differ in length ({[len(x) for x in seqs]})")
    return [[x[i] for x in seqs] for i in range(len(seqs[0]))]


def check_output(path: str | Path, outputs: int) -> Path:
    """Where `run --output` will write: a .npy (one output) or .npz in an existing folder."""
    p = Path(path)
    if p.suffix not in (".npy", ".npz"):
        raise MicrofuseError(f"--output '{p}' must end in .npy or .npz")
    if p.suffix == ".npy" and outputs != 1:
        raise MicrofuseError(f"the model has {outputs} outputs: save them to a .npz file")
    if not p.parent.is_dir():
        raise MicrofuseError(f"--output '{p}': folder '{p.parent}' does not exist")
    if p.exists() and not p.is_file():
        raise MicrofuseError(f"--output '{p}' exists and is not a regular file")
    if not os.access(p.parent, os.W_OK):
        raise MicrofuseError(f"--output '{p}': folder '{p.parent}' is not writable")
    return p


def save_arrays(path: str | Path, arrays: list[np.ndarray]) -> None:
    """Write the outputs whole or not at all (a temporary file renamed into place)."""
    p = check_output(path, len(arrays))
    tmp = p.with_name(f".{p.name}.partial{p.suffix}")
    try:
        if p.suffix == ".npz":
            np.savez(tmp, *arrays)
        else:
            np.save(tmp, arrays[0])
        os.replace(tmp, p)
    except OSError as e:
        raise MicrofuseError(f"cannot write --output '{p}': {e.strerror or e}") from None
    finally:
        tmp.unlink(missing_ok=True)


def _build_for(model, board: Board, options: Options, tmp: Path) -> tuple[Compiled, Path, Path]:
    lib = tmp / "lib"
    compiled = build(model, lib, replace(options, board=None if board.is_host else board.name))
    return compiled, lib, lib / "firmware" / f"{compiled.name}.elf"


def run_once(model, board_name: str, input_path: str, options: Options = Options(),
             port: str | None = None, output: str | None = None,
             reshape: bool = False) -> tuple[list[np.ndarray], int | None]:
    """Outputs of one inference on the board, and its instruction/cycle count (None on the host).
    The inputs (and the --output path) are checked before anything is built. A stateful model
    takes a sequence (a leading time axis) and runs it as one stream from a fresh state; its
    outputs then have the time axis too, and the count is the last invoke's."""
    board = load_board(board_name)
    graph = load(model)
    stateful = opdefs.stateful(graph)
    samples = load_sequence(input_path, graph, reshape) if stateful else [load_arrays(input_path, graph, reshape)]
    if output is not None:
        check_output(output, len(graph.outputs))
    with tempfile.TemporaryDirectory(prefix="mf-run-") as tmp, progress(f"run on {board.name}:") as tick:
        tick(0, "building")
        compiled, lib, elf = _build_for(model, board, options, Path(tmp))
        tick(0, "running")
        with open_runner(board, lib, compiled.name, compiled.graph, Path(tmp), elf=elf, port=port) as runner:
            results = runner.run(samples)
    outputs = [np.stack([r[i] for r in results]) for i in range(len(graph.outputs))] if stateful else results[0]
    return outputs, (runner.counts[-1] if runner.counts else None)


def bench(model, board_name: str, options: Options = Options(), port: str | None = None,
          per_op: bool = True) -> dict:
    """Instructions (QEMU) or cycles (a real board) per inference, in total and (per_op) per kernel
    call; on a QEMU board with a cycle model also estimated `cycles`, in total and per call."""
    board = load_board(board_name)
    if board.is_host:
        raise TargetError("bench counts instructions on a board: use a qemu-* board (see `microfuse boards`)")
    unit = "instructions" if board.timer and board.timer.counts == "instructions" else "cycles"
    estimate = unit == "instructions" and cycle_model(board) is not None
    with tempfile.TemporaryDirectory(prefix="mf-bench-") as tmp, \
            progress(f"bench on {board.name}", total=4 if per_op else 2) as tick:
        tick(0, "building")
        compiled, lib, elf = _build_for(model, board, options, Path(tmp))
        sample = make_samples(compiled.graph, 1, seed=0)[2]
        tick(1, "two timed runs")
        counts, cycles = [], []
        with open_session(board, elf=elf, port=port, expect_model=compiled.name, cycles=estimate) as session:
            for _ in range(2):
                counts.append(session.invoke(sample)[1])
                if estimate:
                    cycles.append(_span(session.marks))
            stack = session.stack(sample)
        per_call = _per_call(compiled, board, lib, sample, Path(tmp), port, unit, estimate, tick) if per_op else None
        tick(1, "done")
    result = {"board": board.name, "model": compiled.name, unit: counts[0],
              "repeatable": len(set(counts)) == 1 and len(set(cycles)) <= 1,
              "stack_bytes": stack, "core": core_of(board), "cpu": board.cpu}
    if per_call is not None:
        result["per_op"] = per_call
    if estimate:
        result["cycles"], result["cycle_model"] = cycles[0], MODEL_NOTE
    result["text"] = _table(result, unit)
    return result


def _span(marks) -> int:
    """Cycles between the first and the last timer read of one invoke."""
    if len(marks) < 2:
        raise TargetError(f"the cycle plugin saw {len(marks)} timer reads in one invoke, expected 2 or more")
    return marks[-1].cycles - marks[0].cycles


def _per_call(compiled, board, lib, sample, tmp: Path, port, unit: str, estimate: bool, tick) -> list[dict]:
    """Each kernel call's count (and estimated cycles): a second firmware, built with -DMF_TRACE,
    reads the timer after every call."""
    tick(1, "building the per-call timing firmware")
    traced = build_firmware(board, lib, compiled.name, tmp / "traced", extra_cflags=["-DMF_TRACE"])
    tick(1, "per-call run")
    with open_session(board, elf=traced, port=port, expect_model=compiled.name, cycles=estimate) as session:
        session.invoke(sample)
        marks = [board.count_from_ticks(t) for t in session.link.trace()]
        call_cycles = [m.cycles - session.marks[0].cycles for m in session.marks[1:-1]] if estimate else []
    per_call = [{"call": i, "kind": c.label, "source_ops": [op.index for op in c.sources], "macs": c.macs,
                 unit: end - start}
                for i, (c, start, end) in enumerate(zip(compiled.calls, [0, *marks], marks))]
    for row, start, end in zip(per_call, [0, *call_cycles], call_cycles):
        row["cycles"] = end - start
    return per_call


def _table(result: dict, unit: str) -> str:
    total = result[unit]
    est = "cycles" if unit != "cycles" and "cycles" in result else None
    lines = [f"{result['model']} on {result['board']}: {total:,} {unit} per inference"
             + (f", {result['cycles']:,} {result['cycle_model']}" if est else "")
             + ("" if result["repeatable"] else " (NOT repeatable run to run)")]
    stack = f"stack: {result['stack_bytes']:,} B below the caller's stack pointer (painted and scanned on the board)"
    if "per_op" not in result:
        return "\n".join([*lines, stack, "per kernel call: add --per-op"])
    lines.append(f"{'call':>4}  {'kind':28} {'ops':10} {'MACs':>11} {unit:>12} {'share':>6} {'per MAC':>8}"
                 + (f" {'cycles':>12} {'cyc/MAC':>8}" if est else ""))
    for row in result["per_op"]:
        n = row[unit]
        ops = ",".join(map(str, row["source_ops"]))
        line = (f"{row['call']:>4}  {row['kind'][:28]:28} {ops[:10]:10} {row['macs']:>11,} {n:>12,}"
                f" {100 * n / max(total, 1):>5.1f}% {_per_mac(n, row['macs']):>8}")
        if est and "cycles" in row:
            line += f" {row['cycles']:>12,} {_per_mac(row['cycles'], row['macs']):>8}"
        lines.append(line)
    lines.append(stack)
    lines.append("per-call counts come from a build with a timer read after each call (±1 tick each)"
                 + ("; per-call cycles are exact for that build" if est else ""))
    return "\n".join(lines)


def _per_mac(n: int, macs: int) -> str:
    return f"{n / macs:.2f}" if macs else ""
