"""The writer: files TFLM loads and runs, read(write(g)) == g for the corpus, schema details."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CORPUS_FILES, REPO

from microfuse import oracle
from microfuse.errors import UnsupportedError
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.ops import RawAttrs
from microfuse.ops.attrs import ActivationAttrs, ConvAttrs, FullyConnectedAttrs
from microfuse.testing import inputs, modelgen
from microfuse.tflite import read, schema as S, writer
from microfuse.tflite.flatbuf import I8, I32, U8, U32, FlatBuffer


def _model(data: bytes):
    return FlatBuffer(data).root("model", S.MODEL)


def _same_tensor(a: Tensor | None, b: Tensor | None) -> None:
    if a is None or b is None:
        assert a is None and b is None
        return
    assert (a.name, a.shape, a.dtype, a.quant) == (b.name, b.shape, b.dtype, b.quant)
    assert (a.data is None) == (b.data is None), a.name
    if a.data is not None:
        assert a.data.dtype == b.data.dtype and np.array_equal(a.data, b.data), a.name


def assert_same_graph(g: Graph, h: Graph) -> None:
    """Same ops (kind, attrs, operands), same tensors and constants, same inputs/outputs/metadata."""
    assert [op.kind for op in g.ops] == [op.kind for op in h.ops]
    for a, b in zip(g.ops, h.ops):
        assert a.attrs == b.attrs, a.where
        assert len(a.inputs) == len(b.inputs) and len(a.outputs) == len(b.outputs), a.where
        for x, y in zip([*a.inputs, *a.outputs], [*b.inputs, *b.outputs]):
            _same_tensor(x, y)
    for x, y in zip([*g.inputs, *g.outputs], [*h.inputs, *h.outputs]):
        _same_tensor(x, y)
    assert len(g.inputs) == len(h.inputs) and len(g.outputs) == len(h.outputs)
    assert g.metadata == h.metadata


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_corpus_round_trip_keeps_graph_and_outputs(path):
    graph = read(path)
    data = writer.write(graph)
    again = read(data)
    assert_same_graph(graph, again)
    # tensor indices survive too (the writer keeps the source order), so tensor dumps line up
    assert [t.index for t in graph.tensors()] == [t.index for t in again.tensors()]
    feeds = inputs.sample(graph.inputs, np.random.default_rng(7))
    for want, got in zip(oracle.run(path, feeds), oracle.run(data, feeds)):
        assert want.dtype == got.dtype and np.array_equal(want, got)


EXAMPLES = sorted((REPO / "examples").glob("*.tflite"))


def test_example_models_exist_and_round_trip():
    """examples/make_models.py's output (made with TensorFlow's converter) reads, writes and runs."""
    assert {p.name for p in EXAMPLES} >= {"tiny_cnn_int8.tflite", "residual_int8.tflite", "sine_float.tflite"}
    for path in EXAMPLES:
        graph = read(path)
        data = writer.write(graph)
        assert_same_graph(graph, read(data))
        feeds = inputs.sample(graph.inputs, np.random.default_rng(8))
        assert all(np.array_equal(a, b) for a, b in zip(oracle.run(path, feeds), oracle.run(data, feeds)))


def test_rewriting_is_a_fixpoint(models):
    data = writer.write(read(models[0].read_bytes()))  # from bytes: the graph is named "model" both times
    assert writer.write(read(data)) == data


def test_header_buffers_and_operator_codes():
    graph = modelgen.small_cnn(np.random.default_rng(0))
    data = writer.write(graph)
    assert data[4:8] == b"TFL3"
    model = _model(data)
    assert model.scalar("version", U32) == 3
    buffers = model.tables("buffers", "buffer", S.BUFFER)
    assert len(buffers[0].raw("data")) == 0  # the empty sentinel
    consts = [t for t in graph.tensors() if t.is_const]
    assert len(buffers) == 1 + len(consts)
    for i in range(1, len(buffers)):
        start, count = buffers[i].vector("data", 1)
        assert count > 0 and start % 16 == 0  # weights aligned for in-place use
    codes = model.tables("operator_codes", "code", S.OPERATOR_CODE)
    kinds = {op.kind for op in graph.ops}
    assert len(codes) == len(kinds)
    for i in range(len(codes)):
        code = codes[i].scalar("builtin_code", I32)
        assert S.builtin_name(code) in kinds
        assert codes[i].scalar("deprecated_builtin_code", I8) == code  # all below 127 here


def test_every_options_field_is_written_even_defaults():
    graph = modelgen.conv2d(np.random.default_rng(1), activation="NONE", dilation=1)
    model = _model(writer.write(graph))
    sub = model.tables("subgraphs", "subgraph", S.SUBGRAPH)[0]
    op = sub.tables("operators", "op", S.OPERATOR)[0]
    assert op.scalar("builtin_options_type", U8) == S.OPTIONS_TYPE_CODE["Conv2DOptions"]
    slots = {f.name: i for i, f in enumerate(S.OPTIONS_FIELDS["Conv2DOptions"])}
    options = op.table("builtin_options", "options", slots)
    assert all(options.has(name) for name in slots)
    assert options.scalar("dilation_w_factor", I32, default=-1) == 1


def _tensor(name, shape, dtype=DType.FLOAT32, data=None, quant=None):
    return Tensor(name, tuple(shape), dtype, quant, None if data is None else np.asarray(data, dtype.np).reshape(shape))


def test_op_codes_above_127_use_the_placeholder():
    x, y = _tensor("x", (1, 4)), _tensor("y", (1, 4))
    graph = Graph([Op("GELU", [x], [y])], [x], [y])
    model = _model(writer.write(graph))
    code = model.tables("operator_codes", "code", S.OPERATOR_CODE)[0]
    assert code.scalar("builtin_code", I32) == S.BUILTIN_CODE["GELU"] > 127
    assert code.scalar("deprecated_builtin_code", I8) == 127
    assert read(writer.write(graph)).ops[0].kind == "GELU"


def test_custom_op_kind_round_trips():
    x, y = _tensor("x", (2,)), _tensor("y", (2,))
    graph = Graph([Op("CUSTOM:MyOp", [x], [y])], [x], [y])
    assert read(writer.write(graph)).ops[0].kind == "CUSTOM:MyOp"


def test_omitted_optional_input_is_minus_one():
    graph = modelgen.conv2d(np.random.default_rng(2), bias=False)
    assert graph.ops[0].inputs[2] is None
    data = writer.write(graph)
    sub = _model(data).tables("subgraphs", "subgraph", S.SUBGRAPH)[0]
    assert sub.tables("operators", "op", S.OPERATOR)[0].scalars("inputs", I32)[2] == -1
    assert read(data).ops[0].inputs[2] is None
    feeds = inputs.sample(graph.inputs, np.random.default_rng(3))
    assert oracle.run(data, feeds)[0].shape == graph.outputs[0].shape


def test_per_axis_quantization_and_metadata_round_trip():
    graph = modelgen.depthwise(np.random.default_rng(4), in_shape=(1, 6, 6, 3), multiplier=2)
    graph.metadata = {"min_runtime_version": b"1.5.0\0", "notes": bytes(range(7))}
    again = read(writer.write(graph))
    weights = again.ops[0].inputs[1]
    assert weights.quant.axis == 3 and len(weights.quant.scale) == 6
    assert set(weights.quant.zero_point) == {0}
    assert_same_graph(graph, again)


def test_generated_graphs_round_trip_exactly():
    rng = np.random.default_rng(5)
    for graph in (modelgen.small_cnn(rng), modelgen.residual(rng), modelgen.fully_connected(rng, dtype=DType.FLOAT32),
                  modelgen.mean(rng), modelgen.pad(rng), modelgen.concatenation(rng), modelgen.quantize(rng)):
        assert_same_graph(graph, read(writer.write(graph)))


def test_written_model_runs_and_matches_numpy():
    """A hand-built float FULLY_CONNECTED: TFLM's answer is x @ W.T + b."""
    rng = np.random.default_rng(6)
    w, b = rng.normal(size=(3, 5)).astype(np.float32), rng.normal(size=3).astype(np.float32)
    x, y = _tensor("x", (1, 5)), _tensor("y", (1, 3))
    op = Op("FULLY_CONNECTED", [x, _tensor("w", w.shape, data=w), _tensor("b", b.shape, data=b)], [y],
            FullyConnectedAttrs())
    graph = Graph([op], [x], [y])
    feed = rng.normal(size=(1, 5)).astype(np.float32)
    got = oracle.run(writer.write(graph), [feed])[0]
    np.testing.assert_allclose(got, feed @ w.T + b, rtol=1e-5, atol=1e-5)


def test_int8_constants_keep_their_quantization():
    q = Quant((0.5,), (3,))
    x, y = _tensor("x", (1, 4), DType.INT8, quant=q), _tensor("y", (1, 4), DType.INT8, quant=q)
    c = _tensor("c", (1, 4), DType.INT8, data=[1, -2, 3, -4], quant=Quant((0.25,), (-1,)))
    graph = Graph([Op("ADD", [x, c], [y], ActivationAttrs())], [x], [y])
    assert_same_graph(graph, read(writer.write(graph)))


def test_fused_ops_and_unknown_options_are_refused():
    graph = modelgen.conv2d(np.random.default_rng(8))
    graph.ops[0].fused = ["relu"]
    with pytest.raises(UnsupportedError, match="fused"):
        writer.write(graph)
    graph.ops[0].fused = []
    graph.ops[0].attrs = RawAttrs({"padding": 0, "no_such_field": 1})
    with pytest.raises(UnsupportedError, match="no_such_field"):
        writer.write(graph)
    x, y = _tensor("x", (2,)), _tensor("y", (2,))
    with pytest.raises(UnsupportedError, match="NOT_AN_OP"):
        writer.write(Graph([Op("NOT_AN_OP", [x], [y])], [x], [y]))


def test_attrs_defaults_are_written_for_partial_raw_options():
    """RawAttrs with some fields: the rest get the schema defaults (dilation 1, not 0)."""
    graph = modelgen.conv2d(np.random.default_rng(9), dilation=1)
    graph.ops[0].attrs = RawAttrs({"padding": 0, "stride_w": 1, "stride_h": 1})
    again = read(writer.write(graph))
    assert again.ops[0].attrs == ConvAttrs("SAME", 1, 1, "NONE", 1, 1)
