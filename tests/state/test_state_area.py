"""The state area: state tensors outlive an invoke, never share the arena, and start each stream fresh."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import pipeline
from microfuse.errors import PlanError
from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.ops.attrs import ActivationAttrs
from microfuse.plan import state as state_plan
from microfuse.testing.host import run_graph

Q = Quant((0.5,), (0,))


def accumulator(init: np.ndarray | None = None) -> Graph:
    """y = x + s; s = y: the running sum of the inputs (int8, one scale, zero point 0: exact)."""
    x = Tensor("x", (1, 8), DType.INT8, Q)
    s = Tensor("acc", (1, 8), DType.INT8, Q, variable=True, init=init)
    r = Tensor("read", (1, 8), DType.INT8, Q)
    y = Tensor("y", (1, 8), DType.INT8, Q)
    ops = [Op("READ_VARIABLE", [s], [r], None, "read", 0),
           Op("ADD", [x, r], [y], ActivationAttrs.from_options({"fused_activation_function": 0}), "y", 1),
           Op("ASSIGN_VARIABLE", [s, y], [], None, "acc", 2)]
    return Graph(ops, [x], [y], name="acc")


def test_state_carries_over_invokes_and_starts_at_its_initial_value():
    rng = np.random.default_rng(1)
    init = rng.integers(-5, 6, (1, 8), dtype=np.int8)
    xs = [rng.integers(-3, 4, (1, 8), dtype=np.int8) for _ in range(20)]
    ours = run_graph(accumulator(init), [[x] for x in xs])
    want = init.astype(np.int32) + np.cumsum(np.stack(xs).astype(np.int32), axis=0)
    assert [o[0].tolist() for o in ours] == [w.tolist() for w in np.clip(want, -128, 127).astype(np.int8)]


def test_state_is_apart_from_the_arena():
    compiled = pipeline.compile_model(accumulator())
    plan = compiled.plan
    s = compiled.graph.state()[0]
    assert s not in plan.offsets and plan.state_offsets == {s: 0} and plan.state_bytes == 16
    with pytest.raises(PlanError, match="placed in the arena"):
        state_plan.check(compiled.graph, plan.state_offsets, plan.state_bytes, {s: 0}, plan.align)
    with pytest.raises(PlanError, match="outside"):
        state_plan.check(compiled.graph, plan.state_offsets, 4, plan.offsets, plan.align)


def test_header_declares_the_state_api(tmp_path):
    from microfuse.pipeline import build

    build(accumulator(), tmp_path / "lib", pipeline.Options(name="acc"))
    header = (tmp_path / "lib" / "acc.h").read_text()
    for text in ("#define ACC_STATE_SIZE 16u", "int acc_set_state(void *state, size_t bytes);",
                 "int acc_init(void);", "int acc_reset(void);"):
        assert text in header


def _two_adds(read_between: bool) -> Graph:
    """y = x + s (the output); z = x + s; s = z: z's ADD may write straight into the state."""
    x = Tensor("x", (1, 8), DType.INT8, Q)
    s = Tensor("acc", (1, 8), DType.INT8, Q, variable=True)
    r, y, z, r2 = (Tensor(n, (1, 8), DType.INT8, Q) for n in ("read", "y", "z", "read2"))
    add = ActivationAttrs.from_options({"fused_activation_function": 0})
    ops = [Op("READ_VARIABLE", [s], [r], None, "read", 0), Op("ADD", [x, r], [z], add, "z", 1),
           *([Op("READ_VARIABLE", [s], [r2], None, "read2", 2)] if read_between else []),
           Op("ADD", [x, r2 if read_between else r], [y], add, "y", 3),
           Op("ASSIGN_VARIABLE", [s, z], [], None, "acc", 4)]
    return Graph(ops, [x], [y], name="acc")


def test_the_producer_writes_into_state_when_nothing_reads_it_in_between():
    direct = pipeline.compile_model(_two_adds(False))
    assert [c.kernel for c in direct.calls].count("mf_copy") == 1  # the read; the assignment is the ADD
    assert any(c.outputs[0].variable and c.kernel.startswith("mf_add") for c in direct.calls)
    kept = pipeline.compile_model(_two_adds(True))  # a read in between sees the old value: keep the copy
    assert [c.kernel for c in kept.calls].count("mf_copy") == 3
    rng = np.random.default_rng(2)
    xs = [rng.integers(-3, 4, (1, 8), dtype=np.int8) for _ in range(20)]
    want = np.cumsum(np.stack(xs).astype(np.int32), axis=0)  # y_t = x_t + s_t with s_t the sum of x before t
    for graph in (_two_adds(False), _two_adds(True)):
        ours = run_graph(graph, [[x] for x in xs])
        assert [o[0].tolist() for o in ours] == [w.tolist() for w in np.clip(want, -128, 127).astype(np.int8)]
