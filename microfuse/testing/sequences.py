"""Sequences of invokes with state carried between them: TFLM's interpreter (variable tensors
kept, as in a stream) and kernel calls as a host C program whose state buffers persist."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import oracle
from ..ir import DType
from ..lower import Call
from . import programs


def tflm(model: bytes, steps: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """TFLM's outputs of each invoke of one fresh interpreter (variable tensors start at zero)."""
    interp = oracle._interpreter(model, oracle.ARENA, False)
    n_in, n_out = len(steps[0]), oracle._io_counts(model)[1]
    outs = []
    for inputs in steps:
        oracle._set_inputs(interp, inputs, n_in)
        oracle._invoke(interp)
        outs.append([np.array(interp.get_output(i)) for i in range(n_out)])
    return outs


def initial(t) -> int:
    """A variable tensor's value before the first invoke, as TFLM resets it: an int8 tensor holds
    its zero point (real 0), every other type zero bytes."""
    return int(t.quant.zero_point[0]) if t.dtype == DType.INT8 and t.quant is not None else 0


def _buffer(name: str, t) -> str:
    return f"static {t.dtype.c} {name}[{max(1, t.elements)}];"


def sequence_program(calls: list[Call], invokes: int) -> str:
    """A C file: per call its params, buffers and state (static: zero at start, kept between
    invokes); main() runs each call `invokes` times, reading its inputs from stdin before each
    invoke and writing its outputs that are not state to stdout after it."""
    lines = ["#include <stdio.h>", '#include "mf_kernels.h"', ""]
    body: list[str] = []
    for i, call in enumerate(calls):
        lines += programs.params(f"c{i}", call)
        ins = [f"c{i}_in{j}" for j in range(len(call.inputs))]
        outs = [f"c{i}_out{j}" for j in range(len(call.outputs))]
        lines += [_buffer(b, t) for b, t in zip(ins, call.inputs)] + [_buffer(b, t) for b, t in zip(outs, call.outputs)]
        args = ins + outs
        if call.scratch:
            lines.append(f"static int32_t c{i}_scratch[{(call.scratch + 3) // 4}];")
            args.append(f"c{i}_scratch")
        body += [f"    for (k = 0; k < {t.elements}; ++k) {b}[k] = {initial(t)};"
                 for b, t in zip(outs, call.outputs) if t.variable and initial(t)]
        body.append(f"    for (k = 0; k < {invokes}; ++k) {{")
        body += [f"        if (fread({b}, 1, sizeof {b}, stdin) != sizeof {b}) return 1;" for b in ins]
        body.append(f"        {call.kernel}(&c{i}_params, {', '.join(args)});")
        body += [f"        fwrite({b}, 1, sizeof {b}, stdout);"
                 for b, t in zip(outs, call.outputs) if not t.variable]
        body.append("    }")
    lines += ["", "int main(void)", "{", "    int k;", *body, "    return 0;", "}", ""]
    return "\n".join(lines)


def run_calls(calls: list[Call], steps: list[list[list[np.ndarray]]], work: Path) -> list[list[list[np.ndarray]]]:
    """Per call, per invoke, its outputs that are not state; steps[i][k] are call i's inputs at invoke k."""
    invokes = len(steps[0])
    assert all(len(s) == invokes for s in steps)
    feed = b"".join(np.ascontiguousarray(x).tobytes() for per_call in steps for xs in per_call for x in xs)
    out = programs.run(sequence_program(calls, invokes), programs.files(calls), work, stdin=feed, binary=True)
    results, pos = [], 0
    for call in calls:
        per_call = []
        for _ in range(invokes):
            got = []
            for t in (t for t in call.outputs if not t.variable):
                got.append(np.frombuffer(out[pos:pos + t.nbytes], t.dtype.np).reshape(t.shape))
                pos += t.nbytes
            per_call.append(got)
        results.append(per_call)
    assert pos == len(out), f"the program wrote {len(out)} bytes, expected {pos}"
    return results
