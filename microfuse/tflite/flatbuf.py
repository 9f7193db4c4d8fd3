"""Bounds-checked flatbuffer access: every offset and length is checked before it is used."""

from __future__ import annotations

import struct
from typing import NamedTuple

from ..errors import ModelError


class Scalar(NamedTuple):
    """A little-endian scalar kind of the format: struct code, width, packer. Reading needs no
    flatbuffers runtime: only the writer, a test tool, builds with it."""

    code: str
    bytewidth: int
    packer_type: struct.Struct


def _scalar(code: str) -> Scalar:
    packer = struct.Struct("<" + code)
    return Scalar(code, packer.size, packer)


I8, U8, U16, I32, U32, I64, U64, F32 = map(_scalar, "bBHiIqQf")


class FlatBuffer:
    """The whole file as bytes, with checked scalar reads."""

    __slots__ = ("data", "size")

    def __init__(self, data: bytes):
        self.data = data
        self.size = len(data)

    def get(self, flags, off: int, where: str):
        """The scalar of type `flags` at absolute offset `off` (checked against the file size)."""
        if off < 0 or off + flags.bytewidth > self.size:
            raise ModelError(f"{where}: offset {off} is outside the file ({self.size} bytes)")
        return flags.packer_type.unpack_from(self.data, off)[0]

    def table(self, pos: int, where: str, slots: dict[str, int]) -> Table:
        return Table(self, pos, where, slots)

    def root(self, where: str, slots: dict[str, int]) -> Table:
        return Table(self, self.get(U32, 0, where), where, slots)


class Table:
    """One flatbuffer table: fields are looked up by name through a slot map (schema.py)."""

    __slots__ = ("buf", "pos", "where", "slots", "_vt", "_vt_len", "_obj_len")

    def __init__(self, buf: FlatBuffer, pos: int, where: str, slots: dict[str, int]):
        self.buf, self.pos, self.where, self.slots = buf, pos, where, slots
        # soffset is signed: the vtable may sit before or after the table.
        vt = pos - buf.get(I32, pos, where)
        if vt < 0 or vt + 4 > buf.size:
            raise ModelError(f"{where}: vtable at {vt} is outside the file ({buf.size} bytes)")
        self._vt = vt
        self._vt_len = buf.get(U16, vt, where)
        self._obj_len = buf.get(U16, vt + 2, where)
        if self._vt_len < 4 or self._vt_len % 2 or vt + self._vt_len > buf.size:
            raise ModelError(f"{where}: malformed vtable (length {self._vt_len} at offset {vt})")
        if self._obj_len < 4 or pos + self._obj_len > buf.size:
            raise ModelError(f"{where}: table of {self._obj_len} bytes at {pos} runs past the end of the file")

    def _field(self, name: str, width: int) -> int:
        """Absolute offset of field `name`, or 0 when the table does not store it (default)."""
        entry = 4 + 2 * self.slots[name]
        if entry >= self._vt_len:
            return 0
        off = self.buf.get(U16, self._vt + entry, self.where)
        if off == 0:
            return 0
        if off + width > self._obj_len:
            raise ModelError(f"{self.where}: field '{name}' lies outside its table")
        return self.pos + off

    def has(self, name: str) -> bool:
        return self._field(name, 1) != 0

    def scalar(self, name: str, flags, default=0):
        at = self._field(name, flags.bytewidth)
        return default if at == 0 else self.buf.get(flags, at, self.where)

    def _ref(self, name: str) -> int | None:
        """Absolute target of the unsigned (forward-only, so loop-free) offset in field `name`."""
        at = self._field(name, 4)
        if at == 0:
            return None
        target = at + self.buf.get(U32, at, self.where)
        if target + 4 > self.buf.size:
            raise ModelError(f"{self.where}: field '{name}' points to {target}, past the end of the file "
                             f"({self.buf.size} bytes)")
        return target

    def table(self, name: str, where: str, slots: dict[str, int]) -> Table | None:
        target = self._ref(name)
        return None if target is None else Table(self.buf, target, where, slots)

    def vector(self, name: str, width: int) -> tuple[int, int]:
        """(start, count) of vector `name`; (0, 0) when absent. Checked to fit in the file."""
        target = self._ref(name)
        if target is None:
            return 0, 0
        count = self.buf.get(U32, target, self.where)
        start = target + 4
        if start + count * width > self.buf.size:
            raise ModelError(f"{self.where}: '{name}' has {count} elements of {width} bytes at {start}, "
                             f"past the end of the file ({self.buf.size} bytes)")
        return start, count

    def length(self, name: str, width: int = 1) -> int:
        return self.vector(name, width)[1]

    def scalars(self, name: str, flags, limit: int | None = None) -> tuple:
        """Vector of scalars as a tuple; `limit` refuses longer vectors before decoding them."""
        start, count = self.vector(name, flags.bytewidth)
        if limit is not None and count > limit:
            raise ModelError(f"{self.where}: '{name}' has {count} elements (at most {limit} expected)")
        if count == 0:
            return ()
        return struct.unpack_from(f"<{count}{flags.code}", self.buf.data, start)

    def raw(self, name: str) -> memoryview:
        """A [ubyte] vector as a zero-copy view."""
        start, count = self.vector(name, 1)
        return memoryview(self.buf.data)[start:start + count]

    def string(self, name: str, default: str = "") -> str:
        if not self.has(name):
            return default
        return bytes(self.raw(name)).decode("utf-8", errors="replace")

    def tables(self, name: str, what: str, slots: dict[str, int]) -> TableVector:
        start, count = self.vector(name, 4)
        return TableVector(self.buf, start, count, what, slots)


class TableVector:
    """A vector of tables, decoded one element at a time on request."""

    __slots__ = ("buf", "start", "count", "what", "slots")

    def __init__(self, buf: FlatBuffer, start: int, count: int, what: str, slots: dict[str, int]):
        self.buf, self.start, self.count, self.what, self.slots = buf, start, count, what, slots

    def __len__(self) -> int:
        return self.count

    def __iter__(self):
        return (self[i] for i in range(self.count))

    def __getitem__(self, i: int) -> Table:
        # Callers range-check user indices with their own message; this guards the rest.
        if not 0 <= i < self.count:
            raise ModelError(f"{self.what} {i} is out of range ({self.count} {self.what}s)")
        at = self.start + 4 * i
        target = at + self.buf.get(U32, at, f"{self.what} {i}")
        return Table(self.buf, target, f"{self.what} {i}", self.slots)
