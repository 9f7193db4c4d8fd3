"""IF runs its then or else subgraph on a bool input, bit-exact with TFLM (if.cc) over a stream of
invokes whose condition is random: int8 and float32 branches (ADD / MUL of the operands)."""

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
KINDS = ["IF", "ADD", "MUL", "WHILE"]
OPTIONS = {"IF": "IfOptions", "ADD": "AddOptions", "MUL": "MulOptions", "WHILE": "WhileOptions"}


def _op(kind: str, ins: list[int], outs: list[int], options: list) -> OpSpec:
    return OpSpec(KINDS.index(kind), ins, outs, S.OPTIONS_TYPE_CODE[OPTIONS[kind]], options)


def if_model(dtype: str, seed: int, kind: str = "IF") -> bytes:
    """y = IF(c, a, b): then ADD(a, b), else MUL(a, b); random shape and quantization."""
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
    then = SubgraphSpec(io(), [_op("ADD", [0, 1], [2], [("i8", act)])], inputs=[0, 1], outputs=[2])
    other = SubgraphSpec(io(), [_op("MUL", [0, 1], [2], [("i8", act)])], inputs=[0, 1], outputs=[2])
    main = [TensorSpec([1], BOOL, name="c"), *io()]
    codes = [CodeSpec(deprecated=min(S.BUILTIN_CODE[k], 127), builtin=S.BUILTIN_CODE[k]) for k in KINDS]
    ops = [_op(kind, [0, 1, 2], [3], [("i32", 1), ("i32", 2)])]
    return ModelSpec(main, ops, codes, inputs=[0, 1, 2], outputs=[3], subgraphs=[then, other]).build()


def _verify(data: bytes, board: str, seed: int):
    with tempfile.TemporaryDirectory(prefix="mf-if-") as tmp:
        path = Path(tmp) / "if.tflite"
        path.write_bytes(data)
        return V.verify(path, board=board, n=20, seed=seed)


def test_if_keeps_both_branches_and_plans_them_in_its_scratch():
    compiled = compile_model(read_bytes(if_model("int8", 1)), Options(name="branch"))
    (call,) = compiled.calls
    assert [[c.kernel.split("_")[1] for c in b.calls] for b in call.branches] == [["add"], ["mul"]]
    offset, size = compiled.plan.scratch[call.op]
    assert size == max(b.plan.arena_bytes for b in call.branches) > 0
    live = [compiled.plan.offsets[t] for t in [*call.inputs, *call.outputs]]
    assert all(not offset <= o < offset + size for o in live)


@pytest.mark.parametrize("dtype, seed", [("float32", 2), ("int8", 3), ("int8", 4), ("float32", 5)])
def test_if_bit_exact_with_tflm_over_a_stream(dtype, seed):
    verdict, compiled, _ = _verify(if_model(dtype, seed), "host", seed)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)


@on_qemu
def test_if_on_qemu():
    verdict, _, _ = _verify(if_model("int8", 6), "qemu-mps2-an386", 6)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)


def test_while_is_refused_naming_the_op():
    with pytest.raises(UnsupportedError, match=r"^op 0 WHILE: WHILE runs other subgraphs at every invoke"):
        read_bytes(if_model("float32", 1, kind="WHILE"))
