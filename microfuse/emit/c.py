"""The C emitter: renders a compiled model into NAME.h/NAME.c plus the runtime it needs."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import numpy as np

from ..version import __version__
from ..ir import DType, Tensor
from ..lower import Call, ConstArray
from ..lower import mve
from ..lower.call import largest
from ..report import build_report
from ..report_html import render as render_html
from ..resources import RUNTIME_DIR as RUNTIME
from . import cascade, escape, symbols

ALWAYS_FILES: tuple[str, ...] = ()
# How build systems take the folder: Make and CMake; a Zephyr module; Arduino and PlatformIO libraries.
PACKAGES = (("Makefile.j2", "Makefile"), ("CMakeLists.txt.j2", "CMakeLists.txt"),
            ("zephyr/module.yml.j2", "zephyr/module.yml"), ("zephyr/CMakeLists.txt.j2", "zephyr/CMakeLists.txt"),
            ("zephyr/Kconfig.j2", "zephyr/Kconfig"), ("library.properties.j2", "library.properties"),
            ("library.json.j2", "library.json"))
_ENV = escape.environment(jinja2.PackageLoader("microfuse.emit", "templates"))
C_TYPES = {np.dtype(np.int8): "int8_t", np.dtype(np.uint8): "uint8_t", np.dtype(np.int16): "int16_t",
           np.dtype(np.int32): "int32_t", np.dtype(np.uint32): "uint32_t", np.dtype(np.int64): "int64_t",
           np.dtype(np.float32): "float", np.dtype(np.uint16): "uint16_t"}


def runtime_dir() -> Path:
    """runtime_c/ (package data, microfuse/resources.py) — the kernels' home."""
    if not (RUNTIME / "include" / "mf_kernels.h").exists():
        raise FileNotFoundError(f"runtime_c not found at {RUNTIME}")
    return RUNTIME


def c_float(x: float, infinity: str = "FLT_MAX") -> str:
    """A float32 literal that reads back to the same bits. NaN is C99's NAN; an infinite bound
    (a clamp's "no limit") is FLT_MAX as in TFLM, an infinite value (`infinity="INFINITY"`) stays one."""
    x = float(np.float32(x))
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return infinity if x > 0 else f"-{infinity}"
    text = f"{x:.9g}"
    if "e" not in text and "." not in text:
        text += ".0"
    return text + "f"


def c_value(v: object) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return c_float(float(v))
    if isinstance(v, str):
        return v
    raise TypeError(f"cannot emit {type(v).__name__} as a C value")


def c_array_body(data: np.ndarray, per_line: int = 16) -> str:
    flat = np.ascontiguousarray(data).reshape(-1)
    fmt = (lambda v: c_float(v, "INFINITY")) if flat.dtype == np.float32 else str  # tolist: Python ints
    items = [fmt(v) for v in flat.tolist()]
    return "\n".join("    " + ", ".join(items[i:i + per_line]) + "," for i in range(0, len(items), per_line))


@dataclass
class _Array:
    cname: str
    ctype: str
    length: int
    body: str


@dataclass
class _CallView:
    prefix: str
    kernel: str
    params_type: str
    fields: list[tuple[str, str]]
    arrays: list[_Array]
    args: list[str]
    trace: str
    comment: str
    code: str = ""  # control flow (IF): C statements in place of one kernel call
    nested: list = field(default_factory=list)  # the branches' calls, defined beside the others


class Places(dict):
    """Tensor -> its C address: `arena + offset`, or `state + offset` for state (Tensor.variable)."""

    def __init__(self, plan):
        super().__init__({t: ("arena", o) for t, o in plan.offsets.items()})
        self.update({t: ("state", o) for t, o in plan.state_offsets.items()})

    def address(self, t: Tensor) -> str:
        area, offset = self[t]
        return f"{area} + {offset}"

    def label(self, t: Tensor) -> str:
        if t.is_const:
            return f"{list(t.shape)}@flash"
        area, offset = self[t]
        return f"{list(t.shape)}@{'state+' if area == 'state' else ''}{offset}"


def _pointer(t: Tensor, places: Places, const: bool) -> str:
    return f"({'const ' if const else ''}{t.dtype.c} *)({places.address(t)})"


def _const_input(cname: str, t: Tensor, arrays: list) -> str:
    """A constant operand a kernel reads through a pointer (a CONCATENATION piece): flash data."""
    data = np.ascontiguousarray(np.asarray(t.data).astype(t.dtype.np).reshape(-1))
    arrays.append(_Array(cname, C_TYPES[data.dtype], max(1, data.size), c_array_body(data)))
    return f"(const {t.dtype.c} *){cname}"


def _describe(call: Call, places: Places) -> str:
    ops = call.sources
    first = ops[0]
    idx = ",".join(str(op.index) for op in ops)
    ins = " ".join(places.label(t) if t in places else "const" for t in call.inputs)  # WHILE takes constants
    outs = " ".join(places.label(t) for t in call.outputs)
    return f"op {idx} {call.label} '{first.name}' {ins} -> {outs}"  # the template escapes it


def _view(i: int, call: Call, offsets: "Places", scratch_offset: int | None,
          backward: bool, state_offset: int | None = None, kind: str = "call") -> _CallView:
    prefix = f"{kind}{i}"
    if getattr(call, "program", None) is not None:  # a CASCADE: its band loop
        return cascade.view(i, call, offsets, scratch_offset, _view, _CallView)
    if call.branches:
        return _control_view(prefix, call, offsets, scratch_offset)
    arrays, fields = [], []
    params = {**call.params, call.reverse_key: 1} if backward else call.params  # the plan's direction
    for key, value in params.items():
        if isinstance(value, ConstArray):
            data = np.asarray(value.data)
            cname = f"{prefix}_{escape.ident(value.name)}"
            arrays.append(_Array(cname, C_TYPES[data.dtype], max(1, data.size), c_array_body(data)))
            fields.append((key, cname))
        else:
            fields.append((key, c_value(value)))
    args = [_const_input(f"{prefix}_input{k}", t, arrays) if t.is_const else _pointer(t, offsets, True)
            for k, t in enumerate(call.inputs)]
    args += [_pointer(t, offsets, False) for t in call.outputs]
    if call.scratch:
        args.append(f"(void *)(arena + {scratch_offset})")
    if call.state:
        args.append(f"(void *)(state + {state_offset})")
    out = call.outputs[0]
    trace = f"{offsets.address(out)}, {out.nbytes}u"
    return _CallView(prefix, call.kernel, call.params_type, fields, arrays, args, trace,
                     _describe(call, offsets))


def _control_view(prefix: str, call: Call, offsets: "Places", base: int) -> _CallView:
    """IF or WHILE as TFLM runs them (if.cc, while.cc): copies between the op's tensors and a
    subgraph's inputs and outputs around the subgraph's calls. Both subgraphs' tensors sit at
    their own plans' offsets past `base` (the op's scratch: they never run at once). A constant
    operand is copied from flash."""
    arrays, nested, places, runs = [], [], [], []
    for name, b in zip(("then", "else") if call.kernel == "mf_if" else ("cond", "body"), call.branches):
        inner = Places(b.plan)
        inner.clear()
        inner.update({t: ("arena", base + o) for t, o in b.plan.offsets.items()})
        scratch = {id(op): base + off for op, (off, _) in b.plan.scratch.items()}
        views = [_view(j, c, inner, scratch.get(id(c.op)), c.op in b.plan.backward, kind=f"{prefix}_{name}")
                 for j, c in enumerate(b.order)]
        nested += [n for v in views for n in [v, *v.nested]]
        places.append(inner)
        runs.append([v.code or f"{v.kernel}(&{v.prefix}_params, {', '.join(v.args)});" for v in views])

    consts: dict[int, str] = {}

    def at(t: Tensor, where: "Places") -> str:
        if t in where or not t.is_const:
            return where.address(t)
        if id(t) not in consts:
            consts[id(t)] = cname = f"{prefix}_const{len(arrays)}"
            raw = np.ascontiguousarray(np.asarray(t.data, t.dtype.np)).view(np.uint8).reshape(-1)
            arrays.append(_Array(cname, "uint8_t", max(1, raw.size), c_array_body(raw)))
        return consts[id(t)]

    def copy(dst, dst_at, src, src_at) -> list[str]:
        return [f"memcpy({at(d, dst_at)}, {at(s, src_at)}, {d.nbytes}u);" for d, s in zip(dst, src)]

    (g0, g1), (p0, p1), (r0, r1) = [b.graph for b in call.branches], places, runs
    if call.kernel == "mf_if":
        operands = call.inputs[1:]
        code = [f"if (*(const uint8_t *)({offsets.address(call.inputs[0])}) != 0) {{ /* then */",
                *_indent(copy(g0.inputs, p0, operands, offsets) + r0 + copy(call.outputs, offsets, g0.outputs, p0)),
                "} else {",
                *_indent(copy(g1.inputs, p1, operands, offsets) + r1 + copy(call.outputs, offsets, g1.outputs, p1)),
                "}"]
    else:  # the cond runs on the inputs, then body and cond on the outputs while it says so
        outs, test = call.outputs, f"*(const uint8_t *)({p0.address(g0.outputs[0])}) != 0"
        code = [*copy(g0.inputs, p0, call.inputs, offsets), *copy(outs, offsets, call.inputs, offsets), *r0,
                f"while ({test}) {{",
                *_indent(copy(g1.inputs, p1, outs, offsets) + r1 + copy(outs, offsets, g1.outputs, p1)
                         + copy(g0.inputs, p0, outs, offsets) + r0),
                "}"]
    out = call.outputs[0]
    return _CallView(prefix, call.kernel, "", [], arrays, [], f"{offsets.address(out)}, {out.nbytes}u",
                     _describe(call, offsets), code="\n    ".join(code), nested=nested)


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


@dataclass
class _IO:
    kind: str
    i: int
    tensor: Tensor
    offset: int

    @property
    def quantized(self) -> bool:
        return self.tensor.quant is not None and self.tensor.dtype != DType.FLOAT32

    @property
    def scale(self) -> str:
        return c_float(self.tensor.quant.scale[0]) if self.quantized else "1.0f"

    @property
    def zero_point(self) -> int:
        return int(self.tensor.quant.zero_point[0]) if self.quantized else 0


def runtime_files(calls: list[Call]) -> list[str]:
    """The runtime_c sources the calls need (an IF's branches' too), sorted, each once."""
    inner = [c for call in calls for b in call.branches for c in b.calls.values()]
    nested = runtime_files(inner) if inner else []
    return sorted({*ALWAYS_FILES, *(f for c in calls for f in c.files), *nested})


def banner(compiled) -> str:
    return f"generated by microfuse {__version__} from {Path(compiled.model_path).name or 'a graph'}"


def emit(compiled, out: Path) -> None:
    """Write NAME.h, NAME.c, the runtime sources, mf_config.h (their names in this build) and the build-system
    files (PACKAGES)."""
    plan, name = compiled.plan, compiled.name
    offsets = plan.offsets
    places = Places(plan)
    scratch = {id(op): off for op, (off, _) in plan.scratch.items()}
    own = {id(op): off for op, (off, _) in plan.own_state.items()}
    views = [_view(i, c, places, scratch.get(id(c.op)), c.op in plan.backward, own.get(id(c.op)))
             for i, c in enumerate(compiled.calls)]
    graph = compiled.graph
    init_views = _init_views(compiled)
    defined = [d for v in views + init_views for d in [v, *v.nested] if d.arrays or not d.code]  # static data
    context = dict(
        name=name, N=name.upper(), banner=banner(compiled), command=compiled.options.command,
        align=plan.align, arena_bytes=plan.arena_bytes, calls=views, init_calls=init_views,
        defined=defined,
        needs_string=bool(_state_views(graph, plan)) or any(v.code for v in views + init_views),
        state_bytes=plan.state_bytes, state=_state_views(graph, plan),
        summary=(f"{len(compiled.source.ops)} source ops -> {len(compiled.calls)} kernel calls, "
                 f"arena {plan.arena_bytes} bytes (whole-tensor lower bound {plan.lower_bound_bytes})"),
        inputs=[_IO("INPUT", i, t, offsets[t]) for i, t in enumerate(graph.inputs)],
        outputs=[_IO("OUTPUT", i, t, offsets[t]) for i, t in enumerate(graph.outputs)],
        runtime=runtime_files([*compiled.calls, *(compiled.init.calls if compiled.init else [])]),
        version=__version__,
        model_file=Path(compiled.model_path).name or "a graph",
        helium_layouts=mve.laid_out_for_helium(compiled),
        needs_math=any("NAN" in a.body or "INFINITY" in a.body for v in defined for a in v.arrays),
    )
    (out / "zephyr").mkdir(exist_ok=True)
    for template, target in (("model.h.j2", f"{name}.h"), ("model.c.j2", f"{name}.c"), *PACKAGES):
        (out / target).write_text(_ENV.get_template(template).render(**context))
    _copy_runtime(context["runtime"], out)
    copied = [p.read_text() for p in sorted(out.glob("mf_*.[ch]")) if p.name != symbols.CONFIG]
    sizes = largest(c.sizes for c in [*compiled.calls, *(compiled.init.calls if compiled.init else [])])
    sizes.update(compiled.core_defines)
    (out / symbols.CONFIG).write_text(symbols.config_header(name, banner(compiled), symbols.runtime_symbols(copied),
                                                            sizes))


def _init_views(compiled) -> list[_CallView]:
    """The CALL_ONCE subgraph's calls: its own plan's offsets past `base`, the main plan's state."""
    init = compiled.init
    if init is None:
        return []
    places = Places(init.plan)
    places.clear()
    places.update({t: ("arena", init.base + o) for t, o in init.plan.offsets.items()})
    places.update({t: ("state", o) for t, o in compiled.plan.state_offsets.items()})
    scratch = {id(op): init.base + off for op, (off, _) in init.plan.scratch.items()}
    return [_view(i, c, places, scratch.get(id(c.op)), c.op in init.plan.backward, kind="init")
            for i, c in enumerate(init.calls)]


@dataclass
class _StateView:
    comment: str
    offset: int
    bytes: int
    elements: int
    cname: str
    ctype: str
    body: str
    fill: int | None  # one byte value fills it (memset), else copied from the array


def _state_views(graph, plan) -> list[_StateView]:
    """Each state tensor's place and initial value (Tensor.initial): a memset when one byte repeats;
    then each kernel's own state (Call.state), zeros."""
    found = []
    for i, t in enumerate(graph.state()):
        raw = np.ascontiguousarray(t.initial()).view(np.uint8).reshape(-1)
        fill = int(raw[0]) if raw.size and np.all(raw == raw[0]) else None
        data = t.initial()
        body = "" if fill is not None else c_array_body(data)
        found.append(_StateView(f"'{t.name}' {t.dtype} {list(t.shape)}", plan.state_offsets[t], t.nbytes,
                                t.elements, f"state{i}_init", C_TYPES[data.dtype], body, fill))
    for op, (offset, size) in plan.own_state.items():
        found.append(_StateView(f"the kernel state of {op.where} '{op.name}'", offset, size, size, "", "uint8_t",
                                "", 0))
    return found


def write_report(compiled, out: Path, **extra) -> dict:
    """report.json and report.html; `extra` adds sections (board, firmware, bench)."""
    report = build_report(compiled, banner(compiled))
    report.update(extra)
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "report.html").write_text(render_html(report), encoding="utf-8")
    return report


def _copy_runtime(files: list[str], out: Path) -> None:
    """Headers all go (they are small); sources only as the calls need them. Flat layout, so
    `cc -I OUT $(find OUT -name '*.c')` builds."""
    root = runtime_dir()
    for header in sorted((root / "include").glob("*.h")):
        shutil.copyfile(header, out / header.name)
    for f in files:
        shutil.copyfile(root / "src" / f, out / f)


def render_host_main(name: str, graph) -> str:
    """The host harness (stdin samples in, outputs out) for targets/host.py."""
    banner = f"generated by microfuse {__version__}"
    return _ENV.get_template("host_main.c.j2").render(
        name=name, N=name.upper(), banner=banner, inputs=graph.inputs, outputs=graph.outputs)
