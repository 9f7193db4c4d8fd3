"""Flash and RAM totals of a built library for one Cortex-M core, measured by compiling its folder."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import TargetError

# the cores a report can be measured for: their code-generation flags (what the boards use)
CORES = {
    "cortex-m0": ("-mcpu=cortex-m0", "-mthumb", "-mfloat-abi=soft", "-Os"),
    "cortex-m0plus": ("-mcpu=cortex-m0plus", "-mthumb", "-mfloat-abi=soft", "-Os"),
    "cortex-m3": ("-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft", "-O2"),
    "cortex-m4": ("-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-O2"),
    "cortex-m7": ("-mcpu=cortex-m7", "-mthumb", "-mfpu=fpv5-d16", "-mfloat-abi=hard", "-O2"),
    "cortex-m55": ("-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard", "-O2"),
}
DEFAULT_CORE = "cortex-m4"
# what every measurement adds: one section per function and object (what --gc-sections keeps or
# drops), per-function stack use and the call graph for the stack bound
MEASURE_FLAGS = ("-ffunction-sections", "-fdata-sections", "-fstack-usage", "-fcallgraph-info=su", "-c")
CACHE = Path(tempfile.gettempdir()) / "microfuse-footprint"
METHOD = 2  # in the cache key: bump when what `measure` computes changes
TIMEOUT_S = 300

def core_flags(core: str) -> tuple[str, ...]:
    if core not in CORES:
        raise TargetError(f"unknown core '{core}'; one of {', '.join(CORES)}")
    return CORES[core]


def with_painted_stack(total: dict, bench: dict) -> dict:
    """A core's totals with the stack a bench painted on a board of that core in place of the
    call-graph bound (which stays in the record); totals of other cores are returned as they are."""
    painted = bench.get("stack_bytes")
    same_core = total["core"] in (bench.get("core"), f"{bench.get('board')} ({bench.get('cpu')})")
    if painted is None or not same_core:
        return total
    return {**total, "stack_bytes": painted, "stack_bound_bytes": total["stack_bytes"],
            "stack_source": f"painted under {bench['board']} during the bench",
            "ram_bytes": total["ram_bytes"] - total["stack_bytes"] + painted}


def core_of(board) -> str:
    """The CORES entry of a board's CPU ('cortex-m4f' -> 'cortex-m4'); the default for the host."""
    cpu = board.cpu[:-1] if board.cpu.endswith("f") else board.cpu
    return cpu if cpu in CORES else DEFAULT_CORE


def board_flags(board) -> tuple[str, ...]:
    """A board's code-generation flags: its cflags without the harness's -D defines."""
    return tuple(f for f in board.cflags if not f.startswith("-D"))


def measure(lib: Path, name: str, flags: tuple[str, ...]) -> dict:
    """Compile every .c of `lib` with `flags` and sum the objects' sections (cached by content)."""
    lib = Path(lib).resolve()  # the compiler runs in a temporary folder
    sources = sorted(lib.glob("*.c"))
    if not sources:
        raise TargetError(f"no C sources in {lib}")
    flags = (*flags, f"-D{name.upper()}_NO_STATIC_ARENA")  # the arena is the plan's figure, not .bss
    key = _key(lib, flags)
    cached = CACHE / f"{key}.json"
    try:
        return json.loads(cached.read_text())
    except (OSError, ValueError):
        pass  # not measured yet (or an unreadable entry): measure
    with tempfile.TemporaryDirectory(prefix="mf-size-") as tmp:
        # a copy under plain names: the user's -o path (any characters) never reaches gcc's
        # call-graph files, which stack_bound parses
        src = Path(tmp) / "src"
        src.mkdir()
        for f in lib.iterdir():
            if f.suffix in (".c", ".h"):
                shutil.copyfile(f, src / f.name)
        objects = compile_objects(sorted(src.glob("*.c")), src, flags, Path(tmp))
        result = {**section_totals(objects), "stack_bound": stack_bound(Path(tmp), f"{name}_invoke")}
    try:  # write then rename: parallel builds never read half an entry
        CACHE.mkdir(parents=True, exist_ok=True)
        part = cached.with_suffix(f".{os.getpid()}.part")
        part.write_text(json.dumps(result))
        os.replace(part, cached)
    except OSError:
        pass  # a cache that cannot be written only costs time
    return result


def _key(lib: Path, flags) -> str:
    """The sources, the flags and the compiler (its path and time stamp) name a measurement."""
    import shutil

    gcc = shutil.which("arm-none-eabi-gcc") or ""
    stamp = os.stat(gcc).st_mtime_ns if gcc else 0
    h = hashlib.sha256(json.dumps([METHOD, *flags, gcc, stamp]).encode())
    for f in sorted(Path(lib).iterdir()):
        if f.suffix in (".c", ".h"):
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:32]


def compile_objects(sources: list[Path], lib: Path, flags, out: Path) -> list[Path]:
    """One object per source in `out`, with arm-none-eabi-gcc; its .su and .ci files beside it."""
    from .tools import ARM_TOOLCHAIN_INSTALL, require_tool

    gcc = require_tool("arm-none-eabi-gcc", ARM_TOOLCHAIN_INSTALL)
    objects = []
    for src in sources:
        obj = out / f"{src.stem}.o"
        proc = subprocess.run([gcc, *flags, *MEASURE_FLAGS, f"-I{lib}", str(src), "-o", str(obj)],
                              capture_output=True, text=True, timeout=TIMEOUT_S, cwd=out)
        if proc.returncode != 0:
            first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:200])
            raise TargetError(f"compiling {src.name} for the size report failed: {first}")
        objects.append(obj)
    return objects


def section_sizes(obj: Path) -> list[tuple[str, int]]:
    """(section, bytes) of one object, as `arm-none-eabi-size -A` lists them."""
    from .tools import ARM_TOOLCHAIN_INSTALL, require_tool

    tool = require_tool("arm-none-eabi-size", ARM_TOOLCHAIN_INSTALL)
    proc = subprocess.run([tool, "-A", str(obj)], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise TargetError(f"arm-none-eabi-size {obj.name} failed: {proc.stderr.strip()}")
    rows = [line.split() for line in proc.stdout.splitlines()[2:]]
    return [(r[0], int(r[1])) for r in rows if len(r) >= 2 and r[1].isdigit() and r[0] != "Total"]


SECTION_KINDS = (("code", (".text",)), ("rodata", (".rodata",)), ("data", (".data",)), ("bss", (".bss",)))


def section_totals(objects: list[Path]) -> dict[str, int]:
    """code (.text*), rodata, data and bss bytes over all objects."""
    totals = {kind: 0 for kind, _ in SECTION_KINDS}
    for obj in objects:
        for section, n in section_sizes(obj):
            for kind, prefixes in SECTION_KINDS:
                if any(section == p or section.startswith(p + ".") for p in prefixes):
                    totals[kind] += n
    return totals


_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "[^"\\]*(?:\\n[^"\\]*)*?\\n(\d+) bytes \(([^)]*)\)"')
_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


def stack_bound(folder: Path, root: str) -> dict:
    """The deepest stack from `root` over gcc's call graphs (-fcallgraph-info=su): the sum of the
    frames on the worst path. Functions without a known frame (libc) count 0 and are listed."""
    frames: dict[str, tuple[int, str]] = {}
    edges: dict[str, set[str]] = {}
    for ci in sorted(folder.glob("*.ci")):
        text = ci.read_text(errors="replace")
        for title, n, how in _NODE.findall(text):
            frames[title] = (int(n), how)
        for a, b in _EDGE.findall(text):
            edges.setdefault(a, set()).add(b)

    def resolve(title: str) -> str:  # a call to another file's function names it without the file
        return title if title in frames else title.rsplit(":", 1)[-1]

    unknown: set[str] = set()
    dynamic: set[str] = set()
    depth: dict[str, int] = {}

    def worst(f: str, path: frozenset) -> int:
        if f in path:
            raise TargetError(f"recursion through {f}: no stack bound")
        if f in depth:
            return depth[f]
        n, how = frames.get(f, (0, "unknown"))
        if f not in frames:
            unknown.add(f)
        elif how != "static":
            dynamic.add(f)
        depth[f] = n + max((worst(resolve(g), path | {f}) for g in edges.get(f, ())), default=0)
        return depth[f]

    moved = asm_frames(folder)  # frames gcc does not see (our inline asm's)
    for title, (n, how) in list(frames.items()):
        file, _, fn = title.rpartition(":")
        m = max((v for (stem, f), v in moved.items() if f == fn and (not file or stem == Path(file).stem)),
                default=0)
        frames[title] = (max(n, m), how)
    if root not in frames:
        raise TargetError(f"no stack usage for {root} in the call graph")
    return {"bytes": worst(root, frozenset()), "unknown": sorted(unknown), "dynamic": sorted(dynamic)}


_FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
_SP_DOWN = re.compile(r"\t(?:(?:v?push)(?:\.w)?\t|v?stmdb(?:\.w)?\tsp!, )\{([^}]*)\}|\tsub(?:\.w)?\tsp, (?:sp, )?#(\d+)")


def asm_frames(folder: Path) -> dict[tuple[str, str], int]:
    """Per function of every object in `folder`, the bytes its code moves the stack pointer down
    by, all pushes and `sub sp` summed: at least its frame. gcc's -fstack-usage leaves out what
    inline asm allocates (mf_dot.h's loop state frame below the stack pointer); the disassembly
    does not. Keys: (the object's stem, the function)."""
    objdump = shutil.which("arm-none-eabi-objdump")
    found: dict[tuple[str, str], int] = {}
    for obj in sorted(folder.glob("*.o")) if objdump else ():
        text = subprocess.run([objdump, "-d", str(obj)], capture_output=True, text=True).stdout
        fn = None
        for line in text.splitlines():
            m = _FUNC.match(line)
            if m:
                fn = m.group(1)
                continue
            d = _SP_DOWN.search(line)
            if fn and d:
                regs = d.group(1)
                n = int(d.group(2)) if regs is None else sum(
                    8 if r.strip().startswith("d") else 4 for r in regs.split(","))
                found[(obj.stem, fn)] = found.get((obj.stem, fn), 0) + n
    return found


def footprint_section(compiled, lib, board_core: bool) -> list[dict]:
    """Flash and RAM totals per core: the asked core, and the board's when firmware was built."""
    import shutil

    from ..boards import load_board

    if shutil.which("arm-none-eabi-gcc") is None:
        return []  # no toolchain to measure with: the build still works, without totals
    from ..lower import mve

    asked = compiled.options.core
    # A Helium-laid-out library refuses to compile for another core's DSP assembly (NAME.c #error)
    helium_only = mve.laid_out_for_helium(compiled) and not mve.has_mve(asked)
    targets = [] if helium_only else [(asked, core_flags(asked))]
    if board_core:
        board = load_board(compiled.options.board)
        targets.append((f"{board.name} ({board.cpu})", board_flags(board)))
    return [totals(compiled, core, flags, measure(lib, compiled.name, flags)) for core, flags in targets]


def totals(compiled, core: str, flags, measured: dict) -> dict:
    arena, stack = compiled.plan.arena_bytes, measured["stack_bound"]
    flash = measured["code"] + measured["rodata"] + measured["data"]
    return {"core": core, "cflags": list(flags), "code_bytes": measured["code"],
            "constants_bytes": measured["rodata"], "data_bytes": measured["data"], "bss_bytes": measured["bss"],
            "arena_bytes": arena, "stack_bytes": stack["bytes"],
            "stack_source": "bound from the call graph (-fstack-usage)", "stack_uncounted": stack["unknown"],
            "flash_bytes": flash, "ram_bytes": arena + measured["data"] + measured["bss"] + stack["bytes"]}
