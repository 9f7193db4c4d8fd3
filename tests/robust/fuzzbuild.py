"""Fuzzing the full build path (read -> passes -> lowering -> planner -> emit -> report): byte
mutations of small models and semantic mutations of generated graphs, seeded and repeatable.

Every case ends as 'ok' (built), a MicrofuseError class name, or 'unwritable' (a semantic mutation
the writer cannot serialize). Anything else is a bug: `run_case` lets it propagate. Accepted models
can be compiled under ASan+UBSan and run on extreme inputs (`sanitize_check`).
Used by test_fuzz_build.py (bounded) and tools/fuzz_campaign.py (large, outside the suite).
"""

from __future__ import annotations

import dataclasses
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from microfuse.pipeline import Options, build
from microfuse.errors import MicrofuseError
from microfuse.ir import DType, Graph, Quant
from microfuse.targets.host import compile_program
from microfuse.testing import modelgen
from microfuse.tflite import read_bytes, writer
from microfuse.verify import make_samples

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "unit")]
from test_fuzz_reader import Mutator  # noqa: E402  (the reader fuzzer's byte mutator)

SMALL_MODELS = [REPO / "examples" / n for n in ("tiny_cnn_int8.tflite", "residual_int8.tflite", "sine_float.tflite")]
SHARED = REPO.parent / "shared" / "models"
SMALL_MODELS += [p for p in (SHARED / "tflm_hello_world_int8.tflite", SHARED / "tflm_simple_add.tflite")
                 if p.exists()]
# State, several subgraphs and custom ops: a CALL_ONCE wake-word model (resource variables), SVDF
# with int16 state, an int8 LSTM and the signal library's custom ops (flexbuffer options).
STATEFUL_MODELS = [SHARED / "wakeword" / "hey_jarvis.tflite", SHARED / "tflm" / "keyword_scrambled_int16.tflite",
                   SHARED / "tflm" / "mnist_lstm_int8.tflite", SHARED / "tflm" / "audio_preprocessor_int8.tflite"]
SCALES = [0.0, -0.0, 2.0 ** -140, 1e-38, 1e-30, 1e-12, 1e-6, 1.0, 1e6, 1e12, 1e30, 1e38, float("nan"),
          float("inf"), -1.0]


def _graphs(rng: np.random.Generator) -> list[Graph]:
    """Small int8 and float graphs covering every kernel family."""
    i8, f32 = modelgen.INT8, modelgen.FLOAT32
    return [modelgen.small_cnn(rng), modelgen.residual(rng), modelgen.conv2d(rng),
            modelgen.depthwise(rng), modelgen.fully_connected(rng, per_channel=True),
            modelgen.add(rng, dtype=i8), modelgen.mul(rng, dtype=i8), modelgen.mean(rng),
            modelgen.softmax(rng), modelgen.pool(rng), modelgen.pad(rng), modelgen.concatenation(rng),
            modelgen.unary(rng, "LOGISTIC"), modelgen.conv2d(rng, dtype=f32), modelgen.fully_connected(rng, dtype=f32)]


def _writable(data: bytes) -> bool:
    """The writer can re-serialize the model (a semantic mutation of it is a case)."""
    try:
        writer.write(read_bytes(data))
        return True
    except ValueError:
        return False


class Corpus:
    """Model files to byte-mutate, and serialized graphs to mutate semantically (the generated
    small graphs unless `models` is given: then those of the files the writer can write)."""

    def __init__(self, models: list[Path] | None = None):
        from test_fuzz_reader import Corpus as ReaderCorpus

        self.files = [(p.name, p.read_bytes()) for p in (models or SMALL_MODELS)]
        self.structure = [ReaderCorpus._structure(data) for _, data in self.files]
        self.graphs = ([data for _, data in self.files if _writable(data)] if models
                       else [writer.write(g) for g in _graphs(np.random.default_rng(11))])


class SemanticMutator:
    """Valid flatbuffers with wrong meaning: scales, zero points, constants, wiring, attrs, shapes."""

    def __init__(self, rng: random.Random, data: bytes):
        self.rng, self.graph = rng, read_bytes(data)

    def mutate(self) -> Graph:
        for _ in range(self.rng.choice([1, 1, 2, 3])):
            getattr(self, self.rng.choice(self.MUTATIONS))()
        return self.graph

    def _tensor(self, quantized=False, const=None):
        ts = [t for t in self.graph.tensors() if (not quantized or t.quant is not None)
              and (const is None or t.is_const == const)]
        return self.rng.choice(ts) if ts else None

    def scale(self):
        t = self._tensor(quantized=True)
        if t is not None:
            s = [self.rng.choice(SCALES) if self.rng.random() < 0.7 else 10 ** self.rng.uniform(-40, 38)
                 for _ in t.quant.scale]
            t.quant = Quant(tuple(s), t.quant.zero_point, t.quant.axis)

    def zero_point(self):
        t = self._tensor(quantized=True)
        if t is not None:
            pool = [-128, 127, 0, 1, -1, 255, -129, self.rng.randrange(-128, 128)]
            z = [self.rng.choice(pool) for _ in t.quant.zero_point]
            t.quant = Quant(t.quant.scale, tuple(z), t.quant.axis)

    def constant(self):
        t = self._tensor(const=True)
        if t is None or not t.elements:
            return
        data = np.array(t.data).copy()
        flat = data.reshape(-1)
        if data.dtype.kind == "f":
            pool = [np.nan, np.inf, -np.inf, 3.4e38, -3.4e38, 1e-45, 0.0]
        else:
            info = np.iinfo(data.dtype)
            pool = [info.min, info.max, 0, -1, 1]
        for _ in range(self.rng.randint(1, max(1, flat.size))):
            flat[self.rng.randrange(flat.size)] = self.rng.choice(pool)
        if self.rng.random() < 0.2:
            flat[:] = self.rng.choice(pool)
        t.data = data

    def rewire(self):
        op = self.rng.choice(self.graph.ops)
        ts = self.graph.tensors()
        what = self.rng.choice(["input", "input", "drop", "none", "outputs", "swap"])
        if what == "input" and op.inputs:
            op.inputs[self.rng.randrange(len(op.inputs))] = self.rng.choice(ts)
        elif what == "drop" and op.inputs:
            op.inputs.pop()
        elif what == "none" and op.inputs:
            op.inputs[self.rng.randrange(len(op.inputs))] = None
        elif what == "outputs":
            op.outputs = [] if self.rng.random() < 0.5 else [self.rng.choice(ts)]
        elif what == "swap" and len(op.inputs) > 1:
            op.inputs[0], op.inputs[1] = op.inputs[1], op.inputs[0]

    def attrs(self):
        op = self.rng.choice(self.graph.ops)
        if op.attrs is None or not dataclasses.is_dataclass(op.attrs):
            return
        fields = [f for f in dataclasses.fields(op.attrs)]
        if not fields:
            return
        f = self.rng.choice(fields)
        old = getattr(op.attrs, f.name)
        if isinstance(old, bool):
            new = not old
        elif isinstance(old, int):
            new = self.rng.choice([0, -1, 1, 2, 3, 7, 64, 1 << 20, -(1 << 31)])
        elif isinstance(old, float):
            new = self.rng.choice([0.0, -1.0, 1e30, float("nan"), float("inf")])
        elif isinstance(old, str):
            new = self.rng.choice(["NONE", "RELU", "RELU6", "TANH", "SAME", "VALID", "EXPLICIT", "x"])
        elif isinstance(old, (tuple, list)):
            new = type(old)(self.rng.choice([0, -1, 1, 2, 5]) for _ in old)
        else:
            return
        try:
            op.attrs = dataclasses.replace(op.attrs, **{f.name: new})
        except (TypeError, ValueError):
            pass

    def shape(self):
        t = self._tensor()
        if t is not None and t.shape and not t.is_const:
            s = list(t.shape)
            s[self.rng.randrange(len(s))] = self.rng.choice([0, 1, 2, 3, 7, 1000])
            t.shape = tuple(s)

    def dtype(self):
        t = self._tensor()
        if t is not None and not t.is_const:
            t.dtype = self.rng.choice([DType.INT8, DType.INT32, DType.FLOAT32, DType.UINT8, DType.INT16])

    MUTATIONS = ["scale", "scale", "zero_point", "constant", "constant", "rewire", "rewire", "attrs",
                 "shape", "dtype"]


def byte_case(corpus: Corpus, rng: random.Random, case: int) -> bytes:
    k = case % len(corpus.files)
    return Mutator(rng, corpus.files[k][1], corpus.structure[k]).mutate()


def semantic_case(corpus: Corpus, rng: random.Random, case: int) -> bytes | None:
    data = corpus.graphs[case % len(corpus.graphs)]
    graph = SemanticMutator(rng, data).mutate()
    try:
        return writer.write(graph)
    except Exception:  # noqa: BLE001 - the writer is a test tool here: an unwritable mutation is no case
        return None


def run_case(data: bytes | None, out: Path) -> tuple[str, object]:
    """Build `data` into `out` through the full path: ('ok', compiled) or (error class name, None)."""
    if data is None:
        return "unwritable", None
    try:
        compiled = build(data, out, Options(name="m"))
        return "ok", compiled
    except MicrofuseError as e:
        message = str(e)
        assert "\n" not in message, f"error message spans lines: {message!r}"
        return type(e).__name__, None


def sanitize_check(out: Path, compiled, work: Path) -> None:
    """Compile the built library under ASan+UBSan (-fno-sanitize-recover) and run it on the
    all-minimum, all-maximum and two random inputs; any sanitizer report fails the program."""
    program = compile_program(out, compiled.name, compiled.graph, work / "asan", sanitize=True)
    program.run(make_samples(compiled.graph, 2, seed=1))


def campaign(kind: str, seed: int, n: int, sanitize_every: int, corpus: Corpus | None = None,
             max_seconds: float = 20.0, log=None, stop: bool = True) -> dict:
    """n cases of `kind` ('byte' or 'semantic'); every `sanitize_every`-th accepted model (0: none)
    goes through ASan+UBSan. Raises AssertionError naming seed and case on any bug or hang (with
    stop=False: lists them under outcomes['bugs'] and goes on)."""
    corpus = corpus or Corpus()
    rng = random.Random(f"{kind}-{seed}")
    outcomes: dict[str, int] = {}
    accepted = 0
    work = Path(tempfile.mkdtemp(prefix="mf-fuzz-"))
    try:
        for case in range(n):
            data = byte_case(corpus, rng, case) if kind == "byte" else semantic_case(corpus, rng, case)
            out = work / "out"
            start, elapsed = time.perf_counter(), None
            try:
                result, compiled = run_case(data, out)
                elapsed = time.perf_counter() - start  # the build alone: the sanitizer compile is slow
                if result == "ok":
                    accepted += 1
                    if sanitize_every and accepted % sanitize_every == 1:
                        sanitize_check(out, compiled, work)
                        outcomes["sanitized"] = outcomes.get("sanitized", 0) + 1
            except Exception as e:  # noqa: BLE001 - anything but a MicrofuseError is the bug hunted
                keep = work.parent / f"mf-fuzz-{kind}-{seed}-{case}.tflite"
                if data is not None:
                    keep.write_bytes(data)
                bug = f"{kind} seed {seed} case {case}: {type(e).__name__}: {str(e)[:300]} (model kept in {keep})"
                if stop:
                    raise AssertionError(bug) from e
                outcomes.setdefault("bugs", []).append(bug)
                result = "BUG"
                elapsed = time.perf_counter() - start if elapsed is None else elapsed  # a sanitizer finding is no hang
            if elapsed >= max_seconds:
                hang = f"{kind} seed {seed} case {case} took {elapsed:.1f} s (a hang?)"
                assert not stop, hang
                outcomes.setdefault("bugs", []).append(hang)
            outcomes[result] = outcomes.get(result, 0) + 1
            if out.exists():
                shutil.rmtree(out)
            if log and case and case % 1000 == 0:
                log(kind, seed, case, outcomes)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return outcomes


def main() -> None:
    """The large campaign, outside the suite:
    python3 tests/robust/fuzzbuild.py BYTE SEMANTIC SEEDS SANITIZE_EVERY [FIRST_SEED]"""
    import json

    n_byte, n_sem, seeds, every = (int(a) for a in sys.argv[1:5])
    first = int(sys.argv[5]) if len(sys.argv) > 5 else 100  # seed offset: parallel runs differ
    corpus = Corpus()
    totals: dict = {}
    for seed in range(seeds):
        for kind, n in (("byte", n_byte // seeds), ("semantic", n_sem // seeds)):
            started = time.time()
            if n == 0:
                continue
            got = campaign(kind, first + seed, n, every, corpus, stop=False,
                           log=lambda *a: print("progress", *a, flush=True))
            print(json.dumps({"kind": kind, "seed": first + seed, "n": n, "seconds": round(time.time() - started),
                              **got}), flush=True)
            for k, v in got.items():
                totals[k] = totals.get(k, 0) + v if not isinstance(v, list) else totals.get(k, []) + v
    print("TOTAL", json.dumps(totals), flush=True)


if __name__ == "__main__":
    main()
