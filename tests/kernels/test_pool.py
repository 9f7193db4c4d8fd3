"""AVERAGE_POOL_2D and MAX_POOL_2D conformance: seeded random single-op models vs TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.ir import DType, Tensor
from microfuse.ops.attrs import PoolAttrs
from microfuse.testing import inputs, modelgen
from microfuse.testing.stages import lower
from microfuse.tflite.writer import write
from microfuse.verify import verify
from tests.harness import QEMU, Case, always_fuse, case_count, check_cases, check_graph, failures, run_cases  # noqa: F401
from tests.kernels.cases import (ACTIVATIONS, act_quant, corpus_cases, feed, single_op)

SEED = 31
KINDS = ("AVERAGE_POOL_2D", "MAX_POOL_2D")


def pool_attrs(rng: np.random.Generator, h: int, w: int) -> PoolAttrs:
    """Random pooling window; a quarter are global pools (the window is the whole image)."""
    act = str(rng.choice(ACTIVATIONS))
    if rng.random() < 0.25:
        return PoolAttrs("VALID", 1, 1, w, h, act)
    while True:
        fh, fw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        padding = str(rng.choice(["SAME", "VALID"]))
        if padding == "SAME" or (fh <= h and fw <= w):
            return PoolAttrs(padding, int(rng.integers(1, 4)), int(rng.integers(1, 4)), fw, fh, act)


def pool_case(rng: np.random.Generator, i: int, kind: str, dtype: DType) -> Case:
    n, h, w, c = int(rng.choice([1, 1, 2])), int(rng.integers(1, 12)), int(rng.integers(1, 12)), int(rng.integers(1, 9))
    attrs = pool_attrs(rng, h, w)
    q = act_quant(rng) if dtype == DType.INT8 else None
    x = Tensor("input", (n, h, w, c), dtype, q)
    y = Tensor("output", (), dtype, q)  # TFLite requires the input's quantization
    graph = single_op(kind, [x], y, attrs)
    return Case(f"{kind.lower()}{i} {dtype} in {[n, h, w, c]} {attrs}", graph,
                feed(rng, graph, extreme=i % 9 == 8))


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_pool_matches_tflm(kind, dtype):
    rng = np.random.default_rng(SEED + KINDS.index(kind) * 2 + (dtype == DType.FLOAT32))
    cases = [pool_case(rng, i, kind, dtype) for i in range(case_count(15, 40))]
    check_cases(cases)


def test_average_pool_rounds_half_away_from_zero_and_counts_only_inside_taps():
    """A 2x2 SAME-padded corner averages fewer taps; sums that end in .5 round away from 0."""
    x = Tensor("input", (1, 3, 3, 1), DType.INT8, act_quant(np.random.default_rng(0)))
    y = Tensor("output", (), DType.INT8, x.quant)
    graph = single_op("AVERAGE_POOL_2D", [x], y, PoolAttrs("SAME", 2, 2, 2, 2))
    data = np.array([[1, 2, -3], [0, 2, -4], [-5, 6, -1]], np.int8).reshape(1, 3, 3, 1)
    (got,) = run_cases([Case("avg", graph, [data])])
    # windows: {1,2,0,2} -> 5/4 = 1.25 -> 1; {-3,-4} -> -3.5 -> -4; {-5,6} -> 0.5 -> 1; {-1} -> -1
    assert got.reshape(-1).tolist() == [1, -4, 1, -1]
    assert failures([Case("avg", graph, [data])], [got]) == []


def test_pool_calibrated_models_match_tflm():
    rng = np.random.default_rng(SEED)
    cases = []
    for i, kw in enumerate([dict(kind="AVERAGE", in_shape=(1, 7, 7, 8), filter=3, stride=2, padding="SAME"),
                            dict(kind="MAX", in_shape=(1, 9, 9, 4), filter=2, stride=2, activation="RELU6"),
                            dict(kind="AVERAGE", in_shape=(2, 5, 5, 3), filter=5, stride=1, padding="VALID")]):
        for dtype in (DType.INT8, DType.FLOAT32):
            graph = modelgen.pool(rng, dtype=dtype, **kw)
            cases.append(Case(f"modelgen pool{i} {dtype} {kw}", graph, inputs.sample(graph.inputs, rng)))
    check_cases(cases)


def test_pool_lowering_padding_and_kernel_names():
    x = Tensor("input", (1, 5, 6, 2), DType.FLOAT32)
    y = Tensor("output", (), DType.FLOAT32)
    op = single_op("MAX_POOL_2D", [x], y, PoolAttrs("SAME", 2, 2, 3, 4, "RELU6")).ops[0]
    call = lower(op)
    # height: out 3, total (3-1)*2 + 4 - 5 = 3 -> 1 before; width: out 3, (3-1)*2 + 3 - 6 = 1 -> 0
    assert (call.kernel, call.params["pad_h"], call.params["pad_w"]) == ("mf_pool_max_f32", 1, 0)
    assert (call.params["act_min"], call.params["act_max"]) == (0.0, 6.0)


def test_corpus_pool_ops_match_tflm():
    """Each pool op of the corpus models, alone, on random inputs."""
    cases = corpus_cases(("AVERAGE_POOL_2D", "MAX_POOL_2D"), np.random.default_rng(SEED))
    assert cases
    check_cases(cases)


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=str)
def test_mac_chain_through_the_whole_pipeline(dtype):
    """conv -> depthwise -> average pool -> max pool -> dense, built, planned, emitted and run
    by microfuse.testing.host (the real emitter formats our params), equal to TFLM."""
    from microfuse.ops.attrs import ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs

    rng = np.random.default_rng(SEED)
    net = modelgen.Net("mac_chain", rng)
    x = net.input((1, 11, 9, 3))
    x = net.op("CONV_2D", [x, net.weights((6, 3, 3, 3), 27, 0), net.bias(6)],
               ConvAttrs("SAME", 2, 1, "RELU", 1, 2), per_channel=True)
    x = net.op("DEPTHWISE_CONV_2D", [x, net.weights((1, 3, 3, 12), 9, 3), net.bias(12)],
               DepthwiseAttrs("VALID", 1, 1, 2, "RELU6"), per_channel=True)
    x = net.op("AVERAGE_POOL_2D", [x], PoolAttrs("SAME", 1, 1, 2, 2))
    x = net.op("MAX_POOL_2D", [x], PoolAttrs("SAME", 2, 2, 2, 2, "RELU"))
    x = net.op("FULLY_CONNECTED", [x, net.weights((5, 12), 12, 0), net.bias(5)], FullyConnectedAttrs())
    graph = net.finish([x], dtype)
    check_graph(graph, rng, samples=3, options=Options())


def lane_pools(rng: np.random.Generator):
    """Global int8 average pools about the int16 lane limit (mf_pool_body.h MF_POOL_LANE_TAPS):
    16x16 = 256 taps summed four channels at a time, 16x17 = 272 channel by channel; channels
    4-7, so a pixel has a group of four and up to three single channels."""
    graphs = []
    for h, w, c in ((16, 16, 6), (16, 17, 5), (16, 16, 4), (3, 3, 7)):
        q = act_quant(rng)
        x = Tensor("input", (1, h, w, c), DType.INT8, q)
        graphs.append(single_op("AVERAGE_POOL_2D", [x], Tensor("output", (), DType.INT8, q),
                                PoolAttrs("VALID", 1, 1, w, h, "NONE")))
    return modelgen.merge(graphs, "lanes")


@pytest.mark.parametrize("board", ["host", pytest.param("qemu-mps2-an386", marks=QEMU)])
def test_average_pool_sums_four_channels_in_int16_lanes_up_to_256_taps(board, tmp_path):
    """The default build, extreme inputs included (verify's all -128 and all 127 samples: the
    lanes' bounds), on the host's C path and the Cortex-M4's SXTAB16."""
    model = tmp_path / "lanes.tflite"
    model.write_bytes(write(lane_pools(np.random.default_rng(SEED))))
    verdict, _, _ = verify(model, board, n=2, seed=SEED)
    assert verdict.ok, verdict.line(False)


def test_average_by_reciprocal_is_exact_for_every_count_and_sum():
    """mf_pool_body.h's average, in numpy: lanes start at 128 * count + count / 2 (+1 for count
    1), sum onto it, an even count takes one off a lane below its start (a negative sum),
    UMULL's high word by M = ceil(2^32 / count) (2^32 - 1 for count 1), XOR 0x80. Against
    TFLite Micro's division rounding half away from zero, for every count the int16 lanes take
    (1 .. 256) and every sum of that many int8 taps."""
    for count in range(1, 257):
        v = np.arange(-128 * count, 127 * count + 1, dtype=np.int64)
        start = 128 * count + count // 2 + (count == 1)
        recip = 0xFFFFFFFF // count + 1 if count > 1 else 0xFFFFFFFF
        n = (v + start) & 0xFFFF            # the uint16 lane, as SXTAB16 wraps
        assert n.min() >= 0 and n.max() < 1 << 16 and (n == v + start).all()
        if count % 2 == 0:
            n = n - (n < start)
        q = (n.astype(np.uint64) * np.uint64(recip)) >> np.uint64(32)
        assert (q <= 255).all(), count
        got = (q ^ np.uint64(0x80)).astype(np.uint8).view(np.int8)
        half = count // 2
        want = np.where(v > 0, (v + half) // count, -((half - v) // count))
        assert (got == want).all(), (count, v[got != want][:5])


AVERAGE_SPECS = [((1, 6, 7, 8), PoolAttrs("SAME", 2, 2, 3, 3, "RELU6")),
                 ((2, 5, 5, 12), PoolAttrs("SAME", 1, 1, 2, 2, "RELU")),
                 ((1, 4, 4, 4), PoolAttrs("VALID", 1, 1, 1, 1, "NONE")),
                 ((1, 3, 3, 16), PoolAttrs("VALID", 1, 1, 3, 3, "NONE")),
                 ((1, 8, 8, 8), PoolAttrs("VALID", 1, 1, 8, 8, "NONE")),
                 ((1, 5, 6, 9), PoolAttrs("SAME", 2, 2, 4, 2, "RELU_N1_TO_1")),
                 ((1, 7, 5, 6), PoolAttrs("VALID", 2, 2, 2, 3, "NONE")),
                 ((1, 4, 6, 4), PoolAttrs("SAME", 1, 1, 5, 5, "NONE"))]


def average_pool_graphs(rng: np.random.Generator):
    """int8 average pools through the four-channel path (mf_pool_body.h): odd and even tap
    counts (ties away from zero), windows clipped by SAME padding (several counts in one op,
    runs of several rows), one tap (count 1), global windows, a clamp in every activation, and
    channel counts with and without a tail past the groups of four."""
    graphs = []
    for shape, attrs in AVERAGE_SPECS:
        q = act_quant(rng)
        x = Tensor("input", shape, DType.INT8, q)
        graphs.append(single_op("AVERAGE_POOL_2D", [x], Tensor("output", (), DType.INT8, q), attrs))
    return graphs


@pytest.mark.parametrize("board", ["host", pytest.param("qemu-mps2-an386", marks=QEMU),
                                   pytest.param("qemu-mps2-an500", marks=QEMU)])
def test_average_pool_four_channels_by_reciprocal(board, tmp_path):
    """The reciprocal average, the tie fix (USUB16/SEL), the byte clamp (USUB8/SEL) and the
    word store, equal to TFLM on the host's C path, the Cortex-M4 and the Cortex-M7."""
    model = tmp_path / "averages.tflite"
    model.write_bytes(write(modelgen.merge(average_pool_graphs(np.random.default_rng(SEED + 7)), "averages")))
    verdict, _, _ = verify(model, board, n=4, seed=SEED)
    assert verdict.ok, verdict.line(False)


def test_average_pool_four_channels_cases():
    """The same pools one by one, random and extreme inputs (all taps -128 or 127)."""
    rng = np.random.default_rng(SEED + 9)
    graphs = average_pool_graphs(np.random.default_rng(SEED + 7))
    check_cases([Case(f"average{i} {AVERAGE_SPECS[i]}", g, feed(rng, g, extreme=e))
                 for i, g in enumerate(graphs) for e in (False, True)])


def test_average_pool_four_channels_into_a_table(always_fuse):  # noqa: F811 (the fixture)
    """An int8 average pool with a TANH fused behind it (mf_pool_avg_s8_lut): the four averages'
    word unpacked byte by byte through the table; a clipped SAME window (odd and even counts),
    eight channels and a tail of three."""
    from microfuse.testing.stages import compile_model

    rng = np.random.default_rng(SEED + 11)
    graphs = []
    for shape, attrs in (((1, 6, 7, 8), PoolAttrs("SAME", 2, 2, 3, 3)), ((1, 5, 4, 11), PoolAttrs("SAME", 1, 1, 2, 2))):
        net = modelgen.Net("avg_tanh", rng)
        x = net.input(shape)
        x = net.op("AVERAGE_POOL_2D", [x], attrs)
        graphs.append(net.finish([net.op("TANH", [x], None)], DType.INT8))
    graph = modelgen.merge(graphs, "avg_tanh")
    assert "mf_pool_avg_s8_lut" in [c.kernel for c in compile_model(graph, Options()).calls]
    check_graph(graph, rng, samples=4, options=Options())
