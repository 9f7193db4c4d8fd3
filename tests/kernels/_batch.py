"""Helpers for the non-MAC kernel suites: many single-op cases merged into one model, so that one
TFLM run and one gcc build check them all; random int8 quantization."""

from __future__ import annotations

import os

import numpy as np

from microfuse import oracle
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.testing.host import run_graph
from microfuse.tflite.writer import write
from microfuse.testing.modelgen import merge  # noqa: F401 (the suites import it from here)

CI = os.environ.get("CI") == "true"


def cases(local: int, ci: int = 30) -> int:
    """How many random cases per op: at least 30 in CI."""
    return ci if CI else local


def f32(x: float) -> float:
    return float(np.float32(x))


def rand_quant(rng: np.random.Generator, lo: float = -2.5, hi: float = -0.5) -> Quant:
    """A random per-tensor int8 quantization (scale 10^lo..10^hi, any zero point)."""
    return Quant((f32(10 ** rng.uniform(lo, hi)),), (int(rng.integers(-128, 128)),))


def tensor(name: str, shape, dtype: DType = DType.INT8, quant: Quant | None = None, data=None) -> Tensor:
    return Tensor(name, tuple(int(d) for d in shape), dtype, quant, data)


def random_feed(rng: np.random.Generator, graph: Graph) -> list[np.ndarray]:
    feeds = []
    for t in graph.inputs:
        if t.dtype == DType.FLOAT32:
            feeds.append(rng.normal(0, 2, size=t.shape).astype(np.float32))
        else:
            info = np.iinfo(t.dtype.np)
            feeds.append(rng.integers(info.min, info.max + 1, size=t.shape).astype(t.dtype.np))
    return feeds


def check(graphs: list[Graph], rng: np.random.Generator, samples: int = 2, rtol: float = 1e-5,
          atol: float = 1e-6) -> None:
    """Every case's outputs from microfuse (host gcc) equal TFLM's: bytes for integers, within
    rtol/atol for float32. A failure names the case and its first op."""
    owners = [(i, g.ops[0]) for i, g in enumerate(graphs) for _ in g.outputs]
    graph = merge(graphs)
    model = write(graph)
    feeds = [random_feed(rng, graph) for _ in range(samples)]
    ours = run_graph(graph, feeds)
    for s, feed in enumerate(feeds):
        want = oracle.run(model, feed)
        for k, (got, exp) in enumerate(zip(ours[s], want)):
            case, op = owners[k]
            exp = np.asarray(exp).reshape(got.shape)
            where = f"case {case} ({op.kind} {[list(t.shape) for t in op.inputs if t is not None]}), sample {s}"
            if got.dtype == np.float32:
                np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, err_msg=where)
            else:
                bad = np.flatnonzero(got.reshape(-1) != exp.reshape(-1))
                assert bad.size == 0, (f"{where}: {bad.size} of {got.size} differ, first at {bad[0]}: "
                                       f"ours {got.reshape(-1)[bad[0]]} TFLM {exp.reshape(-1)[bad[0]]}")


def single(kind: str, inputs: list[Tensor], output: Tensor, attrs=None) -> Graph:
    op = Op(kind, inputs, [output], attrs, name=kind.lower())
    graph = Graph([op], [t for t in inputs if t is not None and not t.is_const], [output], name=kind.lower())
    return graph
