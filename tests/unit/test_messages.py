"""No numpy repr in a user message: the suite-wide scan (tests/messages.py) and the shape rules that leaked one."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.errors import MicrofuseError, ModelError
from microfuse.ir import DType, Graph, Op, Tensor
from microfuse.ops.attrs import NoAttrs
from tests.messages import NUMPY_REPR


def test_the_scan_is_installed_and_catches_numpy_reprs():
    with pytest.raises(AssertionError, match="numpy repr"):
        MicrofuseError(f"shape {[np.int64(4), np.int64(2)]}")
    assert NUMPY_REPR.search(f"{np.float32(0.5)!r}") and NUMPY_REPR.search(f"{np.True_!r}")
    assert NUMPY_REPR.search(repr(np.array([1]))) and NUMPY_REPR.search(repr(np.dtype("int8")))
    assert not NUMPY_REPR.search("tensor 'np.conv' [4, 2] int8 scale 0.5")


@pytest.mark.parametrize("kind", ["SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND"])
def test_block_op_shape_error_has_plain_ints(kind):
    x = Tensor("x", (4, 4, 4, 1), DType.FLOAT32)
    block = Tensor("block", (2,), DType.INT32, data=np.array([2, 2], np.int32))
    pads = Tensor("pads", (2, 2), DType.INT32, data=np.zeros((2, 2), np.int32))
    y = Tensor("y", (3, 3, 3, 3), DType.FLOAT32)  # wrong on purpose
    graph = Graph([Op(kind, [x, block, pads], [y], NoAttrs(), name="y", index=0)], [x], [y])
    with pytest.raises(ModelError, match=r"but the op gives \[\d+, \d+, \d+, 1\] float32$"):
        ops.verify(graph)
