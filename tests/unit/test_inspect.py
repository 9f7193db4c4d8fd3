"""`microfuse inspect`: liveness and lower bound, the acceptance figures, JSON, and CLI errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO, model
from tflite_builder import CodeSpec, OpSpec, add_model

from microfuse import cli
from microfuse.errors import PlanError
from microfuse.inspect import alive_bytes_per_step, inspect_graph, json_text, live_ranges
from microfuse.ir import DType, Graph, Op, Tensor
from microfuse.tflite import load
from microfuse.tflite import schema as S

# (ops, MACs, lower bound bytes, step of the bound) from the acceptance list; the
# steps: the first step where input + output of the widest early layer are alive together.
FIGURES = {
    "mlperf_vww_mobilenetv1_96_int8": (31, 7_489_664, 55_296, 2),
    "mlperf_kws_dscnn_int8": (13, 2_656_768, 16_000, 1),
    "mlperf_ic_resnet8_int8": (16, 12_501_632, 49_152, 2),
    "mlperf_ad_autoencoder_int8": (10, 264_192, 768, 0),
}


@pytest.mark.parametrize("name", FIGURES)
def test_acceptance_figures(name):
    n_ops, macs, bound, step = FIGURES[name]
    ins = inspect_graph(load(model(name)), name)
    assert (len(ins.ops), ins.macs, ins.lower_bound_bytes, ins.lower_bound_step) == (n_ops, macs, bound, step)
    assert [r.index for r in ins.ops] == list(range(n_ops))


def _t(name: str, nbytes: int, const: bool = False) -> Tensor:
    import numpy as np

    return Tensor(name, (nbytes,), DType.INT8, data=np.zeros(nbytes, np.int8) if const else None)


def test_liveness_rules():
    """a -> b -> c; d = a + c (a residual keeps a alive); e is produced but never used."""
    a, b, c, d, e, w = _t("a", 100), _t("b", 200), _t("c", 50), _t("d", 10), _t("e", 7), _t("w", 999, const=True)
    graph = Graph(
        ops=[Op("RELU", [a, w], [b]), Op("RELU", [b], [c, e]), Op("ADD", [a, c], [d]), Op("RELU", [None], [_t("f", 1)])],
        inputs=[a], outputs=[d])
    ranges = {t.name: (first, last) for t, first, last in live_ranges(graph).values()}
    assert ranges == {"a": (0, 2), "b": (0, 1), "c": (1, 2), "e": (1, 1), "d": (2, 3), "f": (3, 3)}
    # constants never count; outputs stay alive to the last step
    assert alive_bytes_per_step(graph) == [300, 100 + 200 + 50 + 7, 100 + 50 + 10, 10 + 1]


def test_graph_input_alive_from_step_zero():
    x, y, z = _t("x", 5), _t("y", 3), _t("late", 40)
    graph = Graph(ops=[Op("RELU", [x], [y]), Op("ADD", [y, z], [_t("o", 1)])], inputs=[x, z], outputs=[])
    assert alive_bytes_per_step(graph) == [5 + 3 + 40, 3 + 40 + 1]


def test_empty_graph():
    ins = inspect_graph(Graph([], [], []), "empty")
    assert (ins.lower_bound_bytes, ins.lower_bound_step, ins.macs) == (0, None, 0)


def test_json_fields():
    ins = inspect_graph(load(model("mlperf_kws_dscnn_int8")), "kws")
    d = json.loads(json_text(ins))
    assert set(d) >= {"model", "ops", "macs", "weights_bytes", "lower_bound_bytes", "lower_bound_step"}
    op = d["ops"][0]
    assert set(op) >= {"index", "op", "activation", "inputs", "outputs", "macs", "alive_bytes"}
    assert (op["op"], op["activation"]) == ("CONV_2D", "RELU")
    assert op["inputs"][0] == {"name": "input_1", "shape": [1, 49, 10, 1], "dtype": "int8", "const": False}
    assert d["weights_bytes"] == sum(t.nbytes for t in load(model("mlperf_kws_dscnn_int8")).tensors() if t.is_const)
    assert max(o["alive_bytes"] for o in d["ops"]) == d["lower_bound_bytes"] == 16_000


# -- the command line ---------------------------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "microfuse", *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_cli_inspect_table():
    r = _run("inspect", str(model("mlperf_vww_mobilenetv1_96_int8")))
    assert r.returncode == 0, r.stderr
    assert "CONV_2D+RELU" in r.stdout and "DEPTHWISE_CONV_2D+RELU" in r.stdout
    assert "MACs: 7,489,664" in r.stdout
    assert "activation lower bound: 55,296 bytes at step 2" in r.stdout


def test_cli_inspect_json():
    r = _run("inspect", str(model("mlperf_ic_resnet8_int8")), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (len(d["ops"]), d["macs"], d["lower_bound_bytes"]) == (16, 12_501_632, 49_152)


def _assert_clean_failure(r: subprocess.CompletedProcess, pattern: str) -> None:
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("microfuse: error: "), r.stderr
    assert pattern in lines[0]
    assert "Traceback" not in r.stderr


def test_cli_missing_file(tmp_path):
    _assert_clean_failure(_run("inspect", str(tmp_path / "missing.tflite")), "no such file")


def test_cli_not_a_model(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# microfuse\n\nCompile TFLite models to C.\n")
    _assert_clean_failure(_run("inspect", str(readme)), "not a TFLite model")


def test_cli_truncated_model(tmp_path):
    cut = tmp_path / "vww_cut.tflite"
    cut.write_bytes(model("mlperf_vww_mobilenetv1_96_int8").read_bytes()[:150_000])
    _assert_clean_failure(_run("inspect", str(cut)), "vww_cut.tflite: ")


def test_cli_unsupported_op(tmp_path):
    path = tmp_path / "gelu.tflite"
    code = S.BUILTIN_CODE["GELU"]
    path.write_bytes(add_model(codes=[CodeSpec(deprecated=127, builtin=code)], ops=[OpSpec(0, [0], [2])]).build())
    _assert_clean_failure(_run("inspect", str(path)), "op 0 GELU 'y': GELU is not supported")


def _fake_command(monkeypatch, error: BaseException) -> None:
    def run(args):
        raise error

    monkeypatch.setattr(cli, "COMMANDS", [*cli.COMMANDS, cli.Command("boom", "test", lambda p: None, run)])


def test_main_error_is_one_line(monkeypatch, capsys):
    _fake_command(monkeypatch, PlanError("arena of 9000 bytes\nexceeds the board's 8192"))
    assert cli.main(["boom"]) == 2
    assert capsys.readouterr().err == "microfuse: error: arena of 9000 bytes exceeds the board's 8192\n"


def test_main_keyboard_interrupt(monkeypatch, capsys):
    _fake_command(monkeypatch, KeyboardInterrupt())
    assert cli.main(["boom"]) == 130
    assert "Traceback" not in capsys.readouterr().err


def test_main_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["inspect"])  # MODEL missing: argparse's usage message, status 2
    assert info.value.code == 2


@pytest.mark.parametrize("name", ["tflm/audio_preprocessor_int8", "tflm/keyword_scrambled_int16",
                                  "wakeword/okay_nabu"])
def test_inspect_state_is_the_builds_state_area(name):
    """Variable tensors, resource variables and kernels' own state (the audio front end's noise
    estimate, which lives in no tensor): inspect says what NAME_STATE_SIZE will be."""
    from microfuse.pipeline import Options, compile_model

    path = model(name)
    compiled = compile_model(path, Options(name="m"))
    assert compiled.plan.state_bytes > 0
    assert inspect_graph(load(path), str(path)).state_bytes == compiled.plan.state_bytes
