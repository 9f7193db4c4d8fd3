"""The quantized model against its float original on the same inputs: error per output and per layer."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from . import oracle
from .errors import MicrofuseError
from .ir import Graph, Tensor
from .tflite import reader

RunQuant = Callable[[list[list[np.ndarray]]], list[list[np.ndarray]]]  # microfuse's outputs per sample
PRESERVE_ARENA = 64 << 20
METRICS = ("rmse", "mae", "l2_relative", "cosine", "top1_agreement")


def evaluate(float_model: str | Path, quant_model: str | Path, run_quant: RunQuant, samples: int = 10,
             seed: int = 0, inputs_dir: str | Path | None = None) -> dict:
    """Run the float model (TFLM) and the quantized one (microfuse, via run_quant) on the same inputs;
    per-layer figures compare TFLM's intermediates of both where tensor names match."""
    fgraph, qgraph = _read(float_model, "--float-model"), reader.read(quant_model)
    _check_pair(fgraph, qgraph)
    floats = _load_inputs(inputs_dir, fgraph) if inputs_dir else _random_inputs(qgraph, samples, seed)
    quants = [[quantize(x, t) for x, t in zip(sample, qgraph.inputs)] for sample in floats]
    ref = [oracle.run(float_model, s) for s in floats]
    ours = run_quant(quants)
    classes = [(qgraph.producer(t) is not None and qgraph.producer(t).kind == "SOFTMAX") for t in qgraph.outputs]
    outputs = [{"name": t.name, **metrics([r[k] for r in ref], [dequantize(o[k], t) for o in ours], classes[k])}
               for k, t in enumerate(qgraph.outputs)]
    return {"float_model": str(float_model), "samples": len(floats),
            "inputs": str(inputs_dir) if inputs_dir else f"random inputs, seed {seed}",
            "outputs": outputs, "layers": layers(float_model, quant_model, fgraph, qgraph, floats[0], quants[0])}


def metrics(ref: list[np.ndarray], ours: list[np.ndarray], top1: bool = True) -> dict:
    """RMSE, MAE, L2 relative error and cosine similarity over all samples; top-1 agreement per sample
    (for an output that classifies: a SOFTMAX's)."""
    f = np.concatenate([np.asarray(r, np.float64).reshape(-1) for r in ref])
    q = np.concatenate([np.asarray(o, np.float64).reshape(-1) for o in ours])
    diff = q - f
    norm_f, norm_q = np.linalg.norm(f), np.linalg.norm(q)
    agree = float(np.mean([np.argmax(r) == np.argmax(o) for r, o in zip(ref, ours)])) if top1 else None
    return {"rmse": float(np.sqrt(np.mean(diff ** 2))), "mae": float(np.mean(np.abs(diff))),
            "l2_relative": float(np.linalg.norm(diff) / norm_f) if norm_f else None,
            "cosine": float(f @ q / (norm_f * norm_q)) if norm_f and norm_q else None,
            "top1_agreement": agree}


def layers(float_model, quant_model, fgraph: Graph, qgraph: Graph, x: list, xq: list) -> list[dict]:
    """Per layer for one sample: every quantized activation whose float twin has the same name."""
    by_name = {t.name: t for t in fgraph.activations()}
    inputs = {id(t) for t in qgraph.inputs}
    pairs = [(by_name[t.name], t) for t in qgraph.activations()
             if t.name in by_name and t.quant is not None and id(t) not in inputs]
    if not pairs:
        return []
    # TFLM keeps every tensor in this mode (no reuse): give it room
    fvals = oracle.run_all_tensors(float_model, x, PRESERVE_ARENA)
    qvals = oracle.run_all_tensors(quant_model, xq, PRESERVE_ARENA)
    return [{"name": q.name, **metrics([fvals[f.index]], [dequantize(qvals[q.index], q)], top1=False)}
            for f, q in pairs if f.index in fvals and q.index in qvals and f.elements == q.elements]


def quantize(x: np.ndarray, t: Tensor) -> np.ndarray:
    if t.quant is None or t.dtype.np.kind == "f":
        return np.asarray(x, t.dtype.np).reshape(t.shape)
    info = np.iinfo(t.dtype.np)
    q = np.round(np.asarray(x, np.float64) / t.quant.scale[0]) + t.quant.zero_point[0]
    return np.clip(q, info.min, info.max).astype(t.dtype.np).reshape(t.shape)


def dequantize(q: np.ndarray, t: Tensor) -> np.ndarray:
    if t.quant is None or np.asarray(q).dtype.kind == "f":
        return np.asarray(q, np.float64)
    return (np.asarray(q, np.float64) - t.quant.zero_point[0]) * t.quant.scale[0]


def _random_inputs(qgraph: Graph, n: int, seed: int) -> list[list[np.ndarray]]:
    """Uniform over what the quantized input can hold: random codes, dequantized (no input rounding)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        sample = []
        for t in qgraph.inputs:
            info = np.iinfo(t.dtype.np)
            codes = rng.integers(info.min, info.max, t.shape, endpoint=True)
            sample.append(dequantize(codes, t).astype(np.float32))
        out.append(sample)
    return out


def _load_inputs(folder, fgraph: Graph) -> list[list[np.ndarray]]:
    """Float samples from a folder: one .npy per sample (one input) or one .npz per sample."""
    files = sorted(p for p in Path(folder).glob("*") if p.suffix in (".npy", ".npz"))
    if not files:
        raise MicrofuseError(f"--inputs '{folder}' holds no .npy or .npz files")
    samples = []
    for p in files:
        try:
            data = np.load(p, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise MicrofuseError(f"cannot read input sample '{p}': {e}") from None
        arrays = [data] if isinstance(data, np.ndarray) else [data[k] for k in data.files]
        if len(arrays) != len(fgraph.inputs) or any(a.size != t.elements for a, t in zip(arrays, fgraph.inputs)):
            shapes = ", ".join(str(list(t.shape)) for t in fgraph.inputs)
            raise MicrofuseError(f"input sample '{p}' does not match the model's inputs ({shapes})")
        samples.append([np.asarray(a, np.float32).reshape(t.shape) for a, t in zip(arrays, fgraph.inputs)])
    return samples


def _read(path, flag: str) -> Graph:
    try:
        return reader.read(path)
    except MicrofuseError as e:
        raise MicrofuseError(f"{flag}: {e}") from None


def _check_pair(fgraph: Graph, qgraph: Graph) -> None:
    def io(g):
        return [t.elements for t in g.inputs], [t.elements for t in g.outputs]

    if io(fgraph) != io(qgraph):
        raise MicrofuseError("--float-model does not match the model: inputs or outputs differ in number or size")
    if any(t.dtype.np.kind != "f" for t in [*fgraph.inputs, *fgraph.outputs]):
        raise MicrofuseError("--float-model must take and give float32 tensors (the float original)")


def format_lines(acc: dict) -> list[str]:
    """What verify prints: one line per output, then the worst layers."""
    lines = [f"accuracy against {acc['float_model']} on {acc['samples']} samples, {acc['inputs']}:"]
    for o in acc["outputs"]:
        lines.append(f"  output {o['name']}: " + _figures(o))
    worst = sorted((la for la in acc["layers"] if la["l2_relative"] is not None),
                   key=lambda la: -la["l2_relative"])[:3]
    for la in worst:
        lines.append(f"  layer {la['name'][:48]}: " + _figures(la))
    return lines


def _figures(m: dict) -> str:
    def f(v, fmt):
        return "-" if v is None else format(v, fmt)

    text = (f"RMSE {f(m['rmse'], '.4g')}, MAE {f(m['mae'], '.4g')}, L2 rel {f(m['l2_relative'], '.2%')}, "
            f"cosine {f(m['cosine'], '.5f')}")
    return text + ("" if m.get("top1_agreement") is None else f", top-1 {m['top1_agreement']:.0%}")


def on_host(model, float_model, options, inputs_dir=None, samples: int = 10, seed: int = 0) -> dict:
    """evaluate() with microfuse's outputs from a host build of the model (gcc)."""
    import tempfile
    from dataclasses import replace

    from .boards import load_board
    from .pipeline import build
    from .targets.runner import open_runner

    with tempfile.TemporaryDirectory(prefix="mf-accuracy-") as tmp:
        lib = Path(tmp) / "lib"
        compiled = build(model, lib, replace(options, board=None, core=None))
        with open_runner(load_board("host"), lib, compiled.name, compiled.graph, Path(tmp)) as runner:
            return evaluate(float_model, model, runner.run, samples, seed, inputs_dir)
