"""A CALL_ONCE whose init subgraph computes (reads one resource, adds a constant, assigns another)
runs that code once, before the first invoke, and streams bit-exact with TFLM."""

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

RESOURCE = S.TENSOR_TYPE_CODE["RESOURCE"]
KINDS = ["CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "ADD"]
OPTIONS = {"CALL_ONCE": "CallOnceOptions", "VAR_HANDLE": "VarHandleOptions", "ADD": "AddOptions",
           "READ_VARIABLE": "ReadVariableOptions", "ASSIGN_VARIABLE": "AssignVariableOptions"}


def _op(kind: str, ins: list[int], outs: list[int], options: list | None = None) -> OpSpec:
    return OpSpec(KINDS.index(kind), ins, outs, S.OPTIONS_TYPE_CODE[OPTIONS[kind]], options or [])


def _handle(name: str, out: int) -> OpSpec:
    return _op("VAR_HANDLE", [], [out], [("str", ""), ("str", name)])


def call_once_model(dtype: str, seed: int, shape=(1, 2, 3)) -> bytes:
    """Init subgraph: a := A; b := read(a) + B (computed). Main, every invoke:
    y = x + (read(a) + read(b)); b := y. Random constants and quantization (one scale per op side)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "int8":
        q = lambda: {"scale": [float(rng.uniform(0.01, 0.1))], "zero_point": [int(rng.integers(-20, 20))]}  # noqa: E731
        qs, typ = q(), INT8
        consts = [rng.integers(-128, 128, n, dtype=np.int8).tobytes() for _ in range(2)]
    else:
        qs, typ = {}, FLOAT32
        consts = [rng.standard_normal(n).astype(np.float32).tobytes() for _ in range(2)]
    t = lambda name, **kw: TensorSpec(list(shape), typ, name=name, **{**qs, **kw})  # noqa: E731
    res = lambda name: TensorSpec([], RESOURCE, name=name)  # noqa: E731
    init = SubgraphSpec(
        tensors=[res("ha"), res("hb"), t("A", buffer=1), t("B", buffer=2), t("ra"), t("vb")],
        ops=[_handle("a", 0), _handle("b", 1), _op("ASSIGN_VARIABLE", [0, 2], []),
             _op("READ_VARIABLE", [0], [4]), _op("ADD", [4, 3], [5], [("i8", 0)]),
             _op("ASSIGN_VARIABLE", [1, 5], [])])
    main = [t("x"), res("ha"), res("hb"), t("sa"), t("sb"), t("s"), t("y")]
    ops = [_op("CALL_ONCE", [], [], [("i32", 1)]), _handle("a", 1), _handle("b", 2),
           _op("READ_VARIABLE", [1], [3]), _op("READ_VARIABLE", [2], [4]), _op("ADD", [3, 4], [5], [("i8", 0)]),
           _op("ADD", [0, 5], [6], [("i8", 0)]), _op("ASSIGN_VARIABLE", [2, 6], [])]
    codes = [CodeSpec(deprecated=min(S.BUILTIN_CODE[k], 127), builtin=S.BUILTIN_CODE[k]) for k in KINDS]
    return ModelSpec(main, ops, codes, buffers=[b"", *consts], inputs=[0], outputs=[6],
                     subgraphs=[init]).build()


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_the_init_subgraph_becomes_code_run_once(dtype):
    graph = read_bytes(call_once_model(dtype, 1))
    assert [op.kind for op in graph.init.ops] == ["READ_VARIABLE", "ADD", "ASSIGN_VARIABLE"]
    compiled = compile_model(graph, Options(name="once"))
    assert compiled.init is not None and [c.kernel for c in compiled.init.calls]
    inputs_end = max(compiled.plan.offsets[t] + t.nbytes for t in compiled.graph.inputs)
    assert compiled.init.base >= inputs_end  # the first invoke runs it with the inputs filled
    assert compiled.plan.arena_bytes >= compiled.init.base + compiled.init.plan.arena_bytes


def _verify(data: bytes, board: str, seed: int):
    with tempfile.TemporaryDirectory(prefix="mf-once-") as tmp:
        path = Path(tmp) / "once.tflite"
        path.write_bytes(data)
        return V.verify(path, board=board, n=20, seed=seed)


@pytest.mark.parametrize("dtype, seed", [("float32", 2), ("int8", 3), ("int8", 4)])
def test_a_computing_call_once_streams_bit_exact_with_tflm(dtype, seed):
    verdict, compiled, _ = _verify(call_once_model(dtype, seed), "host", seed)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)
    assert compiled.init is not None


@on_qemu
def test_a_computing_call_once_on_qemu():
    verdict, _, _ = _verify(call_once_model("int8", 5), "qemu-mps2-an386", 5)
    assert verdict.samples >= 20 and verdict.ok, verdict.line(False)


def test_a_nested_call_once_is_refused_naming_the_op():
    with pytest.raises(UnsupportedError, match="CALL_ONCE inside a CALL_ONCE subgraph"):
        read_bytes(_nested())


def _nested() -> bytes:
    init = SubgraphSpec([], [_op("CALL_ONCE", [], [], [("i32", 1)])])
    codes = [CodeSpec(deprecated=min(S.BUILTIN_CODE[k], 127), builtin=S.BUILTIN_CODE[k]) for k in KINDS]
    main = [TensorSpec([1, 4], FLOAT32, name="x"), TensorSpec([1, 4], FLOAT32, name="y")]
    ops = [_op("CALL_ONCE", [], [], [("i32", 1)]), _op("ADD", [0, 0], [1], [("i8", 0)])]
    return ModelSpec(main, ops, codes, inputs=[0], outputs=[1], subgraphs=[init]).build()
