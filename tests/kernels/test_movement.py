"""Conformance of the data-movement ops (TRANSPOSE, SLICE, STRIDED_SLICE, REVERSE_V2, GATHER,
GATHER_ND, EMBEDDING_LOOKUP, DEPTH_TO_SPACE, SPACE_TO_DEPTH, MIRROR_PAD, PADV2, BROADCAST_TO, FILL,
DYNAMIC_UPDATE_SLICE, CUMSUM) against TFLite Micro, seeded, for every type TFLM registers.
Runtime index operands are fed valid indices (TFLM fails the invoke otherwise), except
DYNAMIC_UPDATE_SLICE's start indices, which TFLM clamps: those are fed anything."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.errors import UnsupportedError
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.ops.attrs import (ActivationAttrs, ConcatAttrs, NoAttrs, PackAttrs, ReshapeAttrs, ShapeAttrs,
                                 SqueezeAttrs, StridedSliceAttrs)
from microfuse.ops.movement import BlockAttrs, CumsumAttrs, GatherAttrs, MirrorPadAttrs
from microfuse.passes.fold import fold_constants
from microfuse.passes.fold_movement import MOVEMENT
from microfuse.passes.movement_alias import alias_identity_copies
from microfuse.testing import inputs
from microfuse.testing.modelgen import merge
from microfuse.tflite import reader
from tests.conftest import model
from microfuse.testing.compare import difference
from microfuse.testing.host import run_graph
from microfuse.testing.stages import lower
from microfuse.tflite.writer import write
from microfuse.verify import verify
from tests.harness import case_count, check_graph, on_qemu, reference
from tests.kernels.cases import rand_quant, tensor

I8, I16, I32, F32, BOOL = DType.INT8, DType.INT16, DType.INT32, DType.FLOAT32, DType.BOOL
Feeds = dict  # id(graph input) -> (rng -> array): inputs that must hold valid indices


def _shape(rng, rank: int, lo: int = 1, hi: int = 5) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(lo, hi, size=rank))


def _x(rng, shape, dtype, name: str = "x") -> Tensor:
    return tensor(name, shape, dtype, rand_quant(rng) if dtype in (I8, I16) else None)


def _out(x: Tensor, name: str = "y") -> Tensor:
    return tensor(name, (), x.dtype, x.quant)


def _ints(name: str, values, dtype=I32) -> Tensor:
    data = np.asarray(values, dtype=dtype.np)
    return tensor(name, data.shape, dtype, data=data)


def _data(rng, t: Tensor) -> Tensor:
    """`t` made a constant with random contents."""
    t.data = inputs.random(t, rng)
    return t


def check(cases: list[tuple], rng: np.random.Generator, samples: int = 2) -> None:
    """Every (graph, feeds) case merged into one model, each output against TFLM."""
    graphs = [g for g, _ in cases]
    feeds: Feeds = {k: v for _, f in cases for k, v in f.items()}
    owners = [f"case {i}: {g.ops[-1].kind} {[list(t.shape) for t in g.ops[-1].inputs if t is not None]}"
              for i, g in enumerate(graphs) for _ in g.outputs]
    graph = merge(graphs)
    data = [[feeds[id(t)](rng) if id(t) in feeds else inputs.random(t, rng, 2.0) for t in graph.inputs]
            for _ in range(samples)]
    check_graph(graph, samples=data, owners=owners)


def _one(kind, operands, attrs, feeds: Feeds | None = None, out: Tensor | None = None):
    """A one-op graph (output shape by the op's rule) whose runtime operands are its inputs."""
    out = out or _out(operands[0])
    op = Op(kind, operands, [out], attrs, name=kind.lower(), index=0)
    shape, _ = ops.infer(op)[0]
    out.shape = tuple(int(d) for d in shape)
    graph = Graph([op], [t for t in operands if t is not None and not t.is_const], [out], name=kind.lower())
    if kind != "FILL":  # fill_case wires its value's producer in
        graph.verify()
    assert not ops.problems(op), ops.problems(op)
    return graph, feeds or {}


# -- the strided copies ----------------------------------------------------------------------

def transpose_case(rng, dtype):
    rank = int(rng.integers(1, 6))  # this TFLM: "Transpose op only supports 1D-5D input arrays"
    x = _x(rng, _shape(rng, rank, 1, 4), dtype)
    return _one("TRANSPOSE", [x, _ints("perm", rng.permutation(rank))], NoAttrs())


def slice_case(rng, dtype):
    rank = int(rng.integers(1, 6))
    shape = _shape(rng, rank, 1, 6)
    begin = [int(rng.integers(0, d)) for d in shape]
    size = [-1 if rng.random() < 0.2 else int(rng.integers(1, d - b + 1)) for b, d in zip(begin, shape)]
    it = I32 if rng.random() < 0.7 else DType.INT64
    return _one("SLICE", [_x(rng, shape, dtype), _ints("begin", begin, it), _ints("size", size, it)], NoAttrs())


def strided_slice_case(rng, dtype):
    rank = int(rng.integers(1, 5))  # this TFLM: "input dim should not exceed 4"
    shape = _shape(rng, rank, 1, 7)
    while True:
        begin = [int(rng.integers(-d, d)) for d in shape]
        end = [int(rng.integers(-d, d + 1)) for d in shape]
        strides = [int(rng.choice([1, 1, 2, 3, -1, -2])) for _ in shape]
        masks = [int(rng.integers(0, 1 << rank)) for _ in range(2)]
        shrink = int(rng.integers(0, 1 << rank)) if rng.random() < 0.3 else 0
        strides = [abs(s) if shrink >> k & 1 else s for k, s in enumerate(strides)]  # see lower_strided_slice
        attrs = StridedSliceAttrs(begin_mask=masks[0], end_mask=masks[1], shrink_axis_mask=shrink)
        operands = [_x(rng, shape, dtype), _ints("begin", begin), _ints("end", end), _ints("strides", strides)]
        try:
            graph, feeds = _one("STRIDED_SLICE", operands, attrs)
        except (AssertionError, IndexError):
            continue  # a shrunk axis indexed outside the input: draw again
        if graph.outputs[0].elements:
            return graph, feeds


def reverse_case(rng, dtype):
    rank = int(rng.integers(1, 6))
    first = int(rng.integers(0, rank))  # TFLM: contiguous axes only
    axes = list(range(first, int(rng.integers(first + 1, rank + 1))))
    axes = [a - rank if rng.random() < 0.3 else a for a in axes]
    return _one("REVERSE_V2", [_x(rng, _shape(rng, rank), dtype), _ints("axis", axes)], NoAttrs())


def d2s_case(rng, dtype):
    b = int(rng.integers(1, 4))
    n, h, w, c = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    return _one("DEPTH_TO_SPACE", [_x(rng, (n, h, w, c * b * b), dtype)], BlockAttrs(b))


def s2d_case(rng, dtype):
    b = int(rng.integers(1, 4))
    n, h, w, c = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    return _one("SPACE_TO_DEPTH", [_x(rng, (n, h * b, w * b, c), dtype)], BlockAttrs(b))


def broadcast_to_case(rng, dtype):
    rank = int(rng.integers(1, 6))
    target = _shape(rng, rank, 1, 5)
    src_rank = int(rng.integers(1, rank + 1))
    src = tuple(1 if rng.random() < 0.5 else d for d in target[rank - src_rank:])
    return _one("BROADCAST_TO", [_x(rng, src, dtype), _ints("shape", target)], NoAttrs())


def fill_case(rng, dtype):
    """FILL of a runtime scalar: TFLM's Python binding cannot set a 0-D input, so the value is
    fed as [1] and reshaped (RESHAPE is an alias here, a copy in TFLM)."""
    dims = _shape(rng, int(rng.integers(1, 5)))
    fed = _x(rng, (1,), dtype, "value")
    value = tensor("scalar", (), dtype, fed.quant)
    reshape = Op("RESHAPE", [fed, _ints("shape", np.zeros(0, np.int32))], [value], ReshapeAttrs(()), "reshape")
    graph, _ = _one("FILL", [_ints("dims", dims), value], NoAttrs(), out=_out(value))
    fill = graph.ops[0]
    graph = Graph([reshape, fill], [fed], fill.outputs, name="fill")
    graph.verify()
    return graph, {}


# -- padding ---------------------------------------------------------------------------------

def padv2_case(rng, dtype):
    shape = _shape(rng, int(rng.integers(1, 6)))
    pads = rng.integers(0, 3, size=(len(shape), 2))
    x = _x(rng, shape, dtype)
    value = _data(rng, tensor("value", (), dtype, x.quant))
    return _one("PADV2", [x, _ints("paddings", pads), value], NoAttrs())


def mirror_pad_case(rng, dtype):
    mode = str(rng.choice(["REFLECT", "SYMMETRIC"]))
    shape = _shape(rng, int(rng.integers(1, 6)), 1, 5)
    extra = mode == "REFLECT"
    pads = [[int(rng.integers(0, d - extra + 1)) for _ in range(2)] for d in shape]
    return _one("MIRROR_PAD", [_x(rng, shape, dtype), _ints("paddings", pads)], MirrorPadAttrs(mode))


# -- gathers ---------------------------------------------------------------------------------

def _indices(rng, name: str, shape, bound: int, const: bool, feeds: Feeds) -> Tensor:
    t = tensor(name, shape, I32)
    draw = lambda r: r.integers(0, bound, size=shape).astype(np.int32)  # noqa: E731
    if const:
        t.data = draw(rng)
    else:
        feeds[id(t)] = draw
    return t


def gather_case(rng, dtype):
    rank = int(rng.integers(1, 5))
    shape = _shape(rng, rank)
    axis = int(rng.integers(0, rank))
    batch = int(rng.integers(0, axis + 1)) if rng.random() < 0.4 else 0
    const_table = rng.random() < 0.3
    idx_shape = tuple(shape[:batch]) + _shape(rng, int(rng.integers(0, 3)))
    runtime = const_table or rng.random() < 0.4
    if runtime and not idx_shape:
        idx_shape = (1,)  # TFLM's Python binding sets no 0-D input
    x = _x(rng, shape, dtype)
    if const_table:
        _data(rng, x)
    feeds: Feeds = {}
    idx = _indices(rng, "idx", idx_shape, shape[axis], not runtime, feeds)
    attrs = GatherAttrs(axis - rank if rng.random() < 0.3 else axis, batch)
    return _one("GATHER", [x, idx], attrs, feeds)


def gather_nd_case(rng, dtype):
    shape = _shape(rng, int(rng.integers(1, 5)))
    nd = int(rng.integers(1, len(shape) + 1))
    lead = _shape(rng, int(rng.integers(0, 3)))
    feeds: Feeds = {}
    const_table = rng.random() < 0.3
    x = _data(rng, _x(rng, shape, dtype)) if const_table else _x(rng, shape, dtype)
    idx = tensor("idx", lead + (nd,), I32)
    draw = lambda r: np.stack([r.integers(0, d, size=lead) for d in shape[:nd]], -1).astype(np.int32)  # noqa: E731
    if not const_table and rng.random() < 0.6:
        idx.data = draw(rng)
    else:
        feeds[id(idx)] = draw
    return _one("GATHER_ND", [x, idx], NoAttrs(), feeds)


def embedding_case(rng, dtype):
    rows = int(rng.integers(1, 8))
    value = _x(rng, (rows,) + _shape(rng, int(rng.integers(1, 3))), dtype, "table")
    feeds: Feeds = {}
    const_table = rng.random() < 0.6
    if const_table:
        _data(rng, value)
    lookup = _indices(rng, "lookup", (int(rng.integers(1, 6)),), rows, not const_table and rng.random() < 0.5,
                      feeds)
    out = _out(value)
    if dtype == I8 and rng.random() < 0.4:  # hybrid: TFLM dequantizes the int8 rows to float32
        value.quant = Quant(value.quant.scale, (0,))
        out = tensor("y", (), F32)
    return _one("EMBEDDING_LOOKUP", [lookup, value], None, feeds, out)


# -- DYNAMIC_UPDATE_SLICE and CUMSUM ---------------------------------------------------------

def update_slice_case(rng, dtype):
    rank = int(rng.integers(1, 7))
    shape = _shape(rng, rank, 1, 4)
    x = _x(rng, shape, dtype)
    u = tensor("u", tuple(int(rng.integers(1, d + 1)) for d in shape), dtype, x.quant)
    it = I32 if rng.random() < 0.7 else DType.INT64
    idx = tensor("start", (rank,), it)
    draw = lambda r: r.integers(-2, 5, size=rank).astype(it.np)  # noqa: E731  (outside: clamped)
    feeds: Feeds = {}
    if rng.random() < 0.5:
        idx.data = draw(rng)
    else:
        feeds[id(idx)] = draw
    return _one("DYNAMIC_UPDATE_SLICE", [x, u, idx], NoAttrs(), feeds)


def cumsum_case(rng, dtype):
    rank = int(rng.integers(1, 5))
    shape = _shape(rng, rank, 1, 6)
    axis = int(rng.integers(-rank, rank))
    x = _x(rng, shape, dtype)
    out = _out(x) if dtype == F32 else tensor("y", (), dtype, rand_quant(rng, -1.5, 0.5))
    attrs = CumsumAttrs(exclusive=bool(rng.random() < 0.5), reverse=bool(rng.random() < 0.5))
    return _one("CUMSUM", [x, tensor("axis", (), I32, data=np.array(axis, np.int32))],
                attrs, out=out)


BUILDERS = {
    "TRANSPOSE": (transpose_case, (I8, I16, F32)),
    "SLICE": (slice_case, (I8, I16, I32, F32, BOOL)),
    "STRIDED_SLICE": (strided_slice_case, (I8, I16, I32, F32, BOOL)),
    "REVERSE_V2": (reverse_case, (I8, I16, I32, F32, BOOL)),
    "DEPTH_TO_SPACE": (d2s_case, (I8, F32)),
    "SPACE_TO_DEPTH": (s2d_case, (I8, F32)),
    "BROADCAST_TO": (broadcast_to_case, (I8, I16, I32, F32, BOOL)),
    "FILL": (fill_case, (I8, I32, F32)),
    "PADV2": (padv2_case, (I8, I16, I32, F32)),
    "MIRROR_PAD": (mirror_pad_case, (I8, F32)),
    "GATHER": (gather_case, (I8, F32)),
    "GATHER_ND": (gather_nd_case, (I8, F32)),
    "EMBEDDING_LOOKUP": (embedding_case, (I8, F32)),
    "DYNAMIC_UPDATE_SLICE": (update_slice_case, (I8, I32, F32)),
    "CUMSUM": (cumsum_case, (I8, F32)),
}


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_movement_matches_tflm(kind):
    build, dtypes = BUILDERS[kind]
    rng = np.random.default_rng(1400 + sorted(BUILDERS).index(kind))
    cases = [build(rng, dtypes[i % len(dtypes)]) for i in range(case_count(10, 30))]
    check(cases, rng)


# -- real models ---------------------------------------------------------------------------------

def test_seanet_int16_pad_and_strided_slice_match_tflm():
    """Every SEANet PAD / STRIDED_SLICE layer (int16 activations, TFLM's own integration tests),
    merged into one model, with all-minimum, all-maximum and random inputs."""
    paths = sorted(model("seanet/pad0").parent.glob("pad*.tflite")) + \
        sorted(model("seanet/strided_slice0").parent.glob("strided_slice*.tflite"))
    graphs = [reader.read(p) for p in paths]
    assert len(graphs) >= 20 and all(g.ops[0].inputs[0].dtype == I16 for g in graphs)
    owners = [f"{p.name} op 0 {g.ops[0].kind}" for p, g in zip(paths, graphs) for _ in g.outputs]
    graph = merge(graphs)
    check_graph(graph, samples=inputs.samples(graph, 3, 14), owners=owners)


def test_pytorch_mobilenet_input_transpose_matches_tflm():
    """The NCHW -> NHWC TRANSPOSE in front of every PyTorch export, at its real size (the whole
    model: `microfuse verify pytorch_mobilenet_v2_224_int8.tflite`, too slow for the suite)."""
    source = reader.read(model("tflm/pytorch_mobilenet_v2_224_int8"))
    op = source.ops[0]
    assert op.kind == "TRANSPOSE" and op.inputs[0] in source.inputs
    graph = Graph([op], [op.inputs[0]], [op.outputs[0]], name="transpose")
    check_graph(graph, samples=inputs.samples(graph, 1, 3))


# -- folding (passes/fold_movement.py) -----------------------------------------------------------

def _folded_then_added(rng, kind: str, dtype: DType):
    """The case with every operand made a constant, its output added to a graph input (so the
    folded value is used, not a constant graph output)."""
    graph, feeds = BUILDERS[kind][0](rng, dtype)
    for op in graph.ops:
        for t in op.inputs:
            if t is not None and not t.is_const and t not in [o for p in graph.ops for o in p.outputs]:
                t.data = feeds[id(t)](rng) if id(t) in feeds else inputs.random(t, rng)
    y = graph.outputs[0]
    z = tensor("z", y.shape, y.dtype, rand_quant(rng) if y.dtype == I8 else None)
    out = tensor("sum", y.shape, y.dtype, rand_quant(rng) if y.dtype == I8 else None)
    add = Op("ADD", [y, z], [out], ActivationAttrs(), "add")
    return Graph([*graph.ops, add], [z], [out], name=kind.lower())


@pytest.mark.parametrize("kind", sorted(set(MOVEMENT) & set(BUILDERS)))
def test_constant_movement_folds_and_matches_tflm(kind):
    rng = np.random.default_rng(1500 + sorted(BUILDERS).index(kind))
    dtypes = [d for d in BUILDERS[kind][1] if d in (I8, F32)]
    graphs = [_folded_then_added(rng, kind, dtypes[i % len(dtypes)]) for i in range(4)]
    for g in graphs:
        assert [op.kind for op in fold_constants(g).ops] == ["ADD"], kind
    cases = [(g, {}) for g in graphs]
    check(cases, rng)


def test_shape_broadcast_args_broadcast_to_fold_to_one_copy():
    """SHAPE -> BROADCAST_ARGS -> BROADCAST_TO on static shapes: the shape arithmetic folds, the
    broadcast is one mf_move call."""
    rng = np.random.default_rng(16)
    x = _x(rng, (3, 1, 4), F32)
    shape = tensor("shape", (3,), I32)
    both = tensor("both", (3,), I32)
    y = tensor("y", (3, 2, 4), F32)
    graph = Graph([Op("SHAPE", [x], [shape], ShapeAttrs(), "shape"),
                   Op("BROADCAST_ARGS", [shape, _ints("other", [1, 2, 1])], [both], NoAttrs(), "args"),
                   Op("BROADCAST_TO", [x, both], [y], NoAttrs(), "to")], [x], [y], name="bargs")
    graph.verify()
    folded = fold_constants(graph)
    assert [op.kind for op in folded.ops] == ["BROADCAST_TO"]
    feeds = inputs.samples(graph, 2, 16)
    # TFLM refuses a BROADCAST_TO whose shape is computed ("Non-constant >shape< tensor"): it runs
    # the folded graph, we build the original
    for got, want in zip(run_graph(graph, feeds), reference(folded, feeds)):
        assert difference(got[0], want[0], "y") is None


# -- int16 (and int32) through the existing data ops: PAD, CONCATENATION, PACK, RESHAPE family ----

def _q16(rng) -> Quant:
    return Quant((float(np.float32(10 ** rng.uniform(-4, -2))),), (0,))  # int16: symmetric, as TFLM's


def pad_case(rng, dtype):
    """TFLM pads int16 with 0 whatever the zero point: some cases have one."""
    shape = _shape(rng, int(rng.integers(1, 6)))
    pads = rng.integers(0, 3, size=(len(shape), 2))
    q = _q16(rng) if dtype == I16 else None
    if q is not None and rng.random() < 0.5:
        q = Quant(q.scale, (int(rng.integers(-100, 100)),))
    x = tensor("x", shape, dtype, q)
    return _one("PAD", [x, _ints("paddings", pads)], NoAttrs())


def concat_case(rng, dtype):
    rank = int(rng.integers(1, 5))
    base, axis = list(_shape(rng, rank)), int(rng.integers(0, rank))
    q = _q16(rng) if dtype == I16 else None
    xs = []
    for k in range(int(rng.integers(2, 5))):
        s = list(base)
        s[axis] = int(rng.integers(1, 4))
        xs.append(tensor(f"x{k}", s, dtype, q))
    return _one("CONCATENATION", xs, ConcatAttrs(axis - rank if rng.random() < 0.3 else axis))


def pack_case(rng, dtype):
    shape = _shape(rng, int(rng.integers(1, 4)))
    q = _q16(rng) if dtype == I16 else None
    xs = [tensor(f"x{k}", shape, dtype, q) for k in range(int(rng.integers(1, 4)))]
    axis = int(rng.integers(0, len(shape) + 1))
    return _one("PACK", xs, PackAttrs(len(xs), axis))


def reshape_case(rng, dtype):
    """RESHAPE / SQUEEZE / EXPAND_DIMS (aliases) between two int16 PADs, so they sit between kernels."""
    shape = _shape(rng, 3)
    x = tensor("x", shape, dtype, _q16(rng))
    zero = _ints("paddings", np.zeros((3, 2), np.int32))
    a = tensor("a", shape, dtype, x.quant)
    kind = str(rng.choice(["RESHAPE", "SQUEEZE", "EXPAND_DIMS"]))
    if kind == "RESHAPE":
        b = tensor("b", (int(np.prod(shape)),), dtype, x.quant)
        mid = Op(kind, [a, _ints("shape", [-1])], [b], ReshapeAttrs(()), "reshape")
    elif kind == "SQUEEZE":
        b = tensor("b", shape, dtype, x.quant)
        mid = Op(kind, [a], [b], SqueezeAttrs(()), "squeeze")
    else:
        b = tensor("b", (1,) + shape, dtype, x.quant)
        mid = Op(kind, [a, tensor("axis", (), I32, data=np.array(0, np.int32))], [b], NoAttrs(), "expand")
    b.shape = tuple(int(d) for d in ops.infer(mid)[0][0])
    rank = len(b.shape)
    c = tensor("c", b.shape, dtype, x.quant)
    ops_ = [Op("PAD", [x, zero], [a], NoAttrs(), "pad_a"), mid,
            Op("PAD", [b, _ints("pads_b", np.ones((rank, 2), np.int32))], [c], NoAttrs(), "pad_c")]
    c.shape = tuple(d + 2 for d in b.shape)
    graph = Graph(ops_, [x], [c], name="reshape")
    graph.verify()
    return graph, {}


INT16_BUILDERS = {"PAD": (pad_case, (I16, I32)), "CONCATENATION": (concat_case, (I16, I32)),
                  "PACK": (pack_case, (I8, I16, I32, F32)), "RESHAPE": (reshape_case, (I16,))}


@pytest.mark.parametrize("kind", sorted(INT16_BUILDERS))
def test_int16_data_ops_match_tflm(kind):
    build, dtypes = INT16_BUILDERS[kind]
    rng = np.random.default_rng(1600 + sorted(INT16_BUILDERS).index(kind))
    check([build(rng, dtypes[i % len(dtypes)]) for i in range(case_count(8, 30))], rng)


# -- what is refused, and how it is said -------------------------------------------------------

def _problems(kind, operands, attrs=None, out=None) -> list[str]:
    out = out or tensor("y", (1,), operands[0].dtype, operands[0].quant)
    return ops.problems(Op(kind, operands, [out], attrs, name=kind.lower(), index=0))


def test_constraint_messages():
    rng = np.random.default_rng(0)
    x5, x6 = _x(rng, (1, 2, 1, 2, 1), I8), _x(rng, (1, 2, 1, 2, 1, 2), I8)
    runtime_perm = tensor("perm", (5,), I32)
    assert _problems("TRANSPOSE", [x6, _ints("perm", range(6))]) == ["rank 6 is not supported (TFLM takes 1 to 5)"]
    assert _problems("TRANSPOSE", [x5, runtime_perm]) == ["the permutation must be a constant"]
    assert _problems("TRANSPOSE", [x5, _ints("perm", [0, 1, 2, 3, 3])]) == \
        ["perm [0, 1, 2, 3, 3] is not a permutation of the 5 axes"]
    assert _problems("REVERSE_V2", [x5, _ints("axis", [0, 2])]) == \
        ["axes [0, 2] are not contiguous (TFLM reverses contiguous axes only)"]
    assert _problems("SLICE", [x5, _ints("b", [0, 1, 0, 0, 0]), _ints("s", [1, 2, 1, 1, 1])]) == \
        ["begin [0, 1, 0, 0, 0] / size [1, 2, 1, 1, 1] fall outside the input shape [1, 2, 1, 2, 1]"]
    assert _problems("GATHER", [x5, _ints("i", [0])], GatherAttrs(axis=5)) == \
        ["axis 5 is not an axis of the rank-5 input"]
    assert _problems("MIRROR_PAD", [_x(rng, (2, 3), F32), _ints("p", [[0, 0], [3, 0]])], MirrorPadAttrs("REFLECT")) \
        == ["REFLECT padding 3 is larger than the axis allows (2)"]
    assert _problems("FILL", [_ints("dims", [2]), tensor("v", (), BOOL)]) == \
        ["value type bool is not supported (TFLM takes float32, int8, int32)"]
    assert _problems("DYNAMIC_UPDATE_SLICE", [x5, _x(rng, (1, 3, 1, 1, 1), I8), _ints("s", [0] * 5)]) == \
        ["update [1, 3, 1, 1, 1] int8 does not fit the operand [1, 2, 1, 2, 1] int8"]


def test_lowering_refusals():
    rng = np.random.default_rng(1)
    x = _x(rng, (4, 3), I8)
    shrink_back = Op("STRIDED_SLICE", [x, _ints("b", [1, 0]), _ints("e", [2, 3]), _ints("s", [-1, 1])],
                     [tensor("y", (3,), I8, x.quant)], StridedSliceAttrs(shrink_axis_mask=1), "ss", index=0)
    with pytest.raises(UnsupportedError, match="shrunk axis with a negative stride"):
        lower(shrink_back)
    coarse = tensor("y", (4, 3), I8, Quant((1e-9,), (0,)))
    with pytest.raises(UnsupportedError, match="too large for output scale"):
        lower(Op("CUMSUM", [x, tensor("a", (), I32, data=np.array(0, np.int32))], [coarse], CumsumAttrs(), "c",
                 index=0))
    runtime = [tensor("s0", (2,), I32), tensor("s1", (2,), I32)]
    with pytest.raises(UnsupportedError, match="only supported on shapes known at compile time"):
        lower(Op("BROADCAST_ARGS", runtime, [tensor("y", (2,), I32)], NoAttrs(), "b", index=0))


@on_qemu
def test_a_sample_of_movement_kernels_matches_tflm_under_qemu_m4(tmp_path):
    """Cases of every op whose operands may hold any value (no index to keep in range), merged
    into one model, built for qemu-mps2-an386 (arm-none-eabi-gcc -O2) and run there."""
    rng = np.random.default_rng(1700)
    graphs = []
    for kind in ("TRANSPOSE", "SLICE", "STRIDED_SLICE", "REVERSE_V2", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH",
                 "BROADCAST_TO", "PADV2", "MIRROR_PAD", "DYNAMIC_UPDATE_SLICE", "CUMSUM"):
        build, dtypes = BUILDERS[kind]
        graphs += [g for g, feeds in (build(rng, dtypes[i % len(dtypes)]) for i in range(3)) if not feeds]
    path = tmp_path / "movement.tflite"
    path.write_bytes(write(merge(graphs)))
    verdict, _, counts = verify(path, "qemu-mps2-an386", n=2, seed=17)
    assert verdict.ok, verdict.line(False)
    assert min(counts) > 0


def test_identity_copies_become_aliases_and_match_tflm():
    """TRANSPOSE of size-1 axes, a whole-tensor SLICE, REVERSE_V2 of a size-1 axis, BROADCAST_TO
    the same shape, block-1 DEPTH_TO_SPACE: RESHAPE aliases (no call); a real transpose stays."""
    rng = np.random.default_rng(18)
    x = [_x(rng, s, I8) for s in ((1, 3, 1, 4), (2, 3), (2, 1, 3), (3, 4), (1, 2, 2, 3), (1, 3, 1, 4))]
    cases = [_one("TRANSPOSE", [x[0], _ints("perm", [2, 1, 0, 3])], NoAttrs()),
             _one("SLICE", [x[1], _ints("b", [0, 0]), _ints("s", [-1, 3])], NoAttrs()),
             _one("REVERSE_V2", [x[2], _ints("axis", [1])], NoAttrs()),
             _one("BROADCAST_TO", [x[3], _ints("shape", [3, 4])], NoAttrs()),
             _one("DEPTH_TO_SPACE", [x[4]], BlockAttrs(1)),
             _one("TRANSPOSE", [x[5], _ints("perm", [0, 3, 2, 1])], NoAttrs())]
    kinds = [alias_identity_copies(g).ops[0].kind for g, _ in cases]
    assert kinds == ["RESHAPE"] * 5 + ["TRANSPOSE"]
    check(cases, rng)
