"""Fast-kernel placements: every lowered call runs inside one byte arena, its output placed over
one of its inputs at the tightest shift the memory planner's access-order contract allows
(plan/inplace.py: forward runs, and backward runs with `reverse` = 1), and is checked against
TFLite Micro's output inside the program. One C program holds many cases; the harness runs it on
the host (gcc, sanitizers: the portable C path) or under QEMU (the DSP and Helium paths)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from microfuse.emit.c import c_array_body
from microfuse.lower import SPECS, Call
from microfuse.plan.inplace import INF, rules
from microfuse.testing import programs


@dataclass
class Scenario:
    """One kernel call with its tensors at given arena offsets."""

    label: str
    call: Call
    data: list[np.ndarray]  # per call input
    offsets: list[int]  # per call input
    out_offset: int
    want: np.ndarray  # the output, as TFLM computes it

    @property
    def arena(self) -> int:
        ends = [o + d.nbytes for o, d in zip(self.offsets, self.data)]
        return max(ends + [self.out_offset + self.want.nbytes])


def tflm_case(graph, seed: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """One sampled input (seeded) per graph input and TFLM's int8 outputs for it, by tensor name."""
    from microfuse.testing import inputs
    from tests.harness import reference

    feed = inputs.sample(graph.inputs, np.random.default_rng(seed))
    (tflm,) = reference(graph, [feed])
    return ({t.name: x for t, x in zip(graph.inputs, feed)},
            {t.name: np.asarray(o).astype(np.int8) for t, o in zip(graph.outputs, tflm)})


def picked(calls: list[Call], data: dict[str, np.ndarray], want: dict[str, np.ndarray], pick) -> list[Scenario]:
    """The scenarios of every call `pick` selects, each labelled with its kernel and op."""
    return [run for call in calls if pick(call)
            for run in scenarios(call, [data[t.name] for t in call.inputs], want[call.outputs[0].name],
                                 f"{call.kernel} {call.sources[0].name}")]


def _up(x: int, align: int = 16) -> int:
    return -(-x // align) * align


def _with_reverse(call: Call, value: int) -> Call:
    return replace(call, params={**call.params, call.reverse_key: value})


def scenarios(call: Call, data: list[np.ndarray], want: np.ndarray, label: str) -> list[Scenario]:
    """The call with separate buffers, then with its output over each input it may overlap, at the
    tightest forward shift (reverse 0) and two looser ones, and for a reversible kernel the same
    backward (reverse 1)."""
    sizes = [d.nbytes for d in data]
    separate = np.cumsum([0] + [_up(s) for s in sizes]).tolist()
    found = [Scenario(f"{label} separate", call, data, separate[:-1], separate[-1], want)]
    slot_to_arg = {0: 0}
    op = call.sources[0]
    for k, t in enumerate(op.inputs[3:] if "POOL" not in op.kind else op.inputs[1:]):
        if t is not None and not t.is_const:
            slot_to_arg[k + (3 if "POOL" not in op.kind else 1)] = len(slot_to_arg)
    for rule in rules(op):
        arg = slot_to_arg[rule.slot]
        for direction, bound, sign in (("forward", rule.forward, -1), ("backward", rule.backward, 1)):
            if abs(bound) >= INF // 2 or (direction == "backward" and not call.reversible):
                continue
            # the tightest shift, and two looser ones (where the order of the stores matters)
            for shift in (bound, bound + sign, bound + 7 * sign):
                found.append(_placed(call, data, want, sizes, arg, shift, direction, label))
    return found


FAST = ("mf_conv2d_s8_gemm", "mf_dwconv2d_s8_dsp", "mf_fc_s8_dsp")
FILL = 0x5A  # the arena's fill byte before each call (program(): memset)


def strided(call: Call, data: list[np.ndarray], want: np.ndarray, label: str, extra: int = 3) -> Scenario:
    """The call writing its output pixels (rows) `extra` elements apart beyond their channels, one
    byte off a word boundary, as a producer writes its channel slice of an eliminated
    concatenation (`out_stride`); the gaps must keep the arena's fill byte."""
    channels = call.outputs[0].shape[-1]
    key = "k.out_stride" if any(k.startswith("k.") for k in call.params) else "out_stride"
    base = next(b for b in FAST if call.kernel == b or call.kernel.startswith(b + "_"))
    # the `_strided` entry point of the same kernel (lower/fast.py strided picks it for a slice)
    run = replace(call, spec=SPECS[base + "_strided" + call.kernel[len(base):]],
                  params={**call.params, key: channels + extra})
    if call.reverse_key is not None:
        run = _with_reverse(run, 0)
    pixels = want.size // channels
    out = np.full((pixels, channels + extra), FILL, np.uint8).view(np.int8)
    out[:, :channels] = want.reshape(pixels, channels)
    sizes = [d.nbytes for d in data]
    offsets = np.cumsum([0] + [_up(s) for s in sizes]).tolist()
    return Scenario(f"{label} out_stride {channels + extra}", run, data, offsets[:-1], offsets[-1] + 1,
                    out[:, :channels + extra].reshape(-1)[:(pixels - 1) * (channels + extra) + channels])


def _placed(call: Call, data: list[np.ndarray], want: np.ndarray, sizes: list[int], arg: int,
            shift: int, direction: str, label: str) -> Scenario:
    """The call with its output at `shift` bytes from input `arg`, the other inputs apart."""
    base = _up(max(0, -shift))  # the overlapped input, 16-aligned
    offsets, at = [], _up(max(base + sizes[arg], base + shift + want.nbytes))
    for j, size in enumerate(sizes):
        if j == arg:
            offsets.append(base)
        else:
            offsets.append(at)
            at = _up(at + size)
    run = call if call.reverse_key is None else _with_reverse(call, int(direction == "backward"))
    return Scenario(f"{label} {direction} over input {arg} (shift {shift})", run, data, offsets,
                    base + shift, want)


# say(text): a test program's output, by semihosting under QEMU (no libc I/O there), else stdout
SAY = ["#if defined(__arm__)",
       "static void say(const char *s)",
       "{",
       '    register unsigned r0 __asm__("r0") = 0x04u;',
       '    register const char *r1 __asm__("r1") = s;',
       '    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");',
       "}",
       "void mf_on_fault(void);",
       'void mf_on_fault(void) { say("fault\\n"); for (;;) { } }',
       "#else",
       "#include <stdio.h>",
       "static void say(const char *s) { fputs(s, stdout); }",
       "#endif", ""]


def program(runs: list[Scenario]) -> str:
    """A C file: for each scenario, copy its inputs into the arena, run the kernel, and report
    how many output bytes differ from TFLM's and the first of them."""
    size = max(s.arena for s in runs)
    lines = ['#include <string.h>', '#include "mf_kernels.h"', "", *SAY,
             "static int put(char *line, int n, int value)",
             "{",
             "    char d[12];",
             "    int k = 0;",
             "    unsigned v = (unsigned)(value < 0 ? -value : value);",
             "    if (value < 0) { line[n++] = '-'; }",
             "    do { d[k++] = (char)('0' + v % 10u); v /= 10u; } while (v);",
             "    while (k) { line[n++] = d[--k]; }",
             "    return n;",
             "}", "",
             "/* \"case <i> <bytes that differ> <index of the first> <our byte there>\" */",
             "static void report(int i, const int8_t *got, const int8_t *want, int size)",
             "{",
             "    char line[64];",
             "    int j, n = 0, bad = 0, first = 0;",
             '    const char *head = "case ";',
             "    for (j = size - 1; j >= 0; j--) {",
             "        if (got[j] != want[j]) { bad++; first = j; }",
             "    }",
             "    while (*head) { line[n++] = *head++; }",
             "    n = put(line, n, i);",
             "    line[n++] = ' ';",
             "    n = put(line, n, bad);",
             "    line[n++] = ' ';",
             "    n = put(line, n, first);",
             "    line[n++] = ' ';",
             "    n = put(line, n, got[first]);",
             "    line[n++] = '\\n';",
             "    line[n] = 0;",
             "    say(line);",
             "}", "",
             f"static uint8_t arena[{size}] __attribute__((aligned(16)));", ""]
    body: list[str] = []
    names: dict[int, str] = {}

    def const(d: np.ndarray) -> str:
        """The static array holding d (shared by the scenarios of one case)."""
        if id(d) not in names:
            names[id(d)] = f"d{len(names)}"
            lines.append(f"static const int8_t {names[id(d)]}[{d.size}] = {{\n"
                         f"{c_array_body(d.reshape(-1).astype(np.int8))}\n}};")
        return names[id(d)]

    for i, s in enumerate(runs):
        lines += programs.params(f"s{i}", s.call)
        body.append("    memset(arena, 0x5A, sizeof arena);")
        args = []
        for d, off in zip(s.data, s.offsets):
            body.append(f"    memcpy(arena + {off}, {const(d)}, {d.nbytes});")
            args.append(f"(const int8_t *)(arena + {off})")
        args.append(f"(int8_t *)(arena + {s.out_offset})")
        body += [f"    {s.call.kernel}(&s{i}_params, {', '.join(args)});",
                 f"    report({i}, (const int8_t *)(arena + {s.out_offset}), {const(s.want)}, {s.want.size});"]
    lines += ["", "int main(void)", "{", *body, "    return 0;", "}", ""]
    return "\n".join(lines)


def _parse(text: str, runs: list[Scenario]) -> list[str]:
    got = {int(m.group(1)): m.groups()[1:] for m in re.finditer(r"^case (\d+) (\d+) (\d+) (-?\d+)$", text, re.M)}
    assert len(got) == len(runs), f"the program reported {len(got)} of {len(runs)} cases:\n{text[-2000:]}"
    return [f"{runs[i].label}: {bad} of {runs[i].want.size} bytes differ, first at {first}: "
            f"ours {ours}, TFLM {runs[i].want.reshape(-1)[int(first)]}"
            for i, (bad, first, ours) in sorted(got.items()) if int(bad)]


def run(runs: list[Scenario], work: Path, board: str = "host", defines: dict[str, int] | None = None) -> list[str]:
    """Failures (empty: every scenario matches TFLM), on the host with sanitizers or on a QEMU board
    (`defines`: more -D macros, e.g. a core's from lower/tuning.py)."""
    files = sorted({f for s in runs for f in s.call.files})
    return _parse(programs.run(program(runs), files, work, board, defines=defines), runs)
