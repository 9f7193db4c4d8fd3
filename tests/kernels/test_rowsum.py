"""mf_rowsum_s8 (a cascade's global average pool, summed a band of rows at a time) against numpy:
channel counts with and without a multiple of four, bands of more than the 256 pixels an int16
lane sums, extreme inputs (every value -128 or 127, where a lane would overflow past 256
pixels); the portable C on the host (sanitizers on) and the SXTAB16 path under QEMU mps2-an386."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.testing import programs
from tests.harness import on_qemu
from tests.kernels import placements

# (channels, band heights, width, fill): fill None draws random values
CASES = [(64, (2, 3, 1), 5, None), (7, (1, 4), 3, None), (3, (2,), 2, None), (12, (300,), 1, -128),
         (8, (129, 1, 170), 2, 127), (20, (40, 9), 7, None), (4, (1,), 1, -128)]


def average(x: np.ndarray, act_min: int, act_max: int) -> np.ndarray:
    """TFLM's int8 average over the pixels: the sum rounded half away from zero."""
    s = x.astype(np.int64).sum(axis=0)
    n = x.shape[0]
    v = np.where(s > 0, (s + n // 2) // n, -((-s + n // 2) // n))
    return np.clip(v, act_min, act_max)


def program(x: np.ndarray, bands: tuple[int, ...], width: int, act: tuple[int, int], want: np.ndarray) -> str:
    """Calls mf_rowsum_s8 band by band over the image x (pixels x channels); says "ok", or "bad"
    and the channels whose average is not `want`'s (one letter each, 'a' + channel % 26)."""
    pixels, ch = x.shape
    calls, row = [], 0
    for i, b in enumerate(bands):
        calls.append(f"    {{ const mf_rowsum_s8_params p = {{{b * width}, {ch}, {int(i == 0)}, "
                     f"{int(i == len(bands) - 1)}, {pixels}, {act[0]}, {act[1]}}};\n"
                     f"      mf_rowsum_s8(&p, image + {row * width * ch}, out, sums); }}")
        row += b
    array = ", ".join(str(int(v)) for v in x.ravel())
    return "\n".join([
        '#include "mf_cascade.h"', *placements.SAY,
        f"static const int8_t image[{x.size}] = {{{array}}};",
        f"static const int8_t want[{ch}] = {{{', '.join(str(int(v)) for v in want)}}};",
        f"static int32_t sums[{ch}];", f"static int8_t out[{ch}];",
        "int main(void)", "{", f"    char bad[{ch + 6}] = \"bad \";", "    int n = 4;", *calls,
        f"    for (int c = 0; c < {ch}; c++) {{ if (out[c] != want[c]) {{ bad[n++] = (char)('a' + c % 26); }} }}",
        "    bad[n++] = '\\n';", "    bad[n] = 0;", '    say(n == 5 ? "ok\\n" : bad);', "    return 0;", "}", ""])


def check(board: str, tmp_path) -> None:
    rng = np.random.default_rng(5)
    for i, (ch, bands, width, fill) in enumerate(CASES):
        shape = (sum(bands) * width, ch)
        x = np.full(shape, fill, np.int8) if fill is not None else rng.integers(-128, 128, shape, dtype=np.int8)
        act = (-128, 127) if i % 2 else (0, 127)  # RELU on every other case
        got = programs.run(program(x, bands, width, act, average(x, *act)), ["mf_rowsum_s8.c"],
                           tmp_path / str(i), board)
        assert got.strip() == "ok", f"case {i} ({ch} channels, bands {bands} x {width}): {got.strip()}"


def test_rowsum_on_the_host(tmp_path):
    check("host", tmp_path)


@on_qemu
@pytest.mark.parametrize("board", ["qemu-mps2-an386"])
def test_rowsum_under_qemu_with_sxtab16(board, tmp_path):
    check(board, tmp_path)
