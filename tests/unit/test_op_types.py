"""`microfuse ops`, `inspect` and `build` agree on the types each op takes: the registry's
OpDef.dtypes are exactly the types the lowering registry has a kernel for, `ops` prints them, and
what inspect reads, build compiles."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import cli, ops
from microfuse.errors import UnsupportedError
from microfuse.ir import DType, Quant
from microfuse.lower import LOWERINGS
from microfuse.ops.attrs import StridedSliceAttrs
from microfuse.testing import stages
from microfuse.tflite import reader, writer
from tests.kernels.cases import single, tensor

KINDS = ops.supported_ops() + ops.custom_ops()


def kernel_types(kind: str) -> set[DType]:
    return {dt for k, dt in LOWERINGS if k == kind}


@pytest.mark.parametrize("kind", KINDS)
def test_registry_types_are_the_lowered_types(kind):
    d = ops.REGISTRY[kind]
    if d.alias:
        assert not kernel_types(kind) and set(d.dtypes) == set(DType)
    else:
        assert set(d.dtypes) == kernel_types(kind), f"{kind}: ops says {sorted(map(str, d.dtypes))}"


def test_ops_prints_exactly_the_types_build_accepts(capsys):
    assert cli.main(["ops"]) == 0
    table, _, footer = capsys.readouterr().out.partition("\n\n")
    assert footer == ops.tflm_coverage() + "\n"
    lines = dict(line.split(None, 1) for line in table.splitlines())
    assert sorted(lines) == sorted(KINDS)
    for kind, text in lines.items():
        d = ops.REGISTRY[kind]
        if d.listed:  # its own words (SELECT_V2: the condition's type is not the values')
            assert text == d.listed
            continue
        kernels = text.split(";")[0] if not text.startswith("any type") else ""
        printed = {DType[name.strip().upper()] for name in kernels.split(",") if name.strip()}
        assert printed == (set() if d.alias else kernel_types(kind)), kind
        assert ("any type" in text) == (d.alias or d.folds is not None), kind


def slice_graph(const: bool):
    x = tensor("x", (1, 4, 6, 2), DType.INT16, Quant((1e-3,), (0,)))
    if const:
        x.data = np.arange(48, dtype=np.int16).reshape(x.shape)
    begin, end, strides = (tensor(n, (4,), DType.INT32, data=np.array(v, np.int32))
                           for n, v in (("b", [0, 1, 0, 0]), ("e", [1, 3, 6, 2]), ("s", [1, 1, 2, 1])))
    y = tensor("y", (1, 2, 3, 2), DType.INT16, x.quant)
    return single("STRIDED_SLICE", [x, begin, end, strides], y, StridedSliceAttrs())


def test_a_run_time_strided_slice_is_read_and_built_alike(tmp_path):
    path = tmp_path / "slice.tflite"
    path.write_bytes(writer.write(slice_graph(const=False)))
    reader.load(path)  # what inspect reads with
    compiled = stages.build(path, tmp_path / "out")
    assert [c.kernel for c in compiled.calls] == ["mf_move"]


def test_a_constant_strided_slice_of_any_type_is_accepted():
    assert ops.problems(slice_graph(const=True).ops[0]) == []


def test_a_flatten_chain_read_from_a_file_folds(tmp_path):
    """SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE: the slice and the pack read outputs of ops that
    fold, so they are known at compile time too (check_supported runs before the passes)."""
    from tests.passes.test_fold import flatten_graph

    path = tmp_path / "flatten.tflite"
    path.write_bytes(writer.write(flatten_graph()))
    reader.load(path)
    compiled = stages.build(path, tmp_path / "out")
    assert [op.kind for op in compiled.graph.ops] == ["RELU", "RESHAPE"]


def test_a_constant_strided_slice_that_is_a_graph_output_is_accepted():
    ops.check_supported(slice_graph(const=True))  # copied at run time: folding never writes an output
