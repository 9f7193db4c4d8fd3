"""Conformance of SELECT_V2 (float32, int8 values; bool condition) against TFLite Micro, seeded: the
condition, x and y broadcast together up to rank 5, a constant x or y, int8 of any quantization
(TFLM copies the raw values)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType
from microfuse.testing.stages import lower
from tests.harness import case_count, check_graphs
from tests.kernels.cases import rand_quant, single, tensor
from tests.kernels.test_elementwise import random_shapes

F32, I8, BOOL = DType.FLOAT32, DType.INT8, DType.BOOL


def select_case(rng, dtype: DType):
    sc, sx = random_shapes(rng, 5)
    sy = tuple(d if rng.random() < 0.6 else 1 for d in sx)[int(rng.integers(0, len(sx))):] or (1,)
    q = (lambda: rand_quant(rng)) if dtype == I8 else (lambda: None)
    c, x, y = tensor("c", sc, BOOL), tensor("x", sx, dtype, q()), tensor("y", sy, dtype, q())
    r = rng.random()
    for const in ([y] if r < 0.2 else [x] if r < 0.3 else [x, y] if r < 0.4 else []):
        const.data = (rng.integers(-128, 128, size=const.shape).astype(np.int8) if dtype == I8
                      else rng.normal(0, 1, size=const.shape).astype(np.float32))
    out = tensor("out", tuple(np.broadcast_shapes(sc, sx, sy)), dtype, q())
    return single("SELECT_V2", [c, x, y], out)


@pytest.mark.parametrize("dtype", [F32, I8], ids=["float32", "int8"])
def test_select_matches_tflm(dtype):
    rng = np.random.default_rng(1200 + (dtype == I8))
    graphs = [select_case(rng, dtype) for _ in range(case_count(12))]
    assert any(len({g.ops[0].inputs[i].shape for i in range(3)}) > 1 for g in graphs)  # broadcasts run
    check_graphs(graphs, rng)


def test_a_constant_y_uses_the_k_kernel():
    c, x = tensor("c", (2, 3), BOOL), tensor("x", (2, 3), F32)
    y = tensor("y", (3,), F32, data=np.zeros(3, np.float32))
    call = lower(single("SELECT_V2", [c, x, y], tensor("o", (2, 3), F32)).ops[0])
    assert call.kernel == "mf_select_v2_f32_k" and call.inputs == [c, x] and call.params["constant_index"] == 2


def test_a_non_bool_condition_is_refused():
    g = single("SELECT_V2", [tensor("c", (3,), F32), tensor("x", (3,), F32), tensor("y", (3,), F32)],
               tensor("o", (3,), F32))
    assert ops.problems(g.ops[0]) == ["input type float32 is not supported (supported: bool)"]
