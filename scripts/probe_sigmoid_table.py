"""Recover the 256-entry sigmoid table TFLite's int16 LOGISTIC / TANH interpolate (sigmoid(i/24)
in 0.16, rounded by TFLite's own generator: no closed form reproduces every entry) from TFLite
Micro's int16 TANH, and write it to microfuse/lower/sigmoid_table.json.

With input scale 2/(3*4096) TFLM's tanh reads input x as 2x in its table's units (2^8 per entry),
so x = 128 i lands on entry i exactly and gives table[i] - 32768; x = 128 i + 127 interpolates
254/256 of the way to entry i+1, which gives the last entry. tests/kernels/test_lstm.py re-probes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from microfuse import oracle  # noqa: E402
from microfuse.ir import DType, Graph, Op, Quant, Tensor  # noqa: E402
from microfuse.tflite.writer import write  # noqa: E402

TABLE = ROOT / "microfuse" / "lower" / "sigmoid_table.json"


def probe() -> np.ndarray:
    x = Tensor("x", (256,), DType.INT16, Quant((2.0 / (3 * 4096),), (0,)))
    y = Tensor("y", (256,), DType.INT16, Quant((2.0 ** -15,), (0,)))
    model = write(Graph([Op("TANH", [x], [y], None, "tanh", 0)], [x], [y], name="tanh16"))
    base = np.arange(256, dtype=np.int64) * 128
    exact = oracle.run(model, [base.clip(max=32767).astype(np.int16)])[0].astype(np.int64) + 32768
    near = oracle.run(model, [(base + 127).clip(max=32767).astype(np.int16)])[0].astype(np.int64) + 32768
    table = exact.copy()
    table[255] = near[254]  # = table[254] + (254 d + 128) // 256, which is d for d <= 64
    assert 0 <= table[255] - table[254] <= 64 and np.all(np.diff(table) >= 0)
    return table.astype(np.uint16)


if __name__ == "__main__":
    TABLE.write_text(json.dumps([int(v) for v in probe()]) + "\n")
    print(f"wrote {TABLE}")
