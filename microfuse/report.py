"""report.json: what was built, where every tensor lives, and what each kernel call does."""

from __future__ import annotations

import re

import numpy as np

from .lower import ConstArray
from .ops import cascade
from .resources import RUNTIME_DIR


def _tensor(t, offsets) -> dict:
    return {"name": t.name, "shape": list(t.shape), "dtype": str(t.dtype), "bytes": t.nbytes,
            "offset": offsets.get(t)}


def _flash_bytes(call) -> int:
    return sum(np.asarray(v.data).nbytes for v in call.constants)


def graph_section(graph) -> dict:
    """The source graph as read: ops with tensor names, and every tensor once."""
    from . import ops as opdefs

    source = [{
        "index": op.index, "kind": op.kind, "name": op.name,
        "activation": getattr(op.attrs, "activation", "NONE"),
        "inputs": [t.name for t in op.inputs if t is not None and not t.is_const],
        "outputs": [t.name for t in op.outputs],
        "macs": opdefs.macs(op),
    } for op in graph.ops]
    tensors = {t.name: {"shape": list(t.shape), "dtype": str(t.dtype), "bytes": t.nbytes, "const": t.is_const}
               for t in graph.tensors()}
    return {"source": source, "tensors": tensors}


def timeline_section(plan) -> tuple[list[dict], list[dict]]:
    """Buffers as rectangles (steps x arena bytes) and the bytes alive at each step."""
    from . import ops as opdefs

    overlap = {id(u.output): "in-place" if u.shift == 0 and u.output.nbytes == u.input.nbytes else "partial"
               for u in plan.overlaps}
    timeline = [{
        "tensor": b.name, "offset": b.offset, "bytes": b.size, "first_step": b.first, "last_step": b.last,
        "kind": "scratch" if b.scratch_of is not None else "activation",
        "overlaps": next((overlap[id(t)] for t in b.tensors if id(t) in overlap), None),
        "aliases": [t.name for t in b.tensors if t.name != b.name],
    } for b in plan.buffers]
    timeline += ring_entries(plan)
    steps, call = [], 0
    for step, op in enumerate(plan.order):
        is_call = not opdefs.REGISTRY[op.kind].alias
        steps.append({"step": step, "call": call if is_call else None,
                      "alive_bytes": sum(b.size for b in plan.alive_at(step))})
        call += is_call
    return timeline, steps


def ring_entries(plan) -> list[dict]:
    """Each cascade's rings (ops/cascade.py) as timeline entries inside its scratch: kind "ring"."""
    found = []
    for step, op in enumerate(plan.order):
        if op.kind != cascade.CASCADE or op not in plan.scratch:
            continue
        base = plan.scratch[op][0]
        for r in cascade.program(op).rings.values():
            found.append({"tensor": r.t.name, "offset": base + r.offset, "bytes": r.nbytes, "first_step": step,
                          "last_step": step, "kind": "ring", "overlaps": None, "aliases": [],
                          "rows": r.rows, "of_rows": r.t.shape[1]})
    return found


def cascade_section(compiled) -> list[dict]:
    """Per cascade: its ops, its rings (rows held of the tensor's, bytes, arena offset) and what the
    rings save against the whole intermediates."""
    plan, found = compiled.plan, []
    for i, call in enumerate(compiled.calls):
        op = call.op
        if op is None or op.kind != cascade.CASCADE:
            continue
        prog = cascade.program(op)
        base = plan.scratch.get(op, (0, 0))[0]
        rings = [{"tensor": r.t.name, "rows": r.rows, "of_rows": r.t.shape[1], "row_bytes": r.row_bytes,
                  "bytes": r.nbytes, "offset": base + r.offset} for r in prog.rings.values()]
        whole = cascade.whole_bytes(op)
        found.append({"call": i, "source_ops": [m.index for m in cascade.members(op)],
                      "ops": [m.kind.lower() for m in cascade.members(op)], "steps": len(prog.steps),
                      "band_calls": sum(isinstance(a, cascade.Band) for st in prog.steps for a, _ in st),
                      "rings": rings, "ring_bytes": prog.scratch, "whole_bytes": whole,
                      "saved_bytes": whole - prog.scratch})
    return found


# ConstArray name -> the kind of constant it is (the weights figure's breakdown)
CONST_KINDS = {"weights": "weights", "constant": "weights", "bias": "bias",
               "mult": "requantization", "shift": "requantization", "quant": "requantization",
               "addq": "requantization", "zrow": "fast-kernel tables",
               "lut": "lookup tables", "exp_lut": "lookup tables", "pre": "lookup tables", "post": "lookup tables"}


def constants(calls) -> dict[str, int]:
    """Bytes of the emitted constants by kind, over every call (weights, bias, requantization...)."""
    kinds: dict[str, int] = {}
    for call in calls:
        for v in call.constants:
            kind = CONST_KINDS.get(v.name, "other")
            kinds[kind] = kinds.get(kind, 0) + np.asarray(v.data).nbytes
    return kinds


FAST_BODY = "mf_fast.h"  # the kernels built on it take SMLAD on DSP cores and Helium on MVE cores
DSP_CORES = {"cortex-m4", "cortex-m7", "cortex-m55"}
MVE_CORES = {"cortex-m55"}


def code_path(kernel: str, core: str, band_kernels: list[str] | None = None) -> str:
    """Which code a kernel runs on a core: plain C, the DSP extension's SIMD, or Helium (MVE).
    A cascade (mf_cascade) runs its bands' kernels: the SIMD path if any of them has one."""
    if not any(_uses_fast(k) for k in band_kernels or [kernel]):
        return "plain C"
    core = core[:-1] if core.endswith("f") else core
    return "Helium" if core in MVE_CORES else "DSP" if core in DSP_CORES else "plain C"


def _uses_fast(kernel: str) -> bool:
    """Whether the kernel's source (or the body header it includes) is built on mf_fast.h."""
    root = RUNTIME_DIR
    src = root / "src" / f"{kernel}.c"
    if not src.is_file():
        return False
    text = src.read_text()
    bodies = re.findall(r'#include "([^"]+_body\.h)"', text)
    return FAST_BODY in text or any(FAST_BODY in (root / "include" / b).read_text()
                                    for b in bodies if (root / "include" / b).is_file())


def plan_section(plan) -> dict:
    s = plan.savings
    return {"arena_bytes": plan.arena_bytes, "lower_bound_bytes": plan.lower_bound_bytes,
            "overlap_bound_bytes": plan.overlap_bound_bytes, "peak_step": plan.peak_step,
            "savings": {"baseline_bytes": s.baseline_bytes, "reorder": s.reorder, "overlap": s.overlap,
                        "search": s.search}}


def constants_section(compiled) -> dict:
    """One weights figure and what it is made of: the file's constants become packed weights,
    per-channel requantization (bias, multiplier, shift), fast-kernel tables and lookup tables."""
    kinds = constants(compiled.calls)
    return {"bytes": sum(kinds.values()), "by_kind": kinds,
            "model_file_bytes": sum(t.nbytes for t in compiled.source.tensors() if t.is_const)}


def tflm_section(compiled) -> dict | None:
    """What TFLM's own planner would give the same file (its GreedyMemoryPlanner, reproduced)."""
    from . import tflm_plan

    if any(t.index < 0 and not t.variable for t in compiled.source.tensors()):  # resources: made by the reader
        return None  # not a graph as read from a file
    return {"head_bytes": tflm_plan.plan(compiled.source).head_bytes}


def state_section(compiled) -> list[dict]:
    """The state area's picture: each tensor that outlives an invoke, its place and how a stream
    starts it (alive over every step, so it never shares bytes with the arena or itself)."""
    plan = compiled.plan
    return [{"tensor": t.name, "offset": plan.state_offsets[t], "bytes": t.nbytes, "dtype": str(t.dtype),
             "shape": list(t.shape), "kind": "resource variable" if t.index < 0 else "variable tensor",
             "initial": "assigned by CALL_ONCE" if t.init is not None and t.index < 0 and t.init.any()
             else "zero point" if t.init is None else "zeros"}
            for t in compiled.graph.state()] + [
        {"tensor": f"{op.where} '{op.name}' (its kernel's own)", "offset": o, "bytes": n, "dtype": "uint8",
         "shape": [n], "kind": "kernel state", "initial": "zeros"} for op, (o, n) in plan.own_state.items()]


def build_report(compiled, banner: str) -> dict:
    from . import ops as opdefs

    plan, offsets = compiled.plan, compiled.plan.offsets
    timeline, steps = timeline_section(plan)
    calls = [{
        "index": i,
        "kernel": c.kernel,
        "kind": c.label,
        "source_ops": [op.index for op in c.sources],
        "inputs": [_tensor(t, offsets) for t in c.inputs],
        "outputs": [_tensor(t, offsets) for t in c.outputs],
        "macs": c.macs,
        "const_bytes": _flash_bytes(c),
        "scratch_bytes": c.scratch,
        "notes": list(c.notes),
        **({"band_kernels": sorted({b.kernel for b in c.bands.values()})} if hasattr(c, "bands") else {}),
    } for i, c in enumerate(compiled.calls)]
    return {
        "generator": banner,
        "name": compiled.name,
        "model": compiled.model_path,
        "command": compiled.options.command,
        "source_ops": len(compiled.source.ops),
        "kernel_calls": len(compiled.calls),
        "aliases": sum(1 for op in compiled.graph.ops if opdefs.REGISTRY[op.kind].alias),
        "arena_bytes": plan.arena_bytes,
        "lower_bound_bytes": plan.lower_bound_bytes,
        "state_bytes": plan.state_bytes,  # NAME_STATE_SIZE: the state area, apart from the arena
        "state": state_section(compiled),
        "weights_bytes": sum(call["const_bytes"] for call in calls),
        "constants": constants_section(compiled),
        "tflm_plan": tflm_section(compiled),
        "footprint": None,
        "macs": sum(c.macs for c in compiled.calls),
        "inputs": [_tensor(t, offsets) for t in compiled.graph.inputs],
        "outputs": [_tensor(t, offsets) for t in compiled.graph.outputs],
        "graph": graph_section(compiled.source),
        "timeline": timeline,
        "steps": steps,
        "plan": plan_section(plan),
        "fusion": list(getattr(compiled, "fusion", [])),
        "cascades": cascade_section(compiled),
        "board": None,
        "firmware": None,
        "bench": None,
        "calls": calls,
        "notes": list(compiled.notes),
    }


def latency_section(bench: dict, board, clock_hz: int | None) -> dict:
    """A bench result as latency: per-call counts with their share, and ms at a clock. Cycles
    (the QEMU cycle model's estimate, or a real board's count) when the bench has them, else
    instructions, labelled as such (ms then assume one instruction per cycle)."""
    per_op = bench.get("per_op") or []
    basis = "cycles" if bench.get("cycles") is not None else "instructions"
    clock = clock_hz or board.clock_hz

    def ms(n):
        return None if not clock or n is None else 1e3 * n / clock

    counts = {unit: _less_timer_reads([p.get(unit) for p in per_op], bench.get(unit))
              for unit in ("instructions", "cycles")}
    total = bench[basis]
    return {
        "board": board.name, "clock_hz": clock, "clock_from": "--clock" if clock_hz else "board.toml",
        "basis": basis, "estimated": basis == "cycles" and board.is_qemu,
        "instructions": bench.get("instructions"), "cycles": bench.get("cycles"), "ms": ms(total),
        "repeatable": bench.get("repeatable"),
        "timer_reads": sum(p.get(basis) or 0 for p in per_op) - total if per_op else 0,
        "per_call": [{"call": p.get("call", k), "instructions": counts["instructions"][k],
                      "cycles": counts["cycles"][k], "measured": p.get(basis),
                      "share": counts[basis][k] / total if total else 0.0, "ms": ms(counts[basis][k])}
                     for k, p in enumerate(per_op)],
    }


def _less_timer_reads(measured: list, total: int | None) -> list:
    """Per-call counts come from a second build that reads the timer after each call: their sum
    exceeds the untimed total by those reads (a fixed few instructions each, and a tick of
    rounding). Taking the difference off evenly, one call at a time, makes them add up to it."""
    if total is None or not measured or any(m is None for m in measured):
        return [None] * len(measured)
    extra, n = sum(measured) - total, len(measured)
    return [m - extra // n - (1 if k < extra % n else 0) for k, m in enumerate(measured)]


def summary(compiled, out) -> str:
    """The build's one line: ops to calls, arena, flash and RAM totals, latency when benched."""
    import json
    from pathlib import Path

    report = json.loads((Path(out) / "report.json").read_text())
    aliases = report.get("aliases") or 0
    line = (f"built {compiled.name}: {len(compiled.source.ops)} ops -> {len(compiled.calls)} kernel calls"
            + (f" + {aliases} alias{'es' if aliases != 1 else ''}" if aliases else "")
            + f", arena {compiled.plan.arena_bytes:,} B (whole-tensor lower bound {compiled.plan.lower_bound_bytes:,} B)"
            + (f", state {compiled.plan.state_bytes:,} B" if compiled.plan.state_bytes else ""))
    for total in (report.get("footprint") or [])[:1]:
        line += f", flash {total['flash_bytes']:,} B + RAM {total['ram_bytes']:,} B on {total['core']}"
    if report.get("footprint") == []:
        line += " (no flash/RAM totals: arm-none-eabi-gcc not found)"
    latency = report.get("latency")
    if latency and latency.get("ms") is not None:
        line += f", {latency['ms']:,.1f} ms at {latency['clock_hz'] / 1e6:g} MHz ({latency['basis']})"
    return line + f", {report.get('macs', 0):,} MACs -> {out}/"
