"""Firmware under QEMU on all five Cortex-M machines: round trip, exact instruction counts, crashes, corrupt requests."""

import dataclasses
import random
import subprocess
import time
from pathlib import Path

import pytest

from microfuse.boards import load_board
from microfuse.errors import TargetError
from microfuse.targets import serial_link as sl
from microfuse.targets.firmware import build_firmware
from microfuse.targets.qemu import EXIT_HARDFAULT, QemuSession, free_port, qemu_command
from microfuse.targets.serial_link import BoardSession
from tests import figures
from tests.harness import QEMU

DATA = Path(__file__).resolve().parent.parent / "data"
QEMU_BOARDS = ["qemu-mps2-an385", "qemu-mps2-an386", "qemu-mps2-an500", "qemu-mps3-an547", "qemu-microbit"]
pytestmark = QEMU


@pytest.fixture(scope="module")
def fake_elf(tmp_path_factory):
    """Firmware with the fake model, one per QEMU board, built once."""
    out = tmp_path_factory.mktemp("fw")
    return {b: build_firmware(load_board(b), DATA / "fake_lib", "fake", out / b) for b in QEMU_BOARDS}


def _inputs(rng):
    # in1[1] != 0x5A keeps the fake model's spin knob off.
    in1 = bytes(rng.randrange(256) for _ in range(8))
    return [bytes(rng.randrange(256) for _ in range(24)), in1[:1] + b"\x00" + in1[2:]]


def _plus_one(data: bytes) -> bytes:
    return bytes((b + 1) & 0xFF for b in data)


@pytest.mark.parametrize("name", QEMU_BOARDS)
def test_round_trip_and_counts_repeat_exactly(fake_elf, name):
    board = load_board(name)
    rng = random.Random(name)
    samples = [_inputs(rng) for _ in range(3)]
    runs = []
    for _ in range(2):  # two QEMU processes: counts must match across runs, not just within one
        with QemuSession(board, fake_elf[name], expect_model="fake") as s:
            assert (s.info.name, s.info.arena_bytes) == ("fake", 64)
            assert (s.info.input_bytes, s.info.output_bytes) == ((24, 8), (24, 8))
            counts = []
            for inputs in samples:
                outputs, count = s.invoke(inputs)
                assert outputs == [_plus_one(x) for x in inputs]
                counts.append(count)
            runs.append(counts)
        assert s.exit_code == 0 and s.proc.poll() == 0  # the EXIT command ended QEMU cleanly
    assert runs[0] == runs[1]
    assert len(set(runs[0])) == 1 and runs[0][0] > 0
    # today's count, give or take one timer tick (the MPS2 timers tick every 40 instructions)
    figures.at_most(f"{name} fake invoke count", runs[0][0], figures.FAKE_COUNT[name],
                    max(board.count_from_ticks(1), 0.01 * figures.FAKE_COUNT[name]))


@pytest.mark.parametrize("name", ["qemu-mps3-an547", "qemu-microbit"])
def test_systick_wraps_are_counted(tmp_path, name):
    """SysTick boards extend the 24-bit counter by counting wraps; a 16-bit reload
    (same code, shorter period) lets the fake model's spin knob cross several."""
    board = load_board(name)
    short = dataclasses.replace(board, cflags=board.cflags + ("-DMF_SYSTICK_RELOAD=0xFFFFu",))
    elf = build_firmware(short, DATA / "fake_lib", "fake", tmp_path)
    with QemuSession(short, elf) as s:
        counts = [s.invoke([bytes(24), bytes([k, 0x5A, 0, 0, 0, 0, 0, 0])])[1] for k in (0, 20, 40)]
    one_tick = 1e9 / board.timer.hz
    assert counts[2] > 65536 * one_tick  # past a wrap
    # Still linear: a lost or double-counted wrap would be off by 65536 ticks;
    # rounding to instructions and the loop set-up allow two ticks.
    assert abs((counts[2] - counts[1]) - (counts[1] - counts[0])) <= 2 * one_tick


@pytest.mark.parametrize("name", ["qemu-mps2-an386", "qemu-microbit"])
def test_hardfault_is_reported_as_a_crash(tmp_path, name):
    board = load_board(name)
    elf = build_firmware(board, DATA / "fake_lib_fault", "fault", tmp_path)
    with pytest.raises(TargetError, match=rf"^firmware crashed \(HardFault\) on board '{name}'$"):
        with QemuSession(board, elf, expect_model="fault") as s:
            s.invoke([bytes(8)])
    assert s.exit_code == EXIT_HARDFAULT and s.proc.poll() == EXIT_HARDFAULT


def test_wrong_firmware_is_refused(fake_elf):
    s = QemuSession(load_board("qemu-mps2-an386"), fake_elf["qemu-mps2-an386"], expect_model="kws")
    with pytest.raises(TargetError, match="^wrong firmware on QEMU mps2-an386 UART.*runs 'fake'.*expected 'kws'"):
        with s:
            pass
    assert s.proc.poll() is not None  # no QEMU left behind


def test_exception_in_the_block_kills_qemu(fake_elf):
    with pytest.raises(KeyError):
        with QemuSession(load_board("qemu-mps2-an385"), fake_elf["qemu-mps2-an385"]) as s:
            raise KeyError("user code failed")
    assert s.proc.poll() is not None


@pytest.mark.parametrize("name", ["qemu-mps2-an500", "qemu-microbit"])
def test_firmware_rejects_corrupt_requests_and_resyncs(fake_elf, name):
    inputs = [bytes(range(24)), bytes(8)]
    with QemuSession(load_board(name), fake_elf[name]) as s:
        link = s.link
        # A flipped payload bit: the firmware answers BAD_CRC and does not invoke.
        frame = bytearray(sl.encode_request(sl.CMD_INVOKE, b"".join(inputs)))
        frame[15] ^= 0x10
        link._write(bytes(frame))
        assert link.read_response().status == sl.STATUS_BAD_CRC
        # A request whose length is wrong for this model: BAD_LENGTH, one line.
        with pytest.raises(TargetError, match="rejected the request length"):
            link.request(sl.CMD_INVOKE, bytes(5))
        # Bytes dropped on the wire: half a request, then the link resyncs and works.
        link._write(sl.encode_request(sl.CMD_INVOKE, b"".join(inputs))[:17])
        link._dirty = True
        outputs, _ = s.invoke(inputs)
        assert outputs == [_plus_one(x) for x in inputs]
        # Line noise between frames is skipped by the firmware's magic hunt.
        link._write(b"\x00M\xffnoiseMM")
        assert s.invoke(inputs)[0] == outputs


def test_missing_elf(tmp_path):
    with pytest.raises(TargetError, match="does not exist"):
        QemuSession(load_board("qemu-mps2-an386"), tmp_path / "none.elf")


def test_board_session_is_the_same_serial_code_on_any_url(fake_elf):
    """BoardSession (what a real /dev/ttyACM0 uses) against QEMU's UART URL."""
    board = load_board("qemu-mps2-an386")
    port = free_port()
    proc = subprocess.Popen(qemu_command(board, fake_elf[board.name], port), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"socket://127.0.0.1:{port}"
        session = None
        for _ in range(500):
            try:
                session = BoardSession(board, url, expect_model="fake").__enter__()
                break
            except TargetError as e:
                assert "cannot open serial port" in str(e)
                time.sleep(0.01)
        outputs, count = session.invoke([bytes(24), bytes(8)])
        assert outputs == [bytes([1] * 24), bytes([1] * 8)] and count > 0
        session.link.exit()
        session.__exit__(None, None, None)
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
        proc.wait()


def test_open_session_picks_qemu_or_serial(fake_elf, tmp_path):
    from microfuse.targets import open_session
    assert isinstance(open_session(load_board("qemu-microbit"), fake_elf["qemu-microbit"]), QemuSession)
    assert isinstance(open_session(load_board("nrf52840dk"), port="/dev/ttyACM0"), BoardSession)
    with pytest.raises(TargetError, match="give its serial port"):
        open_session(load_board("nrf52840dk"), tmp_path / "x.elf")
    with pytest.raises(TargetError, match="^serial port /dev/ttyMICROFUSE7 does not exist$"):
        with open_session(load_board("nrf52840dk"), port="/dev/ttyMICROFUSE7"):
            pass
