"""The fuzz campaign in the suite, bounded: byte and semantic mutations through the full build path
(read -> passes -> lowering -> planner -> emit -> report). Every case builds or fails with a one-line
MicrofuseError; accepted models (a sample) compile under ASan+UBSan and run clean on extreme inputs.
CI=true runs 2,000 cases; MICROFUSE_BUILD_FUZZ_N sets the count. The large campaign:
`python3 tests/robust/fuzzbuild.py 100000 20000 10 25`."""

from __future__ import annotations

import os

import pytest

import fuzzbuild

from conftest import NEEDS_CORPUS

SEEDS = range(4)


def _count(kind: str) -> int:
    if "MICROFUSE_BUILD_FUZZ_N" in os.environ:
        return int(os.environ["MICROFUSE_BUILD_FUZZ_N"])
    ci = os.environ.get("CI") == "true"
    return {"byte": 1200 if ci else 200, "semantic": 800 if ci else 120}[kind]


_CORPUS = None


def _corpus():
    global _CORPUS
    if _CORPUS is None:
        _CORPUS = fuzzbuild.Corpus()
    return _CORPUS


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["byte", "semantic"])
def test_mutated_models_build_or_fail_in_one_line(kind, seed):
    n = -(-_count(kind) // len(SEEDS))
    outcomes = fuzzbuild.campaign(kind, seed, n, sanitize_every=150, corpus=_corpus())
    assert outcomes.get("ok", 0) > 0 and len(outcomes) > 2, outcomes  # both built and refused cases
    assert outcomes.get("sanitized", 0) >= 1, outcomes


_STATEFUL = None


@NEEDS_CORPUS
@pytest.mark.parametrize("kind", ["byte", "semantic"])
def test_mutated_stateful_multi_subgraph_and_custom_op_models_build_or_fail_in_one_line(kind):
    """The wake-word model (CALL_ONCE, resource variables), SVDF, LSTM and the signal library's
    custom ops, mutated (semantically: those the writer can write, one subgraph)."""
    global _STATEFUL
    for path in fuzzbuild.STATEFUL_MODELS:
        assert path.is_file(), f"corpus model {path} is missing"
    _STATEFUL = _STATEFUL or fuzzbuild.Corpus(fuzzbuild.STATEFUL_MODELS)
    outcomes = fuzzbuild.campaign(kind, 7, _count(kind) // 4, sanitize_every=40, corpus=_STATEFUL)
    assert outcomes.get("ok", 0) > 0 and len(outcomes) > 2, outcomes
    assert outcomes.get("sanitized", 0) >= 1, outcomes


def test_semantic_mutator_reaches_every_mutation():
    import random

    m = fuzzbuild.SemanticMutator(random.Random(0), _corpus().graphs[0])
    for name in fuzzbuild.SemanticMutator.MUTATIONS:
        getattr(m, name)()  # each runs on a real graph without raising
