"""The compile pipeline: read, check, rewrite, lower, plan, then emit into an output folder."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import lower as lowering
from . import ops, output, passes, plan
from .boards import arena_limit, load_board
from .lower import Lowerer, tuning
from .lower.call import finish_calls
from .errors import ArenaLimitError, ModelError, UnsupportedError
from .ir import Graph
from .tflite import reader


@dataclass(frozen=True)
class Options:
    """What the user asked for; the same options always give the same output bytes."""

    name: str = "model"
    arena_limit: int | None = None
    fuse: bool = True
    passes: tuple[str, ...] | None = None  # None: the whole pipeline
    optimize: str = "balanced"
    board: str | None = None  # a firmware board: the arena must fit its SRAM; build its firmware too
    command: str = "microfuse build"  # recorded in the generated files' header
    core: str | None = None  # measure flash and RAM totals for this core (report.json "footprint")


@dataclass(eq=False)
class Compiled:
    """A model compiled down to kernel calls and a checked memory plan, ready to emit."""

    name: str
    source: Graph  # as read from the file
    graph: Graph  # after the passes, in execution order
    calls: list[lowering.Call]
    plan: plan.Plan
    options: Options
    model_path: str = ""
    notes: list[str] = field(default_factory=list)
    fusion: list[dict] = field(default_factory=list)  # every fusion decision (passes.Context)
    init: "InitCode | None" = None  # a computing CALL_ONCE subgraph, run once in NAME_init()
    core_defines: dict[str, int] = field(default_factory=dict)  # its core's macros (lower/tuning.py)


@dataclass(eq=False)
class InitCode:
    """A computing CALL_ONCE subgraph: its calls in order and its own plan, whose arena offsets
    start at `base` (past the main graph's inputs, the only tensors alive when the first invoke
    runs it); its state tensors are the main graph's, at the main plan's state offsets."""

    graph: Graph
    calls: list[lowering.Call]
    plan: plan.Plan
    base: int


NAME_RE = re.compile(r"[a-z_][a-z0-9_]*")


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise UnsupportedError(f"--name '{name}' must be a lower-case C identifier ([a-z_][a-z0-9_]*)")
    return name


def load(model: str | Path | bytes) -> Graph:
    """Read a model, refuse what cannot be compiled (all problems at once), verify the IR."""
    graph = reader.read(model)
    for g in (graph, graph.init) if graph.init else (graph,):
        ops.check_supported(g)  # first: shape rules assume the constraints hold
        ops.verify(g)
    return graph


def pass_context(optimize: str, lowerer: Lowerer | None = None) -> passes.Context:
    """The passes' context: the kernel catalog (a Lowerer of the level, shared with the
    kernel choice so each op is lowered once) and the planner's arena bound."""
    return passes.Context(optimize, lowerer or Lowerer(optimize), plan.peak_bound, steps=plan.step_bounds)


def target_core(options: Options) -> str | None:
    """The core the lowering may specialise layouts for (lower/mve.py): the board's CPU (e.g.
    "cortex-m55", "cortex-m4f"), else --core."""
    if options.board:
        return load_board(options.board).cpu
    return options.core


def compile_model(model: str | Path | bytes | Graph, options: Options = Options()) -> Compiled:
    check_name(options.name)
    path = "" if isinstance(model, (bytes, Graph)) else str(model)
    try:  # every message of the model's checks and lowering names the file (once)
        source = model if isinstance(model, Graph) else load(model)
        lowerer = Lowerer(options.optimize, core=target_core(options))
        context = pass_context(options.optimize, lowerer)
        graph = passes.run_passes(source, only=list(options.passes) if options.passes else None,
                                  fuse=options.fuse, context=context)
        ops.check_supported(graph)
        _check_io(graph)
        calls = _choose_kernels(graph, lowerer)
    except (ModelError, UnsupportedError) as e:
        if not path or str(e).startswith(path):
            raise
        raise type(e)(f"{path}: {e}") from None
    try:
        memory = _plan(graph, calls, _arena_limit(options))
    except ArenaLimitError as e:
        where = (f"board {options.board}: the arena may use its SRAM less stack and harness; "
                 if options.board else "")
        raise ArenaLimitError(f"{e} ({where}--optimize size may need less; `microfuse build` without "
                              "the limit writes report.html with the memory timeline)") from None
    ordered = [calls[id(op)] for op in memory.order if id(op) in calls]
    init = _compile_init(source.init, graph, memory, lowerer) if source.init else None
    finish_calls([*ordered, *(init.calls if init else [])])
    notes = list(source.notes)
    if init is not None:
        notes.append(f"CALL_ONCE subgraph: {len(init.calls)} kernel call(s) run once, in {options.name}_init() "
                     f"(the first invoke calls it), on arena bytes {init.base}..{init.base + init.plan.arena_bytes}")
    return Compiled(options.name, source, graph, ordered, memory, options, path, notes=notes,
                    fusion=context.decisions(), init=init,
                    core_defines=tuning.core_defines(target_core(options)))


def _compile_init(init: Graph, graph: Graph, memory: plan.Plan, lowerer: Lowerer) -> InitCode:
    """Lower and plan the CALL_ONCE subgraph (no passes: it runs once) and place its arena past
    the main graph's inputs; the main arena grows to hold it if needed."""
    used = set(graph.state())
    kept: list = []
    for op in reversed(init.ops):  # what the main graph never sees is dead
        needed = {id(t) for k in kept for t in k.inputs if t is not None}
        if any(t.variable and t in used for t in op.outputs) or any(id(t) in needed for t in op.outputs) \
                or (op.kind == "ASSIGN_VARIABLE" and op.inputs[0] in used):
            kept.insert(0, op)
    init = Graph(kept, [], [], name=init.name)
    calls = _lower_all(init, lowerer.at("size"))
    kept = next((c for c in calls.values() if c.state), None)
    if kept is not None:  # its state area place is planned for main-graph calls only
        raise UnsupportedError(f"CALL_ONCE subgraph {kept.op.where}: a kernel that keeps state between invokes; "
                               "microfuse runs those in the main subgraph only")
    own = _plan(init, calls)
    align = memory.align
    base = max((memory.offsets[t] + t.nbytes for t in graph.inputs), default=0)
    base = -(-base // align) * align
    memory.arena_bytes = max(memory.arena_bytes, base + own.arena_bytes)
    for t in init.state():
        if t not in memory.state_offsets:  # kept ops touch only state the main graph has
            raise UnsupportedError(f"CALL_ONCE subgraph: state '{t.name}' has no place in the state area")
    return InitCode(init, [calls[id(op)] for op in own.order if id(op) in calls], own, base)


def _lower_all(graph: Graph, lowerer: Lowerer) -> dict[int, lowering.Call]:
    calls = {id(op): lowerer.lower(op) for op in graph.ops if not ops.REGISTRY[op.kind].alias}
    for call in calls.values():
        plan_branches(call)
    return calls


def plan_branches(call: lowering.Call) -> None:
    """An IF's or WHILE's subgraphs planned alone (once: calls are memoized); the call's scratch
    holds the larger, as the two never run at once."""
    for b in call.branches:
        if b.plan is None:
            b.plan = _plan(b.graph, b.calls)
            b.order = [b.calls[id(op)] for op in b.plan.order if id(op) in b.calls]
    if call.branches:
        call.scratch = max(b.plan.arena_bytes for b in call.branches)


def _plan(graph: Graph, calls: dict[int, lowering.Call], limit: int | None = None) -> plan.Plan:
    return plan.plan(graph, arena_limit=limit,
                     scratch=lambda op: calls[id(op)].scratch if id(op) in calls else 0,
                     allow_backward=lambda op: id(op) in calls and calls[id(op)].reversible,
                     access=lambda op: calls[id(op)].spec.access if id(op) in calls else None,
                     own_state=lambda op: calls[id(op)].state if id(op) in calls else 0)


def _choose_kernels(graph: Graph, lowerer: Lowerer) -> dict[int, lowering.Call]:
    """Kernel per op (the passes' lowerer: its memo already holds most calls). `balanced` keeps
    the arena the reference kernels reach: fast kernels (scratch, no in-place runs) only where
    they don't raise the peak."""
    calls = _lower_all(graph, lowerer)
    if lowerer.level != "balanced":
        return calls
    small = _lower_all(graph, lowerer.at("size"))
    if all(_same_footprint(calls[k], small[k]) for k in calls):
        return calls  # same scratch and direction everywhere: the plans are the same
    target = _plan(graph, small).arena_bytes
    while (memory := _plan(graph, calls)).arena_bytes > target:
        swaps = [op for op in _ops_at_peak(memory)  # aliases (no call) have nothing to swap
                 if id(op) in calls and calls[id(op)].kernel != small[id(op)].kernel]
        if not swaps:
            return small
        # undo the fast kernel that lowers the peak most; among equals the one with fewest MACs
        trials = [(_plan(graph, {**calls, id(op): small[id(op)]}).arena_bytes, ops.macs(op), i)
                  for i, op in enumerate(swaps)]
        best = swaps[min(trials)[2]]
        calls[id(best)] = small[id(best)]
    return calls


def _same_footprint(a: lowering.Call, b: lowering.Call) -> bool:
    """The planner sees two calls alike (the same scratch and the same freedom to run backward)."""
    return a.scratch == b.scratch and a.reversible == b.reversible and a.spec.access == b.spec.access


def _ops_at_peak(memory: plan.Plan) -> list:
    """The op running at the peak step, then the producers of the buffers alive there."""
    step = memory.peak_step
    found = [memory.order[step]] if memory.order else []
    for b in memory.alive_at(step):
        found += [op for op in memory.order for t in b.tensors if t in op.outputs]
        if b.scratch_of is not None:
            found.append(b.scratch_of)
    unique = {id(op): op for op in found}
    return [op for op in unique.values() if op in memory.order]


def _arena_limit(options: Options) -> int | None:
    if options.board is None:
        return options.arena_limit
    return arena_limit(load_board(options.board), options.arena_limit)


def _check_io(graph: Graph) -> None:
    for t in [*graph.inputs, *graph.outputs]:
        if t.is_const:
            raise UnsupportedError(f"graph input/output '{t.name}' is a constant")
    if not graph.outputs:
        raise UnsupportedError("the model has no outputs")


def build(model: str | Path | bytes | Graph, out_dir: str | Path, options: Options = Options(),
          sections: Callable[[Compiled, Path], dict] | None = None, report: dict | None = None) -> Compiled:
    """Compile and write the library into out_dir atomically: all files or none (output.py).
    `sections` (compiled, staging folder) -> more report sections, run before the folder is
    moved in place (microfuse.targets.firmware.build_with_firmware: a board's firmware, flash and
    RAM totals); `report` adds ready sections to report.json (e.g. a bench result)."""
    from .emit import c as emit_c

    model_path = model if isinstance(model, (str, Path)) else None
    out = output.resolve(out_dir, model_path)
    compiled = compile_model(model, options)

    def fill(staging: Path) -> None:
        emit_c.emit(compiled, staging)
        extra = sections(compiled, staging) if sections else {}
        emit_c.write_report(compiled, staging, **extra, **(report or {}))
    output.write(out, fill)
    return compiled
