"""Kernel calls as C test programs, built and run on the host (gcc, sanitizers) or under QEMU."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from ..emit.c import C_TYPES, c_array_body, c_value
from ..lower import Call, ConstArray

RUNTIME = Path(__file__).resolve().parents[2] / "runtime_c"
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
TIMEOUT = 300


def params(prefix: str, call: Call) -> list[str]:
    """C definitions of the call's constant arrays and its params struct `<prefix>_params`."""
    lines, fields = [], []
    for key, value in call.params.items():
        if isinstance(value, ConstArray):
            data = np.asarray(value.data)
            name = f"{prefix}_{value.name}"
            lines.append(f"static const {C_TYPES[data.dtype]} {name}[{max(1, data.size)}] = {{\n"
                         f"{c_array_body(data)}\n}};")
            fields.append(f"    .{key} = {name},")
        else:
            fields.append(f"    .{key} = {c_value(value)},")
    lines.append(f"static const {call.params_type} {prefix}_params = {{\n" + "\n".join(fields) + "\n};")
    return lines


def io_program(calls: list[Call]) -> str:
    """A C file: per call its params, input and output buffers; main() reads every input from
    stdin, runs the calls in order and writes every output to stdout."""
    lines = ["#include <stdio.h>", '#include "mf_kernels.h"', ""]
    reads: list[str] = []
    body: list[str] = []
    for i, call in enumerate(calls):
        lines += params(f"c{i}", call)
        args, writes = [], []
        for kind, tensors in (("in", call.inputs), ("out", call.outputs)):
            for j, t in enumerate(tensors):
                buf = f"c{i}_{kind}{j}"
                lines.append(f"static {t.dtype.c} {buf}[{t.elements}];")
                args.append(buf)
                io, stream = ("fread", "stdin") if kind == "in" else ("fwrite", "stdout")
                text = f"    if ({io}({buf}, 1, sizeof {buf}, {stream}) != sizeof {buf}) return 1;"
                (reads if kind == "in" else writes).append(text)
        body += [f"    {call.kernel}(&c{i}_params, {', '.join(args)});", *writes]
    lines += ["", "int main(void)", "{", *reads, *body, "    return 0;", "}", ""]
    return "\n".join(lines)


def run_calls(calls: list[Call], inputs: list[list[np.ndarray]], work: Path) -> list[np.ndarray]:
    """Each call's (first) output for its inputs: all calls in one host program (sanitizers on)."""
    feed = b"".join(np.ascontiguousarray(x).tobytes() for xs in inputs for x in xs)
    out = run(io_program(calls), files(calls), work, stdin=feed, binary=True)
    outs, pos = [], 0
    for call in calls:
        t = call.outputs[0]
        outs.append(np.frombuffer(out[pos:pos + t.nbytes], t.dtype.np).reshape(t.shape))
        pos += t.nbytes
    assert pos == len(out), f"the kernel program wrote {len(out)} bytes, expected {pos}"
    return outs


def files(calls: list[Call]) -> list[str]:
    """The runtime_c/src files the calls need."""
    return sorted({f for call in calls for f in call.files})


def run(source: str, sources: list[str], work: Path, board: str = "host", stdin: bytes = b"",
        binary: bool = False, defines: dict[str, int] | None = None):
    """Build `source` with the runtime files `sources` and run it: on the host (gcc -O1,
    sanitizers, C99 warnings as errors; stdin fed, stdout returned) or on a QEMU `board`
    (semihosting output returned, its core's macros defined as a build's mf_config.h does).
    `defines`: more macros (-D)."""
    work.mkdir(parents=True, exist_ok=True)
    src = work / "program.c"
    src.write_text(source)
    paths = [str(src), *(str(RUNTIME / "src" / f) for f in sources)]
    if board == "host":
        exe = work / "program"
        _ok(subprocess.run(["gcc", *STRICT, *SANITIZE, "-O1", *_flags(defines), "-I", str(RUNTIME / "include"),
                            *paths, "-o", str(exe), "-lm"], capture_output=True, text=True), "gcc")
        done = subprocess.run([str(exe)], input=stdin, capture_output=True, timeout=TIMEOUT)
        assert done.returncode == 0, f"the test program failed ({done.returncode}): " \
                                     f"{done.stderr.decode(errors='replace')[-2000:]}"
        return done.stdout if binary else done.stdout.decode()
    return _run_qemu(paths, work, board, defines or {})


def _flags(defines: dict[str, int] | None) -> list[str]:
    return [f"-D{k}={v}" for k, v in sorted((defines or {}).items())]


def _ok(done: subprocess.CompletedProcess, what: str) -> None:
    assert done.returncode == 0, f"{what} failed on the test program:\n{done.stderr[-3000:]}"


def _run_qemu(paths: list[str], work: Path, board_name: str, defines: dict[str, int]) -> str:
    """Link the program into the board's bare-metal start-up and run it under QEMU."""
    from ..boards import load_board
    from ..lower import tuning
    from ..targets.firmware import COMMON_DIR

    board = load_board(board_name)
    flags = [*board.cflags, *_flags({**tuning.core_defines(board.cpu), **defines}), "-ffunction-sections",
             "-fdata-sections", "-I", str(RUNTIME / "include"), f"-I{COMMON_DIR}"]
    objects = []
    for k, c_file in enumerate(paths):  # the program and the kernels: C99, warnings as errors
        obj = work / f"o{k}.o"
        _ok(subprocess.run([board.compiler, *flags, *STRICT, "-c", c_file, "-o", str(obj)],
                           capture_output=True, text=True), board.compiler)
        objects.append(str(obj))
    elf = work / "program.elf"
    _ok(subprocess.run([board.compiler, *flags, *objects, str(COMMON_DIR / "semihost.c"), str(board.startup),
                        f"-T{board.linker_script}", f"-L{COMMON_DIR}",
                        f"-Wl,--defsym=MF_STACK_SIZE={board.stack_bytes}", "-nostartfiles", "-Wl,--gc-sections",
                        *board.ldflags, "-o", str(elf)], capture_output=True, text=True), "the link")
    qemu = ["qemu-system-arm", "-machine", board.qemu.machine, "-nographic", "-monitor", "none",
            "-kernel", str(elf), "-semihosting-config", "enable=on,target=native", *board.qemu.args]
    done = subprocess.run(qemu, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:])
    return done.stdout + done.stderr
