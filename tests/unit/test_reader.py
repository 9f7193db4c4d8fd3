"""The TFLite reader: corpus models against LiteRT's own view of them, and every error path."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CORPUS_FILES, model
from tflite_builder import FLOAT32, INT32, CodeSpec, OpSpec, TensorSpec, add_model

from microfuse import ops
from microfuse.errors import ModelError, UnsupportedError
from microfuse.ir import DType
from microfuse.ops.attrs import ConvAttrs
from microfuse.tflite import load, read, read_bytes
from microfuse.tflite import schema as S

# -- the corpus ---------------------------------------------------------------------------------


def test_corpus_is_present(models):
    assert len(models) >= 8


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_corpus_model_reads_and_verifies(path):
    graph = load(path)  # read + check_supported + verify
    assert graph.ops and graph.inputs and graph.outputs
    assert graph.name == path.stem
    assert [op.index for op in graph.ops] == list(range(len(graph.ops)))
    for op in graph.ops:
        assert op.name == op.outputs[0].name


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_corpus_model_matches_litert(path):
    """LiteRT's interpreter is an independent reader: ops, tensors, quantization and weights agree."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    # Without delegates: XNNPACK would replace ops by a DELEGATE node.
    it = Interpreter(model_path=str(path),
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    details = {d["index"]: d for d in it.get_tensor_details()}
    graph = read(path)
    theirs = it._get_ops_details()
    assert [op.kind for op in graph.ops] == [d["op_name"] for d in theirs]
    for op, d in zip(graph.ops, theirs):
        assert [-1 if t is None else t.index for t in op.inputs] == list(d["inputs"])
        assert [t.index for t in op.outputs] == list(d["outputs"])
    for t in graph.tensors():
        d = details[t.index]
        assert t.name == d["name"]
        assert t.shape == tuple(d["shape"])
        assert t.dtype.np == np.dtype(d["dtype"])
        q = d["quantization_parameters"]
        if t.quant is None:
            assert len(q["scales"]) == 0
        else:
            assert np.array_equal(np.float32(t.quant.scale), q["scales"])
            assert list(t.quant.zero_point) == list(q["zero_points"])
            assert t.quant.axis == (q["quantized_dimension"] if len(q["scales"]) > 1 else None)
        if t.is_const:
            assert np.array_equal(t.data, it.get_tensor(t.index)), t.name
    assert [t.index for t in graph.inputs] == [d["index"] for d in it.get_input_details()]
    assert [t.index for t in graph.outputs] == [d["index"] for d in it.get_output_details()]


def test_kws_details():
    graph = read(model("mlperf_kws_dscnn_int8"))
    assert len(graph.ops) == 13
    conv = graph.ops[0]
    assert conv.kind == "CONV_2D"
    assert conv.attrs == ConvAttrs(padding="SAME", stride_w=2, stride_h=2, activation="RELU")
    weights = conv.inputs[1]
    assert weights.shape == (64, 10, 4, 1) and weights.dtype == DType.INT8
    assert weights.quant.axis == 0 and len(weights.quant.scale) == 64
    assert graph.inputs[0].shape == (1, 49, 10, 1)  # shape_signature's -1 batch is fixed to 1
    assert graph.inputs[0].quant.axis is None
    assert not weights.data.flags.writeable  # a view of the file: constants are never copied
    assert "min_runtime_version" in graph.metadata
    assert graph.metadata["min_runtime_version"].rstrip(b"\0").startswith(b"1.")


def test_read_accepts_bytes_and_paths():
    path = model("tflm_simple_add")
    assert [op.kind for op in read(path).ops] == [op.kind for op in read(path.read_bytes()).ops] == ["ADD"]
    assert [op.kind for op in read(str(path)).ops] == ["ADD"]


# -- small built models: features -----------------------------------------------------------------


def test_built_model_reads():
    graph = read_bytes(add_model().build())
    (op,) = graph.ops
    assert op.kind == "ADD" and op.attrs.activation == "RELU" and op.name == "y"
    assert op.inputs[1].data.tolist() == [[[[1], [2]], [[3], [-1]]]]
    assert op.inputs[0].quant.scale == (0.5,) and op.inputs[0].quant.zero_point == (-1,)
    ops.check_supported(graph)
    graph.verify()


def test_buffer_in_offset_size_form():
    """Newer files keep large data after the flatbuffer, addressed from the start of the file."""
    data = add_model(external={1: bytes([9, 8, 7, 6])}).build()
    graph = read_bytes(data)
    assert graph.ops[0].inputs[1].data.ravel().tolist() == [9, 8, 7, 6]


def test_offset_size_buffer_past_the_end():
    data = add_model(external={1: bytes([9, 8, 7, 6])}).build()
    with pytest.raises(ModelError, match=r"buffer 1: 4 bytes at offset \d+ run past the end of the file"):
        read_bytes(data[:-2])


def test_float_constant_is_little_endian():
    t = [TensorSpec([2], FLOAT32, name="x"), TensorSpec([2], FLOAT32, buffer=1, name="c"),
         TensorSpec([2], FLOAT32, name="y")]
    spec = add_model(tensors=t, buffers=[b"", np.array([1.5, -2.0], "<f4").tobytes()])
    assert read_bytes(spec.build()).ops[0].inputs[1].data.tolist() == [1.5, -2.0]


def test_deprecated_builtin_code_only():
    """Old files have only the byte field; builtin_code then reads as its default 0 (ADD)."""
    conv = S.BUILTIN_CODE["RESHAPE"]
    spec = add_model(codes=[CodeSpec(deprecated=conv)], ops=[OpSpec(0, [0, 1], [2])])
    assert read_bytes(spec.build()).ops[0].kind == "RESHAPE"


def test_extended_builtin_code_above_placeholder():
    code = S.BUILTIN_CODE["GELU"]  # 150: the byte field holds the placeholder 127
    spec = add_model(codes=[CodeSpec(deprecated=S.PLACEHOLDER_FOR_GREATER_OP_CODES, builtin=code)],
                     ops=[OpSpec(0, [0], [2])])
    graph = read_bytes(spec.build())
    assert graph.ops[0].kind == "GELU"
    with pytest.raises(UnsupportedError, match="op 0 GELU 'y': GELU is not supported"):
        ops.check_supported(graph)


def test_custom_op_is_named_and_unsupported():
    spec = add_model(codes=[CodeSpec(deprecated=S.BUILTIN_CODE["CUSTOM"], builtin=S.BUILTIN_CODE["CUSTOM"],
                                     custom="TFLite_Detection_PostProcess")], ops=[OpSpec(0, [0], [2])])
    graph = read_bytes(spec.build())
    assert graph.ops[0].kind == "CUSTOM:TFLite_Detection_PostProcess"
    with pytest.raises(UnsupportedError, match="CUSTOM:TFLite_Detection_PostProcess"):
        ops.check_supported(graph)


def test_missing_options_table_gives_defaults():
    spec = add_model(ops=[OpSpec(0, [0, 1], [2])])
    assert read_bytes(spec.build()).ops[0].attrs.activation == "NONE"


def test_omitted_optional_input_is_none():
    spec = add_model(ops=[OpSpec(0, [0, -1], [2])])
    graph = read_bytes(spec.build())
    assert graph.ops[0].inputs[1] is None and graph.ops[0].inputs[0] is graph.inputs[0]


def test_metadata_by_name():
    spec = add_model(buffers=[b"", bytes([1, 2, 3, 0xFF]), b"", b"\x01\x02"],
                     metadata=[("OfflineMemoryAllocation", 3), ("min_runtime_version", 2)])
    graph = read_bytes(spec.build())
    assert graph.metadata == {"OfflineMemoryAllocation": b"\x01\x02", "min_runtime_version": b""}


def test_per_axis_quantization():
    t = add_model().tensors
    t[1] = TensorSpec([1, 2, 2, 1], buffer=1, name="c", scale=[0.1, 0.2], zero_point=[0, 0],
                      quantized_dimension=1)
    q = read_bytes(add_model(tensors=t).build()).ops[0].inputs[1].quant
    assert q.axis == 1 and q.per_axis and q.scale == (np.float32(0.1), np.float32(0.2))


def test_extra_subgraphs_are_fine_when_unused():
    assert len(read_bytes(add_model(extra_subgraphs=2).build()).ops) == 1


# -- errors ------------------------------------------------------------------------------------------


def _fails(spec_or_bytes, error, pattern):
    data = spec_or_bytes if isinstance(spec_or_bytes, bytes) else spec_or_bytes.build()
    with pytest.raises(error, match=pattern) as info:
        read_bytes(data)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ModelError, match="nope.tflite: no such file"):
        read(tmp_path / "nope.tflite")


def test_directory(tmp_path):
    with pytest.raises(ModelError, match="is a directory"):
        read(tmp_path)


def test_not_a_regular_file():
    with pytest.raises(ModelError, match="/dev/zero: not a regular file"):
        read("/dev/zero")


def test_not_a_model():
    _fails(b"# microfuse\n\nA TinyML toolchain.\n", ModelError, r"not a TFLite model \(file identifier")
    _fails(b"TFL3", ModelError, "too short")


@pytest.mark.parametrize("cut", [8, 100, 1000, 30000, 53935])
def test_truncated_corpus_model(cut):
    _fails(model("mlperf_kws_dscnn_int8").read_bytes()[:cut], ModelError, "past the end|outside the file")


def test_truncated_file_names_the_file(tmp_path):
    path = tmp_path / "cut.tflite"
    path.write_bytes(model("mlperf_kws_dscnn_int8").read_bytes()[:5000])
    with pytest.raises(ModelError, match=r"^.*cut\.tflite: "):
        read(path)


def test_schema_version():
    _fails(add_model(version=2), UnsupportedError, "schema version 2 is not supported")


def test_no_subgraph():
    spec = add_model()
    data = spec.build()
    spec.extra_subgraphs = -1  # builds zero subgraphs
    _fails(spec, ModelError, "no subgraphs")
    assert read_bytes(data)


def test_buffer_index_out_of_range():
    t = add_model().tensors
    t[1].buffer = 999
    _fails(add_model(tensors=t), ModelError, r"^tensor 1 'c': buffer index 999 out of range \(3 buffers\)$")


def test_tensor_index_out_of_range():
    _fails(add_model(ops=[OpSpec(0, [0, 7], [2])]), ModelError,
           r"^op 0 ADD input 1: tensor index 7 out of range \(3 tensors\)$")
    _fails(add_model(ops=[OpSpec(0, [0, -2], [2])]), ModelError, "input 1: tensor index -2 out of range")
    _fails(add_model(outputs=[-1]), ModelError, "graph output 0: tensor index -1 out of range")


def test_opcode_index_out_of_range():
    _fails(add_model(ops=[OpSpec(5, [0, 1], [2])]), ModelError, r"op 0: operator code index 5 out of range")


def test_data_size_mismatch():
    _fails(add_model(buffers=[b"", b"\x01\x02\x03", b""]), ModelError,
           r"tensor 1 'c': buffer 1 holds 3 bytes, but shape \[1, 2, 2, 1\] int8 needs 4")


def test_dynamic_shape():
    t = add_model().tensors
    t[0].shape_signature = [1, -1, 2, 1]
    _fails(add_model(tensors=t), UnsupportedError, r"tensor 0 'x': dynamic shape \[1, -1, 2, 1\]")
    t[0].shape_signature = [-1, 2, 2, 1]  # an unknown batch is fixed to 1, as TFLM does
    assert read_bytes(add_model(tensors=t).build()).inputs[0].shape == (1, 2, 2, 1)
    t[0].shape, t[0].shape_signature = [2, 2, 2, 1], [-1, 2, 2, 1]
    _fails(add_model(tensors=t), UnsupportedError, "dynamic shape")


def test_negative_and_huge_shapes():
    t = add_model().tensors
    t[0].shape = [1, -3, 2, 1]
    _fails(add_model(tensors=t), ModelError, r"tensor 0 'x': negative dimension in shape \[1, -3, 2, 1\]")
    t[0].shape = [65536, 65536, 65536]
    _fails(add_model(tensors=t), UnsupportedError, "more than 2 GiB")
    t[0].shape = [1] * 9
    _fails(add_model(tensors=t), UnsupportedError, "rank 9 is not supported")


def test_unsupported_type():
    t = add_model().tensors
    t[0].type = S.TENSOR_TYPE_CODE["FLOAT16"]
    _fails(add_model(tensors=t), UnsupportedError, r"^op 0 ADD: tensor 0 'x': type FLOAT16 is not supported")
    t[0].type = 100
    _fails(add_model(tensors=t), ModelError, "tensor 0 'x': unknown tensor type code 100")


def test_variable_tensor():
    t = add_model().tensors
    t[0].is_variable = True
    _fails(add_model(tensors=t), UnsupportedError, r"tensor 0 'x': a variable \(stateful\) tensor is a graph input")
    t = add_model().tensors
    t[1].is_variable = True  # the constant operand: state now, its stored value ignored as in TFLM
    graph = read_bytes(add_model(tensors=t).build())
    assert graph.ops[0].inputs[1].variable and graph.ops[0].inputs[1].data is None


def test_quantization_errors():
    t = add_model().tensors
    t[0].zero_point = [1, 2]
    _fails(add_model(tensors=t), ModelError, "1 quantization scales but 2 zero points")
    t[0].zero_point = [300]
    _fails(add_model(tensors=t), ModelError, "zero point does not fit int8")
    t[0].scale, t[0].zero_point = [float("nan")], [0]
    _fails(add_model(tensors=t), ModelError, "scale is not finite")
    t[0].scale, t[0].zero_point, t[0].quantized_dimension = [1.0, 1.0, 1.0], [0, 0, 0], 3
    _fails(add_model(tensors=t), ModelError, r"3 per-axis scales do not match dimension 3 of shape \[1, 2, 2, 1\]")


def test_options_type_mismatch():
    op = OpSpec(0, [0, 1], [2], S.OPTIONS_TYPE_CODE["Conv2DOptions"], [("i8", 0)])
    _fails(add_model(ops=[op]), ModelError, "op 0 ADD: builtin options are Conv2DOptions, expected AddOptions")


def test_options_value_out_of_range():
    op = OpSpec(0, [0, 1], [2], S.OPTIONS_TYPE_CODE["AddOptions"], [("i8", 42)])
    _fails(add_model(ops=[op]), ModelError, "op 0 ADD: invalid AddOptions")


def test_control_flow_needs_another_subgraph():
    spec = add_model(codes=[CodeSpec(deprecated=S.BUILTIN_CODE["WHILE"], builtin=S.BUILTIN_CODE["WHILE"])],
                     ops=[OpSpec(0, [0], [2])], extra_subgraphs=2)
    _fails(spec, ModelError, r"op 0 WHILE: subgraph 0 is the main subgraph; it must name another subgraph")


def test_load_reports_unsupported_ops(tmp_path):
    path = tmp_path / "gelu.tflite"
    code = S.BUILTIN_CODE["GELU"]
    path.write_bytes(add_model(codes=[CodeSpec(deprecated=127, builtin=code)], ops=[OpSpec(0, [0], [2])]).build())
    with pytest.raises(UnsupportedError, match=r"gelu\.tflite: op 0 GELU 'y': GELU is not supported"):
        load(path)


def test_load_reports_verify_failure(tmp_path):
    t = add_model().tensors
    t[2].shape = [1, 2, 2, 3]  # ADD cannot produce this shape
    path = tmp_path / "bad.tflite"
    path.write_bytes(add_model(tensors=t).build())
    with pytest.raises(ModelError, match=r"bad\.tflite: op 0 ADD: output 'y' is \[1, 2, 2, 3\]"):
        load(path)


def test_constant_types():
    t = [TensorSpec([2], INT32, name="x"), TensorSpec([2], INT32, buffer=1, name="c"), TensorSpec([2], INT32, name="y")]
    spec = add_model(tensors=t, buffers=[b"", np.array([7, -70000], "<i4").tobytes()])
    c = read_bytes(spec.build()).ops[0].inputs[1]
    assert c.dtype == DType.INT32 and c.data.tolist() == [7, -70000]


# -- options tables against TFLite's own generated schema code (an independent source) --------------


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _sample(kind: str, slot: int):
    """A distinct, non-default value per field, so a slot mix-up cannot go unnoticed."""
    return {"i8": 1 + slot % 3, "u8": 2 + slot, "i32": 11 + slot, "f32": 0.5 + slot,
            "bool": slot % 2 == 0, "i32[]": [slot + 1, -1, 3]}[kind]


@pytest.mark.parametrize("table_name", sorted(S.OPTIONS_FIELDS))
def test_options_fields_match_tflite_schema(table_name):
    import flatbuffers
    from ai_edge_litert import schema_py_generated as G

    from microfuse.tflite.flatbuf import FlatBuffer
    from microfuse.tflite.reader import _decode_options

    every = S.OPTIONS_FIELDS[table_name]  # slots; the generated code omits deprecated fields
    fields = tuple(f for f in every if (table_name, f.name) not in S.DEPRECATED_FIELDS)
    theirs = getattr(G, table_name + "T")()
    # Ours may stop before newer trailing fields (e.g. FullyConnectedOptions.quant_spec).
    assert [_camel(f.name) for f in fields] == list(vars(theirs))[:len(fields)], "field names and slot order"
    assert S.OPTIONS_TYPE_CODE[table_name] == getattr(G.BuiltinOptions, table_name)
    expected = {}
    for slot, f in enumerate(fields):
        expected[f.name] = _sample(f.kind, slot)
        setattr(theirs, _camel(f.name), expected[f.name])
    b = flatbuffers.Builder(256)
    b.Finish(theirs.Pack(b))
    slots = {f.name: i for i, f in enumerate(every)}
    table = FlatBuffer(bytes(b.Output())).root(table_name, slots)
    assert _decode_options(table, every, table_name).items() >= expected.items()
    # and an absent table gives the schema's defaults
    defaults = {f.name: getattr(getattr(G, table_name + "T")(), _camel(f.name)) for f in fields}
    defaults = {k: DEFAULT_OVERRIDES.get((table_name, k), [] if v is None else v) for k, v in defaults.items()}
    assert _decode_options(None, every, table_name).items() >= defaults.items()


# Deliberate departures from schema.fbs defaults: TFLite's SHAPE kernel rejects the schema's
# out_type default (0, FLOAT32) and converters always write INT32 or INT64; schema.py assumes INT32.
DEFAULT_OVERRIDES = {("ShapeOptions", "out_type"): S.TENSOR_TYPE_CODE["INT32"]}


def test_schema_enums_match_tflite_schema():
    from ai_edge_litert import schema_py_generated as G

    for name, code in S.BUILTIN_CODE.items():
        assert getattr(G.BuiltinOperator, name) == code, name
    for code, name in S.TENSOR_TYPES.items():
        assert getattr(G.TensorType, name) == code, name
