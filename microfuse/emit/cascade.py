"""The C of a CASCADE (lower/cascade.py): its steps as statements, one commented kernel call per
band and one mf_ring_keep (mf_cascade.h) per ring move; runs of steps that differ only by rows of
the cascade's input and output (the steady state) become one `for` loop whose pointers advance by
a row per pass."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import short_name
from ..ops import cascade as casc
from . import escape


@dataclass(frozen=True)
class _Stmt:
    """A statement with its arena offsets left out: `text.format(*addresses)`."""

    text: str
    comment: str
    offsets: tuple[int, ...]


class _Stub(dict):
    """Places for the band tensors (their pointers are written here, not by the call view)."""

    def address(self, t) -> str:
        return "arena + 0"

    def label(self, t) -> str:
        return f"{list(t.shape)}"


def _pointer(dtype, const: bool) -> str:
    return f"({'const ' if const else ''}{dtype.c} *)(arena + {{}})"


def view(i: int, call, places, scratch: int, view_of, cls):
    """The cascade's _CallView (emit/c.py's type `cls`; `view_of` its call view builder)."""
    prefix = f"call{i}"
    prog, ms = call.program, casc.members(call.op)
    nested, names, seen = [], {}, {}
    for band_call in {id(c): c for c in call.bands.values()}.values():
        stub = _Stub({t: None for t in [*band_call.inputs, *band_call.outputs]})
        v = view_of(len(names), band_call, stub, None, False, kind=f"{prefix}_band")
        arrays = []
        for a in v.arrays:  # weights shared by every band of a member: emitted once
            key = (a.ctype, a.body)
            if key in seen:
                v.fields = [(f, seen[key] if value == a.cname else value) for f, value in v.fields]
            else:
                seen[key] = a.cname
                arrays.append(a)
        v.arrays = arrays
        names[id(band_call)] = v
        nested.append(v)

    def at(t, row: int, base: dict) -> int:
        ring = prog.rings.get(t)
        if ring is None:
            return places[t][1] + row * casc.row_bytes(t)
        return scratch + ring.offset + (row - base[t]) * ring.row_bytes

    steps = []
    for step in prog.steps:
        stmts = []
        for act, base in step:
            if isinstance(act, casc.Fill):
                ring = prog.rings[act.t]
                stmts.append(_Stmt(f"memset(arena + {{}}, {casc.pad_value(act.t)}, {act.rows * ring.row_bytes}u);",
                                   f"ring '{short_name(act.t.name)}': {act.rows} padding row(s)",
                                   (scratch + ring.offset + act.pos * ring.row_bytes, 0)))
                continue
            if isinstance(act, casc.Move):
                if act.rows == 0:
                    continue  # nothing kept: the ring starts over
                ring = prog.rings[act.t]
                lo = scratch + ring.offset
                stmts.append(_Stmt(f"mf_ring_keep(arena + {{}}, arena + {{}}, {act.rows * ring.row_bytes}u);",
                                   f"ring '{short_name(act.t.name)}': keep {act.rows} row(s)",
                                   (lo + act.dst * ring.row_bytes, lo + act.src * ring.row_bytes, 0)))
                continue
            bc = call.bands[id(act)]
            v = names[id(bc)]
            rows = {rd.t: rd.lo for rd in act.reads}
            args, offsets = [], []
            for t in bc.inputs:
                src = call.origin[id(t)]
                args.append(_pointer(t.dtype, True))
                offsets.append(at(src, rows[src], base))
            for t in bc.outputs:  # a global pool's one row: row 0
                args.append(_pointer(t.dtype, False))
                offsets.append(at(call.origin[id(t)], 0 if casc.is_reducer(ms[act.m]) else act.a, base))
            if bc.scratch:
                args.append("(void *)(arena + {})")
                offsets.append(scratch + prog.scratch)
            m = ms[act.m]
            span = "row {}" if act.b - act.a == 1 else f"{act.b - act.a} rows from {{}}"
            stmts.append(_Stmt(f"{bc.kernel}(&{v.prefix}_params, {', '.join(args)});",
                               f"op {m.index} {m.kind.lower()} '{short_name(m.name)}': {span}",
                               tuple(offsets) + (act.a,)))
        steps.append(stmts)
    code = _loops(steps)
    out = call.outputs[0]
    comment = (f"op {ms[0].index}..{ms[-1].index} cascade of {len(ms)} ops, rings "
               + ", ".join(f"'{short_name(r.t.name)}' {r.rows} rows" for r in prog.rings.values())
               + f" in {call.scratch} B @{scratch} -> {list(out.shape)}@{places[out][1]}")
    return cls(prefix, call.kernel, "", [], [], [], f"arena + {places[out][1]}, {out.nbytes}u",
               comment, code="\n    ".join(code), nested=nested)


def _shape(stmts: list[_Stmt]) -> tuple:
    return tuple((s.text, s.comment, len(s.offsets)) for s in stmts)


def _delta(a: list[_Stmt], b: list[_Stmt]) -> tuple:
    return tuple(y - x for s, t in zip(a, b) for x, y in zip(s.offsets, t.offsets))


def _loops(steps: list[list[_Stmt]]) -> list[str]:
    """C lines: plain steps, and each run of >= 3 steps of one shape advancing evenly as a loop."""
    lines, k = [], 0
    while k < len(steps):
        n = 1
        if k + 1 < len(steps) and _shape(steps[k]) == _shape(steps[k + 1]):
            d = _delta(steps[k], steps[k + 1])
            while k + n < len(steps) and _shape(steps[k + n]) == _shape(steps[k]) \
                    and _delta(steps[k + n - 1], steps[k + n]) == d:
                n += 1
        if n >= 3:
            lines.append(f"for (int i = 0; i < {n}; i++) {{ /* steps {k}..{k + n - 1}: the steady state */")
            flat = iter(d)
            for s in steps[k]:
                dd = [next(flat) for _ in s.offsets]
                expr = [f"{o} + {x} * i" if x else f"{o}" for o, x in zip(s.offsets, dd)]
                lines.append("    /* " + escape.comment(s.comment.format(expr[-1])) + " */")
                lines.append("    " + s.text.format(*expr[:-1]))
            lines.append("}")
        else:
            for s in steps[k]:
                lines.append("/* " + escape.comment(s.comment.format(s.offsets[-1])) + " */")
                lines.append(s.text.format(*s.offsets[:-1]))
            n = 1
        k += n
    return lines
