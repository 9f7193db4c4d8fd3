"""The epilogue steps a fused op carries in `op.fused`, and helpers to read a fused op."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Op, Tensor

UNARY = ("RELU", "RELU6", "LEAKY_RELU", "HARD_SWISH", "LOGISTIC", "TANH")
BINARY = ("ADD", "SUB", "MUL")
PRODUCERS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D", "MAX_POOL_2D")


@dataclass(frozen=True, eq=False)
class Epilogue:
    """One step applied, in registers, to each value the fused kernel would have stored.

    kind "unary": a chain of unary element-wise ops (int8: one lookup table); "add", "sub",
    "mul": a binary op whose other operand (`operand`, same shape as the output) is read at
    the same index. `input` is the value flowing in (the tensor the unfused chain stored),
    `output` what the step produces; `sources` are the absorbed ops, in order.
    """

    kind: str
    sources: tuple[Op, ...]
    input: Tensor
    output: Tensor
    operand: Tensor | None = None
    operand_slot: int = 1  # the operand's input slot in the binary op (0: it is input 1)

    @property
    def label(self) -> str:
        return "+".join(op.kind.lower() for op in self.sources)


def own_output(op: Op) -> Tensor:
    """The tensor the op itself computes before any epilogue (its output when unfused)."""
    return op.fused[0].input if op.fused else op.outputs[0]


def first_operand_slot(op: Op) -> int:
    """Where epilogue operands start in op.inputs (the planner's contract in plan/inplace.py)."""
    return 1 if op.kind in ("AVERAGE_POOL_2D", "MAX_POOL_2D") else 3


def with_step(op: Op, step: Epilogue) -> Op:
    """A copy of `op` that also applies `step`: it writes the step's output, and a binary
    step's operand joins its inputs after the weight/bias slots."""
    inputs = list(op.inputs)
    if step.operand is not None:
        inputs += [None] * (first_operand_slot(op) - len(inputs))
        inputs.append(step.operand)
    fused = list(op.fused)
    if fused and fused[-1].kind == "unary" and step.kind == "unary":
        last = fused.pop()  # consecutive unary ops are one step (one table for int8)
        step = Epilogue("unary", last.sources + step.sources, last.input, step.output)
    return Op(op.kind, inputs, [step.output], op.attrs, op.name, op.index, [*fused, step])


def split(op: Op) -> tuple[Epilogue | None, Epilogue | None, Epilogue | None]:
    """(unary before, binary, unary after) of a fused op's epilogue; raise on other shapes."""
    steps = list(op.fused)
    pre = steps.pop(0) if steps and steps[0].kind == "unary" else None
    binary = steps.pop(0) if steps and steps[0].kind != "unary" else None
    post = steps.pop(0) if steps and steps[0].kind == "unary" else None
    if steps:
        raise ValueError(f"{op.where}: epilogue {[s.kind for s in op.fused]} has more than one binary step")
    if binary is None and pre is not None:
        pre, post = None, pre
    return pre, binary, post
