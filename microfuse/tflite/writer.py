"""Serialize an ir.Graph as a .tflite flatbuffer, driven by the same slot tables as the reader."""

from __future__ import annotations

import flatbuffers
from flatbuffers import flexbuffers
import numpy as np

from .. import ops as opdefs
from ..errors import UnsupportedError
from ..ir import Graph, Op, Tensor
from . import schema as S

_BUFFER_ALIGN = 16  # the converter aligns weight data to 16 bytes; kernels may read it in place
_DESCRIPTION = "microfuse"

# Options-field kind -> Builder method that writes one scalar slot of that kind.
_SCALAR_SLOT = {
    "i8": "PrependInt8Slot",
    "u8": "PrependInt8Slot",  # TensorType is a byte enum
    "bool": "PrependBoolSlot",
    "i32": "PrependInt32Slot",
    "f32": "PrependFloat32Slot",
}


_RESOURCE_KINDS = ("READ_VARIABLE", "ASSIGN_VARIABLE")


def write(graph: Graph, signatures: dict[str, tuple[int, ...]] | None = None) -> bytes:
    """The graph as .tflite bytes (schema version 3, identifier TFL3, one subgraph).
    `signatures`: a shape_signature (-1: dynamic) per tensor name, as converters write them.
    Resource variables and init subgraphs (what the reader resolved VAR_HANDLE and CALL_ONCE
    into) need subgraphs the writer does not make: it refuses such graphs."""
    unwritable = [op.kind for op in graph.ops if op.kind in _RESOURCE_KINDS]
    if unwritable or graph.init is not None:
        raise ValueError(f"the writer makes one subgraph without resource variables "
                         f"({unwritable[0] if unwritable else 'an init subgraph'})")
    tensors = tensor_order(graph)
    size = sum(t.nbytes for t in tensors if t.is_const) + sum(len(v) for v in graph.metadata.values())
    b = flatbuffers.Builder(size + 4096)
    b.ForceDefaults(True)  # write every field, defaults included: readers need not know them
    w = _Writer(b, graph, tensors, signatures or {})
    return w.model()


def tensor_order(graph: Graph) -> list[Tensor]:
    """Tensors in source-index order (kept from the read file), new ones after in first-use order."""
    found = graph.tensors()
    rank = {id(t): (t.index if t.index >= 0 else 1 << 40, n) for n, t in enumerate(found)}
    return sorted(found, key=lambda t: rank[id(t)])


def _opcode(kind: str) -> tuple[int, str | None]:
    """(builtin code, custom code) for an op kind as the reader names it."""
    if kind.startswith("CUSTOM:"):
        return S.BUILTIN_CODE["CUSTOM"], kind[len("CUSTOM:"):]
    if kind in S.BUILTIN_CODE:
        return S.BUILTIN_CODE[kind], None
    if kind.startswith("BUILTIN_") and kind[8:].isdigit():
        return int(kind[8:]), None  # an op newer than our enum, named by its code
    raise UnsupportedError(f"cannot write op kind '{kind}': not a TFLite builtin")


def custom_options(op: Op) -> bytes:
    """A custom op's options as TFLM reads them: a FlexBuffer map (kept as read for unknown ops)."""
    raw = opdefs.attrs_to_options(op)
    if isinstance(raw.get("custom_options"), (bytes, bytearray, memoryview)):
        return bytes(raw["custom_options"])
    return bytes(flexbuffers.Dumps(raw)) if raw else b""


class _Writer:
    """Builds the tables bottom-up (flatbuffers needs children before parents)."""

    def __init__(self, b: flatbuffers.Builder, graph: Graph, tensors: list[Tensor],
                 signatures: dict[str, tuple[int, ...]]):
        self.b = b
        self.signatures = signatures
        self.graph = graph
        self.tensors = tensors
        self.tindex = {id(t): i for i, t in enumerate(tensors)}
        self.buffers: list[bytes] = [b""]  # buffer 0: the empty sentinel
        self.opcodes: list[str] = []  # op kinds in first-use order: one operator code each

    # -- helpers ------------------------------------------------------------------------
    def vec_i32(self, values) -> int:
        return self.b.CreateNumpyVector(np.asarray(list(values), dtype=np.int32).reshape(-1))

    def vec_offsets(self, offsets: list[int]) -> int:
        self.b.StartVector(4, len(offsets), 4)
        for off in reversed(offsets):
            self.b.PrependUOffsetTRelative(off)
        return self.b.EndVector()

    def aligned_bytes(self, data: bytes) -> int:
        """A [ubyte] vector whose first byte is 16-byte aligned in the file."""
        self.b.StartVector(1, len(data), _BUFFER_ALIGN)
        self.b.head -= len(data)
        self.b.Bytes[self.b.head:self.b.head + len(data)] = data
        return self.b.EndVector()

    def table(self, slots: dict[str, int], values: list[tuple[str, str, object]]) -> int:
        """One table; values are (field name, Builder slot method, value), offsets made already."""
        self.b.StartObject(len(slots))
        for name, method, value in values:
            getattr(self.b, method)(slots[name], value, None if method.endswith("RelativeSlot") else value)
        return self.b.EndObject()

    def add_buffer(self, data: bytes) -> int:
        self.buffers.append(data)
        return len(self.buffers) - 1

    # -- tables -------------------------------------------------------------------------
    def model(self) -> bytes:
        b = self.b
        ops = [self.operator(op) for op in self.graph.ops]
        subgraph = self.subgraph(ops)
        metadata = [self.metadata(name, data) for name, data in self.graph.metadata.items()]
        codes = [self.operator_code(c) for c in self.opcodes]
        buffers = [self.buffer(data) for data in self.buffers]
        fields = [
            ("operator_codes", "PrependUOffsetTRelativeSlot", self.vec_offsets(codes)),
            ("subgraphs", "PrependUOffsetTRelativeSlot", self.vec_offsets([subgraph])),
            ("description", "PrependUOffsetTRelativeSlot", b.CreateString(_DESCRIPTION)),
            ("buffers", "PrependUOffsetTRelativeSlot", self.vec_offsets(buffers)),
        ]
        if metadata:
            fields.append(("metadata", "PrependUOffsetTRelativeSlot", self.vec_offsets(metadata)))
        root = self.table(S.MODEL, [("version", "PrependUint32Slot", S.SCHEMA_VERSION), *fields])
        b.Finish(root, file_identifier=S.FILE_IDENTIFIER)
        return bytes(b.Output())

    def subgraph(self, ops: list[int]) -> int:
        tensors = [self.tensor(t) for t in self.tensors]
        return self.table(S.SUBGRAPH, [
            ("tensors", "PrependUOffsetTRelativeSlot", self.vec_offsets(tensors)),
            ("inputs", "PrependUOffsetTRelativeSlot", self.vec_i32(self.tindex[id(t)] for t in self.graph.inputs)),
            ("outputs", "PrependUOffsetTRelativeSlot", self.vec_i32(self.tindex[id(t)] for t in self.graph.outputs)),
            ("operators", "PrependUOffsetTRelativeSlot", self.vec_offsets(ops)),
            ("name", "PrependUOffsetTRelativeSlot", self.b.CreateString(self.graph.name)),
        ])

    def tensor(self, t: Tensor) -> int:
        buffer = 0
        if t.is_const:
            data = np.ascontiguousarray(np.asarray(t.data, dtype=t.dtype.np).astype(t.dtype.np.newbyteorder("<")))
            if data.size != t.elements:
                raise UnsupportedError(f"tensor '{t.name}': data has {data.size} elements, shape {list(t.shape)}")
            buffer = self.add_buffer(data.tobytes())
        values = [
            ("shape", "PrependUOffsetTRelativeSlot", self.vec_i32(t.shape)),
            ("name", "PrependUOffsetTRelativeSlot", self.b.CreateString(t.name)),
        ]
        if t.quant is not None:
            values.append(("quantization", "PrependUOffsetTRelativeSlot", self.quantization(t)))
        if t.name in self.signatures:
            values.append(("shape_signature", "PrependUOffsetTRelativeSlot", self.vec_i32(self.signatures[t.name])))
        values += [
            ("type", "PrependInt8Slot", S.TENSOR_TYPE_CODE[t.dtype.name]),
            ("buffer", "PrependUint32Slot", buffer),
        ]
        if t.variable:
            values.append(("is_variable", "PrependBoolSlot", True))
        return self.table(S.TENSOR, values)

    def quantization(self, t: Tensor) -> int:
        q = t.quant
        scale = self.b.CreateNumpyVector(np.asarray(q.scale, dtype=np.float32).reshape(-1))
        zero_point = self.b.CreateNumpyVector(np.asarray(q.zero_point, dtype=np.int64).reshape(-1))
        return self.table(S.QUANTIZATION, [
            ("scale", "PrependUOffsetTRelativeSlot", scale),
            ("zero_point", "PrependUOffsetTRelativeSlot", zero_point),
            ("quantized_dimension", "PrependInt32Slot", q.axis if q.axis is not None else 0),
        ])

    def operator(self, op: Op) -> int:
        if op.fused:
            raise UnsupportedError(f"{op.where}: a fused op has no TFLite form; write the graph before fusion")
        if op.kind not in self.opcodes:
            _opcode(op.kind)  # fail early on a kind that has no code
            self.opcodes.append(op.kind)
        inputs = [-1 if t is None else self.tindex[id(t)] for t in op.inputs]
        values = [
            ("inputs", "PrependUOffsetTRelativeSlot", self.vec_i32(inputs)),
            ("outputs", "PrependUOffsetTRelativeSlot", self.vec_i32(self.tindex[id(t)] for t in op.outputs)),
        ]
        options = None if op.kind.startswith("CUSTOM:") else self.options(op)
        if op.kind.startswith("CUSTOM:"):
            values += [("custom_options", "PrependUOffsetTRelativeSlot", self.b.CreateByteVector(custom_options(op))),
                       ("custom_options_format", "PrependInt8Slot", 0)]  # FLEXBUFFERS
        if options is not None:
            table_name, offset = options
            values += [
                ("builtin_options", "PrependUOffsetTRelativeSlot", offset),
                ("builtin_options_type", "PrependUint8Slot", S.OPTIONS_TYPE_CODE[table_name]),
            ]
        values.append(("opcode_index", "PrependUint32Slot", self.opcodes.index(op.kind)))
        return self.table(S.OPERATOR, values)

    def options(self, op: Op) -> tuple[str, int] | None:
        """The op's builtin options table, every field written (None: the op has no table)."""
        raw = opdefs.attrs_to_options(op)
        table_name = S.OP_OPTIONS.get(op.kind)
        if table_name is None or table_name not in S.OPTIONS_FIELDS:
            if raw:
                raise UnsupportedError(f"{op.where}: cannot write its options {sorted(raw)} (table unknown)")
            return None
        fields = S.OPTIONS_FIELDS[table_name]
        unknown = set(raw) - {f.name for f in fields}
        if unknown:
            raise UnsupportedError(f"{op.where}: {table_name} has no field(s) {sorted(unknown)}")
        vectors = {f.name: self.vec_i32(raw.get(f.name, f.default)) for f in fields if f.kind == "i32[]"}
        self.b.StartObject(len(fields))
        for slot, f in enumerate(fields):
            if f.kind == "i32[]":
                self.b.PrependUOffsetTRelativeSlot(slot, vectors[f.name], 0)
                continue
            value = raw.get(f.name, f.default)
            value = float(value) if f.kind == "f32" else (bool(value) if f.kind == "bool" else int(value))
            getattr(self.b, _SCALAR_SLOT[f.kind])(slot, value, None)
        return table_name, self.b.EndObject()

    def operator_code(self, kind: str) -> int:
        code, custom = _opcode(kind)
        values = [] if custom is None else [("custom_code", "PrependUOffsetTRelativeSlot", self.b.CreateString(custom))]
        return self.table(S.OPERATOR_CODE, [
            *values,
            ("deprecated_builtin_code", "PrependInt8Slot", min(code, S.PLACEHOLDER_FOR_GREATER_OP_CODES)),
            ("version", "PrependInt32Slot", 1),
            ("builtin_code", "PrependInt32Slot", code),
        ])

    def buffer(self, data: bytes) -> int:
        if not data:
            return self.table(S.BUFFER, [])
        return self.table(S.BUFFER, [("data", "PrependUOffsetTRelativeSlot", self.aligned_bytes(data))])

    def metadata(self, name: str, data: bytes) -> int:
        buffer = self.add_buffer(bytes(data))
        return self.table(S.METADATA, [
            ("name", "PrependUOffsetTRelativeSlot", self.b.CreateString(name)),
            ("buffer", "PrependUint32Slot", buffer),
        ])
