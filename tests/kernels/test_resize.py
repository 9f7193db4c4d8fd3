"""Conformance of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (int8 and float32, nearest int16;
align_corners, half_pixel_centers, up- and downscaling) against TFLite Micro, seeded."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType
from tests.kernels.test_pool_s16 import q16
from microfuse.ops.resize import ResizeAttrs
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, single, tensor

INT8, INT16, FLOAT32 = DType.INT8, DType.INT16, DType.FLOAT32


def resize_case(rng, kind: str, dtype: DType):
    n, h, w, c = int(rng.choice([1, 1, 2])), *(int(v) for v in rng.integers(1, 9, size=2)), int(rng.integers(1, 5))
    oh, ow = (int(v) for v in rng.integers(1, 17, size=2))
    align, half = bool(rng.random() < 0.4), bool(rng.random() < 0.5)
    if kind == "RESIZE_BILINEAR" and align and half:
        half = False  # TFLM refuses both
    q = {INT8: rand_quant, INT16: q16}.get(dtype, lambda rng: None)(rng)
    x = tensor("x", (n, h, w, c), dtype, q)
    size = tensor("size", (2,), DType.INT32, data=np.array([oh, ow], np.int32))
    return single(kind, [x, size], tensor("y", (n, oh, ow, c), dtype, x.quant), ResizeAttrs(align, half))


KINDS = ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"]


@pytest.mark.parametrize("dtype", [INT8, FLOAT32], ids=["int8", "float32"])
@pytest.mark.parametrize("kind", KINDS)
def test_resize_matches_tflm(kind, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{kind}-{dtype}".encode()))
    graphs = [resize_case(rng, kind, dtype) for _ in range(case_count(16))]
    assert {(g.ops[0].attrs.align_corners, g.ops[0].attrs.half_pixel_centers) for g in graphs} >= \
        {(False, False), (True, False), (False, True)}
    check_graphs(graphs, rng, samples=3)


def test_int16_nearest_matches_tflm():
    rng = np.random.default_rng(zlib.crc32(b"nearest-int16"))
    check_graphs([resize_case(rng, "RESIZE_NEAREST_NEIGHBOR", INT16) for _ in range(case_count(12))], rng, samples=3)


def test_both_options_are_refused_for_bilinear():
    x = tensor("x", (1, 2, 2, 1), FLOAT32)
    size = tensor("size", (2,), DType.INT32, data=np.array([4, 4], np.int32))
    g = single("RESIZE_BILINEAR", [x, size], tensor("y", (1, 4, 4, 1), FLOAT32), ResizeAttrs(True, True))
    assert ops.problems(g.ops[0]) == ["align_corners and half_pixel_centers cannot both be set (TFLM refuses it)"]
