"""Read a custom op's options: a FlexBuffer map of scalars, every offset and width checked."""

from __future__ import annotations

import struct

from ..errors import ModelError

# FlexBuffer value types (flexbuffers.h): the scalars and the map custom options use
_NULL, _INT, _UINT, _FLOAT, _KEY = 0, 1, 2, 3, 4
_INDIRECT = {6: _INT, 7: _UINT, 8: _FLOAT}
_MAP, _BOOL = 9, 26
MAX_KEYS = 256  # far beyond any op's options; a larger count is corruption
Scalar = int | float | bool | None


class _Buf:
    def __init__(self, data: bytes, where: str):
        self.data, self.where = data, where

    def fail(self, what: str) -> ModelError:
        return ModelError(f"{self.where}: corrupt custom options ({what})")

    def uint(self, pos: int, width: int) -> int:
        if width not in (1, 2, 4, 8) or pos < 0 or pos + width > len(self.data):
            raise self.fail(f"{width}-byte read at {pos} outside {len(self.data)} bytes")
        return int.from_bytes(self.data[pos:pos + width], "little")

    def int(self, pos: int, width: int) -> int:
        u = self.uint(pos, width)
        return u - (1 << (8 * width)) if u >> (8 * width - 1) else u

    def float(self, pos: int, width: int) -> float:
        if width not in (4, 8):
            raise self.fail(f"a {width}-byte float")
        self.uint(pos, width)  # bounds
        return struct.unpack_from("<f" if width == 4 else "<d", self.data, pos)[0]

    def back(self, pos: int, width: int) -> int:
        """The position an offset stored at `pos` points back to."""
        target = pos - self.uint(pos, width)
        if not 0 <= target < len(self.data):
            raise self.fail(f"offset at {pos} points outside the buffer")
        return target

    def key(self, pos: int) -> str:
        end = self.data.find(b"\0", pos)
        if end < 0 or end - pos > 256:
            raise self.fail(f"key at {pos} is not terminated")
        try:
            return self.data[pos:end].decode("ascii")
        except UnicodeDecodeError:
            raise self.fail(f"key at {pos} is not ASCII") from None

    def scalar(self, pos: int, width: int, packed: int) -> Scalar:
        kind, inner = packed >> 2, 1 << (packed & 3)
        if kind in _INDIRECT:
            pos, width, kind = self.back(pos, width), inner, _INDIRECT[kind]
        if kind == _INT:
            return self.int(pos, width)
        if kind == _UINT:
            return self.uint(pos, width)
        if kind == _BOOL:
            return bool(self.uint(pos, width))
        if kind == _FLOAT:
            return self.float(pos, width)
        if kind == _NULL:
            return None
        raise self.fail(f"value type {kind} is not a scalar")


def read_map(data: bytes, where: str) -> dict[str, Scalar]:
    """The options as {key: scalar}; an empty buffer is an empty map."""
    if not data:
        return {}
    b = _Buf(bytes(data), where)
    if len(b.data) < 3:
        raise b.fail(f"{len(b.data)} bytes is too short")
    root_width, packed = b.data[-1], b.data[-2]
    root = len(b.data) - 2 - root_width
    if packed >> 2 != _MAP:
        raise b.fail(f"the root is value type {packed >> 2}, not a map")
    width = 1 << (packed & 3)  # the map's element width
    pos = b.back(root, root_width)
    size = b.uint(pos - width, width)
    if size > MAX_KEYS or pos + size * (width + 1) > len(b.data):
        raise b.fail(f"a map of {size} entries does not fit")
    keys = b.back(pos - 3 * width, width)
    key_width = b.uint(pos - 2 * width, width)
    if b.uint(keys - key_width, key_width) != size:
        raise b.fail("the key and value counts differ")
    found: dict[str, Scalar] = {}
    for i in range(size):
        name = b.key(b.back(keys + i * key_width, key_width))
        found[name] = b.scalar(pos + i * width, width, b.data[pos + size * width + i])
    return found
