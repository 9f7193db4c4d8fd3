"""Boards as data: every board.toml loads and tells the truth; firmware builds for each; errors are one line."""

import re
import shutil
from pathlib import Path

import pytest

from microfuse.boards import BOARDS_DIR, list_boards, load_all, load_board
from microfuse.errors import BoardError, TargetError
from microfuse.targets import firmware
from microfuse.targets.flash import choose_flasher, flash, flash_command
from tests import figures
from tests.harness import needs

DATA = Path(__file__).resolve().parent.parent / "data"
FAKE_LIB = DATA / "fake_lib"
needs_arm = needs("arm-none-eabi-gcc")

QEMU_BOARDS = ["qemu-mps2-an385", "qemu-mps2-an386", "qemu-mps2-an500", "qemu-mps3-an547", "qemu-microbit"]
# name -> (cpu, flash bytes, SRAM bytes): the chips' data-sheet sizes.
REAL_BOARDS = {
    "stm32f746g-disco": ("cortex-m7", 1 << 20, 320 << 10),
    "nucleo-l4r5zi": ("cortex-m4f", 2 << 20, 640 << 10),
    "nrf52840dk": ("cortex-m4f", 1 << 20, 256 << 10),
    "rpi-pico": ("cortex-m0plus", 2 << 20, 264 << 10),
}


def test_list_boards_has_every_required_board():
    assert set(list_boards()) == {"host", *QEMU_BOARDS, *REAL_BOARDS}


def test_every_board_loads_and_firmware_boards_are_complete():
    for b in load_all():
        assert b.description and b.cpu
        if b.is_host:
            assert b.compiler == "gcc" and b.qemu is None and not b.flashers
            continue
        assert b.compiler == "arm-none-eabi-gcc"
        assert b.is_qemu != bool(b.flashers), b.name
        for p in (b.linker_script, b.startup, b.uart, b.timer.source, *b.sources):
            assert p.is_file()
        assert b.baud == 115200 and b.stack_bytes < b.sram_bytes


def test_real_boards_state_their_true_sizes_and_flashers():
    for name, (cpu, flash_bytes, sram_bytes) in REAL_BOARDS.items():
        b = load_board(name)
        assert (b.cpu, b.flash_bytes, b.sram_bytes) == (cpu, flash_bytes, sram_bytes)
        assert b.flashers and all(f.install for f in b.flashers)
        assert b.timer.counts == "cycles"
    assert [f.tool for f in load_board("stm32f746g-disco").flashers] == ["openocd", "st-flash"]
    assert load_board("rpi-pico").boot2_bytes == 256


def test_microbit_models_the_real_16k_sram():
    b = load_board("qemu-microbit")
    assert (b.sram_bytes, b.flash_bytes, b.qemu.machine) == (16384, 262144, "microbit")


def _memory_lengths(ld: Path) -> dict[str, int]:
    units = {"": 1, "K": 1024, "M": 1 << 20}
    out = {}
    for region, expr in re.findall(r"^\s*(\w+)\s*\([rwx]+\)\s*:.*LENGTH\s*=\s*([^/\n]+)", ld.read_text(), re.M):
        total = 0
        for sign, num, unit in re.findall(r"([+-]?)\s*(0x[0-9a-fA-F]+|\d+)([KM]?)", expr):
            total += (-1 if sign == "-" else 1) * int(num, 0) * units[unit]
        out[region] = total
    return out


def test_linker_scripts_agree_with_board_toml():
    for b in load_all():
        if b.is_host:
            continue
        regions = _memory_lengths(b.linker_script)
        assert regions.pop("RAM") == b.sram_bytes, b.name
        assert sum(regions.values()) == b.flash_bytes, b.name


def test_count_from_ticks():
    assert load_board("qemu-mps2-an385").count_from_ticks(2) == 80      # 25 MHz, 1 ns per instruction
    assert load_board("qemu-microbit").count_from_ticks(4) == 250       # 16 MHz
    assert load_board("stm32f746g-disco").count_from_ticks(1234) == 1234  # cycles


def test_missing_board_lists_available_names():
    with pytest.raises(BoardError) as e:
        load_board("qemu-nosuch")
    msg = str(e.value)
    assert msg.startswith("board 'qemu-nosuch' not found; available: ")
    assert "qemu-mps2-an386" in msg and "rpi-pico" in msg and "\n" not in msg


GOOD = """
description = "x"
cpu = "cortex-m3"
compiler = "arm-none-eabi-gcc"
cflags = ["-O2"]
flash_bytes = 1024
sram_bytes = 1024
stack_bytes = 256
linker_script = "link.ld"
startup = "link.ld"
uart = "link.ld"
[timer]
source = "link.ld"
hz = 1000
counts = "cycles"
[qemu]
machine = "m"
args = []
[serial]
baud = 9600
"""


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('cpu = "cortex-m3"', 'cpu = '), "malformed TOML"),
    (lambda t: t.replace("sram_bytes = 1024", 'sram_bytes = "1K"'), "'sram_bytes' must be an integer"),
    (lambda t: t.replace("sram_bytes = 1024", "sram_bytes = true"), "'sram_bytes' must be an integer"),
    (lambda t: t.replace("sram_bytes = 1024", "sram_bytes = -4"), "'sram_bytes' must be positive"),
    (lambda t: t.replace("sram_bytes = 1024\n", ""), "missing key(s) sram_bytes"),
    (lambda t: t + "\nsram_kib = 3\n", "unknown key(s) sram_kib"),
    (lambda t: t.replace('"arm-none-eabi-gcc"', '"clang"'), "'compiler' must be one of"),
    (lambda t: t.replace('uart = "link.ld"', 'uart = "nope.c"'), "file 'nope.c' does not exist"),
    (lambda t: t.replace('counts = "cycles"', 'counts = "seconds"'), "[timer] needs"),
    (lambda t: t.replace('machine = "m"\n', ""), "[qemu]: missing key(s) machine"),
    (lambda t: t + '[[flash]]\ntool = "a"\ncommand = ["a"]\ninstall = "b"\n', "exactly one of [qemu] or [[flash]]"),
])
def test_malformed_board_files(tmp_path, edit, message):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "link.ld").write_text("")
    (folder / "board.toml").write_text(edit(GOOD))
    with pytest.raises(BoardError) as e:
        load_board("bad", tmp_path)
    assert message in str(e.value) and str(e.value).startswith(str(folder / "board.toml"))


def test_good_board_file_in_another_folder(tmp_path):
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "link.ld").write_text("")
    (tmp_path / "ok" / "board.toml").write_text(GOOD)
    b = load_board("ok", tmp_path)
    assert b.qemu.machine == "m" and b.baud == 9600 and b.linker_script == tmp_path / "ok" / "link.ld"


def test_glue_maps_any_model_name(tmp_path):
    glue = firmware.write_glue(FAKE_LIB, "fake", tmp_path).read_text()
    assert "fake_invoke()" in glue and "FAKE_INPUT1_BYTES" in glue and "FAKE_OUTPUT1_BYTES" in glue
    assert "FAKE_INPUT2_BYTES" not in glue


def test_glue_needs_the_io_macros(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "kws.h").write_text("#define KWS_OUTPUTS 1\n")
    with pytest.raises(TargetError, match=r"kws.h: no '#define KWS_INPUTS <n>'"):
        firmware.write_glue(lib, "kws", tmp_path)
    with pytest.raises(TargetError, match="lower-case C identifier"):
        firmware.write_glue(lib, "Bad-Name", tmp_path)


def test_missing_toolchain_names_the_packages(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TargetError) as e:
        firmware.build_firmware(load_board("qemu-mps2-an386"), FAKE_LIB, "fake", tmp_path / "out")
    assert str(e.value) == ("arm-none-eabi-gcc not found: install it with "
                            "`apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi`")


def test_missing_qemu_says_how_to_install(tmp_path, monkeypatch):
    from microfuse.targets.qemu import qemu_command
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TargetError, match=r"^qemu-system-arm not found: install it with `apt-get install qemu-system-arm`$"):
        qemu_command(load_board("qemu-mps2-an386"), tmp_path / "fw.elf", 4444)


def test_host_board_has_no_firmware(tmp_path):
    with pytest.raises(TargetError, match="has no firmware"):
        firmware.build_firmware(load_board("host"), FAKE_LIB, "fake", tmp_path)


@pytest.mark.qemu
@needs_arm
@pytest.mark.parametrize("name", [*QEMU_BOARDS, *REAL_BOARDS])
def test_fake_firmware_builds_and_fits(tmp_path, name):
    board = load_board(name)
    elf = firmware.build_firmware(board, FAKE_LIB, "fake", tmp_path)
    sizes = firmware.size(elf)
    assert sizes["text"] > 1000, sizes  # harness + glue + fake model, no stdio
    figures.relative(f"{name} fake firmware .text bytes", sizes["text"], figures.FAKE_TEXT[name])
    assert sizes["bss"] >= board.stack_bytes
    assert sizes["text"] + sizes["data"] <= board.flash_bytes
    assert sizes["data"] + sizes["bss"] <= board.sram_bytes


@pytest.mark.qemu
@needs_arm
def test_arena_too_big_for_microbit_sram_fails_the_build(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "big.h").write_text("#define BIG_ARENA_SIZE 20000\n#define BIG_INPUTS 1\n#define BIG_OUTPUTS 1\n"
                               "#define BIG_INPUT0_BYTES 4\n#define BIG_OUTPUT0_BYTES 4\n"
                               "void *big_input(int i);\nvoid *big_output(int i);\nint big_invoke(void);\n")
    (lib / "big.c").write_text('#include "big.h"\nstatic unsigned char arena[BIG_ARENA_SIZE];\n'
                               "void *big_input(int i) { (void)i; return arena; }\n"
                               "void *big_output(int i) { (void)i; return arena + 4; }\n"
                               "int big_invoke(void) { arena[4] = arena[0]; return 0; }\n")
    with pytest.raises(TargetError) as e:
        firmware.build_firmware(load_board("qemu-microbit"), lib, "big", tmp_path / "out")
    assert re.fullmatch(r"firmware for 'big' does not fit board 'qemu-microbit': SRAM \(16384 bytes\) "
                        r"overflowed by \d+ bytes", str(e.value))
    # The same library fits the an386's 4 MiB.
    firmware.build_firmware(load_board("qemu-mps2-an386"), lib, "big", tmp_path / "out386")


# ---- flashing ----

def _path_with(tmp_path, tools):
    """A PATH holding only the arm binutils and the given fake tools (each records its argv)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for t in ("arm-none-eabi-objcopy", "arm-none-eabi-size"):
        if shutil.which(t):
            (bin_dir / t).symlink_to(shutil.which(t))
    for t in tools:
        script = bin_dir / t
        script.write_text(f'#!/bin/sh\necho "$@" > "{tmp_path}/{t}.args"\n')
        script.chmod(0o755)
    return str(bin_dir)


def test_flash_with_every_tool_missing_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", _path_with(tmp_path, []))
    elf = tmp_path / "fw.elf"
    elf.write_bytes(b"\x7fELF")
    with pytest.raises(TargetError) as e:
        flash(load_board("stm32f746g-disco"), elf)
    assert str(e.value) == ("cannot flash board 'stm32f746g-disco': openocd (install: apt-get install openocd); "
                            "or st-flash (install: apt-get install stlink-tools) not found")
    with pytest.raises(TargetError, match=r"^cannot flash board 'nrf52840dk': pyocd \(install: pip install pyocd\)"):
        flash(load_board("nrf52840dk"), elf)


def test_qemu_board_cannot_be_flashed(tmp_path):
    elf = tmp_path / "fw.elf"
    elf.write_bytes(b"\x7fELF")
    with pytest.raises(TargetError, match="cannot be flashed: it runs under QEMU"):
        flash(load_board("qemu-mps2-an386"), elf)


@pytest.mark.qemu
@needs_arm
def test_flash_runs_the_first_installed_tool(tmp_path, monkeypatch):
    elf = firmware.build_firmware(load_board("stm32f746g-disco"), FAKE_LIB, "fake", tmp_path / "fw")
    monkeypatch.setenv("PATH", _path_with(tmp_path, ["st-flash"]))
    board = load_board("stm32f746g-disco")
    assert choose_flasher(board)[0].tool == "st-flash"
    assert flash(board, elf) == "st-flash"
    args = (tmp_path / "st-flash.args").read_text().split()
    assert args == ["--reset", "write", str(elf.with_suffix(".bin")), "0x08000000"]
    assert elf.with_suffix(".bin").stat().st_size == firmware.size(elf)["text"] + firmware.size(elf)["data"]


@pytest.mark.qemu
@needs_arm
def test_flash_command_fills_the_elf(tmp_path):
    elf = tmp_path / "fw.elf"
    f = load_board("stm32f746g-disco").flashers[0]
    assert flash_command(f, "/x/openocd", elf)[-1] == f"program {elf} verify reset exit"


@pytest.mark.qemu
@needs_arm
def test_rpi_pico_refuses_an_elf_without_boot2(tmp_path, monkeypatch):
    elf = firmware.build_firmware(load_board("rpi-pico"), FAKE_LIB, "fake", tmp_path / "fw")
    monkeypatch.setenv("PATH", _path_with(tmp_path, ["picotool"]))
    with pytest.raises(TargetError, match="has no 256-byte boot2 stage"):
        flash(load_board("rpi-pico"), elf)
    assert not (tmp_path / "picotool.args").exists()


def test_boards_dir_is_the_repository_folder():
    assert BOARDS_DIR.name == "boards" and (BOARDS_DIR / "common" / "harness.c").is_file()


def _lib_calling(tmp_path, call: str) -> Path:
    """A one-input, one-output model library whose invoke() runs `call` on its float input."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "fl.h").write_text("#define FL_ARENA_SIZE 8\n#define FL_INPUTS 1\n#define FL_OUTPUTS 1\n"
                              "#define FL_INPUT0_BYTES 4\n#define FL_OUTPUT0_BYTES 4\n"
                              "void *fl_input(int i);\nvoid *fl_output(int i);\nint fl_invoke(void);\n")
    (lib / "fl.c").write_text('#include <math.h>\n#include "fl.h"\nfloat nowhere(float);\nstatic float io[2];\n'
                              "void *fl_input(int i) { (void)i; return io; }\n"
                              "void *fl_output(int i) { (void)i; return io + 1; }\n"
                              f"int fl_invoke(void) {{ io[1] = {call}(io[0]); return 0; }}\n")
    return lib


@pytest.mark.qemu
@needs_arm
@pytest.mark.parametrize("call", ["expf", "roundf", "tanhf"])
def test_firmware_links_libm(tmp_path, call):
    elf = firmware.build_firmware(load_board("qemu-mps2-an386"), _lib_calling(tmp_path, call), "fl", tmp_path / "o")
    assert elf.is_file()


@pytest.mark.qemu
@needs_arm
def test_failed_link_names_the_undefined_reference(tmp_path):
    with pytest.raises(TargetError) as e:
        firmware.build_firmware(load_board("qemu-mps2-an386"), _lib_calling(tmp_path, "nowhere"), "fl", tmp_path / "o")
    assert "undefined reference to `nowhere'" in str(e.value) and "collect2" not in str(e.value)
    assert str(e.value).startswith("firmware build for board 'qemu-mps2-an386' failed: ")


@pytest.mark.qemu
@needs_arm
def test_failed_compile_names_the_error_line(tmp_path):
    lib = _lib_calling(tmp_path, "expf")
    (lib / "bad.c").write_text("int broken(void) { return undeclared_thing; }\n")
    with pytest.raises(TargetError, match=r"failed: .*bad\.c:1:\d+: error: 'undeclared_thing' undeclared"):
        firmware.build_firmware(load_board("qemu-mps2-an386"), lib, "fl", tmp_path / "o")
