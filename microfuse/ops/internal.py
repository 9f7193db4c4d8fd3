"""The op kinds passes create (no TFLite builtin): registered here, beside the builtins.

- CONCAT_VIEW: an eliminated CONCATENATION (passes/concat.py): its inputs are slices of its
  output (microfuse/views.py), so it costs no call and no copy (an alias).
- SIBLINGS: sibling convs / fully-connected ops reading one input, run as one call
  (passes/horizontal.py); `attrs.members` are the fused ops.
- CONV_GAP: a conv / depthwise (with its epilogue) fused with the global average pool or
  MEAN reading it (passes/pool_fuse.py); CONV_POOL: fused row by row with the max / average
  pool reading it (passes/pool_rows.py). `attrs.conv` is the conv as it was (writing the
  intermediate, never stored), `attrs.reducer` the pool; the op's output is the pool's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import DType, Op, OpAttrs
from .attrs import ConcatAttrs
from .registry import REGISTRY, OpDef, register

CONCAT_VIEW = "CONCAT_VIEW"
SIBLINGS = "SIBLINGS"
CONV_GAP = "CONV_GAP"
CONV_POOL = "CONV_POOL"
MAX_SIBLINGS = 4  # mf_multi.h MF_MULTI_MAX


@dataclass(frozen=True, eq=False)
class SiblingAttrs(OpAttrs):
    """The fused ops, in execution order: their weights, bias, attrs and quantization."""

    members: tuple[Op, ...]


@dataclass(frozen=True, eq=False)
class ReducedAttrs(OpAttrs):
    """A conv and the reduction reading its output (see the module docstring)."""

    conv: Op
    reducer: Op


def reduced(kind: str, conv: Op, reducer: Op) -> Op:
    """The fused op: the conv's inputs (with its epilogue operands), the reduction's output."""
    return Op(kind, list(conv.inputs), [reducer.outputs[0]], ReducedAttrs(conv, reducer), conv.name, conv.index)


def parts(op: Op) -> list[Op]:
    """The ops an internal op stands for, in execution order (an ordinary op: none)."""
    if isinstance(op.attrs, SiblingAttrs):
        return list(op.attrs.members)
    if isinstance(op.attrs, ReducedAttrs):
        return [op.attrs.conv, op.attrs.reducer]
    return []


def _rule(target: Op):
    return REGISTRY[target.kind].infer(target)


register(
    OpDef(CONCAT_VIEW, ConcatAttrs, lambda op: REGISTRY["CONCATENATION"].infer(op),
          dtypes=frozenset(DType), alias=True),
    OpDef(SIBLINGS, None, lambda op: [_rule(m)[0] for m in op.attrs.members],
          macs=lambda op: sum(REGISTRY[m.kind].macs(m) for m in op.attrs.members), dtypes=frozenset({DType.INT8})),
    *(OpDef(kind, None, lambda op: _rule(op.attrs.reducer),
            macs=lambda op: REGISTRY[op.attrs.conv.kind].macs(op.attrs.conv))
      for kind in (CONV_GAP, CONV_POOL)),
)
