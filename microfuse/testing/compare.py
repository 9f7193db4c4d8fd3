"""Outputs against the reference: integers bit-exact, float32 within a tolerance; where they first differ."""

from __future__ import annotations

from typing import Sequence

import numpy as np

FLOAT_RTOL = 1e-5
FLOAT_ATOL = 1e-6


def _bad(ours: np.ndarray, ref: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """The mask of differing elements (ours and ref of one size)."""
    if ref.dtype.kind == "f" or ours.dtype.kind == "f":
        return ~np.isclose(ours.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    return ours.astype(np.int64) != ref.astype(np.int64)


def same(ours, ref, rtol: float = FLOAT_RTOL, atol: float = FLOAT_ATOL) -> bool:
    """Whether one output matches its reference (compared flat: TFLM may drop unit dimensions)."""
    return difference(ours, ref, rtol=rtol, atol=atol) is None


def difference(ours, ref, name: str = "output", rtol: float = FLOAT_RTOL, atol: float = FLOAT_ATOL) -> str | None:
    """None when `ours` matches `ref`, else one line: how many elements differ and the first of
    them (its index in ours' shape and both values)."""
    ours, ref = np.asarray(ours), np.asarray(ref)
    if ours.size != ref.size:
        return f"{name}: {ours.size} values {list(ours.shape)}, the reference has {ref.size} {list(ref.shape)}"
    bad = _bad(ours.reshape(-1), ref.reshape(-1), rtol, atol)
    if not bad.any():
        return None
    k = int(np.flatnonzero(bad)[0])
    where = list(np.unravel_index(k, ours.shape)) if ours.ndim > 1 else [k]
    how = "" if ref.dtype.kind != "f" else f" (rtol {rtol:g}, atol {atol:g})"
    return (f"{name}: {int(bad.sum())} of {ours.size} values differ{how}, first at "
            f"{[int(i) for i in where]}: ours {ours.reshape(-1)[k]}, reference {ref.reshape(-1)[k]}")


def first_difference(ours: Sequence, ref: Sequence, names: Sequence[str] | None = None,
                     rtol: float = FLOAT_RTOL, atol: float = FLOAT_ATOL) -> str | None:
    """None when every output matches, else the first differing output, named, and its first element."""
    if len(ours) != len(ref):
        return f"{len(ours)} outputs, the reference has {len(ref)}"
    for k, (a, b) in enumerate(zip(ours, ref)):
        name = f"output {k}" + (f" '{names[k]}'" if names else "")
        found = difference(a, b, name, rtol, atol)
        if found:
            return found
    return None
