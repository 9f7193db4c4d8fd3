"""Cascades (ops/cascade.py) run inside their planned arena, band by band with their rings in the
op's scratch, in any band shape (one row at a time or several), give exactly what the same chain
gives run whole, op by op (arena_exec's made-up arithmetic: any misplaced row, stale ring row or
overwritten input row changes the result); and the checker's row replay refuses rings that do not
hold what a band reads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_exec import run_in_arena, run_reference
from microfuse import plan as planner
from microfuse.errors import PlanError
from microfuse.ir import DType, Graph
from microfuse.ops import cascade as casc
from microfuse.plan import check
from plan_graphs import Builder


def plan_cascade(graph: Graph, members: int | None = None, shape: casc.Shape = casc.Shape()) -> tuple[Graph, object]:
    """The graph with its ops (all, or the first `members`) as one CASCADE in bands of `shape`, planned."""
    k = members or len(graph.ops)
    op = casc.make(graph.ops[:k], shape)
    fused = Graph([op, *graph.ops[k:]], graph.inputs, graph.outputs, graph.name)
    scratch = {op: casc.program(op).scratch}
    memory = planner.plan(fused, scratch=lambda o: scratch.get(o, 0), allow_backward=lambda o: o is not op,
                          access=lambda o: casc.BAND if o is op else planner.inplace.reference_access(o))
    return fused, memory


def same_as_unfused(graph: Graph, seed: int = 0, shape: casc.Shape = casc.Shape()) -> None:
    fused, memory = plan_cascade(graph, shape=shape)
    want = run_reference(graph, seed)
    got = run_in_arena(fused, memory, seed)
    out = graph.outputs[0]
    np.testing.assert_array_equal(got[out], want[out])


@st.composite
def chains(draw):
    """A chain of 2-5 convs / depthwise / pools, any kernel, stride, padding."""
    b = Builder(DType.INT8, seed=draw(st.integers(0, 9)))
    x = b.input((1, draw(st.integers(4, 14)), draw(st.integers(1, 6)), draw(st.integers(1, 3))))
    for _ in range(draw(st.integers(2, 5))):
        kind = draw(st.sampled_from(["conv", "dw", "pool"]))
        k, stride = draw(st.sampled_from([1, 2, 3, 5])), draw(st.integers(1, 2))
        padding = draw(st.sampled_from(["SAME", "VALID"]))
        dilation = draw(st.integers(1, 2)) if kind == "conv" and k > 1 else 1
        if min(x.shape[1], x.shape[2]) < (k - 1) * dilation + 1:
            padding = "SAME"  # VALID needs the window inside the image
        if kind == "conv":
            x = b.conv(x, draw(st.integers(1, 4)), k, stride, padding, dilation)
        elif kind == "dw":
            x = b.dw(x, k, stride, padding, mult=draw(st.integers(1, 2)))
        else:
            x = b.pool(x, k, stride, padding, draw(st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"])))
        if x.shape[1] < 2:
            break
    return b.graph([x])


def residual_op(b: Builder, x, skip, cout: int, k: int, stride: int):
    """A conv whose epilogue adds `skip` (arena_exec reads inputs past slot 2 as epilogue operands)."""
    w = b.const((cout, k, k, x.shape[3]))
    bias = b.const((cout,), DType.INT32)
    from microfuse.ops.attrs import ConvAttrs
    return b.op("CONV_2D", [x, w, bias, skip], ConvAttrs("SAME", stride, stride, "NONE", 1, 1))


@st.composite
def residual_blocks(draw):
    """1-2 ResNet blocks: conv, conv + skip (identity, or a strided block's 1x1 shortcut conv)."""
    b = Builder(DType.INT8, seed=draw(st.integers(0, 9)))
    c = draw(st.integers(1, 3))
    x = b.conv(b.input((1, draw(st.integers(4, 12)), draw(st.integers(2, 6)), draw(st.integers(1, 3)))), c)
    for _ in range(draw(st.integers(1, 2))):
        stride = draw(st.integers(1, 2))
        k = draw(st.sampled_from([1, 3]))
        cout = c * stride
        main = b.conv(x, cout, k, stride)
        if stride == 1:
            x = residual_op(b, main, x, cout, k, 1)
        else:  # the shortcut conv carries the add of the main branch
            main = b.conv(main, cout, k, 1)
            x = residual_op(b, x, main, cout, 1, 2)
        c = cout
    return b.graph([x])


# any band shape: output rows of the last member a step, most rows of a producer's band (0: all)
SHAPES = st.builds(casc.Shape, st.integers(1, 4), st.integers(0, 3))


@settings(max_examples=60, deadline=None)
@given(chains(), st.integers(0, 3))
def test_random_chains_run_as_cascades_bit_exact(graph, seed):
    same_as_unfused(graph, seed)


@settings(max_examples=60, deadline=None)
@given(chains(), st.integers(0, 3), SHAPES)
def test_random_chains_in_bands_of_several_rows_bit_exact(graph, seed, shape):
    same_as_unfused(graph, seed, shape)


@settings(max_examples=40, deadline=None)
@given(residual_blocks(), st.integers(0, 3))
def test_random_residual_blocks_run_as_cascades_bit_exact(graph, seed):
    same_as_unfused(graph, seed)


@settings(max_examples=40, deadline=None)
@given(residual_blocks(), st.integers(0, 3), SHAPES)
def test_random_residual_blocks_in_bands_of_several_rows_bit_exact(graph, seed, shape):
    same_as_unfused(graph, seed, shape)


def test_a_step_runs_its_rows_in_bands_of_the_shape():
    """Shape(3, 0), VWW's: a step computes 3 rows of the strided depthwise, its producers all the
    rows it needs in one band each (7 the first step: the window's rows 0..6, then 6), the rings
    hold those rows; Shape(3, 3): producers 3 rows a band, smaller rings."""
    b = Builder()
    x = b.dw(b.conv(b.dw(b.input((1, 24, 6, 8))), 16, k=1), stride=2)
    graph = b.graph([x])
    op = casc.make(graph.ops, casc.Shape(3, 0))
    steps = [[(band.m, band.a, band.b) for band in step] for step in casc.schedule(op)]
    assert steps[0] == [(0, 0, 7), (1, 0, 7), (2, 0, 3)]
    assert steps[1] == [(0, 7, 13), (1, 7, 13), (2, 3, 6)]
    assert len(steps) == 4 and steps[-1][-1] == (2, 9, 12)
    assert [r.rows for r in casc.program(op).rings.values()] == [7, 7]
    small = casc.make(graph.ops, casc.Shape(3, 3))
    assert [(band.m, band.b - band.a) for band in casc.schedule(small)[1]] == [(0, 3), (1, 3), (0, 3), (1, 3), (2, 3)]
    assert sum(r.nbytes for r in casc.program(small).rings.values()) < \
        sum(r.nbytes for r in casc.program(op).rings.values())
    for shape in (casc.Shape(3, 0), casc.Shape(3, 3), casc.Shape(2, 1)):
        same_as_unfused(graph, 1, shape)


def test_rings_hold_fewer_rows_than_the_tensors():
    b = Builder()
    x = b.conv(b.dw(b.conv(b.input((1, 32, 8, 4)), 8)), 8, k=1)
    fused, memory = plan_cascade(b.graph([x]))
    rings = casc.program(fused.ops[0]).rings.values()
    assert [r.rows for r in rings] == [3, 1]  # the depthwise 3x3 window; the 1x1 conv's row
    assert memory.arena_bytes < 32 * 8 * 4 + 2 * 32 * 8 * 8  # whole tensors: input + two outputs


@pytest.mark.parametrize("shape", [casc.Shape(1, 1), casc.Shape(3, 0)])
def test_the_output_overwrites_consumed_input_rows(shape):
    """BAND: a band's output rows land on input rows the bands before it have read already (a
    unit is a band call, so bands of several rows cost no more overlap than one row a step)."""
    b = Builder()
    x = b.conv(b.conv(b.input((1, 16, 4, 8)), 8), 8)
    fused, memory = plan_cascade(b.graph([x]), shape=shape)
    op = fused.ops[0]
    assert memory.offsets[op.outputs[0]] < memory.offsets[op.inputs[0]] + op.inputs[0].nbytes
    assert memory.offsets[op.inputs[0]] < memory.offsets[op.outputs[0]] + op.outputs[0].nbytes
    same_as_unfused(b.graph([x]), shape=shape)


@pytest.mark.parametrize("shape", [casc.Shape(1, 1), casc.Shape(3, 0), casc.Shape(2, 2)])
def test_checker_refuses_a_ring_one_row_short(shape):
    b = Builder()
    x = b.conv(b.conv(b.input((1, 12, 4, 2)), 4), 4)
    fused, memory = plan_cascade(b.graph([x]), shape=shape)
    op = fused.ops[0]
    prog = casc.program(op)
    ring = next(iter(prog.rings.values()))
    ring.rows -= 1  # the program still moves rows as if the ring held one more
    with pytest.raises(PlanError, match="ring"):
        check.check(fused, memory)
    ring.rows += 1
    check.check(fused, memory)


@pytest.mark.parametrize("cout", [16, 4])
@pytest.mark.parametrize("shape", [casc.Shape(1, 1), casc.Shape(3, 0), casc.Shape(5, 0), casc.Shape(2, 2)])
def test_a_pointwise_convs_input_ring_lies_inside_its_output_ring(shape, cout):
    """VWW's chain (depthwise, pointwise 8 -> 16, depthwise stride 2), and one narrowing 8 -> 4:
    the pointwise conv's input ring is placed inside its output ring (ops/cascade.py _nest), as
    far above the band's output as its stores need to land below every pixel still to read; the
    scratch is smaller than the two rings apart, and the output still exact (arena_exec runs each
    band pixel by pixel over the shared bytes: a store landing on an unread pixel changes the
    result)."""
    b = Builder()
    x = b.dw(b.conv(b.dw(b.input((1, 24, 6, 8))), cout, k=1), stride=2)
    graph = b.graph([x])
    op = casc.make(graph.ops, shape)
    prog = casc.program(op)
    guest, host = prog.rings.values()
    assert host.offset <= guest.offset < host.offset + host.nbytes
    assert prog.scratch < casc._align(guest.nbytes) + casc._align(host.nbytes)
    for seed in (0, 1):
        same_as_unfused(graph, seed, shape)


@pytest.mark.parametrize("shape", [casc.Shape(1, 1), casc.Shape(3, 0), casc.Shape(5, 0)])
def test_checker_refuses_a_guest_ring_too_low_in_its_host(shape):
    """One alignment step lower, the pointwise band's stores reach input pixels it has not read
    (the access order's replay) or the guest's writes reach rows its host still holds."""
    b = Builder()
    x = b.dw(b.conv(b.dw(b.input((1, 24, 6, 8))), 16, k=1), stride=2)
    fused, memory = plan_cascade(b.graph([x]), shape=shape)
    guest = next(iter(casc.program(fused.ops[0]).rings.values()))
    check.check(fused, memory)
    guest.offset -= casc.RING_ALIGN
    with pytest.raises(PlanError, match="over rows of|does not hold them"):
        check.check(fused, memory)
    guest.offset += casc.RING_ALIGN

