"""TFLite Micro as the reference: run a model, read every tensor, measure and bisect its arena."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .errors import MicrofuseError, ModelError, TargetError
from .tflite import schema as S
from .tflite.flatbuf import FlatBuffer

ARENA = 8 << 20  # generous default: TFLM's own default (10x file size) is too small for some models
_MISSING = "the TFLM oracle needs the test extra: pip install 'microfuse[test]'"

Model = bytes | bytearray | memoryview | str | Path


def run(model: Model, inputs: list[np.ndarray], arena_size: int = ARENA) -> list[np.ndarray]:
    """The model's outputs for `inputs` (one array per model input, in order) under TFLM."""
    data = _model_bytes(model)
    n_in, n_out, _ = _io_counts(data)
    interp = _interpreter(data, arena_size, preserve=False)
    _set_inputs(interp, inputs, n_in)
    _invoke(interp)
    return [np.array(interp.get_output(i), copy=True) for i in range(n_out)]


def run_sequence(model: Model, samples: list[list[np.ndarray]], arena_size: int = ARENA) -> list[list[np.ndarray]]:
    """The outputs of each invoke of one fresh interpreter fed `samples` in order: state (variable
    tensors, resource variables) carries from one invoke to the next, as in a stream."""
    data = _model_bytes(model)
    n_in, n_out, _ = _io_counts(data)
    interp = _interpreter(data, arena_size, preserve=False)
    found = []
    for inputs in samples:
        _set_inputs(interp, inputs, n_in)
        _invoke(interp)
        found.append([np.array(interp.get_output(i), copy=True) for i in range(n_out)])
    return found


def run_all_tensors(model: Model, inputs: list[np.ndarray], arena_size: int = ARENA,
                    history: list[list[np.ndarray]] = ()) -> dict[int, np.ndarray]:
    """Every tensor of subgraph 0 after one invoke, by tensor index (TFLM keeps all of them);
    `history`: the samples invoked before it (a stateful model's stream so far)."""
    data = _model_bytes(model)
    n_in, _, n_tensors = _io_counts(data)
    interp = _interpreter(data, arena_size, preserve=True)
    for earlier in history:
        _set_inputs(interp, earlier, n_in)
        _invoke(interp)
    _set_inputs(interp, inputs, n_in)
    _invoke(interp)
    # GetTensor past the end crashes the process: the count comes from the file itself; so does
    # GetTensor of a resource handle (VAR_HANDLE's output), which holds no data.
    handles = _handle_tensors(data)
    return {i: np.array(interp.GetTensor(i, 0)["tensor_data"], copy=True) for i in range(n_tensors)
            if i not in handles}


def arena_usage(model: Model, arena_size: int = ARENA) -> dict[str, int]:
    """TFLM's arena use: total, head (planned activations) and tail (persistent data), in bytes."""
    data = _model_bytes(model)
    code, err = _probe(data, arena_size, "usage")
    if code != 0:
        raise TargetError(f"TFLM could not set the model up with a {arena_size}-byte arena: {_reason(err)}")
    usage = {}
    for part in ("total", "head", "tail"):
        m = re.search(rf"Arena allocation {part} (\d+) bytes", err)
        if m is None:
            raise TargetError(f"TFLM's allocation report has no '{part}' line: {err[-300:]!r}")
        usage[part] = int(m.group(1))
    return usage


def min_arena(model: Model, limit: int = ARENA) -> int:
    """The smallest arena (bytes) with which TFLM sets the model up; each try in its own process."""
    data = _model_bytes(model)
    if not fits(data, limit):
        raise TargetError(f"TFLM cannot set the model up even with a {limit}-byte arena")
    hi = min(limit, arena_usage(data, limit)["total"])
    step = 16
    while not fits(data, hi):  # set-up needs temporary room beyond what stays allocated
        hi = min(limit, hi + step)
        step *= 2
    lo = max(hi - step, 0)
    while lo > 0 and fits(data, lo):  # the report's total can exceed the minimum (alignment slack)
        hi, lo = lo, max(lo - step, 0)
        step *= 2
    while hi - lo > 1:  # invariant: lo fails (0 always does), hi fits
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(data, mid) else (mid, hi)
    return hi


def fits(model: Model, arena_size: int) -> bool:
    """Whether TFLM sets the model up with an arena of `arena_size` bytes (a crash counts as no)."""
    return _probe(_model_bytes(model), arena_size, "fit")[0] == 0


# -- TFLM access ---------------------------------------------------------------------------

def _runtime():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError as e:
        raise TargetError(_MISSING) from e
    return runtime


def _model_bytes(model: Model) -> bytes:
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    path = Path(model)
    try:
        return path.read_bytes()
    except OSError as e:
        raise ModelError(f"cannot read model '{path}': {e.strerror}") from e


def _interpreter(data: bytes, arena_size: int, preserve: bool):
    runtime = _runtime()
    configs = runtime.InterpreterConfig
    config = configs.kPreserveAllTensors if preserve else configs.kAllocationRecording
    with _captured_stderr() as err:
        try:
            return runtime.Interpreter.from_bytes(data, arena_size=arena_size, intrepreter_config=config)
        except (RuntimeError, ValueError) as e:
            failure = e
    raise TargetError(f"TFLM could not set the model up ({failure}): {_reason(err.text)}")


def _set_inputs(interp, inputs: list[np.ndarray], n_in: int) -> None:
    if len(inputs) != n_in:
        raise TargetError(f"the model has {n_in} input(s), {len(inputs)} given")
    for i, x in enumerate(inputs):
        d = interp.get_input_details(i)
        want_shape, want_dtype = tuple(int(s) for s in d["shape"]), np.dtype(d["dtype"])
        arr = np.asarray(x)
        if arr.dtype != want_dtype or arr.size != int(np.prod(want_shape)):
            raise TargetError(f"input {i}: model wants {list(want_shape)} {want_dtype}, "
                              f"got {list(arr.shape)} {arr.dtype}")
        interp.set_input(np.array(arr.reshape(want_shape), order="C"), i)  # ascontiguousarray makes a scalar 1-D


def _invoke(interp) -> None:
    with _captured_stderr() as err:
        try:
            interp.invoke()
            return
        except RuntimeError as e:
            failure = e
    raise TargetError(f"TFLM invoke failed ({failure}): {_reason(err.text)}")


def _reason(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return "; ".join(lines[-3:]) if lines else "no message from TFLM"


class _Text:
    text = ""


@contextmanager
def _captured_stderr():
    """Collect what C++ writes to fd 2 (TFLM's only channel for its reasons)."""
    holder = _Text()
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield holder
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            holder.text = tmp.read().decode("utf-8", "replace")


def _handle_tensors(data: bytes) -> set[int]:
    """Indices of subgraph 0's RESOURCE and VARIANT tensors (handles, no data)."""
    from .tflite.flatbuf import I8

    sub = FlatBuffer(data).root("model", S.MODEL).tables("subgraphs", "subgraph", S.SUBGRAPH)[0]
    codes = {S.TENSOR_TYPE_CODE[k] for k in ("RESOURCE", "VARIANT") if k in S.TENSOR_TYPE_CODE}
    return {i for i, t in enumerate(sub.tables("tensors", "tensor", S.TENSOR)) if t.scalar("type", I8) in codes}


def _io_counts(data: bytes) -> tuple[int, int, int]:
    """(inputs, outputs, tensors) of subgraph 0, read straight from the flatbuffer (bounds-checked)."""
    if len(data) < 8 or data[4:8] != S.FILE_IDENTIFIER:
        raise ModelError("not a valid .tflite model (no TFL3 identifier)")
    subgraphs = FlatBuffer(data).root("model", S.MODEL).tables("subgraphs", "subgraph", S.SUBGRAPH)
    if len(subgraphs) == 0:
        raise ModelError("not a valid .tflite model (no subgraph)")
    sub = subgraphs[0]
    return sub.length("inputs", 4), sub.length("outputs", 4), sub.length("tensors", 4)


# -- subprocess probes (small arenas crash the whole process) ---------------------------

_CHILD = r"""
import sys
import numpy as np
from tflite_micro.python.tflite_micro import runtime
model = sys.stdin.buffer.read()
arena, mode = int(sys.argv[1]), sys.argv[2]
try:
    interp = runtime.Interpreter.from_bytes(model, arena_size=arena)
except RuntimeError:
    sys.exit(3)
if mode == "usage":
    i = 0
    while True:  # zero inputs: the report is meant to be read after an invoke
        try:
            d = interp.get_input_details(i)
        except IndexError:
            break
        interp.set_input(np.zeros(d["shape"], d["dtype"]), i)
        i += 1
    interp.invoke()
    sys.stderr.flush()
    interp.print_allocations()
"""


def _probe(data: bytes, arena_size: int, mode: str) -> tuple[int, str]:
    """Run the child on the model: (exit code, its stderr); a crash gives a negative code."""
    _runtime()  # fail here, with the install hint, if TFLM is missing
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(arena_size), mode], input=data,
                          capture_output=True, timeout=120)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def main(argv: list[str] | None = None) -> int:
    """`python -m microfuse.oracle MODEL`: print TFLM's arena use and minimum arena."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m microfuse.oracle MODEL.tflite", file=sys.stderr)
        return 2
    try:
        usage = arena_usage(args[0])
        smallest = min_arena(args[0])
    except MicrofuseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"total {usage['total']} head {usage['head']} tail {usage['tail']} min_arena {smallest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
