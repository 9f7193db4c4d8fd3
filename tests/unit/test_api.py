"""The Python API: microfuse.compile() and microfuse.build() with keyword options, errors as MicrofuseError."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

import microfuse

TINY = REPO / "examples" / "tiny_cnn_int8.tflite"


def test_compile_returns_graph_calls_plan_arena_and_report():
    r = microfuse.compile(TINY, optimize="size")
    assert r.name == "tiny_cnn_int8" and r.arena == r.plan.arena_bytes == r.report["arena_bytes"]
    assert [c.kernel for c in r.calls] == [c["kernel"] for c in r.report["calls"]]
    assert r.graph.ops and set(map(id, r.plan.order)) <= set(map(id, r.graph.ops))
    fast = microfuse.compile(TINY.read_bytes(), optimize="speed", name="t")
    assert fast.name == "t" and [c.kernel for c in fast.calls] != [c.kernel for c in r.calls]


def test_build_writes_the_folder_like_the_cli(tmp_path):
    r = microfuse.build(TINY, tmp_path / "o", name="tiny", passes=["fold"], fuse=False)
    assert (tmp_path / "o" / "tiny.h").is_file() and (tmp_path / "o" / "zephyr" / "module.yml").is_file()
    assert json.loads((tmp_path / "o" / "report.json").read_text())["arena_bytes"] == r.arena
    # The pipeline behind it is its own module: importing it leaves microfuse.build the function.
    from microfuse import pipeline

    assert pipeline.compile_model(TINY, pipeline.Options(name="tiny")).plan.arena_bytes > 0
    assert callable(microfuse.build) and microfuse.build.__module__ == "microfuse.api"


@pytest.mark.parametrize("call, error", [
    (lambda: microfuse.compile(TINY, optimise="size"), microfuse.OptionError),
    (lambda: microfuse.compile(TINY, arena_limit=100), microfuse.ArenaLimitError),
    (lambda: microfuse.compile(TINY, name="Bad-Name"), microfuse.UnsupportedError),
    (lambda: microfuse.compile(REPO / "missing.tflite"), microfuse.ModelError),
    (lambda: microfuse.compile(b"not a model"), microfuse.ModelError),
])
def test_errors_are_microfuse_errors(call, error):
    with pytest.raises(error) as e:
        call()
    assert isinstance(e.value, microfuse.MicrofuseError) and "\n" not in str(e.value)
