"""The product's main job on the host: every corpus model builds, runs and equals TFLM."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.targets.host import STRICT, compiler
from microfuse.testing import inputs
from microfuse.testing.compare import difference
from microfuse.testing.stages import build
from microfuse.verify import verify
from tests.conftest import CORPUS_FILES, REPO, model
from tests.harness import reference

EXAMPLES = sorted((REPO / "examples").glob("*.tflite"))


@pytest.mark.parametrize("path", CORPUS_FILES + EXAMPLES, ids=lambda p: p.stem)
def test_verify_bit_exact_with_tflm(path):
    verdict, compiled, _ = verify(path, n=8, seed=1)
    assert verdict.ok, verdict.line(False)
    assert compiled.plan.arena_bytes <= compiled.plan.lower_bound_bytes


@pytest.mark.parametrize("name", ["mlperf_kws_dscnn_int8", "mlperf_ic_resnet8_int8", "tflm_hello_world_float",
                                  "mlperf_vww_mobilenetv1_96_int8", "mlperf_ad_autoencoder_int8",
                                  "tflm_micro_speech_int8", "tflm_simple_add", "tflm_hello_world_int8"])
def test_sanitizers_clean(name):
    verdict, _, _ = verify(model(name), n=2, seed=2, sanitize=True)
    assert verdict.ok, verdict.line(False)


HARNESS = r"""
#include <stdio.h>
#include <string.h>
#include "NAME.h"

static unsigned char own_arena[NAME_U_ARENA_SIZE] __attribute__((aligned(16)));

#ifdef NAME_U_NO_STATIC_ARENA
static int check_no_arena(void) { return NAME_invoke() == -1; }
#else
static int check_no_arena(void) { return 1; }
#endif

int main(int argc, char **argv)
{
    FILE *in = fopen(argv[1], "rb");
    FILE *out = fopen(argv[2], "wb");
    if (!check_no_arena()) return 8;
    if (argc == 4 && NAME_set_arena(own_arena, sizeof own_arena) != 0) return 5;
    if (NAME_set_arena(own_arena, NAME_U_ARENA_SIZE - 1) != -1) return 6;
    if (NAME_input(NAME_U_INPUTS) != NULL || NAME_output(-1) != NULL) return 7;
    if (fread(NAME_input(0), 1, NAME_U_INPUT0_BYTES, in) != NAME_U_INPUT0_BYTES) return 3;
    if (NAME_invoke() != 0) return 4;
    fwrite(NAME_output(0), 1, NAME_U_OUTPUT0_BYTES, out);
    fclose(in);
    fclose(out);
    return 0;
}
"""


@pytest.mark.parametrize("own_arena", [False, True], ids=["library-arena", "caller-arena"])
def test_independent_harness_from_output_folder_alone(tmp_path, own_arena):
    """The contract: cc -std=c99 -O2 -I OUT $(find OUT -name '*.c') main.c -lm builds a working program."""
    path = model("mlperf_kws_dscnn_int8")
    out = tmp_path / "out"
    compiled = build(path, out, Options(name="kws"))
    main_c = tmp_path / "main.c"
    main_c.write_text(HARNESS.replace("NAME_U", "KWS").replace("NAME", "kws"))
    sources = sorted(str(p) for p in out.rglob("*.c"))
    exe = tmp_path / "harness"
    no_static = ["-DKWS_NO_STATIC_ARENA"] if own_arena else []
    subprocess.run([compiler(), "-std=c99", "-O2", *no_static, "-I", str(out), *sources, str(main_c), "-o", str(exe),
                    "-lm"], check=True)
    x = inputs.samples(compiled.graph, 1, seed=5)[2][0]
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    args = [str(exe), str(tmp_path / "x.bin"), str(tmp_path / "y.bin")] + (["own"] if own_arena else [])
    subprocess.run(args, check=True)
    ours = np.frombuffer((tmp_path / "y.bin").read_bytes(), np.int8)
    found = difference(ours, reference(path, [[x]])[0][0])
    assert found is None, found


def test_output_folder_builds_with_make_and_strict_flags(tmp_path):
    out = tmp_path / "out"
    build(model("mlperf_ic_resnet8_int8"), out, Options(name="ic"))
    flags = " ".join(["-O2", *STRICT])
    done = subprocess.run(["make", "-C", str(out), f"CFLAGS={flags}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (out / "libic.a").exists()


def test_build_is_deterministic(tmp_path):
    path = model("mlperf_vww_mobilenetv1_96_int8")
    build(path, tmp_path / "a", Options(name="vww"))
    build(path, tmp_path / "b", Options(name="vww"))
    names = sorted(str(p.relative_to(tmp_path / "a")) for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(tmp_path / "b")) for p in (tmp_path / "b").rglob("*") if p.is_file())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_report_json_fields(tmp_path):
    compiled = build(model("mlperf_ic_resnet8_int8"), tmp_path / "o", Options(name="ic"))
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert report["name"] == "ic"
    assert report["source_ops"] == 16
    assert report["kernel_calls"] == len(report["calls"]) == len(compiled.calls)
    assert report["arena_bytes"] == compiled.plan.arena_bytes <= report["lower_bound_bytes"]
    assert report["macs"] == 12_501_632
    assert report["weights_bytes"] > 70_000
    for call in report["calls"]:
        assert call["source_ops"] and all(t["offset"] is not None for t in call["inputs"] + call["outputs"])
    assert max(b["offset"] + b["bytes"] for b in report["timeline"]) == report["arena_bytes"]


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "microfuse", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd)


def test_cli_build_and_verify(tmp_path):
    done = run_cli("build", model("tflm_hello_world_int8"), "-o", tmp_path / "hw", "--name", "hw")
    assert done.returncode == 0, done.stderr
    assert "kernel calls" in done.stdout and (tmp_path / "hw" / "hw.h").exists()
    done = run_cli("verify", model("tflm_hello_world_int8"), "--board", "host", "--samples", "5")
    assert done.returncode == 0 and done.stdout.strip() == "7/7 samples bit-exact", done.stdout + done.stderr


def test_cli_arena_limit_fails_cleanly_without_output(tmp_path):
    done = run_cli("build", model("mlperf_kws_dscnn_int8"), "-o", tmp_path / "k", "--arena-limit", "4000")
    assert done.returncode == 2
    assert done.stderr.startswith("microfuse: error: arena needs") and "peak at step" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "k").exists()


def test_cli_refuses_to_overwrite_a_foreign_folder(tmp_path):
    (tmp_path / "mine.txt").write_text("precious")
    done = run_cli("build", model("tflm_hello_world_int8"), "-o", tmp_path)
    assert done.returncode == 2 and "not empty" in done.stderr
    assert (tmp_path / "mine.txt").read_text() == "precious"
