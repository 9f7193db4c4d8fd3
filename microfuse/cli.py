"""The `microfuse` command line: one small function per subcommand, listed in COMMANDS."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Callable

from . import __version__
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


# -- inspect ----------------------------------------------------------------------------------
def _inspect_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="the .tflite file")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _inspect(args: argparse.Namespace) -> int:
    from .inspect import format_table, inspect_graph, json_text  # late imports keep `--help` fast
    from .tflite import load

    report = inspect_graph(load(args.model), args.model)
    print(json_text(report) if args.json else format_table(report))
    return 0


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
    p.add_argument("--arena-limit", type=int, metavar="BYTES", help="fail if the arena needs more")
    p.add_argument("--no-fuse", action="store_true", help="switch every fusion pass off")
    p.add_argument("--passes", help="comma-separated passes to run (default: all)")
    p.add_argument("--optimize", choices=("size", "speed", "balanced"), default="balanced",
                   help="what fusion and kernel choice favour (default: balanced)")


def _options(args: argparse.Namespace):
    from .build import Options

    command = "microfuse " + " ".join(sys.argv[1:]) if sys.argv[1:] else "microfuse build"
    return Options(name=args.name or _model_name(args.model), arena_limit=args.arena_limit,
                   fuse=not args.no_fuse, passes=tuple(args.passes.split(",")) if args.passes else None,
                   optimize=args.optimize, command=command)


def _build_arguments(p: argparse.ArgumentParser) -> None:
    _compile_arguments(p)
    p.add_argument("-o", "--output", help="output folder (default: out/NAME)")


def _build(args: argparse.Namespace) -> int:
    from .build import build

    options = _options(args)
    out = args.output or f"out/{options.name}"
    c = build(args.model, out, options)
    print(f"built {c.name}: {len(c.source.ops)} ops -> {len(c.calls)} kernel calls, "
          f"arena {c.plan.arena_bytes:,} B (whole-tensor lower bound {c.plan.lower_bound_bytes:,} B), "
          f"{sum(call.macs for call in c.calls):,} MACs -> {out}/")
    return 0


# -- verify -----------------------------------------------------------------------------------
def _verify_arguments(p: argparse.ArgumentParser) -> None:
    _compile_arguments(p)
    p.add_argument("--board", default="host", help="where to run (default: host)")
    p.add_argument("--samples", type=int, default=50, help="random samples besides all-min and all-max")
    p.add_argument("--seed", type=int, default=0, help="seed of the random samples")
    p.add_argument("--sanitize", action="store_true", help="host: build with ASan and UBSan")


def _verify(args: argparse.Namespace) -> int:
    from .verify import verify_host

    verdict, compiled = verify_host(args.model, args.samples, args.seed, _options(args), args.sanitize)
    float_model = any(t.dtype.np.kind == "f" for t in compiled.graph.outputs)
    print(verdict.line(float_model))
    return 0 if verdict.ok else 1


# -- ops --------------------------------------------------------------------------------------
def _ops(args: argparse.Namespace) -> int:
    from . import ops

    for kind in ops.supported_ops():
        d = ops.REGISTRY[kind]
        types = ", ".join(sorted(str(t) for t in d.dtypes)) if len(d.dtypes) < 4 else "any type"
        print(f"{kind:20} {'alias (no copy)' if d.alias else types}")
    return 0


COMMANDS: list[Command] = [
    Command("build", "compile a model into a C library (NAME.h, NAME.c, runtime, Makefile, report)",
            _build_arguments, _build),
    Command("verify", "build, run and compare with TFLite Micro byte for byte",
            _verify_arguments, _verify),
    Command("ops", "list the supported TFLite ops", lambda p: None, _ops),
    Command("inspect", "show per-op shapes, MACs, live activation bytes and the arena lower bound",
            _inspect_arguments, _inspect),
]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="microfuse", description="Compile a .tflite model into a static C "
                                "inference library for microcontrollers.")
    p.add_argument("--version", action="version", version=f"microfuse {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for c in COMMANDS:
        c.arguments(sub.add_parser(c.name, help=c.help, description=c.help))
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point: errors users can cause print one line on stderr and exit 2, never a traceback."""
    args = parser().parse_args(argv)
    run = next(c.run for c in COMMANDS if c.name == args.command)
    try:
        return run(args)
    except MicrofuseError as e:
        print(f"microfuse: error: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("microfuse: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `microfuse inspect m.tflite | head`: the reader left early
        sys.stderr.close()
        return 0


def _one_line(message: str) -> str:
    return " ".join(message.split()) or "failed"
