"""The harness's framed serial protocol (boards/common/mf_protocol.h) over any pyserial URL or port."""

from __future__ import annotations

import os
import struct
import time
import zlib
from dataclasses import dataclass

import numpy as np
import serial

from microfuse.errors import TargetError

PROTOCOL_VERSION = 1
REQ_MAGIC = b"Mq"
RSP_MAGIC = b"Mr"
CMD_HELLO, CMD_INVOKE, CMD_EXIT, CMD_TRACE, CMD_STACK = ord("H"), ord("I"), ord("X"), ord("T"), ord("S")
FLAG_STACK = 0x01  # INVOKE: paint and scan the stack (mf_protocol.h MF_FLAG_STACK)
STATUS_OK, STATUS_BAD_CRC, STATUS_BAD_LENGTH, STATUS_BAD_COMMAND = 0, 1, 2, 3
STATUS_FAULT = 0xFA
HELLO_FILLER = b"\x00"  # sent before HELLO: not a magic byte (see SerialLink.hello)

REQ_HEADER = struct.Struct("<2sBBI")     # magic, cmd, flags, length
RSP_HEADER = struct.Struct("<2sBBiII")   # magic, status, cmd, rc, ticks, length
CRC = struct.Struct("<I")
HELLO_FIXED = struct.Struct("<IIII")     # version, arena, n_in, n_out

# Before HELLO has told us the model's sizes, a response may be at most this long.
DEFAULT_MAX_PAYLOAD = 1 << 16
# Zeros sent to flush a half-received request out of the target when its size is unknown.
DEFAULT_FLUSH_BYTES = 4096
QUIET_S = 0.2

_STATUS_TEXT = {
    STATUS_BAD_CRC: "target saw a CRC error in the request",
    STATUS_BAD_LENGTH: "target rejected the request length (firmware built for another model?)",
    STATUS_BAD_COMMAND: "target does not know the command (older firmware?)",
}


def crc32(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def as_bytes(inputs) -> list[bytes]:
    """Input tensors (numpy arrays or bytes) as the bytes the firmware receives."""
    return [b if isinstance(b, (bytes, bytearray)) else np.ascontiguousarray(b).tobytes() for b in inputs]


def encode_request(cmd: int, payload: bytes = b"", flags: int = 0) -> bytes:
    frame = REQ_HEADER.pack(REQ_MAGIC, cmd, flags, len(payload)) + payload
    return frame + CRC.pack(crc32(frame))


def encode_response(status: int, cmd: int, rc: int = 0, ticks: int = 0, payload: bytes = b"") -> bytes:
    """A response as the firmware sends it (for fake targets in tests)."""
    frame = RSP_HEADER.pack(RSP_MAGIC, status, cmd, rc, ticks, len(payload)) + payload
    return frame + CRC.pack(crc32(frame))


def encode_hello(info: "FirmwareInfo") -> bytes:
    """The HELLO payload a firmware running `info` sends."""
    fixed = HELLO_FIXED.pack(info.version, info.arena_bytes, len(info.input_bytes), len(info.output_bytes))
    sizes = struct.pack(f"<{len(info.input_bytes) + len(info.output_bytes)}I",
                        *info.input_bytes, *info.output_bytes)
    return fixed + sizes + info.name.encode()


@dataclass(frozen=True)
class Response:
    status: int
    cmd: int
    rc: int
    ticks: int
    payload: bytes


@dataclass(frozen=True)
class FirmwareInfo:
    """What the firmware says about itself in answer to HELLO."""

    name: str
    arena_bytes: int
    input_bytes: tuple[int, ...]
    output_bytes: tuple[int, ...]
    version: int = PROTOCOL_VERSION

    @classmethod
    def decode(cls, payload: bytes) -> "FirmwareInfo":
        if len(payload) < HELLO_FIXED.size:
            raise TargetError(f"wrong firmware: HELLO answer of {len(payload)} bytes is too short")
        version, arena, n_in, n_out = HELLO_FIXED.unpack_from(payload)
        end = HELLO_FIXED.size + 4 * (n_in + n_out)
        if version != PROTOCOL_VERSION or len(payload) < end:
            raise TargetError(f"wrong firmware: protocol version {version}, expected {PROTOCOL_VERSION}")
        sizes = struct.unpack_from(f"<{n_in + n_out}I", payload, HELLO_FIXED.size)
        name = payload[end:].decode("utf-8", "replace")
        return cls(name, arena, tuple(sizes[:n_in]), tuple(sizes[n_in:]), version)


class SerialLink:
    """One connection to a harness firmware: QEMU's socket:// UART or a board's /dev/tty*.

    After a timeout or CRC error the next request first resynchronises the target."""

    def __init__(self, port, baud: int = 115200, timeout: float = 10.0):
        self.timeout = timeout
        if isinstance(port, str):
            self.name = port
            self.port = _open(port, baud)
        else:  # an already open serial-like object (tests)
            self.name = getattr(port, "name", None) or type(port).__name__
            self.port = port
        self.info: FirmwareInfo | None = None
        self._dirty = False

    def __enter__(self) -> "SerialLink":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.port.close()
        except (OSError, serial.SerialException):
            pass

    # ---- commands ----

    def hello(self) -> FirmwareInfo:
        """Ask the firmware which model it runs; remembered for invoke()."""
        # A firmware that has just booted may swallow the first byte it receives: its UART init
        # discards one stale read (uart_cmsdk.c), and under QEMU our first byte can race it. A
        # filler byte, skipped by the firmware's magic hunt, is what it swallows instead.
        rsp = self.request(CMD_HELLO, lead=HELLO_FILLER)
        self.info = FirmwareInfo.decode(rsp.payload)
        return self.info

    def check_firmware(self, name: str | None = None, input_bytes=None, output_bytes=None) -> FirmwareInfo:
        """HELLO, then TargetError('wrong firmware ...') unless it runs the expected model."""
        info = self.hello()
        want = (name, None if input_bytes is None else tuple(input_bytes),
                None if output_bytes is None else tuple(output_bytes))
        got = (info.name, info.input_bytes, info.output_bytes)
        if any(w is not None and w != g for w, g in zip(want, got)):
            raise TargetError(
                f"wrong firmware on {self.name}: it runs '{info.name}' (inputs {list(info.input_bytes)} B, "
                f"outputs {list(info.output_bytes)} B), expected '{name}'"
                + (f" (inputs {list(input_bytes)} B)" if input_bytes is not None else ""))
        return info

    def invoke(self, inputs: list[bytes], flags: int = 0) -> tuple[list[bytes], int, int]:
        """Send the input tensors, run the model once: (outputs, timer ticks, invoke return code).
        flags FLAG_STACK: the firmware measures the stack of this invoke (see stack())."""
        info = self.info or self.hello()
        sizes = [len(b) for b in inputs]
        if tuple(sizes) != info.input_bytes:
            raise TargetError(f"inputs of {sizes} bytes do not match the firmware's {list(info.input_bytes)}")
        rsp = self.request(CMD_INVOKE, b"".join(bytes(b) for b in inputs), flags)
        if len(rsp.payload) != sum(info.output_bytes):
            raise TargetError(f"target sent {len(rsp.payload)} output bytes, expected {sum(info.output_bytes)}")
        outputs, at = [], 0
        for n in info.output_bytes:
            outputs.append(rsp.payload[at:at + n])
            at += n
        return outputs, rsp.ticks, rsp.rc

    def trace(self) -> list[int]:
        """Ticks after each kernel call of the last invoke, relative to its start
        (firmware built with -DMF_TRACE)."""
        rsp = self.request(CMD_TRACE)
        ticks = struct.unpack(f"<{len(rsp.payload) // 4}I", rsp.payload)
        return [(t - ticks[0]) & 0xFFFFFFFF for t in ticks[1:]]

    def stack(self, inputs: list[bytes]) -> int:
        """Bytes of stack one invoke on `inputs` uses below the harness's stack pointer at the
        call: the firmware paints the stack, runs it with interrupts masked, and scans."""
        self.invoke(as_bytes(inputs), FLAG_STACK)
        rsp = self.request(CMD_STACK)
        if len(rsp.payload) != 4:
            raise TargetError(f"target sent {len(rsp.payload)} bytes for STACK, expected 4")
        return struct.unpack("<I", rsp.payload)[0]

    def exit(self) -> None:
        """Ask the firmware to end (QEMU then exits with status 0)."""
        self.request(CMD_EXIT)

    # ---- framing ----

    def request(self, cmd: int, payload: bytes = b"", flags: int = 0, lead: bytes = b"") -> Response:
        """Send one request (after `lead`, bytes the firmware skips) and return its OK response;
        anything else is a TargetError."""
        if self._dirty:
            self.resync()
        self._dirty = True  # until a good response proves the stream is aligned again
        self._write(lead + encode_request(cmd, payload, flags))
        rsp = self.read_response()
        self._dirty = False
        if rsp.status == STATUS_FAULT:
            raise TargetError("firmware crashed (HardFault)")
        if rsp.status != STATUS_OK:
            text = _STATUS_TEXT.get(rsp.status, f"target answered with unknown status {rsp.status}")
            raise TargetError(f"{text} on {self.name}")
        if rsp.cmd != cmd:
            self._dirty = True
            raise TargetError(f"out-of-step response on {self.name}: answer to {chr(rsp.cmd)!r}, sent {chr(cmd)!r}")
        return rsp

    def read_response(self) -> Response:
        """Skip garbage up to the response magic, then read and CRC-check one frame."""
        deadline = time.monotonic() + self.timeout
        prev = b""
        while True:
            b = self._read(1, deadline)
            if prev + b == RSP_MAGIC:
                break
            prev = b
        rest = self._read(RSP_HEADER.size - 2, deadline)
        _, status, cmd, rc, ticks, length = RSP_HEADER.unpack(RSP_MAGIC + rest)
        if length > self._max_payload():
            raise TargetError(f"CRC error: corrupt response header from {self.name} (length {length})")
        payload = self._read(length, deadline)
        (crc,) = CRC.unpack(self._read(CRC.size, deadline))
        if crc != crc32(RSP_MAGIC + rest + payload):
            raise TargetError(f"CRC error in the response from {self.name}")
        return Response(status, cmd, rc, ticks, payload)

    def resync(self) -> None:
        """Flush a half-received request out of the target and drop stale bytes.

        Zeros complete any pending payload (the target answers BAD_CRC) and are
        skipped while it hunts for the next magic; then we drain until quiet."""
        flush = DEFAULT_FLUSH_BYTES
        if self.info is not None:
            flush = sum(self.info.input_bytes) + REQ_HEADER.size + CRC.size + 16
        self._write(bytes(flush))
        self._drain()
        self._dirty = False

    def _drain(self) -> None:
        deadline = time.monotonic() + max(self.timeout, 1.0)
        last = time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - last < QUIET_S:
            self.port.timeout = QUIET_S / 4
            if self._port_read(4096):
                last = time.monotonic()

    def _max_payload(self) -> int:
        if self.info is None:
            return DEFAULT_MAX_PAYLOAD
        return max(DEFAULT_MAX_PAYLOAD, sum(self.info.output_bytes))

    def _write(self, data: bytes) -> None:
        try:
            self.port.write(data)
            self.port.flush()
        except (OSError, serial.SerialException) as e:
            raise TargetError(f"serial link {self.name} closed: {e}") from None

    def _read(self, n: int, deadline: float) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TargetError(f"serial timeout: no complete response from {self.name} "
                                  f"within {self.timeout:g} s")
            self.port.timeout = left
            buf += self._port_read(n - len(buf))
        return bytes(buf)

    def _port_read(self, n: int) -> bytes:
        try:
            return self.port.read(n)
        except (OSError, serial.SerialException) as e:
            raise TargetError(f"serial link {self.name} closed: {e}") from None


def _open(port: str, baud: int):
    if "://" not in port and not os.path.exists(port):
        raise TargetError(f"serial port {port} does not exist")
    try:
        return serial.serial_for_url(port, baudrate=baud, timeout=1.0)
    except (OSError, ValueError, serial.SerialException) as e:
        raise TargetError(f"cannot open serial port {port}: {e}") from None


class BoardSession:
    """A real board on a serial port, with QemuSession's interface:

        with BoardSession(board, "/dev/ttyACM0", expect_model="kws") as s:
            outputs, count = s.invoke([input_bytes])

    count is in CPU cycles (the board's SysTick) at its reset clock."""

    def __init__(self, board, port: str, expect_model: str | None = None, timeout: float = 30.0):
        self.board, self.port, self.expect_model, self.timeout = board, port, expect_model, timeout
        self.link: SerialLink | None = None
        self.info: FirmwareInfo | None = None

    def __enter__(self) -> "BoardSession":
        self.link = SerialLink(self.port, baud=self.board.baud or 115200, timeout=self.timeout)
        try:
            self.info = self.link.check_firmware(self.expect_model)
        except BaseException:
            self.link.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self.link is not None:
            self.link.close()

    def invoke(self, inputs) -> tuple[list[bytes], int]:
        outputs, ticks, rc = self.link.invoke(as_bytes(inputs))
        if rc != 0:
            raise TargetError(f"model invoke() returned {rc} on board '{self.board.name}'")
        return outputs, self.board.count_from_ticks(ticks)

    def stack(self, inputs) -> int:
        """Stack bytes one invoke on `inputs` uses (SerialLink.stack)."""
        return self.link.stack(inputs)
