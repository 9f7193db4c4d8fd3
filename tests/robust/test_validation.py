"""Model validation at read time: absurd scales, miswired operands and non-finite constants are
refused in one line (or, for float NaN/inf, emitted as C99 NAN/INFINITY), never a stray exception."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import Options, build, compile_model
from microfuse.errors import MicrofuseError
from microfuse.ir import Quant, Tensor
from microfuse.targets.host import compile_program
from microfuse.testing import modelgen
from microfuse.tflite import writer
from microfuse.verify import make_samples

TINY = 2.0 ** -140  # a float32 denormal


def _int8(kind: str):
    rng = np.random.default_rng(5)
    return {"fc": lambda: modelgen.fully_connected(rng, per_channel=True, dtype=modelgen.INT8),
            "conv": lambda: modelgen.conv2d(rng, dtype=modelgen.INT8),
            "mean": lambda: modelgen.mean(rng), "add": lambda: modelgen.add(rng, dtype=modelgen.INT8),
            "mul": lambda: modelgen.mul(rng, dtype=modelgen.INT8)}[kind]()


def _rescale(t: Tensor, value: float) -> None:
    t.quant = Quant(tuple(value for _ in t.quant.scale), t.quant.zero_point, t.quant.axis)


def _refused(graph, *words) -> str:
    data = writer.write(graph)
    with pytest.raises(MicrofuseError) as e:
        compile_model(data, Options(name="m"))
    text = str(e.value)
    assert "\n" not in text and all(w in text for w in words), text
    return text


SCALED = [(k, w) for k in ("fc", "conv", "mean", "add") for w in ("input", "weights", "output")
          if (k, w) != ("mean", "weights")]  # MEAN's second operand is its axes: no scale


@pytest.mark.parametrize("value", [0.0, -0.0, TINY, -1.0])
@pytest.mark.parametrize("kind,which", SCALED)
def test_scales_must_be_positive_normal(kind, which, value):
    g = _int8(kind)
    op = g.ops[0]
    t = {"input": op.inputs[0], "weights": op.inputs[1], "output": op.outputs[0]}[which]
    _rescale(t, value)
    _refused(g, "scale")


@pytest.mark.parametrize("scale", [1e38, 1e30])
@pytest.mark.parametrize("which", ["input", "weights"])
@pytest.mark.parametrize("kind", ["fc", "conv"])
def test_huge_effective_multiplier_is_refused_naming_the_op_and_scales(kind, which, scale):
    g = _int8(kind)
    op = g.ops[0]
    _rescale(op.inputs[0] if which == "input" else op.inputs[1], scale)
    _refused(g, "multiplier", op.kind, "output scale")


def test_mul_multiplier_that_overflows_int32_is_refused():
    g = _int8("mul")
    _rescale(g.ops[0].outputs[0], 1e-12)
    _refused(g, "multiplier", "MUL")


@pytest.mark.parametrize("kind", ["fc", "conv"])
def test_a_bias_that_can_overflow_the_int32_accumulator_is_refused(kind):
    """Found by the fuzz campaign: a bias near INT32_MAX made the conv kernel's sum overflow
    (UBSan: signed integer overflow); TFLM's arithmetic is undefined there too."""
    g = _int8(kind)
    b = g.ops[0].inputs[2]
    b.data = np.full(np.asarray(b.data).shape, 2**31 - 100, np.int32)
    _refused(g, "int32 accumulator can overflow", "output channel 0", g.ops[0].kind)


def test_the_largest_bias_that_cannot_overflow_is_accepted():
    from microfuse.ops.common import accumulator_fits

    g = _int8("conv")
    op = g.ops[0]
    assert accumulator_fits(op) is None
    zp = int(op.inputs[0].quant.zero_point[0])
    reach = int(np.abs(np.asarray(op.inputs[1].data, np.int64)).sum(axis=(1, 2, 3)).max()) * max(127 - zp, zp + 128)
    op.inputs[2].data = np.full(np.asarray(op.inputs[2].data).shape, 2**31 - 1 - reach, np.int32)
    assert accumulator_fits(op) is None
    op.inputs[2].data = op.inputs[2].data + 1
    assert "overflow" in accumulator_fits(op)


def test_bias_of_the_wrong_length_is_refused():
    g = _int8("conv")
    op = g.ops[0]
    b = op.inputs[2]
    short = np.asarray(b.data)[:-1].copy()
    q = b.quant and Quant(b.quant.scale[:len(short)], b.quant.zero_point[:len(short)], b.quant.axis)
    op.inputs[2] = Tensor(b.name, short.shape, b.dtype, q, short)
    _refused(g, "bias", "values")


def test_constant_data_input_is_refused():
    g = _int8("conv")
    op = g.ops[0]
    x = op.inputs[0]
    op.inputs[0] = Tensor("const_x", x.shape, x.dtype, x.quant, np.zeros(x.shape, np.int8))
    _refused(g, "constant")


def test_op_without_outputs_is_refused():
    g = _int8("conv")
    g.ops[0].outputs = []
    with pytest.raises(MicrofuseError):
        compile_model(writer.write(g), Options(name="m"))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_float_non_finite_weights_compile_as_c99_macros(tmp_path, value):
    g = modelgen.fully_connected(np.random.default_rng(2), dtype=modelgen.FLOAT32)
    w = g.ops[0].inputs[1]
    data = np.array(w.data, np.float32)
    data.reshape(-1)[0] = value
    w.data = data
    compiled = build(writer.write(g), tmp_path / "out", Options(name="m"))
    text = (tmp_path / "out" / "m.c").read_text()
    assert ("NAN" if np.isnan(value) else "INFINITY") in text and "nanf" not in text
    program = compile_program(tmp_path / "out", "m", compiled.graph, tmp_path / "prog")
    out = program.run([make_samples(compiled.graph, 0, 0)[0]])[0][0]
    assert out.dtype == np.float32


def test_an_svdf_whose_multiplier_overflows_is_refused_naming_the_op(tmp_path):
    """SVDF's scales are multiplied in float32 at lowering (TFLM's effective scales): 1e38 x 1e38
    is inf, which no (multiplier, shift) represents (the fuzz campaign's find)."""
    from conftest import model
    from microfuse.tflite import read_bytes

    graph = read_bytes(model("tflm/keyword_scrambled_int16").read_bytes())
    svdf = next(op for op in graph.ops if op.kind == "SVDF")
    _rescale(svdf.inputs[1], 1e38)  # the feature weights
    _rescale(svdf.inputs[4], 1e-37)  # the state: input x weights / state overflows float32
    with pytest.raises(MicrofuseError, match=r"^op \d+ SVDF .*multiplier inf is not finite"):
        compile_model(writer.write(graph), Options(name="m"))
