"""`microfuse verify`: run the compiled model and TFLite Micro on the same inputs, byte for byte."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from . import litert, oracle
from .pipeline import Compiled, Options
from .targets.firmware import build_with_firmware as build
from .ir import Graph
from .progress import Tick, progress
from .testing import inputs
from .testing.compare import FLOAT_ATOL, FLOAT_RTOL, difference, same  # noqa: F401 (re-exported)
from .testing.compare import first_difference as first_output_difference
Runner = Callable[[list[list[np.ndarray]]], list[list[np.ndarray]]]


@dataclass
class Verdict:
    samples: int
    exact: int  # samples whose every output matches
    first_bad: int | None  # index of the first mismatching sample
    detail: str  # where the first mismatch starts, when known
    reference: str = ""  # why the reference is LiteRT's reference kernels, not TFLM ("" for TFLM)

    @property
    def ok(self) -> bool:
        return self.exact == self.samples

    def line(self, float_model: bool) -> str:
        how = f"within {FLOAT_RTOL:g} relative" if float_model else "bit-exact"
        text = f"{self.exact}/{self.samples} samples {how}"
        if self.reference:
            text += f" against LiteRT's reference kernels (BUILTIN_REF), not TFLM: {self.reference}"
        return text if self.ok else f"{text}; first mismatch in sample {self.first_bad}: {self.detail}"


def make_samples(graph: Graph, n: int, seed: int) -> list[list[np.ndarray]]:
    """All-minimum, all-maximum, then n random samples (full int range, or N(0, 1) floats)."""
    return inputs.samples(graph, n, seed)


MIN_SEQUENCE = 20  # a stateful model is compared over a stream of at least this many invokes


def compare(model_bytes: bytes, samples: list[list[np.ndarray]], outputs: list[list[np.ndarray]],
            tick: Tick = lambda n=1, note=None: None, stateful: bool = False,
            litert_because: str = "") -> Verdict:
    """Each sample's outputs against TFLM's (LiteRT's reference kernels where TFLM is known wrong
    for the model): a fresh interpreter per sample, or for a stateful model one interpreter fed
    the samples in order (a stream, as ours ran them)."""
    exact, first_bad, detail = 0, None, ""
    if stateful:
        refs = (litert.run_sequence if litert_because else oracle.run_sequence)(model_bytes, samples)
    reference = litert.run if litert_because else oracle.run
    for i, (sample, ours) in enumerate(zip(samples, outputs)):
        ref = refs[i] if stateful else reference(model_bytes, sample)
        tick()
        found = first_output_difference(ours, ref)
        if found is None:
            exact += 1
        elif first_bad is None:
            first_bad, detail = i, found
    return Verdict(len(samples), exact, first_bad, detail, litert_because)


def first_difference(compiled: Compiled, trace: dict[int, np.ndarray], model_bytes: bytes,
                     sample: list[np.ndarray], history: list[list[np.ndarray]] = ()) -> str:
    """Name the first kernel call whose output differs from the tensor TFLM computed (after
    `history`, the stream before the sample, for a stateful model)."""
    ref = oracle.run_all_tensors(model_bytes, sample, history=history)
    for i, call in enumerate(compiled.calls):
        out = call.outputs[0]
        if i not in trace or out.index < 0 or out.index not in ref:
            continue
        ours = np.frombuffer(trace[i], dtype=out.dtype.np)
        ours = ours.reshape(out.shape) if ours.size == out.elements else ours  # name the element by its index
        ops = ", ".join(f"op {op.index} {op.kind} '{op.name}'" for op in call.sources)
        found = difference(ours, ref[out.index], f"call {i} ({ops}) output '{out.name}'")
        if found:
            return found
    return "every traced intermediate matches; the difference is in the final outputs"


def read_trace(path: Path) -> dict[int, np.ndarray]:
    data, pos, calls = path.read_bytes(), 0, {}
    while pos + 8 <= len(data):
        call, size = np.frombuffer(data[pos:pos + 8], dtype="<i4")
        calls[int(call)] = data[pos + 8:pos + 8 + int(size)]
        pos += 8 + int(size)
    return calls


def verify(model: str | Path, board: str = "host", n: int = 50, seed: int = 0, options: Options = Options(),
           sanitize: bool = False, port: str | None = None) -> tuple[Verdict, Compiled, list[int]]:
    """Build for `board`, run n random + 2 extreme samples there, compare with TFLM.

    Returns the verdict, the compiled model and the per-sample instruction/cycle counts
    (empty on the host). A mismatch is traced call by call in a host build of the same C."""
    from .boards import load_board
    from .targets.runner import open_runner

    model_bytes = Path(model).read_bytes()
    target = load_board(board)
    options = replace(options, board=None if target.is_host else board)
    with tempfile.TemporaryDirectory(prefix="mf-verify-") as tmp:
        lib = Path(tmp) / "lib"
        with progress(f"verify: building for {board}"):
            compiled = build(model, lib, options)
        stateful = bool(compiled.graph.state() or compiled.plan.own_state)
        samples = make_samples(compiled.graph, max(n, MIN_SEQUENCE - 2) if stateful else n, seed)
        elf = lib / "firmware" / f"{compiled.name}.elf"
        with open_runner(target, lib, compiled.name, compiled.graph, Path(tmp), elf=elf, port=port,
                         sanitize=sanitize) as runner:
            outputs = _run_samples(runner, samples, board, one_by_one=not target.is_host)
        because = litert.tflm_known_wrong(compiled.source) or ""
        with progress("verify: LiteRT reference" if because else "verify: TFLite Micro", total=len(samples)) as tick:
            verdict = compare(model_bytes, samples, outputs, tick, stateful, because)
        if not verdict.ok and not because:  # the first kernel call that differs, then the first output element
            history = samples[:verdict.first_bad] if stateful else []
            traced = _trace_first_difference(compiled, lib, Path(tmp), model_bytes, samples[verdict.first_bad],
                                             history)
            verdict.detail = f"{traced}; {verdict.detail}"
    return verdict, compiled, runner.counts


def _run_samples(runner, samples: list[list[np.ndarray]], board: str, one_by_one: bool) -> list[list[np.ndarray]]:
    """All outputs; a board runs sample by sample so a terminal sees progress (the host runs them
    in one process, which takes less time than one QEMU sample)."""
    with progress(f"verify: running on {board}", total=len(samples)) as tick:
        if not one_by_one:
            outputs = runner.run(samples)
            tick(len(samples))
            return outputs
        outputs = []
        for sample in samples:
            outputs += runner.run([sample])
            tick()
        return outputs


def _trace_first_difference(compiled: Compiled, lib: Path, tmp: Path, model_bytes: bytes,
                            sample: list[np.ndarray], history: list[list[np.ndarray]] = ()) -> str:
    from .targets.host import compile_program

    traced = compile_program(lib, compiled.name, compiled.graph, tmp / "trace", trace=True)
    trace_file = tmp / "trace.bin"
    traced.run([*history, sample], trace_file=trace_file)  # read_trace keeps each call's last record
    return first_difference(compiled, read_trace(trace_file), model_bytes, sample, history)
