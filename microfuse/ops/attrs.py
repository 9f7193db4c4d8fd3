"""Typed attrs dataclasses for op families, mapped to and from TFLite options tables."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from ..ir import OpAttrs
from ..tflite.schema import ACTIVATIONS, PADDING


def _enum(table: tuple[str, ...], value: int, what: str) -> str:
    if not 0 <= value < len(table):
        raise ValueError(f"{what} {value} is out of range")
    return table[value]


class Attrs(OpAttrs):
    """Base: `OPTIONS` maps attr names to options-table field names; enums become names."""

    OPTIONS: ClassVar[dict[str, str]] = {}
    ENUMS: ClassVar[dict[str, tuple[str, ...]]] = {"padding": PADDING, "activation": ACTIVATIONS}
    # Fields only the IR has (set by passes, e.g. explicit pads): the options table lacks them.
    IR_ONLY: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_options(cls, raw: dict):
        values = {}
        for f in fields(cls):
            key = cls.OPTIONS.get(f.name, f.name)
            if key not in raw:
                continue
            v = raw[key]
            if f.name in cls.ENUMS:
                v = _enum(cls.ENUMS[f.name], int(v), f.name)
            elif isinstance(v, list):
                v = tuple(int(x) for x in v)
            values[f.name] = v
        return cls(**values)

    def to_options(self) -> dict:
        raw = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in self.IR_ONLY:
                continue
            if f.name == "padding" and v == EXPLICIT:
                raise ValueError("explicit padding (from a folded PAD) has no TFLite form; "
                                 "write the graph before the passes")
            if f.name in self.ENUMS:
                v = self.ENUMS[f.name].index(v)
            elif isinstance(v, tuple):
                v = list(v)
            raw[self.OPTIONS.get(f.name, f.name)] = v
        return raw


_ACT = {"activation": "fused_activation_function"}
# padding "EXPLICIT" (made by passes/pad_fold.py and dilate.py, never read from a file): the
# window's (top, bottom, left, right) padding is `pads`; ops/common.py window_pads reads it.
EXPLICIT = "EXPLICIT"
NO_PADS = (0, 0, 0, 0)


@dataclass(frozen=True)
class ConvAttrs(Attrs):
    padding: str = "SAME"
    stride_w: int = 1
    stride_h: int = 1
    activation: str = "NONE"
    dilation_w: int = 1
    dilation_h: int = 1
    pads: tuple[int, int, int, int] = NO_PADS  # padding "EXPLICIT" only
    OPTIONS: ClassVar = {**_ACT, "dilation_w": "dilation_w_factor", "dilation_h": "dilation_h_factor"}
    IR_ONLY: ClassVar = ("pads",)


@dataclass(frozen=True)
class DepthwiseAttrs(Attrs):
    padding: str = "SAME"
    stride_w: int = 1
    stride_h: int = 1
    depth_multiplier: int = 1
    activation: str = "NONE"
    dilation_w: int = 1
    dilation_h: int = 1
    pads: tuple[int, int, int, int] = NO_PADS  # padding "EXPLICIT" only
    OPTIONS: ClassVar = ConvAttrs.OPTIONS
    IR_ONLY: ClassVar = ("pads",)


@dataclass(frozen=True)
class PoolAttrs(Attrs):
    padding: str = "SAME"
    stride_w: int = 1
    stride_h: int = 1
    filter_w: int = 1
    filter_h: int = 1
    activation: str = "NONE"
    pads: tuple[int, int, int, int] = NO_PADS  # padding "EXPLICIT" only
    OPTIONS: ClassVar = {**_ACT, "filter_w": "filter_width", "filter_h": "filter_height"}
    IR_ONLY: ClassVar = ("pads",)


@dataclass(frozen=True)
class FullyConnectedAttrs(Attrs):
    activation: str = "NONE"
    weights_format: int = 0
    keep_num_dims: bool = False
    OPTIONS: ClassVar = _ACT


@dataclass(frozen=True)
class ActivationAttrs(Attrs):
    """ADD / SUB / MUL: only a fused activation."""

    activation: str = "NONE"
    OPTIONS: ClassVar = _ACT


@dataclass(frozen=True)
class ConcatAttrs(Attrs):
    axis: int = 0
    activation: str = "NONE"
    OPTIONS: ClassVar = _ACT


@dataclass(frozen=True)
class SoftmaxAttrs(Attrs):
    beta: float = 1.0


@dataclass(frozen=True)
class ReshapeAttrs(Attrs):
    new_shape: tuple[int, ...] = ()


@dataclass(frozen=True)
class SqueezeAttrs(Attrs):
    squeeze_dims: tuple[int, ...] = ()


@dataclass(frozen=True)
class ReducerAttrs(Attrs):
    keep_dims: bool = False


@dataclass(frozen=True)
class StridedSliceAttrs(Attrs):
    begin_mask: int = 0
    end_mask: int = 0
    ellipsis_mask: int = 0
    new_axis_mask: int = 0
    shrink_axis_mask: int = 0
    offset: bool = False


@dataclass(frozen=True)
class PackAttrs(Attrs):
    values_count: int = 0
    axis: int = 0


@dataclass(frozen=True)
class ShapeAttrs(Attrs):
    out_type: int = 2  # TensorType INT32


@dataclass(frozen=True)
class LeakyReluAttrs(Attrs):
    alpha: float = 0.0


@dataclass(frozen=True)
class NoAttrs(Attrs):
    """Ops whose options table is empty."""
