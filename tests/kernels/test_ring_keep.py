"""mf_ring_keep (a cascade ring's kept rows moved down) against memmove's result: overlapping and
disjoint moves, whole 64-byte turns, a lone 32-byte block, word tails, nothing to move, and
unaligned pointers or lengths (the byte loop); the portable C on the host (sanitizers on) and the
LDM/STM path under QEMU mps2-an386 and an500."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.testing import programs
from tests.harness import on_qemu
from tests.kernels import placements

SIZE = 1024
# (dst, src, bytes) offsets into a 16-byte aligned buffer, dst < src
CASES = [(0, 320, 640), (0, 64, 128), (4, 8, 100), (0, 36, 36), (0, 4, 0), (1, 5, 37), (0, 3, 64),
         (0, 32, 96), (8, 200, 4), (16, 80, 512), (2, 6, 1)]


def program() -> str:
    """Runs every case on a fresh pattern; says "ok", or "bad" and the failing cases' letters."""
    rng = np.random.default_rng(9)
    pattern = rng.integers(-128, 128, SIZE, dtype=np.int8)
    lines = ['#include "mf_cascade.h"', *placements.SAY,
             f"static const int8_t pattern[{SIZE}] = {{{', '.join(str(int(v)) for v in pattern)}}};",
             f"static int8_t buf[{SIZE}] __attribute__((aligned(16)));"]
    calls = []
    for i, (d, s, n) in enumerate(CASES):
        want = pattern.copy()
        want[d:d + n] = pattern[s:s + n]
        lines.append(f"static const int8_t want{i}[{SIZE}] = {{{', '.join(str(int(v)) for v in want)}}};")
        calls.append(f"    for (int k = 0; k < {SIZE}; k++) {{ buf[k] = pattern[k]; }}\n"
                     f"    mf_ring_keep(buf + {d}, buf + {s}, {n}u);\n"
                     f"    for (int k = 0; k < {SIZE}; k++) {{ if (buf[k] != want{i}[k]) {{ bad[n++] = 'a' + {i}; break; }} }}")
    return "\n".join([*lines, "int main(void)", "{", f"    char bad[{len(CASES) + 6}] = \"bad \";", "    int n = 4;",
                      *calls, "    bad[n++] = '\\n';", "    bad[n] = 0;", '    say(n == 5 ? "ok\\n" : bad);',
                      "    return 0;", "}", ""])


def check(board: str, tmp_path) -> None:
    got = programs.run(program(), ["mf_ring_keep.c"], tmp_path, board)
    assert got.strip() == "ok", f"cases {[CASES[ord(c) - 97] for c in got.strip()[4:]]}: {got.strip()}"


def test_ring_keep_on_the_host(tmp_path):
    check("host", tmp_path)


@on_qemu
@pytest.mark.parametrize("board", ["qemu-mps2-an386", "qemu-mps2-an500"])
def test_ring_keep_under_qemu_with_ldm_stm(board, tmp_path):
    check(board, tmp_path)
