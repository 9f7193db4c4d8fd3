"""The serial protocol's host side against a fake target and pyserial's loop://: framing, CRC, resync, errors."""

import struct
import zlib

import pytest
import serial

from microfuse.errors import TargetError
from microfuse.targets import serial_link as sl
from microfuse.targets.serial_link import FirmwareInfo, SerialLink

INFO = FirmwareInfo(name="fake", arena_bytes=64, input_bytes=(24, 8), output_bytes=(24, 8))


class FakeTarget:
    """A serial-port stand-in that answers like boards/common/harness.c (output = input + 1).

    Faults to inject into the next response: corrupt (flip a byte at that index),
    drop (remove that many bytes from the end), garbage (bytes sent before it),
    status (answer with that status instead)."""

    name = "fake-target"

    def __init__(self, info=INFO):
        self.info = info
        self.rx = bytearray()   # bytes from the host not yet parsed
        self.tx = bytearray()   # bytes for the host to read
        self.timeout = None
        self.requests = []      # (cmd, payload) of every well-formed request
        self.corrupt = self.drop = None
        self.garbage = b""
        self.status = None
        self.swallow = 0        # bytes lost before the parser sees them (a booting UART's stale read)

    # serial-like interface
    def write(self, data):
        lost = min(self.swallow, len(data))
        self.swallow -= lost
        self.rx += data[lost:]
        self._parse()
        return len(data)

    def read(self, n):
        out, self.tx[:] = bytes(self.tx[:n]), self.tx[n:]
        return out

    def flush(self):
        pass

    def close(self):
        pass

    def _parse(self):
        """Hunt for a request, answer it; leave an incomplete one in rx."""
        while True:
            at = self.rx.find(sl.REQ_MAGIC)
            if at < 0:
                del self.rx[:max(0, len(self.rx) - 1)]
                return
            del self.rx[:at]
            if len(self.rx) < sl.REQ_HEADER.size:
                return
            _, cmd, _, length = sl.REQ_HEADER.unpack_from(self.rx)
            expected = sum(self.info.input_bytes) if cmd == sl.CMD_INVOKE else 0
            if length != expected:
                del self.rx[:sl.REQ_HEADER.size]
                self._send(sl.encode_response(sl.STATUS_BAD_LENGTH, cmd))
                continue
            end = sl.REQ_HEADER.size + length
            if len(self.rx) < end + 4:
                return
            frame, (crc,) = bytes(self.rx[:end]), struct.unpack_from("<I", self.rx, end)
            del self.rx[:end + 4]
            if crc != zlib.crc32(frame):
                self._send(sl.encode_response(sl.STATUS_BAD_CRC, cmd))
                continue
            self.requests.append((cmd, frame[sl.REQ_HEADER.size:]))
            self._answer(cmd, frame[sl.REQ_HEADER.size:])

    def _answer(self, cmd, payload):
        if self.status is not None:
            status, self.status = self.status, None
            self._send(sl.encode_response(status, cmd))
        elif cmd == sl.CMD_HELLO:
            self._send(sl.encode_response(sl.STATUS_OK, cmd, payload=sl.encode_hello(self.info)))
        elif cmd == sl.CMD_INVOKE:
            out = bytes((b + 1) & 0xFF for b in payload)
            self._send(sl.encode_response(sl.STATUS_OK, cmd, rc=0, ticks=7, payload=out))
        else:
            self._send(sl.encode_response(sl.STATUS_OK, cmd))

    def _send(self, frame):
        frame = bytearray(frame)
        if self.corrupt is not None:
            frame[self.corrupt] ^= 0x40
            self.corrupt = None
        if self.drop:
            del frame[-self.drop:]
            self.drop = None
        self.tx += self.garbage + frame
        self.garbage = b""


@pytest.fixture
def target():
    return FakeTarget()


@pytest.fixture
def link(target):
    return SerialLink(target, timeout=0.3)


INPUTS = [bytes(range(24)), bytes(range(100, 108))]
EXPECTED = [bytes(range(1, 25)), bytes(range(101, 109))]


def test_hello_survives_a_booting_uart_that_swallows_the_first_byte(target, link):
    """mf_uart_init's stale read can take the host's first byte under QEMU (a 60 s HELLO timeout in CI)."""
    target.swallow = 1
    assert link.hello() == INFO and target.requests == [(sl.CMD_HELLO, b"")]


def test_hello_and_invoke_round_trip(link):
    assert link.hello() == INFO
    outputs, ticks, rc = link.invoke(INPUTS)
    assert outputs == EXPECTED and ticks == 7 and rc == 0


def test_request_frame_layout_and_crc():
    frame = sl.encode_request(sl.CMD_INVOKE, b"\x01\x02")
    assert frame[:2] == b"Mq" and frame[2] == ord("I")
    assert struct.unpack_from("<I", frame, 4)[0] == 2
    assert struct.unpack_from("<I", frame, len(frame) - 4)[0] == zlib.crc32(frame[:-4])


def test_firmware_info_round_trip():
    assert FirmwareInfo.decode(sl.encode_hello(INFO)) == INFO


def test_garbage_before_response_is_skipped(link, target):
    target.garbage = b"\x00\xffM\x13boot noise Mx"
    assert link.hello().name == "fake"


def test_corrupted_response_is_crc_error_then_link_recovers(link, target):
    link.hello()
    target.corrupt = 20  # a payload byte
    with pytest.raises(TargetError, match="^CRC error in the response"):
        link.invoke(INPUTS)
    # The next request resyncs first and then works.
    assert link.invoke(INPUTS)[0] == EXPECTED


def test_corrupted_length_field_is_reported_not_waited_for(link, target):
    link.hello()
    target.corrupt = 15  # top byte of the length: a huge length
    with pytest.raises(TargetError, match="corrupt response header"):
        link.invoke(INPUTS)


def test_dropped_response_bytes_time_out_then_link_recovers(link, target):
    link.hello()
    target.drop = 5
    with pytest.raises(TargetError, match="^serial timeout"):
        link.invoke(INPUTS)
    assert link.invoke(INPUTS)[0] == EXPECTED


def test_dropped_request_bytes_are_flushed_by_resync(link, target):
    link.hello()
    # Half a request reaches the target (bytes lost on the wire): it waits for the rest.
    link._write(sl.encode_request(sl.CMD_INVOKE, b"".join(INPUTS))[:20])
    link._dirty = True
    outputs, _, _ = link.invoke(INPUTS)
    assert outputs == EXPECTED
    # The flush made the target answer BAD_CRC once, which resync drained.
    assert [c for c, _ in target.requests].count(sl.CMD_INVOKE) == 1


def test_target_reports_request_crc_error(link, target):
    link.hello()
    frame = bytearray(sl.encode_request(sl.CMD_INVOKE, b"".join(INPUTS)))
    frame[12] ^= 1
    link._write(bytes(frame))
    rsp = link.read_response()
    assert rsp.status == sl.STATUS_BAD_CRC


def test_target_error_statuses_are_one_line(link, target):
    target.status = sl.STATUS_BAD_LENGTH
    with pytest.raises(TargetError, match="rejected the request length"):
        link.hello()
    target.status = sl.STATUS_FAULT
    with pytest.raises(TargetError, match=r"^firmware crashed \(HardFault\)$"):
        link.hello()


def test_wrong_firmware(link):
    with pytest.raises(TargetError, match="^wrong firmware on fake-target: it runs 'fake'.*expected 'kws'"):
        link.check_firmware("kws")
    assert link.check_firmware("fake", [24, 8], [24, 8]) == INFO
    with pytest.raises(TargetError, match="wrong firmware"):
        link.check_firmware("fake", input_bytes=[490])


def test_wrong_input_sizes_rejected_before_sending(link, target):
    with pytest.raises(TargetError, match=r"inputs of \[3\] bytes"):
        link.invoke([b"abc"])
    assert [c for c, _ in target.requests] == [sl.CMD_HELLO]


def test_silent_target_times_out():
    port = serial.serial_for_url("loop://", timeout=0.1)
    link = SerialLink(port, timeout=0.2)
    port.write(b"noise without a frame")
    with pytest.raises(TargetError, match="^serial timeout: no complete response"):
        link.read_response()


def test_loop_url_response_parsing_and_corruption():
    port = serial.serial_for_url("loop://", timeout=0.1)
    link = SerialLink(port, timeout=0.5)
    port.write(b"xx" + sl.encode_response(sl.STATUS_OK, sl.CMD_INVOKE, rc=-3, ticks=99, payload=b"abc"))
    rsp = link.read_response()
    assert (rsp.rc, rsp.ticks, rsp.payload) == (-3, 99, b"abc")
    bad = bytearray(sl.encode_response(sl.STATUS_OK, sl.CMD_HELLO, payload=b"abc"))
    bad[-1] ^= 0xFF
    port.write(bytes(bad))
    with pytest.raises(TargetError, match="CRC error"):
        link.read_response()


def test_port_that_does_not_exist():
    with pytest.raises(TargetError, match=r"^serial port /dev/ttyMICROFUSE9 does not exist$"):
        SerialLink("/dev/ttyMICROFUSE9")


def test_socket_nobody_listens():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(TargetError, match=f"^cannot open serial port socket://127.0.0.1:{port}"):
        SerialLink(f"socket://127.0.0.1:{port}")
