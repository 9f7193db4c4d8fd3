"""A sample of the reduction, resize, BATCH_MATMUL, normalization and int16 pooling kernels under
QEMU (qemu-mps2-an386, Cortex-M4F), merged into one model and compared with TFLite Micro."""

from __future__ import annotations

import numpy as np

from microfuse.ir import DType
from microfuse.testing.modelgen import merge
from microfuse.tflite.writer import write
from microfuse.verify import verify
from tests.harness import on_qemu
from tests.kernels import test_batch_matmul, test_normalization, test_pool_s16, test_reductions, test_resize

INT8, INT16, FLOAT32, BOOL = DType.INT8, DType.INT16, DType.FLOAT32, DType.BOOL


def sample_graphs(rng: np.random.Generator) -> list:
    graphs = [test_reductions.reduce_case(rng, k, t) for k, t in test_reductions.CASES]
    graphs += [test_reductions.arg_case(rng, k, t) for k in ("ARG_MAX", "ARG_MIN") for t in (INT8, FLOAT32)]
    graphs += [test_resize.resize_case(rng, k, t) for k in test_resize.KINDS for t in (INT8, FLOAT32)]
    graphs += [test_batch_matmul.matmul_case(rng, t) for t in (INT8, FLOAT32)]
    graphs += [make(rng, t) for make, t in test_normalization.CASES]
    graphs += [test_pool_s16.mean_case(rng)]
    graphs += [test_pool_s16.pool_case(rng, i, k).graph for i, k in enumerate(test_pool_s16.KINDS)]
    return graphs


@on_qemu
def test_sample_matches_tflm_under_qemu_m4(tmp_path):
    model = tmp_path / "sample.tflite"
    model.write_bytes(write(merge(sample_graphs(np.random.default_rng(14)))))
    verdict, compiled, counts = verify(model, "qemu-mps2-an386", n=2, seed=14)
    assert verdict.ok, verdict.line(False)
    assert len(compiled.calls) >= 25 and min(counts) > 0
