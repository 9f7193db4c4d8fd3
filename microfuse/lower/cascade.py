"""Lowering of a CASCADE (ops/cascade.py): every band is an ordinary kernel call of its member on
a window of rows, so the kernel choice (fast or reference, whatever fits) is the member's own.

A band op is the member with its input cut to the rows the band reads, its output (and epilogue
operands) to the band's rows, and the padding made EXPLICIT: the rows above the window that lie
outside the image become `pad_h`, those below need no field (the kernels skip taps past in_h).
Equal geometries share one call. The emitter (emit/cascade.py) writes the steps as C, with the
steady state as one loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import UnsupportedError

from .. import quant
from ..ir import DType, Op, Tensor
from ..ops import cascade as casc
from ..ops.common import window_pads
from .call import Call, largest
from .common import per_tensor_int8
from .control import ControlSpec
from .kernels import HELPERS, WINDOW, KernelSpec, declare, make
from .registry import lowering

SPEC = ControlSpec("mf_cascade", "", "", access=casc.BAND)
declare({"mf_rowsum_s8_params": ("pixels", "channels", "start", "finish", "count", "act_min", "act_max")},
        KernelSpec("mf_rowsum_s8", "mf_rowsum_s8_params", "mf_rowsum_s8.c"))


@dataclass(eq=False)
class CascadeCall(Call):
    """A Call whose C is the band loop: `program` (ops/cascade.Program) and, per Band of it, the
    lowered band call (`bands[id(band)]`)."""

    program: casc.Program | None = None
    bands: dict[int, Call] = field(default_factory=dict)
    origin: dict[int, Tensor] = field(default_factory=dict)  # id(band tensor) -> the cascade's tensor
    band_scratch: int = 0  # the largest band call's own scratch, after the rings

    @property
    def files(self) -> tuple[str, ...]:
        moves = any(isinstance(act, casc.Move) and act.rows for step in self.program.steps for act, _ in step)
        ring = {HELPERS["mf_ring_keep"]} if moves else set()
        return tuple(sorted({f for c in self.bands.values() for f in c.files} | ring))

    @property
    def sizes(self) -> dict[str, int]:
        return largest([c.sizes for c in self.bands.values()])

    def finish(self, config: dict[str, int]) -> None:
        for c in {id(c): c for c in self.bands.values()}.values():
            c.finish(config)

    @property
    def label(self) -> str:
        return f"cascade of {len(casc.members(self.op))} ops" if self.op else "cascade"

    @property
    def constants(self) -> list:
        """The band calls' arrays, each content once (the emitter shares them: emit/cascade.py)."""
        seen: dict = {}
        for c in {id(c): c for c in self.bands.values()}.values():
            for v in c.constants:
                data = np.asarray(v.data)
                seen.setdefault((data.dtype.str, data.tobytes()), v)
        return list(seen.values())

    def runs(self):
        """(band call, times run) for each distinct band call."""
        count: dict[int, int] = {}
        for step in self.program.steps:
            for act, _ in step:
                if isinstance(act, casc.Band):
                    k = id(self.bands[id(act)])
                    count[k] = count.get(k, 0) + 1
        unique = {id(c): c for c in self.bands.values()}
        return [(unique[k], n) for k, n in count.items()]

    def moved_bytes(self) -> int:
        """Bytes the ring moves copy per invoke."""
        rings = self.program.rings
        return sum(act.rows * rings[act.t].row_bytes for step in self.program.steps
                   for act, _ in step if isinstance(act, casc.Move))


def reducer_call(m: Op, a: int, b: int, origin: dict[int, Tensor]) -> Call:
    """A global average pool's band: rows [a, b) of its input summed (mf_cascade.h)."""
    x, y = m.inputs[0], m.outputs[0]
    if x.dtype != DType.INT8:
        raise UnsupportedError(f"{m.where} '{m.name}': a cascade ends in an int8 global average pool only")
    per_tensor_int8(x, m, "input")
    per_tensor_int8(y, m, "output")
    lo, hi = quant.activation_range(m.attrs.activation, y)
    rows, out = casc.row_tensor(x, b - a, f"{a}:{b}"), casc.row_tensor(y, 1, "sum")
    origin.update({id(rows): x, id(out): y})
    _, h, w, c = x.shape
    params = dict(pixels=(b - a) * w, channels=c, start=int(a == 0), finish=int(b == h), count=h * w,
                  act_min=lo, act_max=hi)
    band = Op(m.kind, [rows], [out], replace(m.attrs, padding="VALID", filter_h=b - a, filter_w=w), m.name, m.index)
    return make("mf_rowsum_s8", params, [rows], [out], [band], scratch=4 * c)  # the cost model: the band's taps


def _geometry(m: Op, band: casc.Band) -> tuple:
    if casc.is_reducer(m):
        return band.m, band.b - band.a, band.a == 0, band.b == casc.rows_out(m)
    win = band.reads[0]
    return band.m, band.b - band.a, win.hi - win.lo, win.lo - (band.a * m.attrs.stride_h - window_pads(m)[0])


def _shares_bytes(prog: casc.Program, m: Op) -> bool:
    """Whether member m's input ring and output ring overlap (its bands run in place)."""
    src, out = prog.rings.get(m.inputs[0]), prog.rings.get(m.outputs[0])
    return src is not None and out is not None and src.offset < out.offset + out.nbytes and \
        out.offset < src.offset + src.nbytes


@lowering(casc.CASCADE, DType.INT8, DType.FLOAT32)
def lower_cascade(op: Op, lw) -> Call:
    ms = casc.members(op)
    prog = casc.program(op)
    shared: dict[tuple, Call] = {}
    bands: dict[int, Call] = {}
    origin: dict[int, Tensor] = {}
    for act in (a for step in prog.steps for a, _ in step if isinstance(a, casc.Band)):
        m, key = ms[act.m], _geometry(ms[act.m], act)
        if key not in shared:  # the first band of a geometry is lowered, the others share its call
            shared[key] = reducer_call(m, act.a, act.b, origin) if casc.is_reducer(m) else \
                lw.lower(casc.band_op(m, act, origin))
        bands[id(act)] = shared[key]
        if _shares_bytes(prog, m) and shared[key].spec.access != WINDOW:  # (every conv kernel's does)
            raise UnsupportedError(f"{m.where} '{m.name}': its input ring lies inside its output ring "
                                   f"(ops/cascade.py _nest), but {shared[key].kernel} declares no pixel "
                                   "access order")
    sources = [s for m in ms for s in [m, *(src for step in m.fused for src in step.sources)]]
    extra = max((c.scratch for c in shared.values()), default=0)
    call = CascadeCall(SPEC, {}, list(op.inputs), list(op.outputs), sources, prog.scratch + extra,
                       program=prog, bands=bands, origin=origin, band_scratch=extra)
    call.notes.append(f"cascade of {len(ms)} ops: rings {prog.scratch} B for {casc.whole_bytes(op)} B of "
                      "whole intermediates")
    return call
