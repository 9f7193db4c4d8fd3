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


COMMANDS: list[Command] = [
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
