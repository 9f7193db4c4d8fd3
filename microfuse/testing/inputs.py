"""Input samples for a graph's tensors: seeded random and extreme values, per dtype and quantization."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Graph, Tensor

FLOAT_EXTREME = 4.0  # float inputs are ~N(0, 1): +-4 is the far tail most float models still handle


def random(t: Tensor, rng: np.random.Generator, float_scale: float = 1.0) -> np.ndarray:
    """Full-range integers (any quantization: every code is a valid input), 0/1 booleans, or
    N(0, float_scale) float32."""
    if t.dtype == DType.FLOAT32:
        return (rng.standard_normal(t.shape) * float_scale).astype(np.float32)
    if t.dtype == DType.BOOL:
        return rng.integers(0, 2, t.shape).astype(bool)
    info = np.iinfo(t.dtype.np)
    return rng.integers(info.min, info.max, t.shape, endpoint=True).astype(t.dtype.np)


def extreme(t: Tensor, low: bool) -> np.ndarray:
    """Every element at the dtype's minimum (low) or maximum: saturation and the widest
    accumulators; float32 at -+FLOAT_EXTREME; booleans all false / all true."""
    if t.dtype == DType.FLOAT32:
        return np.full(t.shape, -FLOAT_EXTREME if low else FLOAT_EXTREME, np.float32)
    if t.dtype == DType.BOOL:
        return np.full(t.shape, not low, bool)
    info = np.iinfo(t.dtype.np)
    return np.full(t.shape, info.min if low else info.max, t.dtype.np)


def sample(tensors: list[Tensor], rng: np.random.Generator, float_scale: float = 1.0) -> list[np.ndarray]:
    """One random array per tensor, in order."""
    return [random(t, rng, float_scale) for t in tensors]


def extreme_or_random(t: Tensor, rng: np.random.Generator, is_extreme: bool) -> np.ndarray:
    """An extreme integer input (minimum or maximum, picked by rng) or a random one; floats stay random."""
    if is_extreme and t.dtype != DType.FLOAT32:
        return extreme(t, low=bool(rng.choice([True, False])))
    return random(t, rng)


def samples(graph: Graph, n: int, seed: int | np.random.Generator, extremes: bool = True,
            float_scale: float = 1.0) -> list[list[np.ndarray]]:
    """All-minimum and all-maximum (when `extremes`), then n random samples for the graph's inputs."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    found = [[extreme(t, low) for t in graph.inputs] for low in (True, False)] if extremes else []
    return found + [sample(graph.inputs, rng, float_scale) for _ in range(n)]
