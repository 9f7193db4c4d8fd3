"""Read a .tflite flatbuffer into an ir.Graph, checking every offset, length and index on the way."""

from __future__ import annotations

import math
import stat
import struct
from pathlib import Path

import numpy as np

from .. import ops as opdefs
from ..errors import MicrofuseError, ModelError, UnsupportedError
from ..ir import DType, Graph, Op, Quant, Tensor
from . import flexbuf, resources
from . import schema as S
from .flatbuf import F32, I8, I32, I64, U8, U32, U64, FlatBuffer, Table

MAX_RANK = 8
MAX_TENSOR_BYTES = 1 << 31  # far beyond any microcontroller; a bigger shape is corruption or a mistake
MAX_FILE_BYTES = 1 << 28  # 256 MiB: far beyond any microcontroller's flash (flatbuffers address 2 GiB)
FLT_MIN = float(np.finfo(np.float32).tiny)  # the smallest normal float32
SUBGRAPH_OPS = frozenset({"CALL", "IF", "WHILE", "CALL_ONCE"})  # ops that run another subgraph
CUSTOM = S.BUILTIN_CODE["CUSTOM"]
_DTYPES = {code: DType[name] for code, name in S.TENSOR_TYPES.items() if name in DType.__members__}
_INT_RANGE = {d: (int(np.iinfo(d.np).min), int(np.iinfo(d.np).max))
              for d in (DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.INT64)}
_OPTION_SLOTS = {name: {f.name: i for i, f in enumerate(fs)} for name, fs in S.OPTIONS_FIELDS.items()}


def read(source: str | Path | bytes | bytearray | memoryview) -> Graph:
    """The main subgraph of a .tflite file (a path) or of its bytes, as an ir.Graph."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return read_bytes(bytes(source))
    path = Path(source)
    data = _read_file(path)
    try:
        return read_bytes(data, name=path.stem)
    except MicrofuseError as e:
        raise type(e)(f"{path}: {e}") from None


def read_bytes(data: bytes, name: str = "model") -> Graph:
    try:
        return _Reader(data).graph(name)
    except MicrofuseError:
        raise
    except (IndexError, KeyError, ValueError, TypeError, OverflowError, ArithmeticError,
            struct.error, RecursionError, MemoryError) as e:
        # Last line of defense only: the checks make this unreachable (the fuzz test asserts it).
        raise ModelError(f"corrupt model (unexpected {type(e).__name__}: {e})") from None


def load(path: str | Path) -> Graph:
    """Read, check that every op is supported, and verify: what inspect and build start from."""
    graph = read(path)
    try:
        opdefs.check_supported(graph)
        graph.verify(opdefs.infer)
    except MicrofuseError as e:
        raise type(e)(f"{path}: {e}") from None
    return graph


def _read_file(path: Path) -> bytes:
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise ModelError(f"{path}: is a directory, not a .tflite file")
        if not stat.S_ISREG(info.st_mode):  # a FIFO or /dev/zero would hang or never end
            raise ModelError(f"{path}: not a regular file")
        size = info.st_size
        if size > MAX_FILE_BYTES:
            raise UnsupportedError(f"{path}: {size:,} bytes is larger than the {MAX_FILE_BYTES:,} bytes "
                                   "microfuse reads (no microcontroller holds such a model)")
        with open(path, "rb") as f:
            head = f.read(8)  # the identifier first: a wrong file is not read whole
            if len(head) == 8 and head[4:8] != S.FILE_IDENTIFIER:
                raise ModelError(f"{path}: not a TFLite model (file identifier {head[4:8]!r}, expected b'TFL3')")
            return head + f.read(MAX_FILE_BYTES)
    except FileNotFoundError:
        raise ModelError(f"{path}: no such file") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read it ({e.strerror or e})") from None


def _printable(name: str) -> str:
    """Names are for people: control characters (a corrupt file's) would break one-line messages."""
    return name if name.isprintable() else "".join(c if c.isprintable() else "?" for c in name)


def _short(name: str, limit: int = 48) -> str:
    return name if len(name) <= limit else name[:limit - 3] + "..."


class _Reader:
    """One pass over the file: operators in order, tensors and buffers decoded on first use."""

    def __init__(self, data: bytes):
        if len(data) < 8:
            raise ModelError(f"not a TFLite model: {len(data)} bytes is too short")
        if data[4:8] != S.FILE_IDENTIFIER:
            raise ModelError(f"not a TFLite model (file identifier {bytes(data[4:8])!r}, expected b'TFL3')")
        self.data = data
        self.buf = FlatBuffer(data)
        self.model = self.buf.root("model", S.MODEL)
        version = self.model.scalar("version", U32)
        if version != S.SCHEMA_VERSION:
            raise UnsupportedError(f"TFLite schema version {version} is not supported (expected {S.SCHEMA_VERSION})")
        self.buffers = self.model.tables("buffers", "buffer", S.BUFFER)
        self.opcodes = self.model.tables("operator_codes", "operator code", S.OPERATOR_CODE)
        subgraphs = self.model.tables("subgraphs", "subgraph", S.SUBGRAPH)
        if len(subgraphs) == 0:
            raise ModelError("the model has no subgraphs")
        self.n_subgraphs = len(subgraphs)
        self.subgraphs = subgraphs
        self.main = subgraphs[0]  # TFLite's convention: subgraph 0 is the model's entry point
        self.tensor_tables = self.main.tables("tensors", "tensor", S.TENSOR)
        self._tensors: dict[int, Tensor] = {}
        self._kinds: dict[int, str] = {}
        self.state = resources.Resources()
        self._signatures: dict[int, tuple[int, ...]] = {}  # tensor index -> shape_signature, if any

    def graph(self, name: str) -> Graph:
        ops, blocked = [], []
        for i, t in enumerate(self.main.tables("operators", "op", S.OPERATOR)):
            try:
                op = self.operator(i, t)
            except UnsupportedError as e:  # valid but not compilable: go on to find every blocker
                blocked.append((i, str(e)))
                continue
            if op is not None:  # resource ops the reader resolves itself leave no op
                ops.append(op)
        if blocked:
            opdefs.raise_blockers(blocked + opdefs.blockers(ops))
        notes = self.resize_dynamic(ops)
        inputs = [self.tensor(k, f"graph input {j}") for j, k in enumerate(self.main.scalars("inputs", I32))]
        outputs = [self.tensor(k, f"graph output {j}") for j, k in enumerate(self.main.scalars("outputs", I32))]
        for t in [*inputs, *outputs]:
            if t.variable:
                raise UnsupportedError(f"tensor {t.index} '{_short(t.name)}': a variable (stateful) tensor is a "
                                       "graph input or output; microfuse keeps state inside the model")
        init = Graph(self.state.init_ops, [], [], name=f"{name}_init") if self.state.init_ops else None
        return Graph(ops, inputs, outputs, name=name, metadata=self.metadata(), notes=notes, init=init)

    def resize_dynamic(self, ops: list[Op]) -> list[str]:
        """Outputs stored with a shape that differs from their op's rule only where shape_signature
        says -1 (a dynamic batch behind SPACE_TO_BATCH_ND) take the rule's shape, as TFLite's
        resizing does; TFLM keeps the stored one (tflite-micro #3185). One note says so."""
        changed = []
        for op in ops:
            try:
                expected = opdefs.infer(op)
            except MicrofuseError:
                continue  # the checks after reading name it
            for t, (shape, _) in zip(op.outputs, expected):
                shape, signature = tuple(int(d) for d in shape), self._signatures.get(t.index, ())
                if shape == t.shape or len(shape) != len(t.shape) or len(signature) != len(shape) \
                        or any(a != b and s != -1 for a, b, s in zip(t.shape, shape, signature)):
                    continue
                if min(shape) < 0 or math.prod(shape) * t.dtype.size > MAX_TENSOR_BYTES:
                    continue
                changed.append(f"op {op.index} {op.kind} '{_short(t.name, 32)}' {list(t.shape)} -> {list(shape)}")
                t.shape = shape
        if not changed:
            return []
        return [f"recomputed {len(changed)} stored shape(s) whose dynamic (-1) dimensions disagree with their "
                f"op's shape rule, as TFLite does: " + "; ".join(changed)]

    # -- operators ------------------------------------------------------------------------
    def operator(self, index: int, table: Table) -> Op:
        kind = self.kind(table.scalar("opcode_index", U32), f"op {index}")
        where = table.where = f"op {index} {kind}"
        if kind in SUBGRAPH_OPS or kind in resources.KINDS:
            return resources.operator(self, index, kind, table, where)
        try:
            inputs = [None if k == -1 else self.tensor(k, f"{where} input {j}")
                      for j, k in enumerate(table.scalars("inputs", I32))]
            outputs = [self.tensor(k, f"{where} output {j}") for j, k in enumerate(table.scalars("outputs", I32))]
        except UnsupportedError as e:
            raise UnsupportedError(f"{where}: {e}") from None
        attrs = self.attrs(kind, table, where)
        return Op(kind, inputs, outputs, attrs, name=outputs[0].name if outputs else "", index=index)

    def kind(self, code_index: int, where: str) -> str:
        """The op's name: TFLite's rule takes the larger of the two builtin code fields."""
        if code_index in self._kinds:
            return self._kinds[code_index]
        if not 0 <= code_index < len(self.opcodes):
            raise ModelError(f"{where}: operator code index {code_index} out of range "
                             f"({len(self.opcodes)} operator codes)")
        oc = self.opcodes[code_index]
        # Files older than the int32 field hold only the byte one (builtin_code then defaults to 0);
        # newer files hold PLACEHOLDER_FOR_GREATER_OP_CODES (127) in the byte for codes above it.
        code = max(oc.scalar("deprecated_builtin_code", I8), oc.scalar("builtin_code", I32))
        if code < 0:
            raise ModelError(f"{where}: builtin operator code {code} is invalid")
        kind = f"CUSTOM:{_short(_printable(oc.string('custom_code')))}" if code == CUSTOM else S.builtin_name(code)
        self._kinds[code_index] = kind
        return kind

    def attrs(self, kind: str, table: Table, where: str):
        """Decode the builtin options generically from schema.OPTIONS_FIELDS, then type them;
        a custom op's FlexBuffer options likewise when microfuse knows the op (else kept raw)."""
        if kind.startswith("CUSTOM:"):
            raw = bytes(table.raw("custom_options"))
            if kind not in opdefs.REGISTRY:
                return opdefs.build_attrs(kind, {"custom_options": raw})
            try:
                return opdefs.build_attrs(kind, flexbuf.read_map(raw, where))
            except (ValueError, TypeError) as e:
                raise ModelError(f"{where}: invalid custom options: {e}") from None
        table_name = S.OP_OPTIONS.get(kind)
        if table_name is None or table_name not in S.OPTIONS_FIELDS:
            return opdefs.build_attrs(kind, {})
        got = table.scalar("builtin_options_type", U8)
        expected = S.OPTIONS_TYPE_CODE[table_name]
        if got not in (0, expected):  # 0: no table stored, TFLite then uses the defaults
            found = S.OPTIONS_TYPE_NAME.get(got, f"options type {got}")
            raise ModelError(f"{where}: builtin options are {found}, expected {table_name}")
        options = table.table("builtin_options", f"{where} options", _OPTION_SLOTS[table_name]) if got else None
        raw = _decode_options(options, S.OPTIONS_FIELDS[table_name], where)
        try:
            return opdefs.build_attrs(kind, raw)
        except (ValueError, TypeError) as e:
            raise ModelError(f"{where}: invalid {table_name}: {e}") from None

    # -- tensors ----------------------------------------------------------------------------
    def tensor(self, index: int, user: str) -> Tensor:
        if index in self._tensors:
            return self._tensors[index]
        n = len(self.tensor_tables)
        if not 0 <= index < n:
            raise ModelError(f"{user}: tensor index {index} out of range ({n} tensors)")
        t = self._tensors[index] = self._make_tensor(index)
        return t

    def _make_tensor(self, index: int) -> Tensor:
        tt = self.tensor_tables[index]
        name = _printable(tt.string("name"))
        where = tt.where = f"tensor {index} '{_short(name)}'"
        dtype = _dtype(tt.scalar("type", I8), where)
        shape = _shape(tt, where)
        self._signatures[index] = tt.scalars("shape_signature", I32, limit=MAX_RANK)
        nbytes = math.prod(shape) * dtype.size
        if nbytes > MAX_TENSOR_BYTES:
            raise UnsupportedError(f"{where}: shape {list(shape)} {dtype} needs {nbytes} bytes (more than 2 GiB)")
        if tt.has("sparsity"):
            raise UnsupportedError(f"{where}: sparse tensors are not supported")
        if tt.scalar("external_buffer", U32):
            raise UnsupportedError(f"{where}: data in an external file is not supported")
        quant = _quant(tt, shape, dtype, where)
        data = self._data(tt, shape, dtype, nbytes, where)
        if tt.scalar("is_variable", U8):  # state: TFLM ignores the buffer and resets it (Tensor.initial)
            return Tensor(name, shape, dtype, quant, None, index, variable=True)
        return Tensor(name, shape, dtype, quant, data, index)

    def _data(self, tt: Table, shape: tuple[int, ...], dtype: DType, nbytes: int, where: str):
        """Constant data as a read-only little-endian view of the file, or None for activations."""
        index = tt.scalar("buffer", U32)
        if index == 0 and len(self.buffers) == 0:
            return None
        if index >= len(self.buffers):
            raise ModelError(f"{where}: buffer index {index} out of range ({len(self.buffers)} buffers)")
        blob = self.buffer(index)
        if len(blob) == 0:
            return None
        if len(blob) != nbytes:
            raise ModelError(f"{where}: buffer {index} holds {len(blob)} bytes, but shape {list(shape)} "
                             f"{dtype} needs {nbytes}")
        return np.frombuffer(blob, dtype=dtype.np.newbyteorder("<"), count=math.prod(shape)).reshape(shape)

    def buffer(self, index: int) -> memoryview:
        """Buffer bytes, inline (`data`) or in the newer form: offset/size from the file's start."""
        b = self.buffers[index]
        offset = b.scalar("offset", U64)
        if offset > 1:  # 0 and 1 are "not set" markers in TFLite's convention
            size = b.scalar("size", U64)
            if offset + size > len(self.data):
                raise ModelError(f"buffer {index}: {size} bytes at offset {offset} run past the end of the "
                                 f"file ({len(self.data)} bytes)")
            return memoryview(self.data)[offset:offset + size]
        return b.raw("data")

    def metadata(self) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for i, m in enumerate(self.model.tables("metadata", "metadata", S.METADATA)):
            index = m.scalar("buffer", U32)
            if index >= len(self.buffers):
                raise ModelError(f"metadata {i}: buffer index {index} out of range ({len(self.buffers)} buffers)")
            found.setdefault(_printable(m.string("name")), bytes(self.buffer(index)))  # first entry wins, as in TFLM
        return found


def _dtype(code: int, where: str) -> DType:
    if code in _DTYPES:
        return _DTYPES[code]
    if code in S.TENSOR_TYPES:
        allowed = ", ".join(str(d) for d in DType)
        raise UnsupportedError(f"{where}: type {S.TENSOR_TYPES[code]} is not supported (supported: {allowed})")
    raise ModelError(f"{where}: unknown tensor type code {code}")


def _shape(tt: Table, where: str) -> tuple[int, ...]:
    rank = tt.length("shape", 4)
    if rank > MAX_RANK:
        raise UnsupportedError(f"{where}: rank {rank} is not supported (at most {MAX_RANK})")
    dims = tt.scalars("shape", I32)
    signature = tt.scalars("shape_signature", I32, limit=MAX_RANK)
    # Converters mark the batch as unknown (-1) in shape_signature and store 1 in shape; TFLM runs
    # with `shape` and ignores the signature, so a -1 batch is fixed to 1. Any other -1 is dynamic.
    if -1 in dims or -1 in signature[1:] or (signature[:1] == (-1,) and dims[:1] != (1,)):
        raise UnsupportedError(f"{where}: dynamic shape {list(signature or dims)} (-1 is an unknown dimension); "
                               "microfuse needs static shapes")
    if any(d < 0 for d in dims):
        raise ModelError(f"{where}: negative dimension in shape {list(dims)}")
    return tuple(dims)


def _quant(tt: Table, shape: tuple[int, ...], dtype: DType, where: str) -> Quant | None:
    q = tt.table("quantization", where, S.QUANTIZATION)
    if q is None:
        return None
    if q.scalar("details_type", U8):
        raise UnsupportedError(f"{where}: custom quantization details are not supported")
    scale = q.scalars("scale", F32)
    if not scale:
        return None  # TFLite: no scale means not quantized (min/max alone are for training tools)
    zero_point = q.scalars("zero_point", I64)
    if len(zero_point) != len(scale):
        raise ModelError(f"{where}: {len(scale)} quantization scales but {len(zero_point)} zero points")
    if not all(math.isfinite(s) for s in scale):
        raise ModelError(f"{where}: quantization scale is not finite")
    bad = next((s for s in scale if s < FLT_MIN), None)
    if bad is not None:  # 0, -0, negative, denormal: every rescale would divide by it or overflow
        raise ModelError(f"{where}: quantization scale {bad!r} is not a positive normal float32")
    low, high = _INT_RANGE.get(dtype, (-(1 << 63), (1 << 63) - 1))
    if not all(low <= z <= high for z in zero_point):
        raise ModelError(f"{where}: a zero point does not fit {dtype}")
    if len(scale) == 1:
        return Quant(tuple(scale), tuple(zero_point), None)
    axis = q.scalar("quantized_dimension", I32)
    if len(shape) == 1 and shape[0] == len(scale):
        # A 1-D per-axis tensor (a bias) has one axis: converters may store the filter's
        # quantized_dimension (person_detect: 3). TFLM ignores bias quantization altogether.
        axis = 0
    if not 0 <= axis < len(shape) or shape[axis] != len(scale):
        raise ModelError(f"{where}: {len(scale)} per-axis scales do not match dimension {axis} "
                         f"of shape {list(shape)}")
    return Quant(tuple(scale), tuple(zero_point), axis)


def _decode_options(table: Table | None, fields: tuple[S.Field, ...], where: str) -> dict:
    """Options table -> {field name: value}, defaults for absent fields (or an absent table)."""
    raw: dict = {}
    for f in fields:
        if f.kind == "i32[]":
            raw[f.name] = list(table.scalars(f.name, I32, limit=MAX_RANK)) if table else list(f.default)
            continue
        if table is None:
            raw[f.name] = f.default
        elif f.kind == "f32":
            raw[f.name] = table.scalar(f.name, F32, f.default)
            if not math.isfinite(raw[f.name]):
                raise ModelError(f"{where}: option {f.name} is not finite")
        elif f.kind == "bool":
            raw[f.name] = bool(table.scalar(f.name, U8, int(f.default)))
        else:
            raw[f.name] = table.scalar(f.name, {"i8": I8, "u8": U8, "i32": I32}[f.kind], f.default)
    return raw
