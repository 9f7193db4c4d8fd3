"""IF runs its then or else subgraph on a bool input, WHILE its body while its cond subgraph says
so, bit-exact with TFLM (if.cc, while.cc) over streams of random inputs: IF with int8 and
float32 branches (ADD / MUL), WHILE a counter loop (an int32 or float32 counter from an input,
clamped, to a constant limit) carrying an ADD-accumulated int8 or float32 tensor, a reversed int32 one and pass-throughs."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

from microfuse import verify as V
from microfuse.errors import UnsupportedError
from microfuse.pipeline import Options, compile_model
from microfuse.tflite import read_bytes
from microfuse.tflite import schema as S
from tests.harness import on_qemu
from tests.unit.tflite_builder import FLOAT32, INT8, CodeSpec, ModelSpec, OpSpec, SubgraphSpec, TensorSpec

BOOL = S.TENSOR_TYPE_CODE["BOOL"]
INT32 = S.TENSOR_TYPE_CODE["INT32"]
KINDS = ["IF", "ADD", "MUL", "WHILE", "LESS", "MAXIMUM", "REVERSE_V2", "RELU", "GELU"]
OPTIONS = {"IF": "IfOptions", "ADD": "AddOptions", "MUL": "MulOptions", "WHILE": "WhileOptions",
           "LESS": "LessOptions", "MAXIMUM": "MaximumMinimumOptions", "REVERSE_V2": "ReverseV2Options", "GELU": "GeluOptions"}


def _op(kind: str, ins: list[int], outs: list[int], options: list) -> OpSpec:
    return OpSpec(KINDS.index(kind), ins, outs, S.OPTIONS_TYPE_CODE[OPTIONS[kind]], options)


def if_model(dtype: str, seed: int, kind: str = "IF", relu_after: bool = False, then_kind: str = "ADD") -> bytes:
    """y = IF(c, a, b): then ADD(a, b), else MUL(a, b); random shape and quantization.
    `relu_after`: the model's output is RELU(y) (the passes must leave IF whole)."""
    rng = np.random.default_rng(seed)
    shape = [1, *rng.integers(1, 6, 2).tolist(), int(rng.integers(1, 9))]
    if dtype == "int8":
        q = lambda: {"scale": [float(rng.uniform(0.005, 0.1))], "zero_point": [int(rng.integers(-30, 30))]}  # noqa: E731
        qa, qb, qy = q(), q(), {"scale": [float(rng.uniform(0.05, 0.3))], "zero_point": [int(rng.integers(-10, 10))]}
        typ = INT8
    else:
        qa = qb = qy = {}
        typ = FLOAT32
    io = lambda: [TensorSpec(shape, typ, name="a", **qa), TensorSpec(shape, typ, name="b", **qb),  # noqa: E731
                  TensorSpec(shape, typ, name="y", **qy)]
    act = int(rng.integers(0, 2))  # NONE or RELU
    then_op = _op("GELU", [0], [2], [("bool", False)]) if then_kind == "GELU" else _op("ADD", [0, 1], [2], [("i8", act)])
    then = SubgraphSpec(io(), [then_op], inputs=[0, 1], outputs=[2])
    other = SubgraphSpec(io(), [_op("MUL", [0, 1], [2], [("i8", act)])], inputs=[0, 1], outputs=[2])
    main = [TensorSpec([1], BOOL, name="c"), *io()]
    codes = [CodeSpec(deprecated=min(S.BUILTIN_CODE[k], 127), builtin=S.BUILTIN_CODE[k]) for k in KINDS]
    ops = [_op(kind, [0, 1, 2], [3], [("i32", 1), ("i32", 2)])]
    if relu_after:
        main.append(TensorSpec(shape, typ, name="r", **qy))
        ops.append(OpSpec(KINDS.index("RELU"), [3], [4]))
    outputs = [4] if relu_after else [3]
    return ModelSpec(main, ops, codes, inputs=[0, 1, 2], outputs=outputs, subgraphs=[then, other]).build()


def _verify(data: bytes, board: str, seed: int):
    with tempfile.TemporaryDirectory(prefix="mf-if-") as tmp:
        path = Path(tmp) / "if.tflite"
        path.write_bytes(data)
        return V.verify(path, board=board, n=20, seed=seed)


def test_if_keeps_both_branches_and_plans_them_in_its_scratch():
    compiled = compile_model(read_bytes(if_model("int8", 1)), Options(name="branch"))
    (call,) = compiled.calls
    assert [[c.kernel.split("_")[1] for c in b.order] for b in call.branches] == [["add"], ["mul"]]
    offset, size = compiled.plan.scratch[call.op]
    assert size == max(b.plan.arena_bytes for b in call.branches) > 0
    live = [compiled.plan.offsets[t] for t in [*call.inputs, *call.outputs]]
    assert all(not offset <= o < offset + size for o in live)


@pytest.mark.parametrize("dtype, seed", [("float32", 2), ("int8", 3), ("int8", 4), ("float32", 5)])
def test_if_bit_exact_with_tflm_over_a_stream(dtype, seed):
    verdict, compiled, _ = _verify(if_model(dtype, seed), "host", seed)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_an_activation_after_if_stays_an_op_of_its_own(dtype):
    verdict, compiled, _ = _verify(if_model(dtype, 12, relu_after=True), "host", 12)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)
    assert [op.kind for op in compiled.graph.ops] == ["IF", "RELU"]


def test_an_unsupported_op_in_a_branch_is_named_with_the_if():
    with pytest.raises(UnsupportedError, match=r"op 0 IF 'y': then subgraph op 0 GELU 'y': GELU is not supported"):
        compile_model(read_bytes(if_model("float32", 1, then_kind="GELU")), Options(name="branch"))


@on_qemu
def test_if_on_qemu():
    verdict, _, _ = _verify(if_model("int8", 6), "qemu-mps2-an386", 6)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)


def _f32(values) -> bytes:
    return np.asarray(values, np.float32).tobytes()


def while_model(dtype: str, seed: int, limit: float = 4.0, counter: str = "float32") -> bytes:
    """i0 = max(x, -8); (i, n, v, inc, z) = WHILE(i < n) { i + 1, n, v + inc, inc, reverse(z) }
    with n = limit a constant operand; outputs i, v, z. `counter`: i's type (float32, int32)."""
    rng = np.random.default_rng(seed)
    ct = INT32 if counter == "int32" else FLOAT32
    num = (lambda v: np.asarray(v, np.int32).tobytes()) if counter == "int32" else _f32  # noqa: E731
    k = int(rng.integers(1, 9))
    if dtype == "int8":
        qv = {"scale": [float(rng.uniform(0.01, 0.1))], "zero_point": [int(rng.integers(-20, 20))]}
        qi = {"scale": [float(rng.uniform(0.001, 0.02))], "zero_point": [int(rng.integers(-20, 20))]}
        typ = INT8
    else:
        qv = qi = {}
        typ = FLOAT32

    def carried(n_buffer=0):  # i, n, v, inc, z
        return [TensorSpec([1], ct, name="i"), TensorSpec([1], ct, name="n", buffer=n_buffer),
                TensorSpec([1, k], typ, name="v", **qv), TensorSpec([1, k], typ, name="inc", **qi),
                TensorSpec([k], INT32, name="z")]
    cond = SubgraphSpec([*carried(), TensorSpec([1], BOOL, name="go")],
                        [_op("LESS", [0, 1], [5], [])], inputs=[0, 1, 2, 3, 4], outputs=[5])
    body_t = [*carried(), TensorSpec([1], ct, name="one", buffer=1), TensorSpec([1], ct, name="i2"),
              TensorSpec([1, k], typ, name="v2", **qv), TensorSpec([1], INT32, name="axis", buffer=2),
              TensorSpec([k], INT32, name="z2")]
    body = SubgraphSpec(body_t, [_op("ADD", [0, 5], [6], [("i8", 0)]), _op("ADD", [2, 3], [7], [("i8", 0)]),
                                 _op("REVERSE_V2", [4, 8], [9], [])],
                        inputs=[0, 1, 2, 3, 4], outputs=[6, 1, 7, 3, 9])
    main = [TensorSpec([1], ct, name="x"), TensorSpec([1], ct, name="floor", buffer=3),
            *carried(n_buffer=4), *[TensorSpec(t.shape, t.type, name=t.name + "_out", scale=t.scale,
                                               zero_point=t.zero_point) for t in carried()]]
    ops = [_op("MAXIMUM", [0, 1], [2], []), _op("WHILE", [2, 3, 4, 5, 6], [7, 8, 9, 10, 11], [("i32", 1), ("i32", 2)])]
    codes = [CodeSpec(deprecated=min(S.BUILTIN_CODE[k], 127), builtin=S.BUILTIN_CODE[k]) for k in KINDS]
    buffers = [b"", num([1]), np.zeros(1, np.int32).tobytes(), num([-8]), num([limit])]
    return ModelSpec(main, ops, codes, buffers=buffers, inputs=[0, 4, 5, 6], outputs=[7, 9, 11],
                     subgraphs=[cond, body]).build()


@pytest.mark.parametrize("dtype, seed, counter", [("float32", 7, "float32"), ("int8", 8, "float32"),
                                                  ("int8", 9, "int32"), ("float32", 13, "int32")])
def test_while_bit_exact_with_tflm_over_a_stream(dtype, seed, counter):
    verdict, compiled, _ = _verify(while_model(dtype, seed, counter=counter), "host", seed)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)


@on_qemu
def test_while_on_qemu():
    verdict, _, _ = _verify(while_model("float32", 10), "qemu-mps2-an386", 10)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)


def test_a_loop_whose_body_changes_a_shape_is_refused():
    graph_bytes = if_model("float32", 1, kind="WHILE")  # IF's operands: the loop would carry 3 in, 1 out
    with pytest.raises(UnsupportedError, match=r"op 0 WHILE.*static shapes in a loop"):
        compile_model(read_bytes(graph_bytes), Options(name="loop"))
