"""Each op is lowered once per --optimize level (lower.Lowerer's memo, shared by the passes, the
cost model and the kernel choice), so compiling IC ResNet-8 costs about what AD does: the
exhaustive residual check (lower/fast.py fast_addsub) runs once per fused residual op."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections import Counter

from conftest import REPO, model
from microfuse.pipeline import Options, compile_model
from microfuse.lower import Lowerer, fast


def test_each_op_is_lowered_once_per_level(monkeypatch):
    runs: Counter = Counter()
    checks: Counter = Counter()
    real_run, real_check = Lowerer._run, fast.fast_addsub

    def run(self, op):
        runs[(self.level, id(op))] += 1
        return real_run(self, op)

    def check(op):
        if any(step.kind in ("add", "sub") for step in op.fused):  # the exhaustive check runs
            checks[id(op)] += 1
        return real_check(op)

    monkeypatch.setattr(Lowerer, "_run", run)
    monkeypatch.setattr(fast, "fast_addsub", check)
    compiled = compile_model(model("mlperf_ic_resnet8_int8"), Options(name="ic"))
    assert runs and max(runs.values()) == 1
    assert {level for level, _ in runs} == {"balanced", "size"}
    inner = [b for c in compiled.calls for b in getattr(c, "bands", {}).values()]  # a cascade's band calls
    residual = {c.sources[0].index for c in [*compiled.calls, *inner] if c.kernel.endswith("_add")}
    bands = {id(c) for c in inner if c.kernel.endswith("_add")}
    assert len(residual) == 3 and max(checks.values()) == 1 and len(checks) <= 2 * len(residual) + len(bands)


def cpu_seconds(name: str, out) -> float:
    """Process CPU time of `python3 -m microfuse build` on a corpus model, without the report's
    flash/RAM totals (`--core none`: they run the Arm compiler on the output, not microfuse)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "microfuse", "build", str(model(name)), "-o", str(out), "--name", "m",
                    "--core", "none"], check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_ic_compiles_in_at_most_1_3_times_the_cpu_time_of_ad(tmp_path):
    """The issue's bound (it was 2.3x-2.7x, now about 1.1x): best of three runs each, against the
    noise of a shared machine."""
    ad = min(cpu_seconds("mlperf_ad_autoencoder_int8", tmp_path / f"ad{i}") for i in range(3))
    ic = min(cpu_seconds("mlperf_ic_resnet8_int8", tmp_path / f"ic{i}") for i in range(3))
    assert ic <= 1.3 * ad, f"IC ResNet-8 {ic:.2f} s CPU, AD {ad:.2f} s: {ic / ad:.2f}x"
