"""`--help` shows examples that parse, `inspect --html` writes its page, and errors say how to fix them."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest
from conftest import REPO, model
from tflite_builder import CodeSpec, OpSpec, add_model

from microfuse import cli
from microfuse.inspect import inspect_graph
from microfuse.tflite import load
from microfuse.tflite import schema as S

TINY = REPO / "examples" / "tiny_cnn_int8.tflite"


def help_text(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        cli.main([*argv, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def example_lines(text: str) -> list[str]:
    """The command lines of a help text: lines that start with `microfuse ` (comments stripped)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("microfuse ")]
    return [ln.split("  #")[0].strip() for ln in lines]


@pytest.mark.parametrize("command", [c.name for c in cli.COMMANDS])
def test_every_command_has_examples_that_parse(capsys, command):
    text = help_text(capsys, command)
    assert "\nexamples:\n" in text
    examples = example_lines(text.split("\nexamples:\n", 1)[1])
    assert examples, f"`microfuse {command} --help` shows no example"
    for line in examples:
        argv = shlex.split(line)[1:]
        assert argv[0] == command, line
        args = cli.parser().parse_args(argv)  # argparse exits (a failure here) on a bad example
        assert args.command == command


def test_top_level_help_has_a_quick_start(capsys):
    text = help_text(capsys)
    lines = example_lines(text.split("quick start:", 1)[1])
    assert {shlex.split(ln)[1] for ln in lines} == {"inspect", "build", "verify"}
    for line in lines:
        cli.parser().parse_args(shlex.split(line)[1:])
    for c in cli.COMMANDS:
        assert c.name in text


def test_inspect_html_writes_the_page(tmp_path, capsys):
    page = tmp_path / "kws.html"
    path = model("mlperf_kws_dscnn_int8")
    assert cli.main(["inspect", str(path), "--html", str(page)]) == 0
    assert "activation lower bound" in capsys.readouterr().out  # the table still prints
    html = page.read_text(encoding="utf-8")
    data = inspect_graph(load(path), str(path)).to_json()
    assert html.startswith("<!DOCTYPE html>") or html.lower().startswith("<!doctype html>")
    chart = re.search(r'<svg[^>]*id="alive-chart"[^>]*>', html)
    assert chart and f'data-lower-bound="{data["lower_bound_bytes"]}"' in chart.group(0)
    assert f'data-steps="{len(data["ops"])}"' in chart.group(0)
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org", "")


def test_inspect_html_unwritable_path(tmp_path, capsys):
    assert cli.main(["inspect", str(TINY), "--html", str(tmp_path / "no" / "such" / "x.html")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "cannot write" in captured.err and "--html" in captured.err


def run_cli(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "microfuse", *argv], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=120)


def one_error_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2 and r.stdout == "", (r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("microfuse: error: "), r.stderr
    return lines[0]


def test_unsupported_op_points_to_microfuse_ops(tmp_path):
    path = tmp_path / "skipgram.tflite"
    code = S.BUILTIN_CODE["SKIP_GRAM"]
    path.write_bytes(add_model(codes=[CodeSpec(deprecated=code, builtin=code)], ops=[OpSpec(0, [0, 1], [2])]).build())
    line = one_error_line(run_cli("build", str(path), "-o", str(tmp_path / "out")))
    assert "op 0 SKIP_GRAM 'y': SKIP_GRAM is not supported; supported ops: `microfuse ops`" in line
    assert not (tmp_path / "out").exists()


def test_unknown_board_lists_the_boards(tmp_path):
    line = one_error_line(run_cli("build", str(TINY), "-o", str(tmp_path / "out"), "--board", "qemu-nosuch"))
    assert "board 'qemu-nosuch' not found; available: " in line
    assert "qemu-mps2-an386" in line and "host" in line


def test_missing_arm_toolchain_says_how_to_install(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}  # no compiler, no QEMU on this PATH
    line = one_error_line(run_cli("build", str(TINY), "-o", str(tmp_path / "out"), "--board", "qemu-mps2-an386",
                                  env=env))
    assert "arm-none-eabi-gcc not found: install it with `apt-get install gcc-arm-none-eabi" in line


def test_bench_on_the_host_names_the_boards_to_use():
    line = one_error_line(run_cli("bench", str(TINY)))
    assert "use a qemu-* board" in line and "microfuse boards" in line
