"""FULLY_CONNECTED conformance: seeded random single-op models, our kernels vs TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import quant
from microfuse.errors import UnsupportedError
from microfuse.ir import DType, Quant, Tensor
from microfuse.ops.attrs import FullyConnectedAttrs
from microfuse.testing import inputs, modelgen
from microfuse.testing.stages import lower
from tests.harness import Case, case_count, check_cases
from tests.kernels.cases import (ACTIVATIONS, act_quant, corpus_cases, feed, float_tensor, int32_bias,
                                 int8_weights, out_quant, single_op, weight_quant)

SEED = 23


def input_shape(rng: np.random.Generator, depth: int) -> tuple[tuple[int, ...], bool]:
    """An input of rank 2-4 whose size is a whole number of rows; keep_num_dims only when
    the last dimension is the depth (TFLite's rule)."""
    rows = int(rng.choice([1, 1, 2, 3, 4]))
    kind = int(rng.integers(0, 3))
    if kind == 0:
        return (rows, depth), bool(rng.random() < 0.3)
    if kind == 1:
        return (1, rows, depth), bool(rng.random() < 0.5)
    # A rank-4 input flattened to rows: TFLite reads it as (size / depth) rows.
    return (rows, 1, 1, depth) if depth % 2 else (rows, 2, 1, depth // 2), False


def fc_case(rng: np.random.Generator, i: int, dtype: DType) -> Case:
    depth, units = int(rng.integers(1, 65)), int(rng.integers(1, 17))
    shape, keep = input_shape(rng, depth)
    attrs = FullyConnectedAttrs(str(rng.choice(ACTIVATIONS)), 0, keep)
    has_bias = rng.random() < 0.8
    if dtype == DType.FLOAT32:
        x = Tensor("input", shape, dtype)
        w = float_tensor(rng, "weights", (units, depth), 0.3)
        b = float_tensor(rng, "bias", (units,)) if has_bias else None
        y = Tensor("output", (), dtype)
    else:
        per_channel = rng.random() < 0.4
        xq = act_quant(rng)
        wq = weight_quant(rng, units, 0, per_channel)
        x = Tensor("input", shape, dtype, xq)
        w = Tensor("weights", (units, depth), dtype, wq, int8_weights(rng, (units, depth)))
        b = int32_bias(rng, units, xq, wq) if has_bias else None
        y = Tensor("output", (), dtype, out_quant(rng, xq, wq, depth))
    graph = single_op("FULLY_CONNECTED", [x, w, b], y, attrs)
    label = f"fc{i} {dtype} in {list(shape)} weights {[units, depth]} bias {has_bias} {attrs}"
    return Case(label, graph, feed(rng, graph, extreme=i % 7 == 6))


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=str)
def test_fully_connected_matches_tflm(dtype):
    rng = np.random.default_rng(SEED + (dtype == DType.FLOAT32))
    cases = [fc_case(rng, i, dtype) for i in range(case_count(16, 40))]
    check_cases(cases)


def test_fully_connected_calibrated_models_match_tflm():
    """Converter-like models (calibrated activations, Glorot weights) from modelgen."""
    rng = np.random.default_rng(SEED)
    shapes = [dict(in_shape=(1, 40), units=10, activation="RELU"),
              dict(in_shape=(3, 16), units=8, per_channel=True),
              dict(in_shape=(2, 5, 12), units=6, keep_num_dims=True, activation="RELU6"),
              dict(in_shape=(1, 128), units=64, bias=False)]
    cases = []
    for i, kw in enumerate(shapes):
        for dtype in (DType.INT8, DType.FLOAT32):
            graph = modelgen.fully_connected(rng, dtype=dtype, **kw)
            cases.append(Case(f"modelgen fc{i} {dtype} {kw}", graph, inputs.sample(graph.inputs, rng)))
    check_cases(cases)


def test_per_tensor_multiplier_uses_the_float32_scale_product():
    """TFLite multiplies the input and filter scales in float32 for a per-tensor dense layer,
    in double for per-channel ones: pick scales where the two give different multipliers."""
    rng = np.random.default_rng(SEED)
    for _ in range(10000):
        a, b, c = (float(np.float32(10 ** rng.uniform(-3, 0))) for _ in range(3))
        if quant.dense_multiplier(a, b, c) != quant.quantize_multiplier(a * b / c):
            break
    else:
        pytest.fail("no scales found where float32 and double products differ")
    x = Tensor("input", (1, 8), DType.INT8, Quant((a,), (3,)))
    w = Tensor("weights", (4, 8), DType.INT8, Quant((b,), (0,)), int8_weights(rng, (4, 8)))
    y = Tensor("output", (), DType.INT8, Quant((c,), (-5,)))
    op = single_op("FULLY_CONNECTED", [x, w, None], y, FullyConnectedAttrs()).ops[0]
    call = lower(op)
    assert call.kernel == "mf_fc_s8"
    assert (call.params["mult"], call.params["shift"]) == quant.dense_multiplier(a, b, c)


def test_asymmetric_weights_are_refused():
    rng = np.random.default_rng(SEED)
    x = Tensor("input", (1, 8), DType.INT8, Quant((0.1,), (3,)))
    w = Tensor("weights", (4, 8), DType.INT8, Quant((0.01,), (7,)), int8_weights(rng, (4, 8)))
    y = Tensor("output", (), DType.INT8, Quant((0.2,), (0,)))
    op = single_op("FULLY_CONNECTED", [x, w, None], y, FullyConnectedAttrs()).ops[0]
    with pytest.raises(UnsupportedError, match="must be symmetric"):
        lower(op)


def test_corpus_fully_connected_ops_match_tflm():
    """Each fully_connected op of the corpus models, alone, on random inputs."""
    cases = corpus_cases(("FULLY_CONNECTED",), np.random.default_rng(SEED))
    assert cases
    check_cases(cases)
