"""The `microfuse` command line: one small function per subcommand, listed in COMMANDS."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from dataclasses import dataclass
from typing import Callable

from .version import __version__
from .errors import MicrofuseError

EXIT_ERROR = 2  # any MicrofuseError: bad model, unsupported op, plan, board or target failure
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, one-line help, how it adds its arguments, and what it runs."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]  # returns the exit status
    examples: tuple[tuple[str, str], ...] = ()  # (command line, what it does) for the --help epilog

    def epilog(self) -> str:
        return "examples:\n" + "\n".join(f"  # {what}\n  {line}" for line, what in self.examples)


def _int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high], or argparse's one-line usage error."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low}..{high})")
        return value
    parse.__name__ = "integer"
    return parse


# -- inspect ----------------------------------------------------------------------------------
def _inspect_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="the .tflite file")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--html", metavar="PATH", help="also write a self-contained HTML page (graph, live bytes)")


def _inspect(args: argparse.Namespace) -> int:
    from .inspect import format_table, inspect_graph, json_text  # late imports keep `--help` fast
    from .tflite import load

    report = inspect_graph(load(args.model), args.model)
    if args.html:
        _write_inspect_html(report, args.html)
    print(json_text(report) if args.json else format_table(report))
    return 0


def _write_inspect_html(report, path: str) -> None:
    from .report_html import render_inspect

    page = render_inspect(report.to_json())
    try:
        Path(path).write_text(page, encoding="utf-8")
    except OSError as e:
        raise MicrofuseError(f"cannot write '{path}': {e.strerror or e}; give a writable path to --html") from None


# -- build ------------------------------------------------------------------------------------
def _model_name(path: str) -> str:
    """A C identifier from the model's file name: 'KWS-ref.tflite' -> 'kws_ref'."""
    import re
    from pathlib import Path

    stem = re.sub(r"[^a-z0-9_]", "_", Path(path).stem.lower()).strip("_") or "model"
    return stem if not stem[0].isdigit() else f"m_{stem}"


def _compile_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="the .tflite file")
    p.add_argument("--name", help="C prefix of the generated API (default: from the file name)")
    p.add_argument("--arena-limit", type=_int_in(1, 2**31), metavar="BYTES", help="fail if the arena needs more")
    p.add_argument("--no-fuse", action="store_true", help="switch every fusion pass off")
    p.add_argument("--passes", help="comma-separated passes to run (default: all)")
    p.add_argument("--optimize", choices=("size", "speed", "balanced"), default="balanced",
                   help="what fusion and kernel choice favour (default: balanced)")


def _options(args: argparse.Namespace):
    from .pipeline import Options

    argv = getattr(args, "argv", sys.argv[1:])
    command = "microfuse " + " ".join(argv) if argv else "microfuse build"
    return Options(name=args.name or _model_name(args.model), arena_limit=args.arena_limit,
                   fuse=not args.no_fuse, passes=tuple(args.passes.split(",")) if args.passes else None,
                   optimize=args.optimize, command=command)


def _build_arguments(p: argparse.ArgumentParser) -> None:
    _compile_arguments(p)
    p.add_argument("-o", "--output", help="output folder (default: out/NAME)")
    p.add_argument("--board", help="also build firmware for this board; the arena must fit its SRAM")
    p.add_argument("--explain", action="store_true", help="print every fusion decision and its reason")
    p.add_argument("--core", default="cortex-m4", help="measure flash and RAM totals for this core "
                   "(cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, cortex-m55; default: cortex-m4; "
                   "none: no totals, the Arm compiler is not run)")
    p.add_argument("--bench", metavar="BOARD", help="also run `microfuse bench` on BOARD and put the "
                   "per-call counts and latency into the report")
    _clock_argument(p)
    _accuracy_arguments(p)


def _clock_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--clock", type=_hz, metavar="HZ", help="CPU clock for latency in ms, e.g. 80e6 or "
                   "80MHz (default: the board's clock_hz)")


def _accuracy_arguments(p: argparse.ArgumentParser) -> None:
    """--float-model and --inputs (build and verify)."""
    p.add_argument("--float-model", metavar="FLOAT.tflite", help="the float original: report the "
                   "quantized model's error against it (per output and per layer)")
    p.add_argument("--inputs", metavar="DIR", help="with --float-model: float samples, one .npy (or .npz) "
                   "per sample (default: random)")


def _hz(text: str) -> int:
    scale = {"mhz": 1e6, "khz": 1e3, "hz": 1.0}
    low = text.strip().lower()
    unit = next((u for u in scale if low.endswith(u)), "hz")
    try:
        value = float(low[: len(low) - len(unit)] if low.endswith(unit) else low) * scale[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a clock (e.g. 80e6 or 80MHz)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}': the clock must be positive")
    return int(value)


def _build(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from .report import summary
    from .targets.firmware import build_with_firmware as build

    options = replace(_options(args), board=args.board, core=None if args.core == "none" else args.core)
    out = args.output or f"out/{options.name}"
    c = build(args.model, out, options, report=_report_sections(args, options))
    print(summary(c, out))
    for note in c.notes:
        print(f"note: {note}")
    if args.explain:
        from .passes.explain import format_decisions

        print(format_decisions(c.fusion))
    if args.board and (Path(out) / "firmware").exists():
        print(f"firmware: {out}/firmware/{c.name}.elf")
    return 0


def _report_sections(args: argparse.Namespace, options) -> dict:
    """Sections measured before the build writes its report: a bench, the accuracy."""
    from dataclasses import replace

    sections = {}
    if getattr(args, "bench", None):
        from .boards import load_board
        from .report import latency_section
        from .session import bench

        result = bench(args.model, args.bench, replace(options, core=None))  # its build needs no totals
        sections["bench"] = {k: v for k, v in result.items() if k != "text"}
        sections["latency"] = latency_section(result, load_board(args.bench), args.clock)
    if args.float_model:
        from .accuracy import on_host

        sections["accuracy"] = on_host(args.model, args.float_model, options, args.inputs,
                                       seed=getattr(args, "seed", 0))
    elif args.inputs:
        raise MicrofuseError("--inputs needs --float-model (the float original to compare with)")
    return sections


# -- verify, run, bench ------------------------------------------------------------------------
def _board_arguments(p: argparse.ArgumentParser) -> None:
    _compile_arguments(p)
    p.add_argument("--board", default="host", help="host, a qemu-* board, or a real board with --port "
                   "(see `microfuse boards`; default: host)")
    p.add_argument("--port", help="serial port of a real board, e.g. /dev/ttyACM0")


def _verify_arguments(p: argparse.ArgumentParser) -> None:
    _board_arguments(p)
    p.add_argument("--samples", type=_int_in(0, 100_000), default=50,
                   help="random samples besides all-min and all-max")
    p.add_argument("--seed", type=_int_in(0, 2**32 - 1), default=0, help="seed of the random samples")
    p.add_argument("--sanitize", action="store_true", help="host: build with ASan and UBSan")
    _accuracy_arguments(p)


def _verify(args: argparse.Namespace) -> int:
    from .verify import verify

    verdict, compiled, counts = verify(args.model, args.board, args.samples, args.seed, _options(args),
                                       args.sanitize, args.port)
    float_model = any(t.dtype.np.kind == "f" for t in compiled.graph.outputs)
    print(verdict.line(float_model) + (f" on {args.board}" if args.board != "host" else ""))
    if args.float_model or args.inputs:
        from .accuracy import format_lines

        print("\n".join(format_lines(_report_sections(args, _options(args))["accuracy"])))
    return 0 if verdict.ok else 1


def _run_arguments(p: argparse.ArgumentParser) -> None:
    _board_arguments(p)
    p.add_argument("--input", required=True, help=".npy (one input) or .npz (arr_0, arr_1, ...)")
    p.add_argument("--output", help="write the outputs: .npy (one output) or .npz")
    p.add_argument("--reshape", action="store_true",
                   help="accept an input of the right size but another shape (default: the shape must match)")


def _run(args: argparse.Namespace) -> int:
    from .session import run_once

    outputs, count = run_once(args.model, args.board, args.input, _options(args), args.port,
                              output=args.output, reshape=args.reshape)
    if args.output:
        from .session import save_arrays
        save_arrays(args.output, outputs)
    for i, y in enumerate(outputs):
        print(f"output {i}: {y.dtype} {list(y.shape)} {y.reshape(-1)[:16].tolist()}"
              f"{' ...' if y.size > 16 else ''}")
    if count is not None:
        print(f"{count:,} instructions" if args.board.startswith("qemu") else f"{count:,} cycles")
    return 0


def _bench_arguments(p: argparse.ArgumentParser) -> None:
    _board_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON for scripts")
    p.add_argument("--per-op", action="store_true",
                   help="also count each kernel call (a second run, with a timer read after every call)")
    p.add_argument("-o", "--output", help="also write the library here, its report with the bench "
                   "(implies --per-op)")
    _clock_argument(p)


def _bench(args: argparse.Namespace) -> int:
    import json
    from dataclasses import replace

    from .session import bench

    result = bench(args.model, args.board, _options(args), args.port, per_op=args.per_op or bool(args.output))
    print(json.dumps(result, indent=1) if args.json else result["text"])
    if args.output:
        from .boards import load_board
        from .pipeline import build
        from .targets.footprint import core_of
        from .report import latency_section

        options = replace(_options(args), core=core_of(load_board(args.board)))
        sections = {"bench": {k: v for k, v in result.items() if k != "text"},
                    "latency": latency_section(result, load_board(args.board), args.clock)}
        build(args.model, args.output, options, report=sections)
        print(f"report: {args.output}/report.html")
    return 0


# -- flash, boards -----------------------------------------------------------------------------
def _flash_arguments(p: argparse.ArgumentParser) -> None:
    _compile_arguments(p)
    p.add_argument("--board", required=True, help="a real board (see `microfuse boards`)")
    p.add_argument("-o", "--output", help="keep the build here (default: out/NAME-BOARD)")


def _flash(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from .targets.firmware import build_with_firmware as build
    from .targets.flash import flash

    options = replace(_options(args), board=args.board)
    out = args.output or f"out/{options.name}-{args.board}"
    compiled = build(args.model, out, options)
    tool = flash(_board(args.board), f"{out}/firmware/{compiled.name}.elf")
    print(f"flashed {compiled.name} to {args.board} with {tool}; now: microfuse verify {args.model} "
          f"--board {args.board} --port /dev/ttyACM0")
    return 0


def _board(name: str):
    from .boards import load_board

    return load_board(name)


def _boards(args: argparse.Namespace) -> int:
    from .boards import load_all

    for b in load_all():
        how = "host gcc" if b.is_host else (f"qemu {b.qemu.machine}" if b.is_qemu else
                                            "flash: " + ", ".join(f.tool for f in b.flashers))
        sram = f"{b.sram_bytes // 1024:>5} KiB SRAM" if b.sram_bytes else " " * 14
        print(f"{b.name:20} {b.cpu:12} {sram}  {how}")
    return 0


# -- ops --------------------------------------------------------------------------------------
def _ops(args: argparse.Namespace) -> int:
    from . import ops

    kinds = [*ops.supported_ops(), *ops.custom_ops()]
    width = max(20, *(len(k) for k in kinds))
    for kind in kinds:
        print(f"{kind:{width}} {ops.supported_types(kind)}")
    print(f"\n{ops.tflm_coverage()}")
    return 0


COMMANDS: list[Command] = [
    Command("build", "compile a model into a C library (NAME.h, NAME.c, runtime, Makefile, report)",
            _build_arguments, _build, (
                ("microfuse build model.tflite -o out/kws --name kws", "library + report.json/html"),
                ("microfuse build model.tflite --board qemu-mps2-an386", "also firmware; arena must fit SRAM"),
                ("microfuse build model.tflite --arena-limit 65536", "fail if the arena needs more"),
                ("microfuse build model.tflite --no-fuse", "one kernel call per TFLite op"),
                ("microfuse build model.tflite --explain", "print each fusion decision and why"),
                ("microfuse build model.tflite --bench qemu-mps2-an386", "report per-call instructions and ms"),
                ("microfuse build model.tflite --float-model float.tflite", "report the error vs the float model"),
                ("microfuse build model.tflite --core cortex-m0plus", "flash and RAM totals for that core"),
            )),
    Command("verify", "build, run and compare with TFLite Micro byte for byte",
            _verify_arguments, _verify, (
                ("microfuse verify model.tflite", "on the host, 50 random + 2 extreme samples"),
                ("microfuse verify model.tflite --board qemu-mps2-an386 --samples 10", "on a Cortex-M4F in QEMU"),
                ("microfuse verify model.tflite --sanitize", "host build with ASan and UBSan"),
                ("microfuse verify model.tflite --float-model float.tflite", "also the error vs the float model"),
                ("microfuse verify model.tflite --board nucleo-l4r5zi --port /dev/ttyACM0", "on a flashed board"),
            )),
    Command("run", "build, run one input on a board and print or save the outputs", _run_arguments, _run, (
        ("microfuse run model.tflite --input x.npy", "on the host"),
        ("microfuse run model.tflite --board qemu-mps2-an386 --input x.npy --output y.npy", "in QEMU, save y"),
        ("microfuse run model.tflite --input xs.npz", "a model with several inputs: arr_0, arr_1, ..."),
    )),
    Command("bench", "instructions (QEMU) or cycles per inference, in total and per kernel call",
            _bench_arguments, _bench, (
                ("microfuse bench model.tflite --board qemu-mps2-an386", "instructions and cycles per inference"),
                ("microfuse bench model.tflite --board qemu-mps2-an386 --per-op", "and per kernel call"),
                ("microfuse bench model.tflite --board qemu-mps2-an386 --json", "the same as JSON"),
                ("microfuse bench model.tflite --board qemu-mps2-an386 --no-fuse", "what fusion saves"),
                ("microfuse bench model.tflite --board qemu-mps2-an386 -o out/m", "and a report.html with it"),
            )),
    Command("flash", "build firmware for a real board and flash it with the board's tool",
            _flash_arguments, _flash, (
                ("microfuse flash model.tflite --board nucleo-l4r5zi", "then: microfuse verify ... --port"),
                ("microfuse flash model.tflite --board rpi-pico -o out/pico", "keep the build in out/pico"),
            )),
    Command("boards", "list the boards microfuse can build for", lambda p: None, _boards, (
        ("microfuse boards", "name, CPU, SRAM, and how it runs (host, QEMU machine, flasher)"),
    )),
    Command("ops", "list the supported TFLite ops", lambda p: None, _ops, (
        ("microfuse ops", "each op with the input types it accepts"),
    )),
    Command("inspect", "show per-op shapes, MACs, live activation bytes and the arena lower bound",
            _inspect_arguments, _inspect, (
                ("microfuse inspect model.tflite", "a table, one row per op"),
                ("microfuse inspect model.tflite --json", "the same as JSON"),
                ("microfuse inspect model.tflite --html model.html", "a page with the graph and live bytes"),
            )),
]


QUICK_START = """quick start:
  microfuse inspect model.tflite                      # ops, MACs, the arena lower bound
  microfuse build model.tflite -o out/kws --name kws  # out/kws/kws.h, kws.c, report.html
  microfuse verify model.tflite --board qemu-mps2-an386 --samples 10
`microfuse COMMAND --help` shows a command's options and examples; docs/ has the rest."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="microfuse", description="Compile a .tflite model into a static C "
                                "inference library for microcontrollers.", epilog=QUICK_START,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"microfuse {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for c in COMMANDS:
        c.arguments(sub.add_parser(c.name, help=c.help, description=c.help, epilog=c.epilog(),
                                   formatter_class=argparse.RawDescriptionHelpFormatter))
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point: errors users can cause print one line on stderr and exit 2, never a traceback."""
    argv = sys.argv[1:] if argv is None else list(argv)
    from .signals import Terminated, handled

    try:
        with handled():
            args = parser().parse_args(argv)
            args.argv = argv
            return _run_command(args)
    except KeyboardInterrupt:
        print("microfuse: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated as e:
        print(f"microfuse: terminated ({e})", file=sys.stderr)
        return e.exit_status


def _run_command(args: argparse.Namespace) -> int:
    """The one error path: every failure becomes one line on stderr and exit status 2."""
    run = next(c.run for c in COMMANDS if c.name == args.command)
    try:
        return run(args)
    except MicrofuseError as e:
        print(f"microfuse: error: {_one_line(str(e))}", file=sys.stderr)
    except BrokenPipeError:  # e.g. `microfuse inspect m.tflite | head`: the reader left early
        sys.stderr.close()
        return 0
    except OSError as e:
        where = f": '{e.filename}'" if e.filename else ""
        print(f"microfuse: error: {_one_line(e.strerror or str(e))}{where}", file=sys.stderr)
    except ModuleNotFoundError as e:
        missing = _RUNTIME_PACKAGES.get((e.name or "").partition(".")[0])
        if missing is None:
            return _internal_error(e)
        print(f"microfuse: error: the Python package '{missing}' microfuse needs is not installed: "
              f"pip install {missing}", file=sys.stderr)
    except Exception as e:  # noqa: BLE001 - a bug (MemoryError, RecursionError too): say so, keep the trace
        import signal

        from .signals import Terminated, received

        if received:  # a Ctrl-C that C code turned into this error (an ImportError mid-import)
            raise (KeyboardInterrupt() if received[0] == signal.SIGINT else Terminated(received[0])) from e
        return _internal_error(e)
    return EXIT_ERROR


# module -> the distribution that provides it (pyproject.toml's dependencies)
_RUNTIME_PACKAGES = {"numpy": "numpy", "jinja2": "jinja2", "markupsafe": "jinja2", "serial": "pyserial",
                     "flatbuffers": "flatbuffers"}


def _internal_error(e: BaseException) -> int:
    """A bug: one line that says so, the traceback kept in a file."""
    print(f"microfuse: internal error: {_one_line(f'{type(e).__name__}: {e}')[:300]} "
          f"(traceback in {_crash_report(e)}; please report it)", file=sys.stderr)
    return EXIT_ERROR


def _crash_report(e: BaseException) -> str:
    """Write the traceback of an unexpected exception to a file; its path (or why there is none)."""
    import tempfile
    import traceback

    try:
        fd, path = tempfile.mkstemp(prefix="microfuse-internal-error-", suffix=".txt")
        with open(fd, "w") as f:
            f.write(f"microfuse {__version__}: {' '.join(sys.argv)}\n")
            f.write("".join(traceback.format_exception(e)))
        return path
    except OSError as err:
        return f"nowhere: {err.strerror or err}"


def _one_line(message: str) -> str:
    return " ".join(message.split()) or "failed"
