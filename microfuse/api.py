"""The Python API: microfuse.compile() and microfuse.build(), keyword-option wrappers of pipeline.py."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from . import pipeline
from .errors import OptionError
from .ir import Graph

OPTIONS = tuple(f.name for f in dataclasses.fields(pipeline.Options) if f.name != "command")


@dataclass(frozen=True)
class Result:
    """A compiled model: the rewritten graph, its kernel calls, the checked memory plan, the report."""

    compiled: pipeline.Compiled

    @property
    def name(self) -> str:
        return self.compiled.name

    @property
    def graph(self) -> Graph:
        return self.compiled.graph

    @property
    def calls(self) -> list:
        return self.compiled.calls

    @property
    def plan(self):
        return self.compiled.plan

    @property
    def arena(self) -> int:
        """Bytes of the planned arena (NAME_ARENA_SIZE)."""
        return self.compiled.plan.arena_bytes

    @property
    def report(self) -> dict:
        """What report.json holds (sizes, plan, calls, fusion decisions)."""
        from .emit.c import banner
        from .report import build_report

        return build_report(self.compiled, banner(self.compiled))


def _default_name(model) -> str:
    if isinstance(model, (str, Path)):
        stem = re.sub(r"[^a-z0-9_]", "_", Path(model).stem.lower()).strip("_") or "model"
        return stem if not stem[0].isdigit() else f"m_{stem}"
    return "model"


def options(model, **given) -> pipeline.Options:
    """Options from keywords (name, arena_limit, fuse, passes, optimize, board); unknown ones are errors."""
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise OptionError(f"unknown option(s) {', '.join(unknown)}; microfuse knows {', '.join(OPTIONS)}")
    if isinstance(given.get("passes"), (list, tuple)):
        given["passes"] = tuple(given["passes"])
    given.setdefault("name", _default_name(model))
    return pipeline.Options(**given, command="microfuse.compile (Python API)")


def compile(model: str | Path | bytes | Graph, **opts) -> Result:  # noqa: A001 (the documented name)
    """Compile a .tflite (path or bytes) or a Graph; nothing is written. Raises MicrofuseError."""
    return Result(pipeline.compile_model(model, options(model, **opts)))


def build(model: str | Path | bytes | Graph, out: str | Path, **opts) -> Result:
    """Compile and write the C library into `out` (all files or none); `board=` adds its firmware."""
    o = dataclasses.replace(options(model, **opts), command="microfuse.build (Python API)")
    return Result(pipeline.build(model, out, o))
