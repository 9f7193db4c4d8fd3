"""The compile pipeline: read, check, rewrite, lower, plan, then emit into an output folder."""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import lower as lowering
from . import ops, passes, plan
from .errors import ArenaLimitError, MicrofuseError, UnsupportedError
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


NAME_RE = re.compile(r"[a-z_][a-z0-9_]*")


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise UnsupportedError(f"--name '{name}' must be a lower-case C identifier ([a-z_][a-z0-9_]*)")
    return name


def load(model: str | Path | bytes) -> Graph:
    """Read a model, refuse what cannot be compiled (all problems at once), verify the IR."""
    graph = reader.read(model)
    ops.check_supported(graph)  # first: shape rules assume the constraints hold
    graph.verify()
    return graph


def compile_model(model: str | Path | bytes | Graph, options: Options = Options()) -> Compiled:
    check_name(options.name)
    source = model if isinstance(model, Graph) else load(model)
    context = passes.Context(options.optimize)
    graph = passes.run_passes(source, only=list(options.passes) if options.passes else None,
                              fuse=options.fuse, context=context)
    ops.check_supported(graph)
    _check_io(graph)
    calls = _choose_kernels(graph, options.optimize)
    try:
        memory = _plan(graph, calls, _arena_limit(options))
    except ArenaLimitError as e:
        where = (f"board {options.board}: the arena may use its SRAM less stack and harness; "
                 if options.board else "")
        raise ArenaLimitError(f"{e} ({where}--optimize size may need less; `microfuse build` without "
                              "the limit writes report.html with the memory timeline)") from None
    for op in memory.backward:
        calls[id(op)].params[calls[id(op)].reverse_key] = 1
    ordered = [calls[id(op)] for op in memory.order if id(op) in calls]
    path = "" if isinstance(model, (bytes, Graph)) else str(model)
    return Compiled(options.name, source, graph, ordered, memory, options, path,
                    fusion=context.decisions())


def _lower_all(graph: Graph, level: str) -> dict[int, lowering.Call]:
    with lowering.optimizing(level):  # picks the kernel variants (lower/fast.py)
        return {id(op): lowering.lower(op) for op in graph.ops if not ops.REGISTRY[op.kind].alias}


def _plan(graph: Graph, calls: dict[int, lowering.Call], limit: int | None = None) -> plan.Plan:
    return plan.plan(graph, arena_limit=limit,
                     scratch=lambda op: calls[id(op)].scratch if id(op) in calls else 0,
                     allow_backward=lambda op: id(op) in calls and calls[id(op)].reversible)


def _choose_kernels(graph: Graph, level: str) -> dict[int, lowering.Call]:
    """Kernel per op. `balanced` keeps the arena the reference kernels reach: fast kernels
    (scratch, no in-place runs) only where they don't raise the peak."""
    calls = _lower_all(graph, level)
    if level != "balanced":
        return calls
    small = _lower_all(graph, "size")
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
    from .boards import load_board
    from .targets.runner import arena_limit

    return arena_limit(load_board(options.board), options.arena_limit)


def _check_io(graph: Graph) -> None:
    for t in [*graph.inputs, *graph.outputs]:
        if t.is_const:
            raise UnsupportedError(f"graph input/output '{t.name}' is a constant")
    if not graph.outputs:
        raise UnsupportedError("the model has no outputs")


MARKER = "generated by microfuse"


def _check_replaceable(out: Path) -> None:
    """Only ever replace an empty folder or one a previous build wrote."""
    if not out.exists():
        return
    if not out.is_dir():
        raise MicrofuseError(f"output '{out}' exists and is not a folder")
    header = out / "report.json"
    if any(out.iterdir()) and not (header.exists() and MARKER in header.read_text(errors="replace")[:200]):
        raise MicrofuseError(f"output folder '{out}' is not empty and was not written by microfuse; "
                             "choose another -o")


def _firmware(compiled: Compiled, out: Path) -> dict:
    """For a firmware board: build out/firmware/NAME.elf; the report's board and firmware sections."""
    if compiled.options.board is None:
        return {}
    from .boards import load_board
    from .targets.firmware import build_firmware, size

    board = load_board(compiled.options.board)
    info = {"board": {"name": board.name, "flash_bytes": board.flash_bytes, "sram_bytes": board.sram_bytes}}
    if board.is_host:
        return info
    elf = build_firmware(board, out, compiled.name, out / "firmware")
    (out / "firmware" / "mf_glue.c").unlink()  # harness glue: keeps `cc $(find OUT -name '*.c')` working
    return {**info, "firmware": {"elf": f"firmware/{elf.name}", **size(elf)}}


def _footprint(compiled: Compiled, out: Path, sections: dict) -> dict:
    """Flash and RAM totals for the asked core and the board's (report.json "footprint")."""
    if compiled.options.core is None:
        return {}
    from .report import footprint_section

    return {"footprint": footprint_section(compiled, out, sections.get("firmware") is not None)}


def build(model: str | Path | bytes | Graph, out_dir: str | Path, options: Options = Options(),
          report: dict | None = None) -> Compiled:
    """Compile and write the library into out_dir atomically: all files or none. `report` adds
    sections to report.json (e.g. a bench result)."""
    from .emit import c as emit_c

    compiled = compile_model(model, options)
    out = Path(out_dir)
    _check_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        emit_c.emit(compiled, staging)
        sections = _firmware(compiled, staging)
        emit_c.write_report(compiled, staging, **sections, **_footprint(compiled, staging, sections),
                            **(report or {}))
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return compiled
