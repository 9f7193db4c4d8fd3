"""The op registry: per TFLite builtin, its attrs, shape rule, constraints and MAC count."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Callable

from ..errors import ModelError, UnsupportedError
from ..ir import DType, Graph, Inferred, Op, OpAttrs, Tensor
from .registry import REGISTRY, OpDef, Shape, data_input, register  # noqa: F401  (the registry's home)


@dataclass(frozen=True)
class RawAttrs(OpAttrs):
    """Options of an op microfuse does not support: kept only to name them in errors."""

    options: dict = field(default_factory=dict)


def build_attrs(kind: str, raw: dict):
    """Typed attrs for `kind` from the options table's raw field dict (names as in schema.fbs)."""
    d = REGISTRY.get(kind)
    if d is None or d.attrs is None:
        return RawAttrs(dict(raw)) if d is None else None
    return d.attrs.from_options(raw)


def attrs_to_options(op: Op) -> dict:
    """The raw options dict for the writer: inverse of build_attrs."""
    if op.attrs is None:
        return {}
    if isinstance(op.attrs, RawAttrs):
        return dict(op.attrs.options)
    return op.attrs.to_options()


def infer(op: Op) -> Inferred:
    """Output shapes and dtypes by the op's own rule (unknown ops: as the file says)."""
    d = REGISTRY.get(op.kind)
    if d is None:
        return [(t.shape, None) for t in op.outputs]
    try:
        return d.infer(op)
    except (IndexError, AttributeError, TypeError, ValueError, ZeroDivisionError) as e:
        raise ModelError(f"{op.where}: malformed operands ({type(e).__name__}: {e})") from None


def verify(graph: Graph) -> None:
    """graph.verify() with every op's shape rule: outputs have the shape and dtype their op gives."""
    graph.verify(infer)


def macs(op: Op) -> int:
    d = REGISTRY.get(op.kind)
    return d.macs(op) if d else 0


def problems(op: Op, known: Callable[[Tensor], bool] | None = None, output: bool = False) -> list[str]:
    """Every reason this op cannot be compiled, as user-facing text (empty: supported). `known`:
    which tensors are known at compile time (default: constants; check_supported also counts
    the outputs of ops that fold); `output`: the op writes a graph output (never folded)."""
    d = REGISTRY.get(op.kind)
    if d is None:
        return [f"{op.kind} is not supported; supported ops: `microfuse ops`"]
    first = data_input(op)
    foldable = folds(op, known or (lambda t: t.is_const))
    folded = foldable and not output
    if first is not None and not d.dtypes and not folded:
        why = "it writes a graph output" if foldable else f"input '{first.name}' is computed at run time"
        return [f"{op.kind} has no kernel and is folded at compile time {d.folds.__doc__} only; {why}"]
    if first is not None and first.dtype not in d.dtypes and not folded:
        allowed = ", ".join(sorted(str(t) for t in d.dtypes))
        # a float, 16x8 or uint8 model where int8 works: the fix is in the converter, not here
        hint = ("; convert the model with int8 full-integer quantization"
                if first.dtype in (DType.FLOAT32, DType.INT16, DType.UINT8) and DType.INT8 in d.dtypes else "")
        return [f"input type {first.dtype} is not supported (supported: {allowed}){hint}"]
    found = _operand_problems(op)
    if found:  # the constraints below assume the kernel's operand wiring holds
        return found
    for check in d.constraints:
        try:
            msg = check(op)
        except (IndexError, AttributeError, TypeError, ValueError, ArithmeticError) as e:
            msg = f"malformed operands ({type(e).__name__}: {e})"
        if msg:
            found.append(msg)
    return found


def _operand_problems(op: Op) -> list[str]:
    from . import operands  # after the registry: operands.py imports the ir only

    try:
        return operands.problems(op)
    except (IndexError, AttributeError, TypeError, ValueError, ArithmeticError) as e:
        return [f"malformed operands ({type(e).__name__}: {e})"]


def folds(op: Op, known: Callable[[Tensor], bool]) -> bool:
    """The op is evaluated at compile time (passes/fold.py), `known` telling which tensors are."""
    d = REGISTRY.get(op.kind)
    return d is not None and d.folds is not None and d.folds(op, known)


def own_state(op: Op) -> int:
    """Bytes of state the op's kernel keeps for itself between invokes (0: none)."""
    d = REGISTRY.get(op.kind)
    return d.own_state(op) if d is not None and d.own_state is not None else 0


def stateful(graph: Graph) -> bool:
    """Whether invokes of the graph form a stream: it has state tensors or an op that keeps state."""
    return bool(graph.state()) or any(op.kind in REGISTRY and REGISTRY[op.kind].keeps_state for op in graph.ops)


def check_supported(graph: Graph) -> None:
    """Raise one UnsupportedError listing every op that cannot be compiled."""
    raise_blockers(blockers(graph.ops, graph.outputs))


def blockers(op_list, graph_outputs=()) -> list[tuple[int, str]]:
    """(op index, 'op N KIND 'name': reason') for every problem of every op. An op that folds
    makes its outputs known at compile time (a Flatten's SHAPE -> STRIDED_SLICE -> PACK)."""
    known = {id(t) for op in op_list for t in op.inputs if t is not None and t.is_const}
    outputs = {id(t) for t in graph_outputs}
    found = []
    for op in op_list:
        output = any(id(t) in outputs for t in op.outputs)
        if not output and folds(op, lambda t: id(t) in known):
            known.update(id(t) for t in op.outputs)
        for msg in problems(op, lambda t: id(t) in known, output):
            found.append((op.index, f"op {op.index} {op.kind}" + (f" '{op.name}'" if op.name else "") + f": {msg}"))
    return found


def raise_blockers(found: list[tuple[int, str]]) -> None:
    """One UnsupportedError naming every blocker in op order (the first one in full, then the rest)."""
    lines = [line for _, line in sorted(found, key=lambda f: f[0])]
    if lines:
        more = f" (and {len(lines) - 1} more: " + "; ".join(lines[1:]) + ")" if len(lines) > 1 else ""
        raise UnsupportedError(lines[0] + more)


def supported_ops() -> list[str]:
    """The TFLite builtins microfuse compiles (not the internal kinds passes create)."""
    from ..tflite.schema import BUILTIN_CODE

    return sorted(kind for kind in REGISTRY if kind in BUILTIN_CODE)


def custom_ops() -> list[str]:
    """The custom ops microfuse compiles (TFLM's signal library), as 'CUSTOM:Name'."""
    return sorted(kind for kind in REGISTRY if kind.startswith("CUSTOM:"))


def tflm_coverage() -> str:
    """One line: how many of TFLM's registered builtins microfuse compiles, and which it does not."""
    from .tflm import TFLM_BUILTINS

    left = sorted(TFLM_BUILTINS - set(supported_ops()))
    line = f"{len(TFLM_BUILTINS) - len(left)} of the {len(TFLM_BUILTINS)} builtins TFLite Micro's op resolver registers"
    return line + (f" (not: {', '.join(left)})" if left else " (all)") + f", and {len(custom_ops())} of its custom ops"


def supported_types(kind: str) -> str:
    """What `microfuse ops` says an op takes: the input types with a kernel, and when it folds."""
    d = REGISTRY[kind]
    if d.listed:
        return d.listed
    if d.alias:
        return "any type (alias, no copy)"
    types = ", ".join(sorted(str(t) for t in d.dtypes))
    if d.folds is None:
        return types
    folded = f"any type, folded at compile time {d.folds.__doc__}"
    return f"{types}; {folded}" if types else folded


def attr_fields(attrs) -> list[str]:
    return [f.name for f in fields(attrs)] if attrs is not None and not isinstance(attrs, RawAttrs) else []


from . import cascade, conv, elementwise, fc, internal, pool, shape  # noqa: E402,F401  (registers the families)
from . import matmul, reduce_ops, resize  # noqa: E402,F401
from . import rnn  # noqa: E402,F401  (UNIDIRECTIONAL_SEQUENCE_LSTM, SVDF)
from . import state  # noqa: E402,F401  (resource variables: READ_VARIABLE, ASSIGN_VARIABLE)
from . import cast, signal  # noqa: E402,F401  (CAST, TFLM signal-library custom ops)
from . import math  # noqa: E402,F401  (elementwise math: ABS ... ZEROS_LIKE)
from . import compare  # noqa: E402,F401  (comparisons, logical ops)
from . import arith  # noqa: E402,F401  (DIV, FLOOR_DIV, FLOOR_MOD, SQUARED_DIFFERENCE, PRELU)
from . import select  # noqa: E402,F401  (SELECT_V2)
from . import add_n  # noqa: E402,F401  (ADD_N)
from . import movement  # noqa: E402,F401  (data movement: TRANSPOSE, SLICE, GATHER, ...)
from . import tconv  # noqa: E402,F401
from . import split  # noqa: E402,F401  (SPLIT, SPLIT_V, UNPACK)
from . import control  # noqa: E402,F401  (IF)
