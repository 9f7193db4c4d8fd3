"""The report page's tables and tiles: totals, per-call rows, flash/SRAM bars, fusion decisions."""

from __future__ import annotations

from dataclasses import dataclass

from .fmt import count, human_bytes, percent, shape, short_name, si


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
    ms: str = ""
    intensity: str = ""  # MACs per activation byte moved
    code_path: str = ""  # per core: plain C / DSP / Helium


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
    """The header's tiles: what a firmware engineer asks first (total flash, total RAM, how fast)."""
    arena, bound = report.get("arena_bytes"), report.get("lower_bound_bytes")
    tiles = [_calls_tile(report),
             Stat("compute", f"{si(report.get('macs'))} MACs", f"{count(report.get('macs'))} multiply-accumulates"
                  + _intensity(report)),
             Stat("arena (SRAM)", human_bytes(arena), f"{count(arena)} B of activations; whole-tensor bound "
                  f"{count(bound)} B{_versus_bound(arena, bound)}", "accent")]
    tiles += [t for t in (_state_tile(report), _tflm_tile(report), _weights_tile(report)) if t]
    tiles += _totals_tiles(report)
    tiles += [t for t in (_latency_tile(report), _accuracy_tile(report)) if t]
    return tiles


def _calls_tile(report: dict) -> Stat:
    ops, calls, aliases = report.get("source_ops"), report.get("kernel_calls"), report.get("aliases") or 0
    fusion = report.get("fusion") or []
    fused = sum(1 for f in fusion if f.get("decision") == "fused")
    parts = [f"{count(aliases)} alias{'es' if aliases != 1 else ''} (no copy, no call)"] if aliases else []
    if fusion:
        parts.append(f"{fused} fusion{'s' if fused != 1 else ''} applied, {len(fusion) - fused} declined")
    return Stat("ops → kernel calls", f"{count(ops)} → {count(calls)}", "; ".join(parts))


def _intensity(report: dict) -> str:
    text = model_intensity(report)
    return f"; {text} MACs per byte moved" if text != "–" else ""


def model_intensity(report: dict) -> str:
    """The model's MACs per activation byte its calls read and write."""
    moved = sum(_moved(c) for c in report.get("calls") or [])
    return f"{report.get('macs', 0) / moved:.1f}" if moved and report.get("macs") else "–"


def _moved(call: dict) -> int:
    """Activation bytes a call reads and writes (each tensor once): the fusion cost model's 'moved'."""
    return sum(int(t.get("bytes") or 0) for t in [*(call.get("inputs") or []), *(call.get("outputs") or [])])


def _state_tile(report: dict) -> Stat | None:
    """State that outlives an invoke: its own area, never shared with the arena's activations."""
    state, entries = report.get("state_bytes"), report.get("state") or []
    if not state:
        return None
    names = ", ".join(f"{e['tensor']} {count(e['bytes'])} B @{count(e['offset'])}" for e in entries)
    return Stat("state (SRAM)", human_bytes(state), f"{count(state)} B kept from one invoke to the next, apart "
                f"from the arena ({len(entries)} variable{'s' if len(entries) != 1 else ''}: {names})")


def _tflm_tile(report: dict) -> Stat | None:
    arena = report.get("arena_bytes")
    tflm = (report.get("tflm_plan") or {}).get("head_bytes")
    if not tflm:
        return None
    return Stat("TFLM's plan", human_bytes(tflm), f"TFLM would plan {count(tflm)} B for activations (+ its "
                f"per-op data); microfuse needs {percent(arena, tflm)} of it")


KIND_NOTES = {"requantization": "per-channel bias, multiplier and shift", "fast-kernel tables": "zero-point rows",
              "lookup tables": "exp, activation"}


def _weights_tile(report: dict) -> Stat:
    consts = report.get("constants") or {}
    total = consts.get("bytes", report.get("weights_bytes"))
    detail = f"{count(total)} B of constants"
    if consts.get("by_kind"):
        parts = [f"{k} {count(v)}" + (f" ({KIND_NOTES[k]})" if k in KIND_NOTES else "")
                 for k, v in sorted(consts["by_kind"].items(), key=lambda kv: -kv[1])]
        detail += (f": {', '.join(parts)}. The model file holds {count(consts.get('model_file_bytes'))} B "
                   "(weights and int32 biases, what inspect counts); the build adds the precomputed rest")
    return Stat("weights (flash)", human_bytes(total), detail)


def _totals_tiles(report: dict) -> list[Stat]:
    totals = report.get("footprint") or []
    if not totals:
        fw = report.get("firmware")
        return [Stat("total flash", human_bytes(fw["text"] + fw["data"]), "firmware text+data")] if fw else []
    first, others = totals[0], totals[1:]

    def more(key):
        return "".join(f"; {t['core']}: {count(t[key])} B" for t in others)

    return [
        Stat("total flash", human_bytes(first["flash_bytes"]), f"{count(first['flash_bytes'])} B on "
             f"{first['core']}: code {count(first['code_bytes'])} + constants {count(first['constants_bytes'])}"
             f" + data {count(first['data_bytes'])} B" + more("flash_bytes"), "accent"),
        Stat("total RAM", human_bytes(first["ram_bytes"]), f"{count(first['ram_bytes'])} B on {first['core']}: "
             f"arena {count(first['arena_bytes'])} + stack {count(first['stack_bytes'])} ("
             f"{first['stack_source']}) + data/bss {count(first['data_bytes'] + first['bss_bytes'])} B"
             + more("ram_bytes"), "accent"),
    ]


def _latency_tile(report: dict) -> Stat | None:
    lat = report.get("latency")
    if lat:
        basis = lat["basis"]
        what = ("estimated cycles" if lat.get("estimated") else "cycles") if basis == "cycles" else "instructions"
        detail = f"{count(lat[basis])} {what} on {lat['board']}"
        if lat.get("ms") is None:
            return Stat("latency", f"{si(lat[basis])} {what}", detail)
        detail += f" at {lat['clock_hz'] / 1e6:g} MHz ({lat['clock_from']})"
        if basis == "instructions":
            detail += "; ms assume one instruction per cycle"
        return Stat("latency", f"{lat['ms']:,.2f} ms", detail, "accent")
    bench = report.get("bench")
    if bench and bench.get("instructions") is not None:
        return Stat("instructions", si(bench["instructions"]),
                    f"{count(bench['instructions'])} on {bench.get('board', '?')}")
    return None


def _accuracy_tile(report: dict) -> Stat | None:
    acc = report.get("accuracy")
    if not acc or not acc.get("outputs"):
        return None
    o = acc["outputs"][0]
    top1 = "" if o.get("top1_agreement") is None else f", top-1 agreement {o['top1_agreement']:.0%}"
    rel = "-" if o.get("l2_relative") is None else f"{o['l2_relative']:.2%}"
    cos = "-" if o.get("cosine") is None else f"{o['cosine']:.4f}"
    return Stat("accuracy vs float", f"cosine {cos}", f"output {o['name']}: L2 relative error {rel}, RMSE "
                f"{o['rmse']:.3g}{top1} on {acc['samples']} samples, {acc['inputs']}")


def io_rows(report: dict) -> list[TensorRow]:
    return [TensorRow(role, str(t.get("name", "")), shape(t.get("shape")), str(t.get("dtype", "")),
                      count(t.get("bytes")), count(t.get("offset")))
            for role, key in (("input", "inputs"), ("output", "outputs")) for t in report.get(key) or []]


def _counts(report: dict, n: int) -> tuple[list, list]:
    """Per-call counts (the latency section's basis, else a bench's per_call numbers) and ms."""
    lat = report.get("latency")
    if lat and lat.get("per_call"):
        rows = lat["per_call"] + [{}] * max(0, n - len(lat["per_call"]))
        return [r.get(lat["basis"]) for r in rows[:n]], [r.get("ms") for r in rows[:n]]
    per_call = (report.get("bench") or {}).get("per_call") or []
    values = [(p.get("instructions") if isinstance(p, dict) else p) if k < len(per_call) else None
              for k, p in enumerate(per_call + [None] * max(0, n - len(per_call)))][:n]
    return values, [None] * n


def call_rows(report: dict) -> list[CallRow]:
    from ..report import code_path

    calls = report.get("calls") or []
    kinds = {op.get("index"): op.get("kind") for op in (report.get("graph") or {}).get("source") or []}
    instr, ms = _counts(report, len(calls))
    by_instr = any(v is not None for v in instr)
    weights = [(v or 0) if by_instr else (c.get("macs") or 0) for v, c in zip(instr, calls)]
    total = sum(weights)
    cores = [t["core"] for t in report.get("footprint") or []] or ["cortex-m4"]
    rows = []
    for k, c in enumerate(calls):
        srcs = c.get("source_ops") or []
        share = 100.0 * weights[k] / total if total else 0.0
        moved = _moved(c)
        kernel, bands = str(c.get("kernel", "")), c.get("band_kernels")
        paths = " · ".join(f"{_short(core)} {code_path(kernel, _core_name(core), bands)}" for core in cores)
        rows.append(CallRow(
            str(c.get("index", k)), str(c.get("kernel", "")), str(c.get("kind", "")), len(srcs) > 1,
            tuple(f"op {i} {kinds.get(i, '?')}" for i in srcs),
            tuple(_tensor_cell(t) for t in c.get("inputs") or []),
            tuple(_tensor_cell(t) for t in c.get("outputs") or []),
            count(c.get("macs")), count(c.get("const_bytes")), count(c.get("scratch_bytes")),
            count(instr[k]), round(share, 1), f"{share:.1f}%", tuple(map(str, c.get("notes") or [])),
            "" if ms[k] is None else f"{ms[k]:.3f} ms",
            f"{(c.get('macs') or 0) / moved:.1f} /B" if moved and c.get("macs") else "", paths))
    return rows


def _short(core: str) -> str:
    """'cortex-m4' -> 'M4', 'qemu-mps3-an547 (cortex-m55)' -> 'M55'."""
    return _core_name(core).replace("cortex-", "").upper().replace("PLUS", "+")


def _core_name(core: str) -> str:
    """'qemu-mps3-an547 (cortex-m55)' -> 'cortex-m55'; a plain core name as it is."""
    return core[core.index("(") + 1:-1] if "(" in core else core


def share_basis(report: dict) -> str:
    lat = report.get("latency")
    if lat and lat.get("per_call"):
        return ("estimated cycles" if lat.get("estimated") else "cycles") if lat["basis"] == "cycles" \
            else "instructions"
    calls = report.get("calls") or []
    return "instructions" if any(v is not None for v in _counts(report, len(calls))[0]) else "MACs"


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


@dataclass(frozen=True)
class AccuracyRow:
    role: str
    name: str
    rmse: str
    mae: str
    l2: str
    cosine: str
    top1: str


@dataclass(frozen=True)
class Accuracy:
    float_model: str
    samples: int
    inputs: str
    rows: tuple[AccuracyRow, ...]


def accuracy(report: dict) -> Accuracy | None:
    acc = report.get("accuracy")
    if not acc:
        return None

    def f(v, fmt):
        return "–" if v is None else format(v, fmt)

    rows = tuple(AccuracyRow(role, str(m.get("name", "")), f(m.get("rmse"), ".4g"), f(m.get("mae"), ".4g"),
                             f(m.get("l2_relative"), ".2%"), f(m.get("cosine"), ".5f"),
                             f(m.get("top1_agreement"), ".0%"))
                 for role, key in (("output", "outputs"), ("layer", "layers")) for m in acc.get(key) or [])
    return Accuracy(str(acc.get("float_model", "")), int(acc.get("samples") or 0), str(acc.get("inputs", "")), rows)


def latency_note(report: dict) -> str:
    lat = report.get("latency")
    if not lat or not lat.get("per_call"):
        return ""
    text = (f"counts from a build that reads the timer after each call, less those reads "
            f"({count(lat.get('timer_reads'))} {lat['basis']} in all, spread evenly)")
    if lat.get("clock_hz"):
        text += f"; ms at {lat['clock_hz'] / 1e6:g} MHz"
        if lat["basis"] == "instructions":
            text += " assuming one instruction per cycle"
    return text


@dataclass(frozen=True)
class CascadeRow:
    call: str
    ops: str
    rings: str
    ring_bytes: str
    whole_bytes: str
    saved: str


def cascades(report: dict) -> list[CascadeRow]:
    """report.json's cascades: each one's ops, its rings (rows held of the tensor's) and the saving."""
    rows = []
    for c in report.get("cascades") or []:
        rings = "; ".join(f"{short_name(r.get('tensor', ''))} {r.get('rows')}/{r.get('of_rows')} rows"
                          for r in c.get("rings") or [])
        ops = ", ".join(f"{i} {k}" for i, k in zip(c.get("source_ops") or [], c.get("ops") or []))
        rows.append(CascadeRow(str(c.get("call")), ops, rings, count(c.get("ring_bytes")),
                               count(c.get("whole_bytes")), count(c.get("saved_bytes"))))
    return rows
