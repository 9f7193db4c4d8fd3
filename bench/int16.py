"""Instructions per MAC of the SEANet 16x8 conv layers on qemu-mps2-an386: reference vs fast int16 kernels.

    PYTHONPATH=. python bench/int16.py [--models conv0,transpose_conv0] [--no-int8] [--no-check] [--json out.json]

For each layer of ../shared/models/seanet/{conv*,transpose_conv*}.tflite (one op each): the model
is built twice, with `--optimize size` (the reference 16x8 kernels, mf_conv2d_s16 /
mf_transpose_conv_s16) and `--optimize speed` (mf_conv2d_s16_dsp: int16 pairs straight into
SMLAD, int16-widened weights), and benched under QEMU (`microfuse bench`: instructions of the layer's kernel call, from
the per-call trace). Instructions per MAC = the call's instructions / its MACs. Beside them, the
same layer built as int8 (same shapes and weights, int8 activations, int32 bias) at `--optimize
speed`: the int8 DSP path (SXTB16 + SMLAD), so the two data types are compared on one shape.
TRANSPOSE_CONV has no fast kernel: both columns run the reference one. Unless --no-check, each
fast build is verified bit-exact against TFLite Micro on the board first (random and extreme
inputs).

What it measured (this machine, the commit that added the two-pairs loop): the fast kernel runs
the SEANet 3x4 / 4x4 / 3x3 layers with 16-64 input channels at 1.22-1.55 instructions per MAC
(reference: 5.6-7.3), below the int8 DSP path on the same shapes for 32- and 64-channel layers
(conv6/8/10: 1.33/1.33/1.22 against 1.38/1.37/1.34) and above it on thin layers (conv0, 2 input
channels: 2.96 against 2.08) and 1x1 ones (conv18/20: 4.2/7.5 against 1.9/2.7), where the
per-pixel work around the loop -- the int64 MultiplyByQuantizedMultiplier of TFLM's 16x8 output
stage, one per output -- outweighs the MACs. TRANSPOSE_CONV: reference kernel only (6.4-9.0).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from microfuse.ir import DType, Graph, Op, Quant, Tensor  # noqa: E402
from microfuse.pipeline import Options  # noqa: E402
from microfuse.session import bench  # noqa: E402
from microfuse.tflite import reader, writer  # noqa: E402
from microfuse.verify import verify  # noqa: E402

SEANET = ROOT.parent / "shared" / "models" / "seanet"
BOARD = "qemu-mps2-an386"


def layers() -> list[str]:
    return sorted((p.stem for p in [*SEANET.glob("conv*.tflite"), *SEANET.glob("transpose_conv*.tflite")]),
                  key=lambda s: (s.rstrip("0123456789"), int(s[len(s.rstrip("0123456789")):])))


def int8_twin(path: Path) -> bytes | None:
    """The CONV_2D layer with int8 activations and an int32 bias (same shapes and weights)."""
    graph = reader.read(path)
    op = graph.ops[0]
    if op.kind != "CONV_2D":
        return None
    x, w, b = op.inputs
    y = op.outputs[0]
    x8 = Tensor(x.name, x.shape, DType.INT8, Quant((0.02,), (0,)))
    taps = int(np.prod(w.shape[1:]))
    y8 = Tensor(y.name, y.shape, DType.INT8, Quant((0.02 * float(np.median(w.quant.scale)) * 40 * np.sqrt(taps),), (0,)))
    scales = tuple(0.02 * float(s) for s in w.quant.scale)
    b8 = Tensor(b.name, b.shape, DType.INT32, Quant(scales, (0,) * len(scales), 0),
                np.clip(np.asarray(b.data, np.int64) // 256, -2**31, 2**31 - 1).astype(np.int32))
    twin = Op(op.kind, [x8, w, b8], [y8], op.attrs, name=op.name, index=0)
    return writer.write(Graph([twin], [x8], [y8], name="int8_twin"))


def call_cost(model, options: Options) -> tuple[int, int, str]:
    """(instructions, MACs, kernel) of the layer's one MAC-carrying call."""
    found = bench(model, BOARD, options)
    row = max(found["per_op"], key=lambda r: r["macs"])
    return row["instructions"], row["macs"], row["kind"]


def measure(name: str, check: bool, int8: bool) -> dict:
    path = SEANET / f"{name}.tflite"
    if check:
        verdict, _, _ = verify(path, BOARD, n=2, seed=1, options=Options(optimize="speed"))
        if not verdict.ok:
            raise SystemExit(f"{name}: {verdict.line(False)}")
    ref, macs, ref_kernel = call_cost(path, Options(optimize="size"))
    fast, _, fast_kernel = call_cost(path, Options(optimize="speed"))
    row = dict(layer=name, macs=macs, reference=ref, reference_kernel=ref_kernel, fast=fast, fast_kernel=fast_kernel)
    twin = int8_twin(path) if int8 else None
    if twin is not None:
        with tempfile.TemporaryDirectory() as tmp:
            twin_path = Path(tmp) / f"{name}_int8.tflite"
            twin_path.write_bytes(twin)
            row["int8_fast"], _, row["int8_kernel"] = call_cost(twin_path, Options(optimize="speed"))
    return row


def table(rows: list[dict]) -> str:
    lines = ["| layer | MACs | 16x8 reference instr/MAC | 16x8 fast instr/MAC | speed-up | int8 DSP instr/MAC (same shape) |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        int8 = f"{r['int8_fast'] / r['macs']:.2f}" if "int8_fast" in r else "-"
        lines.append(f"| {r['layer']} | {r['macs']:,} | {r['reference'] / r['macs']:.2f} | {r['fast'] / r['macs']:.2f} "
                     f"| {r['reference'] / r['fast']:.2f}x | {int8} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated layer names (default: every conv* and transpose_conv*)")
    ap.add_argument("--no-int8", action="store_true", help="skip the int8 twin of each CONV_2D layer")
    ap.add_argument("--no-check", action="store_true", help="skip the bit-exactness check on the board")
    ap.add_argument("--json", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if not SEANET.is_dir():
        raise SystemExit(f"needs the SEANet layers in {SEANET}")
    names = args.models.split(",") if args.models else layers()
    rows = [measure(n, not args.no_check, not args.no_int8) for n in names]
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
