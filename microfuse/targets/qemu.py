"""Run board firmware under qemu-system-arm and talk to it through its UART on a local TCP port."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import serial

from microfuse.boards import Board
from microfuse.errors import TargetError
from microfuse.targets.tools import QEMU_INSTALL, require_tool
from microfuse.targets.cycles import Mark, MarkReader, plugin_args
from microfuse.targets.serial_link import FirmwareInfo, SerialLink, as_bytes

EXIT_HARDFAULT = 125       # MF_EXIT_HARDFAULT in boards/common/mf_target.h
EXIT_IDLE = 124            # MF_EXIT_IDLE: the harness heard nothing for MF_IDLE_EXIT_POLLS polls (harness.c)
PR_SET_PDEATHSIG = 1       # linux/prctl.h
BOOT_TIMEOUT_S = 10.0      # QEMU start until its UART socket accepts
EXCHANGE_TIMEOUT_S = 60.0  # one request/response, including the model's run
SHUTDOWN_TIMEOUT_S = 5.0
PORT_TRIES = 5             # another process may take the free port before QEMU binds it


def qemu_command(board: Board, elf: Path, port: int, extra=()) -> list[str]:
    """The qemu-system-arm command line for `board` running `elf`, UART0 served on `port`."""
    if board.qemu is None:
        raise TargetError(f"board '{board.name}' is not a QEMU board")
    return [
        require_tool("qemu-system-arm", QEMU_INSTALL),
        "-machine", board.qemu.machine, "-nographic", "-monitor", "none",
        "-kernel", str(elf),
        "-semihosting-config", "enable=on,target=native",
        # One instruction per ns of virtual time, no sleeping: counts repeat exactly.
        "-icount", "shift=0,sleep=off",
        "-serial", f"tcp:127.0.0.1:{port},server=on,wait=on,nodelay=on",
        *board.qemu.args, *extra,
    ]


@contextlib.contextmanager
def _port_lock():
    """Held from choosing a free port until our QEMU listens on it and we are connected.

    Without it two sessions (e.g. parallel tests) can pick the same port: the second QEMU
    fails to bind, its client connects to the first QEMU's socket instead, and the first
    client's connection waits in the listen backlog forever (a HELLO timeout)."""
    with open(Path(tempfile.gettempdir()) / "microfuse-qemu-port.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: the process group kill and the watchdog remain
        return None


_PRCTL = _prctl()  # looked up before fork: the child only calls it


def _die_with_parent() -> None:
    """In the child before exec: the kernel kills QEMU when microfuse dies, even by SIGKILL."""
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL QEMU's process group (it leads its own session), so nothing it started survives."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


class QemuSession:
    """One QEMU process running one firmware; many invokes reuse it.

        with QemuSession(board, elf) as s:
            outputs, count = s.invoke([input_bytes])

    count is in instructions (QEMU boards count with -icount shift=0). With cycles=True QEMU
    runs the cycle-model plugin (targets/cycles.py) and `marks` holds its counters at each
    timer read of the last invoke: start, after each call (MF_TRACE firmware), end."""

    def __init__(self, board: Board, elf: Path, expect_model: str | None = None,
                 timeout: float = EXCHANGE_TIMEOUT_S, cycles: bool = False):
        self.board, self.elf, self.timeout = board, Path(elf), timeout
        if not self.elf.is_file():
            raise TargetError(f"firmware {self.elf} does not exist")
        self.expect_model = expect_model
        self.proc: subprocess.Popen | None = None
        self.link: SerialLink | None = None
        self.info: FirmwareInfo | None = None
        self.exit_code: int | None = None  # QEMU's status once it has ended
        self._logdir: tempfile.TemporaryDirectory | None = None
        self.cycles = cycles
        self.marks: list[Mark] = []
        self._marks: MarkReader | None = None

    # ---- life cycle ----

    def __enter__(self) -> "QemuSession":
        try:
            self.start()
        except BaseException:
            self.kill()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.kill()

    def start(self) -> FirmwareInfo:
        """Start QEMU, connect to the UART and check the firmware with HELLO."""
        self._logdir = tempfile.TemporaryDirectory(prefix="microfuse-qemu-")
        with _port_lock():
            for attempt in range(PORT_TRIES):
                port = free_port()
                self._spawn(port)
                sock = self._connect(port)
                if sock is not None:
                    break
                if attempt == PORT_TRIES - 1 or not self._lost_port_race():
                    raise TargetError(self._exit_text() or f"QEMU did not open its UART on port {port}")
        self.link = SerialLink(sock, timeout=self.timeout)
        self.link.name = f"QEMU {self.board.qemu.machine} UART (port {port})"
        self.info = self._guard(lambda: self.link.check_firmware(self.expect_model))
        return self.info

    def close(self) -> None:
        """Ask the firmware to exit, then make sure QEMU is gone."""
        if self.proc is not None and self.proc.poll() is None and self.link is not None:
            try:
                self.link.timeout = SHUTDOWN_TIMEOUT_S
                self.link.exit()
                self.proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
            except (TargetError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        """Stop QEMU now (our own process, by its handle) and release everything."""
        if self.link is not None:
            self.link.close()
            self.link = None
        if self.proc is not None:
            _kill_group(self.proc)
            try:
                code = self.proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
                self.exit_code = code if self.exit_code is None else self.exit_code
            except subprocess.TimeoutExpired:
                pass
        if self._logdir is not None:
            self._logdir.cleanup()

    # ---- use ----

    def invoke(self, inputs) -> tuple[list[bytes], int]:
        """Run the model once on `inputs` (bytes or numpy arrays, one per model input)."""
        if self.link is None or self.proc is None or self.proc.poll() is not None:
            raise TargetError(self._exit_text() or "QEMU is not running")
        data = as_bytes(inputs)
        outputs, ticks, rc = self._guard(lambda: self.link.invoke(data))
        if self._marks is not None:
            self.marks = self._marks.new_marks()
        if rc != 0:
            raise TargetError(f"model invoke() returned {rc} on board '{self.board.name}'")
        return outputs, self.board.count_from_ticks(ticks)

    def stack(self, inputs) -> int:
        """Stack bytes one invoke on `inputs` uses, painted and scanned by the firmware."""
        used = self._guard(lambda: self.link.stack(as_bytes(inputs)))
        if self._marks is not None:
            self._marks.new_marks()  # that invoke's timer reads belong to no bench
        return used

    # ---- internals ----

    def _spawn(self, port: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            _kill_group(self.proc)
            self.proc.wait()
        log = Path(self._logdir.name)
        self._stderr = log / "stderr.txt"
        extra = []
        if self.cycles:
            self._marks = MarkReader(log / "cycles.txt")
            extra = plugin_args(self.elf, self._marks.path)
        with open(log / "stdout.txt", "wb") as out, open(self._stderr, "wb") as err:
            # QEMU keeps its own copies of the descriptors.
            # Its own process group (a terminal's Ctrl-C reaches only us; we kill the group), and
            # killed by the kernel if we die without cleaning up.
            self.proc = subprocess.Popen(qemu_command(self.board, self.elf, port, extra),
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                         start_new_session=True, preexec_fn=_die_with_parent)

    def _connect(self, port: int):
        """pyserial socket:// to QEMU's UART, or None if QEMU died before listening."""
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return None
            try:
                return serial.serial_for_url(f"socket://127.0.0.1:{port}", timeout=1.0)
            except serial.SerialException:
                time.sleep(0.01)
        self.kill()
        raise TargetError(f"QEMU did not open its UART on port {port} within {BOOT_TIMEOUT_S:g} s")

    def _lost_port_race(self) -> bool:
        return "Address already in use" in self._stderr_text()

    def _stderr_text(self) -> str:
        try:
            return self._stderr.read_text(errors="replace")
        except OSError:
            return ""

    def _exit_text(self, wait: float = 1.0) -> str | None:
        """Why QEMU ended, as one line, or None while it runs (after `wait` seconds)."""
        if self.proc is None:
            return None
        try:
            code = self.exit_code = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None
        if code == EXIT_IDLE:
            return f"firmware on board '{self.board.name}' exited: its UART was silent too long"
        if code == EXIT_HARDFAULT:
            return f"firmware crashed (HardFault) on board '{self.board.name}' (QEMU exit {code})"
        last = (self._stderr_text().strip().splitlines() or [""])[-1]
        return f"QEMU exited with status {code} on board '{self.board.name}'" + (f": {last}" if last else "")

    def _guard(self, call):
        """Run a link exchange; a crash or a dead QEMU becomes a TargetError saying so."""
        try:
            return call()
        except TargetError as e:
            if "HardFault" in str(e):
                # The harness sent its fault frame and now exits with EXIT_HARDFAULT.
                try:
                    self.exit_code = self.proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    pass
                self.kill()
                raise TargetError(f"firmware crashed (HardFault) on board '{self.board.name}'") from None
            # A closed link usually means QEMU is exiting: give it a moment to say why.
            why = self._exit_text(wait=1.0 if "closed" in str(e) else 0.05)
            if why is not None:
                self.kill()
                raise TargetError(why) from None
            raise
