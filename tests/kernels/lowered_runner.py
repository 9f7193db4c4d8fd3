"""Test helper: run many single-op graphs through their lowered kernels in ONE C program
(gcc once, sanitizers on), and through TFLM, so a conformance suite stays fast."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from microfuse import lower, ops, oracle
from microfuse.emit.c import C_TYPES, c_array_body, c_value
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.lower import Call, ConstArray
from microfuse.tflite import writer

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "runtime_c"
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@dataclass
class Case:
    """One single-op graph, the inputs to feed it, and a label for failure messages."""

    label: str
    graph: Graph
    inputs: list[np.ndarray]
    reference: Graph | None = None  # what TFLM runs instead of `graph`, when it cannot run that


def cases_count(local: int, ci: int = 30) -> int:
    """How many random cases a suite runs: at least 30 per op in CI, fewer locally."""
    return ci if CI else local


def tflm_outputs(case: Case) -> np.ndarray:
    return oracle.run(writer.write(case.reference or case.graph), case.inputs)[0]


def run_ours(cases: list[Case], workdir: Path | None = None) -> list[np.ndarray]:
    """Each case's output from our kernels: all cases in one C program."""
    calls = [lower.lower(c.graph.ops[0]) for c in cases]
    with tempfile.TemporaryDirectory(prefix="mf-kernels-", dir=workdir) as tmp:
        src = Path(tmp) / "cases.c"
        src.write_text(program(calls))
        exe = Path(tmp) / "cases"
        files = sorted({f for call in calls for f in call.files})
        cmd = ["gcc", *STRICT, *SANITIZE, "-O1", "-I", str(RUNTIME / "include"), str(src),
               *(str(RUNTIME / "src" / f) for f in files), "-o", str(exe), "-lm"]
        built = subprocess.run(cmd, capture_output=True, text=True)
        assert built.returncode == 0, f"gcc failed on the kernel program:\n{built.stderr[-3000:]}"
        feed = b"".join(np.ascontiguousarray(x).tobytes() for c in cases for x in c.inputs)
        done = subprocess.run([str(exe)], input=feed, capture_output=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"kernel program failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    outs, pos = [], 0
    for call in calls:
        t = call.outputs[0]
        outs.append(np.frombuffer(done.stdout[pos:pos + t.nbytes], t.dtype.np).reshape(t.shape))
        pos += t.nbytes
    assert pos == len(done.stdout), "the kernel program wrote an unexpected number of bytes"
    return outs


def program(calls: list[Call]) -> str:
    """A C file: per call its const data, params, input and output buffers; main() reads every
    input from stdin, runs the calls in order and writes every output to stdout."""
    lines = ["#include <stdio.h>", '#include "mf_kernels.h"', ""]
    reads: list[str] = []
    body: list[str] = []
    for i, call in enumerate(calls):
        fields = []
        for key, value in call.params.items():
            if isinstance(value, ConstArray):
                data = np.asarray(value.data)
                name = f"c{i}_{value.name}"
                lines.append(f"static const {C_TYPES[data.dtype]} {name}[{max(1, data.size)}] = {{\n"
                             f"{c_array_body(data)}\n}};")
                fields.append(f"    .{key} = {name},")
            else:
                fields.append(f"    .{key} = {c_value(value)},")
        lines.append(f"static const {call.params_type} c{i}_params = {{\n" + "\n".join(fields) + "\n};")
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


def compare(cases: list[Case], ours: list[np.ndarray], rtol: float = 1e-5, atol: float = 1e-6) -> list[str]:
    """Failure messages (empty: every case matches TFLM; int8 byte for byte)."""
    failures = []
    for case, got in zip(cases, ours):
        want = tflm_outputs(case)
        if want.shape != got.shape and want.size == got.size:
            want = want.reshape(got.shape)
        if got.dtype == np.float32:
            bad = ~np.isclose(got, want, rtol=rtol, atol=atol)
        else:
            bad = got != want
        if want.shape != got.shape or bad.any():
            failures.append(f"{case.label}: {int(bad.sum())} of {got.size} differ"
                            f" (first at {np.argwhere(bad)[0].tolist() if bad.any() else '?'})")
    return failures


def have(tool: str) -> bool:
    return shutil.which(tool) is not None


# -- random single-op graphs with converter-like but adversarial quantization --------------------

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def f32(x: float) -> float:
    return float(np.float32(x))


def act_quant(rng: np.random.Generator, scale: float | None = None) -> Quant:
    """A per-tensor int8 activation quantization: any zero point, scale 0.001..1 (or given)."""
    s = 10 ** rng.uniform(-3, 0) if scale is None else scale
    return Quant((f32(s),), (int(rng.integers(-128, 128)),))


def weight_quant(rng: np.random.Generator, channels: int, axis: int, per_channel: bool) -> Quant:
    n = channels if per_channel else 1
    scales = tuple(f32(10 ** rng.uniform(-3, -1)) for _ in range(n))
    return Quant(scales, (0,) * n, axis if per_channel else None)


def out_quant(rng: np.random.Generator, x: Quant, w: Quant, taps: int) -> Quant:
    """An output scale that puts typical accumulators across the int8 range, sometimes
    beyond it (saturation) and sometimes well inside (small multipliers)."""
    spread = 74.0 * 73.0 * np.sqrt(taps) * x.scale[0] * float(np.median(w.scale))
    return act_quant(rng, spread * 3 / 128 * 10 ** rng.uniform(-0.7, 0.7))


def int8_weights(rng: np.random.Generator, shape) -> np.ndarray:
    return rng.integers(-127, 128, size=shape).astype(np.int8)


def int32_bias(rng: np.random.Generator, n: int, x: Quant, w: Quant) -> Tensor:
    data = np.round(rng.normal(0, 20000, size=n)).astype(np.int32)
    scales = tuple(f32(x.scale[0] * s) for s in w.scale)
    return Tensor("bias", (n,), DType.INT32, Quant(scales, (0,) * len(scales), 0 if len(scales) > 1 else None), data)


def float_tensor(rng: np.random.Generator, name: str, shape, scale: float = 1.0) -> Tensor:
    return Tensor(name, tuple(shape), DType.FLOAT32, data=(rng.normal(0, scale, size=shape)).astype(np.float32))


def single_op(kind: str, inputs: list[Tensor | None], out: Tensor, attrs) -> Graph:
    """A one-op graph whose output shape comes from the op's own rule."""
    op = Op(kind, inputs, [out], attrs, name=kind.lower(), index=0)
    shape, _ = ops.infer(op)[0]
    out.shape = tuple(int(d) for d in shape)
    graph = Graph([op], [inputs[0]], [out], name=kind.lower())
    graph.verify()
    problems = ops.problems(op)
    assert not problems, problems
    return graph


def geometry(rng: np.random.Generator) -> dict:
    """Random window geometry whose output is not empty."""
    while True:
        g = dict(n=int(rng.choice([1, 1, 1, 2])), h=int(rng.integers(1, 13)), w=int(rng.integers(1, 13)),
                 kh=int(rng.integers(1, 6)), kw=int(rng.integers(1, 6)),
                 sh=int(rng.integers(1, 4)), sw=int(rng.integers(1, 4)),
                 dh=int(rng.choice([1, 1, 2, 3])), dw=int(rng.choice([1, 1, 2, 3])),
                 padding=str(rng.choice(["SAME", "VALID"])), act=str(rng.choice(ACTIVATIONS)))
        eff_h, eff_w = (g["kh"] - 1) * g["dh"] + 1, (g["kw"] - 1) * g["dw"] + 1
        if g["padding"] == "SAME" or (eff_h <= g["h"] and eff_w <= g["w"]):
            return g


def feed(rng: np.random.Generator, graph: Graph, extreme: bool = False) -> list[np.ndarray]:
    """Random inputs: full-range int8 (or all -128 / all 127 when extreme), or N(0, 1) float32."""
    t = graph.inputs[0]
    if t.dtype == DType.FLOAT32:
        return [rng.normal(0, 1, size=t.shape).astype(np.float32)]
    if extreme:
        return [np.full(t.shape, rng.choice([-128, 127]), np.int8)]
    return [rng.integers(-128, 128, size=t.shape).astype(np.int8)]


def corpus_cases(kinds: tuple[str, ...], rng: np.random.Generator) -> list[Case]:
    """Every op of `kinds` in the corpus models (../shared/models), alone in a graph, with
    random inputs: the real shapes and quantization our kernels must handle."""
    from microfuse.tflite import reader

    from conftest import MODEL_FILES, model

    models = MODEL_FILES or [model("mlperf_kws_dscnn_int8")]  # the second skips, or fails under CI=true
    cases = []
    for path in models:
        for op in reader.read(path).ops:
            if op.kind in kinds:
                graph = Graph([op], [op.inputs[0]], [op.outputs[0]], name=op.kind.lower())
                label = f"{path.name} {op.where} '{op.name}'"
                cases.append(Case(label, graph, feed(rng, graph)))
    return cases
