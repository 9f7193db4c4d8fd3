"""Build small .tflite files field by field for reader tests, malformed ones included.

Independent of microfuse's writer on purpose: tests can set any field to any value (old-style
operator codes, wrong options types, offset/size buffers, dynamic shapes...).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import flatbuffers
import numpy as np

from microfuse.tflite import schema as S

INT8, INT32, FLOAT32 = (S.TENSOR_TYPE_CODE[n] for n in ("INT8", "INT32", "FLOAT32"))


@dataclass
class TensorSpec:
    shape: list[int]
    type: int = INT8
    buffer: int = 0
    name: str = "t"
    scale: list[float] | None = None
    zero_point: list[int] | None = None
    quantized_dimension: int = 0
    shape_signature: list[int] | None = None
    is_variable: bool = False


@dataclass
class OpSpec:
    opcode_index: int
    inputs: list[int]
    outputs: list[int]
    options_type: int = 0
    options: list[tuple[str, object]] | None = None  # (kind, value) per slot: 'i8' 'i32' 'f32' 'bool'


@dataclass
class SubgraphSpec:
    """A whole subgraph after the main one (CALL_ONCE's init subgraph, IF's branches...)."""

    tensors: list[TensorSpec]
    ops: list[OpSpec]
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)


@dataclass
class CodeSpec:
    deprecated: int | None = None  # deprecated_builtin_code (byte); None: not written
    builtin: int | None = None
    custom: str | None = None


@dataclass
class ModelSpec:
    tensors: list[TensorSpec]
    ops: list[OpSpec]
    codes: list[CodeSpec]
    buffers: list[bytes] = field(default_factory=lambda: [b""])
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    version: int = 3
    metadata: list[tuple[str, int]] = field(default_factory=list)
    extra_subgraphs: int = 0  # empty subgraphs after the main one and `subgraphs` (-1: no subgraph at all)
    subgraphs: list[SubgraphSpec] = field(default_factory=list)
    external: dict[int, bytes] = field(default_factory=dict)  # buffer -> data stored after the flatbuffer

    def build(self) -> bytes:
        return _Builder(self).build()


_PLACEHOLDER = 0x5A5A5A5A00000000  # marks offset fields patched once the flatbuffer's size is known


class _Builder:
    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.b = flatbuffers.Builder(1024)
        self.b.ForceDefaults(True)

    def vec(self, values, dtype) -> int:
        return self.b.CreateNumpyVector(np.asarray(values, dtype=dtype).reshape(-1))

    def offsets(self, items: list[int]) -> int:
        self.b.StartVector(4, len(items), 4)
        for off in reversed(items):
            self.b.PrependUOffsetTRelative(off)
        return self.b.EndVector()

    def table(self, slots: dict[str, int], fields: list[tuple[str, str, object]]) -> int:
        b = self.b
        b.StartObject(max(slots.values()) + 1)
        for name, kind, value in fields:
            slot = slots[name]
            {"off": lambda: b.PrependUOffsetTRelativeSlot(slot, value, 0),
             "i8": lambda: b.PrependInt8Slot(slot, value, 0),
             "u8": lambda: b.PrependUint8Slot(slot, value, 0),
             "bool": lambda: b.PrependBoolSlot(slot, value, False),
             "i32": lambda: b.PrependInt32Slot(slot, value, 0),
             "u32": lambda: b.PrependUint32Slot(slot, value, 0),
             "u64": lambda: b.PrependUint64Slot(slot, value, 0),
             "f32": lambda: b.PrependFloat32Slot(slot, value, 0.0)}[kind]()
        return b.EndObject()

    def tensor(self, t: TensorSpec) -> int:
        fields = [("shape", "off", self.vec(t.shape, np.int32)), ("name", "off", self.b.CreateString(t.name))]
        if t.shape_signature is not None:
            fields.append(("shape_signature", "off", self.vec(t.shape_signature, np.int32)))
        if t.scale is not None:
            q = self.table(S.QUANTIZATION, [
                ("scale", "off", self.vec(t.scale, np.float32)),
                ("zero_point", "off", self.vec(t.zero_point or [0] * len(t.scale), np.int64)),
                ("quantized_dimension", "i32", t.quantized_dimension),
            ])
            fields.append(("quantization", "off", q))
        fields += [("type", "i8", t.type), ("buffer", "u32", t.buffer)]
        if t.is_variable:
            fields.append(("is_variable", "bool", True))
        return self.table(S.TENSOR, fields)

    def operator(self, op: OpSpec) -> int:
        fields = [("inputs", "off", self.vec(op.inputs, np.int32)), ("outputs", "off", self.vec(op.outputs, np.int32))]
        if op.options is not None:
            strings = {slot: self.b.CreateString(value) for slot, (kind, value) in enumerate(op.options)
                       if kind == "str"}  # made before the table that points at them
            self.b.StartObject(len(op.options))
            for slot, (kind, value) in enumerate(op.options):
                if kind == "str":
                    self.b.PrependUOffsetTRelativeSlot(slot, strings[slot], 0)
                    continue
                {"i8": self.b.PrependInt8Slot, "bool": self.b.PrependBoolSlot, "i32": self.b.PrependInt32Slot,
                 "f32": self.b.PrependFloat32Slot}[kind](slot, value, 0)
            fields.append(("builtin_options", "off", self.b.EndObject()))
        fields += [("builtin_options_type", "u8", op.options_type), ("opcode_index", "u32", op.opcode_index)]
        return self.table(S.OPERATOR, fields)

    def code(self, c: CodeSpec) -> int:
        fields = []
        if c.custom is not None:
            fields.append(("custom_code", "off", self.b.CreateString(c.custom)))
        if c.deprecated is not None:
            fields.append(("deprecated_builtin_code", "i8", c.deprecated))
        if c.builtin is not None:
            fields.append(("builtin_code", "i32", c.builtin))
        return self.table(S.OPERATOR_CODE, fields)

    def buffer(self, index: int, data: bytes) -> int:
        if index in self.spec.external:
            return self.table(S.BUFFER, [("offset", "u64", _PLACEHOLDER + index),
                                         ("size", "u64", len(self.spec.external[index]))])
        if not data:
            return self.table(S.BUFFER, [])
        return self.table(S.BUFFER, [("data", "off", self.vec(np.frombuffer(data, np.uint8), np.uint8))])

    def subgraph(self, g: SubgraphSpec) -> int:
        tensors = [self.tensor(t) for t in g.tensors]
        ops = [self.operator(op) for op in g.ops]
        return self.table(S.SUBGRAPH, [
            ("tensors", "off", self.offsets(tensors)),
            ("inputs", "off", self.vec(g.inputs, np.int32)),
            ("outputs", "off", self.vec(g.outputs, np.int32)),
            ("operators", "off", self.offsets(ops)),
        ])

    def build(self) -> bytes:
        s, b = self.spec, self.b
        main = SubgraphSpec(s.tensors, s.ops, s.inputs, s.outputs)
        every = [main, *s.subgraphs, *[SubgraphSpec([], [])] * s.extra_subgraphs]
        subgraphs = [self.subgraph(g) for g in every[:len(every) if s.extra_subgraphs >= 0 else 0]]
        codes = [self.code(c) for c in s.codes]
        buffers = [self.buffer(i, d) for i, d in enumerate(s.buffers)]
        metadata = [self.table(S.METADATA, [("name", "off", b.CreateString(n)), ("buffer", "u32", i)])
                    for n, i in s.metadata]
        root = self.table(S.MODEL, [
            ("version", "u32", s.version),
            ("operator_codes", "off", self.offsets(codes)),
            ("subgraphs", "off", self.offsets(subgraphs)),
            ("buffers", "off", self.offsets(buffers)),
            ("metadata", "off", self.offsets(metadata)),
        ])
        b.Finish(root, file_identifier=S.FILE_IDENTIFIER)
        return self.append_external(bytearray(b.Output()))

    def append_external(self, out: bytearray) -> bytes:
        """Store offset/size buffers after the flatbuffer, 16-aligned, and patch their offsets."""
        for index, data in self.spec.external.items():
            out += b"\0" * (-len(out) % 16)
            at = out.find(struct.pack("<Q", _PLACEHOLDER + index))
            assert at >= 0
            struct.pack_into("<Q", out, at, len(out))
            out += data
        return bytes(out)


def add_model(**changes) -> ModelSpec:
    """y = x + c: int8 [1,2,2,1], one constant operand in buffer 1; fields overridable by tests."""
    q = {"scale": [0.5], "zero_point": [-1]}
    spec = ModelSpec(
        tensors=[TensorSpec([1, 2, 2, 1], name="x", **q),
                 TensorSpec([1, 2, 2, 1], name="c", buffer=1, **q),
                 TensorSpec([1, 2, 2, 1], name="y", **q)],
        ops=[OpSpec(0, [0, 1], [2], S.OPTIONS_TYPE_CODE["AddOptions"], [("i8", 1)])],  # RELU
        codes=[CodeSpec(deprecated=S.BUILTIN_CODE["ADD"], builtin=S.BUILTIN_CODE["ADD"])],
        buffers=[b"", bytes([1, 2, 3, 0xFF]), b""],
        inputs=[0],
        outputs=[2],
    )
    for name, value in changes.items():
        setattr(spec, name, value)
    return spec
