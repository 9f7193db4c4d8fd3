"""--float-model: the int8 model against its float original (MLPerf pairs from ../shared/models/tiny),
per output and per layer; a corrupted weight must show up as a larger error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from microfuse import accuracy, cli
from microfuse.pipeline import Options
from microfuse.errors import MicrofuseError
from microfuse.tflite import reader, writer
from tests.conftest import model

VWW = ("tiny/vww_96_float", "mlperf_vww_mobilenetv1_96_int8")
PAIRS = [VWW, ("tiny/ic_resnet8_float", "mlperf_ic_resnet8_int8"), ("tiny/ad01_float", "mlperf_ad_autoencoder_int8")]


def test_verify_prints_the_metrics(capsys):
    code = cli.main(["verify", str(model(VWW[1])), "--samples", "2", "--float-model", str(model(VWW[0]))])
    out = capsys.readouterr().out
    assert code == 0 and "4/4 samples bit-exact" in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("output Identity_int8"))
    for name in ("RMSE", "MAE", "L2 rel", "cosine", "top-1"):
        assert name in line
    assert "layer " in out  # the worst layers follow


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p[1])
def test_build_reports_accuracy(pair, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["build", str(model(pair[1])), "-o", str(out), "--float-model", str(model(pair[0])),
                     "--core", "cortex-m4"]) == 0
    acc = json.loads((out / "report.json").read_text())["accuracy"]
    (o,) = acc["outputs"]
    assert acc["samples"] == 10 and 0 <= o["mae"] <= o["rmse"] and o["cosine"] > 0.95 and o["l2_relative"] < 0.5
    assert (o["top1_agreement"] is None) == (pair[1] == "mlperf_ad_autoencoder_int8")  # AD reconstructs
    assert len(acc["layers"]) >= 5 and all(la["cosine"] is None or la["cosine"] > 0.5 for la in acc["layers"])
    page = (out / "report.html").read_text()
    assert "Accuracy against the float model" in page and "accuracy vs float" in page


def corrupted(path) -> bytes:
    """The int8 model with its largest weight tensor's values scrambled (shape and type kept)."""
    graph = reader.read(path)
    biggest = max((t for op in graph.ops for t in op.inputs if t is not None and t.is_const and t.dtype.np == np.int8),
                  key=lambda t: t.nbytes)
    biggest.data = np.random.default_rng(1).permutation(biggest.data.reshape(-1)).reshape(biggest.data.shape)
    return writer.write(graph)


def test_a_corrupted_weight_raises_the_error(tmp_path):
    fmodel, qmodel = model(VWW[0]), model(VWW[1])
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(corrupted(qmodel))
    clean = accuracy.on_host(qmodel, fmodel, Options(name="vww"), samples=4)
    broken = accuracy.on_host(bad, fmodel, Options(name="vww"), samples=4)
    ok, wrong = clean["outputs"][0], broken["outputs"][0]
    assert wrong["l2_relative"] > 3 * ok["l2_relative"] and wrong["rmse"] > 3 * ok["rmse"]
    assert wrong["cosine"] < ok["cosine"]
    # per layer, the damage starts at the corrupted layer: some layer is far worse than before
    worst = lambda acc: max(la["l2_relative"] for la in acc["layers"] if la["l2_relative"] is not None)  # noqa: E731
    assert worst(broken) > 2 * worst(clean)


def test_inputs_folder(tmp_path):
    fmodel, qmodel = model("tiny/ad01_float"), model("mlperf_ad_autoencoder_int8")
    rng = np.random.default_rng(3)
    for k in range(3):
        np.save(tmp_path / f"s{k}.npy", rng.standard_normal((1, 640)).astype(np.float32))
    acc = accuracy.on_host(qmodel, fmodel, Options(name="ad"), inputs_dir=tmp_path)
    assert acc["samples"] == 3 and acc["inputs"] == str(tmp_path)


def test_metrics_by_hand():
    m = accuracy.metrics([np.array([1.0, 0.0, 0.0])], [np.array([1.0, 0.5, 0.0])])
    assert m["rmse"] == pytest.approx(np.sqrt(0.25 / 3)) and m["mae"] == pytest.approx(0.5 / 3)
    assert m["l2_relative"] == pytest.approx(0.5) and m["cosine"] == pytest.approx(1 / np.sqrt(1.25))
    assert m["top1_agreement"] == 1.0


def test_mismatched_pair_is_refused(tmp_path, capsys):
    with pytest.raises(MicrofuseError, match="does not match"):
        accuracy.evaluate(model("tiny/ad01_float"), model(VWW[1]), lambda s: s)
    assert cli.main(["build", str(model(VWW[1])), "-o", str(tmp_path / "o"), "--inputs", str(tmp_path)]) == 2
    assert "--inputs needs --float-model" in capsys.readouterr().err
