"""The report page's tables and tiles: totals, per-call rows, flash/SRAM bars, fusion decisions."""

from __future__ import annotations

from dataclasses import dataclass

from .fmt import count, human_bytes, percent, shape, si


@dataclass(frozen=True)
class Head:
    name: str
    model: str
    generator: str
    command: str
    board: str
    source_ops: int | None
    kernel_calls: int | None


@dataclass(frozen=True)
class Stat:
    label: str
    value: str
    detail: str
    css: str = ""


@dataclass(frozen=True)
class TensorRow:
    role: str
    name: str
    shape: str
    dtype: str
    bytes: str
    offset: str


@dataclass(frozen=True)
class CallRow:
    index: str
    kernel: str
    kind: str
    fused: bool
    source_ops: tuple[str, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    macs: str
    const_bytes: str
    scratch_bytes: str
    instructions: str
    share: float  # 0..100: this call's part of the instructions (bench) or of the MACs
    share_text: str
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Segment:
    label: str
    bytes: int
    width: float  # percent of the bar
    css: str


@dataclass(frozen=True)
class Bar:
    label: str
    used: int
    limit: int
    text: str
    segments: tuple[Segment, ...]
    over: bool
    note: str


@dataclass(frozen=True)
class Decision:
    pattern: str
    ops: str
    decision: str
    css: str
    reason: str


def head(report: dict) -> Head:
    board = report.get("board") or {}
    return Head(str(report.get("name") or "model"), str(report.get("model") or ""),
                str(report.get("generator") or ""), str(report.get("command") or ""),
                str(board.get("name") or ""), report.get("source_ops"), report.get("kernel_calls"))


def stats(report: dict) -> list[Stat]:
    """The header's tiles: what a firmware engineer asks first."""
    arena, bound = report.get("arena_bytes"), report.get("lower_bound_bytes")
    ops, calls = report.get("source_ops"), report.get("kernel_calls")
    fusion = report.get("fusion") or []
    fused = sum(1 for f in fusion if f.get("decision") == "fused")
    over = _versus_bound(arena, bound)
    tiles = [
        Stat("ops → kernel calls", f"{count(ops)} → {count(calls)}",
             f"{fused} fusion{'s' if fused != 1 else ''} applied, {len(fusion) - fused} declined" if fusion else ""),
        Stat("compute", f"{si(report.get('macs'))} MACs", f"{count(report.get('macs'))} multiply-accumulates"),
        Stat("arena (SRAM)", human_bytes(arena), f"{count(arena)} B; lower bound {count(bound)} B{over}", "accent"),
    ]
    tflm = report.get("tflm_arena_bytes")
    baseline = ((report.get("plan") or {}).get("savings") or {}).get("baseline_bytes")
    if tflm:
        tiles.append(Stat("TFLM arena", human_bytes(tflm), f"{count(tflm)} B measured; microfuse needs "
                          f"{percent(arena, tflm)} of it"))
    elif baseline:
        tiles.append(Stat("TFLM-like plan", human_bytes(baseline), f"{count(baseline)} B greedy by size, whole "
                          f"tensors; microfuse needs {percent(arena, baseline)} of it"))
    flash = f"{count(report.get('weights_bytes'))} B of constants"
    fw = report.get("firmware")
    if fw:
        flash += f"; firmware text+data {count(fw.get('text', 0) + fw.get('data', 0))} B"
    tiles.append(Stat("weights (flash)", human_bytes(report.get("weights_bytes")), flash))
    bench = report.get("bench")
    if bench and bench.get("instructions") is not None:
        tiles.append(Stat("instructions", si(bench["instructions"]),
                          f"{count(bench['instructions'])} on {bench.get('board', '?')}"))
    return tiles


def io_rows(report: dict) -> list[TensorRow]:
    return [TensorRow(role, str(t.get("name", "")), shape(t.get("shape")), str(t.get("dtype", "")),
                      count(t.get("bytes")), count(t.get("offset")))
            for role, key in (("input", "inputs"), ("output", "outputs")) for t in report.get(key) or []]


def _instructions(bench: dict | None, index: int):
    """Instructions of call `index` from a bench: per_call holds numbers or {"instructions": n}."""
    per_call = (bench or {}).get("per_call") or []
    if index >= len(per_call):
        return None
    item = per_call[index]
    return item.get("instructions") if isinstance(item, dict) else item


def call_rows(report: dict) -> list[CallRow]:
    calls, bench = report.get("calls") or [], report.get("bench")
    kinds = {op.get("index"): op.get("kind") for op in (report.get("graph") or {}).get("source") or []}
    instr = [_instructions(bench, k) for k in range(len(calls))]
    by_instr = any(v is not None for v in instr)
    weights = [(v or 0) if by_instr else (c.get("macs") or 0) for v, c in zip(instr, calls)]
    total = sum(weights)
    rows = []
    for k, c in enumerate(calls):
        srcs = c.get("source_ops") or []
        share = 100.0 * weights[k] / total if total else 0.0
        rows.append(CallRow(
            str(c.get("index", k)), str(c.get("kernel", "")), str(c.get("kind", "")), len(srcs) > 1,
            tuple(f"{i} {kinds.get(i, '?')}" for i in srcs),
            tuple(_tensor_cell(t) for t in c.get("inputs") or []),
            tuple(_tensor_cell(t) for t in c.get("outputs") or []),
            count(c.get("macs")), count(c.get("const_bytes")), count(c.get("scratch_bytes")),
            count(instr[k]), round(share, 1), f"{share:.1f}%", tuple(map(str, c.get("notes") or []))))
    return rows


def share_basis(report: dict) -> str:
    calls = report.get("calls") or []
    return "instructions" if any(_instructions(report.get("bench"), k) is not None
                                 for k in range(len(calls))) else "MACs"


def _tensor_cell(t: dict) -> str:
    at = "" if t.get("offset") is None else f" @{count(t['offset'])}"
    return f"{shape(t.get('shape'))} {t.get('dtype', '')}{at}"


def _bar(label: str, limit: int, parts: list[tuple[str, int, str]], note: str) -> Bar:
    used = sum(b for _, b, _ in parts)
    scale = max(limit, used, 1)
    # a non-empty part stays visible even on a board 1000 times larger than the model
    segs = tuple(Segment(name, b, max(round(100.0 * b / scale, 2), 0.4), css) for name, b, css in parts if b > 0)
    text = f"{count(used)} / {count(limit)} B ({percent(used, limit)})"
    return Bar(label, used, limit, text, segs, used > limit, note)


def board_bars(report: dict) -> list[Bar]:
    """Flash and SRAM use against the board's sizes; without a firmware build only the library's part."""
    board = report.get("board")
    if not board:
        return []
    weights, arena = int(report.get("weights_bytes") or 0), int(report.get("arena_bytes") or 0)
    fw = report.get("firmware")
    if fw:
        text, data, bss = int(fw.get("text", 0)), int(fw.get("data", 0)), int(fw.get("bss", 0))
        flash = [("weights", min(weights, text), "seg-weights"), ("code and other constants",
                 max(text - weights, 0), "seg-code"), ("initialised data", data, "seg-data")]
        sram = [("arena", min(arena, bss), "seg-arena"), ("other data and bss",
                max(data + bss - min(arena, bss), 0), "seg-data")]
        note = "from the firmware's section sizes (text, data, bss)"
    else:
        flash, sram = [("weights", weights, "seg-weights")], [("arena", arena, "seg-arena")]
        note = "the generated library's weights and arena only (no firmware was linked)"
    return [_bar("flash", int(board.get("flash_bytes") or 0), flash, note),
            _bar("SRAM", int(board.get("sram_bytes") or 0), sram, note)]


def decisions(report: dict) -> list[Decision]:
    kinds = {op.get("index"): op.get("kind") for op in (report.get("graph") or {}).get("source") or []}
    return [Decision(str(f.get("pattern", "")), ", ".join(f"{i} {kinds.get(i, '?')}" for i in f.get("ops") or []),
                     str(f.get("decision", "")), "yes" if f.get("decision") == "fused" else "no",
                     str(f.get("reason", ""))) for f in report.get("fusion") or []]


def _versus_bound(arena, bound) -> str:
    if not arena or not bound:
        return ""
    if arena == bound:
        return ", reached"
    if arena > bound:
        return f", +{percent(arena - bound, bound)} above it"
    return f"; {percent(bound - arena, bound)} below it by writing outputs over dying inputs"


SAVING_NAMES = {"in_place": "in place", "overlap": "overlapping outputs with dying inputs",
                "reorder": "reordering the calls", "search": "placement search"}


def savings(report: dict) -> list[tuple[str, str]]:
    """Bytes the planner saved by cause (the baseline itself is shown as a tile, not a saving)."""
    s = (report.get("plan") or {}).get("savings") or {}
    return [(SAVING_NAMES.get(k, str(k).replace("_", " ")), count(v)) for k, v in s.items() if k != "baseline_bytes"]


@dataclass(frozen=True)
class OpRow:
    """One op of an inspected model, as the inspect page lists it."""

    index: str
    op: str
    inputs: tuple[tuple[str, str], ...]  # (name, "shape dtype"), constants in parentheses
    outputs: tuple[tuple[str, str], ...]
    macs: str
    alive_bytes: str


def _inspect_tensor(t: dict) -> tuple[str, str]:
    text = f"{shape(t.get('shape'))} {t.get('dtype', '')}"
    return str(t.get("name", "")), f"({text})" if t.get("const") else text


def op_rows(data: dict) -> list[OpRow]:
    rows = []
    for op in data.get("ops") or []:
        act = op.get("activation") or "NONE"
        rows.append(OpRow(str(op.get("index", "")), f"{op.get('op', '')}" + ("" if act == "NONE" else f" + {act}"),
                          tuple(_inspect_tensor(t) for t in op.get("inputs") or []),
                          tuple(_inspect_tensor(t) for t in op.get("outputs") or []),
                          count(op.get("macs")), count(op.get("alive_bytes"))))
    return rows
