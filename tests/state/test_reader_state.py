"""How the reader takes the subgraph ops: CALL_ONCE initializers vanish into the state's initial
value; IF and WHILE keep their subgraphs; CALL is refused naming the op and the reason."""

from __future__ import annotations

import pytest

from microfuse import ops
from microfuse.errors import ModelError, UnsupportedError
from microfuse.tflite import read_bytes
from microfuse.tflite import schema as S
from tests.unit.tflite_builder import CodeSpec, OpSpec, add_model


def _with(kind: str, options_type: str, options: list) -> bytes:
    base = add_model()
    codes = [*base.codes, CodeSpec(deprecated=min(S.BUILTIN_CODE[kind], 127), builtin=S.BUILTIN_CODE[kind])]
    ops = [OpSpec(1, [], [], S.OPTIONS_TYPE_CODE[options_type], options), *base.ops]
    return add_model(codes=codes, ops=ops, extra_subgraphs=2).build()


def test_call_once_of_an_initializer_leaves_no_op():
    graph = read_bytes(_with("CALL_ONCE", "CallOnceOptions", [("i32", 1)]))
    assert [op.kind for op in graph.ops] == ["ADD"] and graph.ops[0].index == 1


def test_call_once_of_a_missing_subgraph():
    with pytest.raises(ModelError, match=r"op 0 CALL_ONCE: init subgraph 7 out of range \(3 subgraphs\)"):
        read_bytes(_with("CALL_ONCE", "CallOnceOptions", [("i32", 7)]))


@pytest.mark.parametrize("kind, options", [("IF", "IfOptions"), ("WHILE", "WhileOptions")])
def test_control_flow_keeps_its_subgraphs_and_checks_them_naming_the_op(kind, options):
    graph = read_bytes(_with(kind, options, [("i32", 1), ("i32", 2)]))
    assert graph.ops[0].kind == kind and len(graph.ops[0].attrs.branches) == 2
    with pytest.raises(UnsupportedError, match=rf"^op 0 {kind}: the op has no outputs"):
        ops.check_supported(graph)


def test_call_is_refused_naming_the_op():
    with pytest.raises(UnsupportedError, match=r"^op 0 CALL: CALL runs other subgraphs; microfuse runs IF, WHILE"):
        read_bytes(_with("CALL", "CallOptions", [("i32", 1)]))


def test_a_resource_read_without_its_handle_names_the_op():
    base = add_model()
    codes = [*base.codes, CodeSpec(deprecated=127, builtin=S.BUILTIN_CODE["READ_VARIABLE"])]
    with pytest.raises(UnsupportedError, match="op 0 READ_VARIABLE: input 0 is not a resource made by a VAR_HANDLE"):
        read_bytes(add_model(codes=codes, ops=[OpSpec(1, [0], [2]), *base.ops]).build())
