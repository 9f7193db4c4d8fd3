"""The fuzz campaign in the suite, bounded: byte and semantic mutations through the full build path
(read -> passes -> lowering -> planner -> emit -> report). Every case builds or fails with a one-line
MicrofuseError; accepted models (a sample) compile under ASan+UBSan and run clean on extreme inputs.
CI=true runs 2,000 cases; MICROFUSE_BUILD_FUZZ_N sets the count. The large campaign:
`python3 tests/robust/fuzzbuild.py 100000 20000 10 25`."""

from __future__ import annotations

import os

import pytest

import fuzzbuild

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


def test_semantic_mutator_reaches_every_mutation():
    import random

    m = fuzzbuild.SemanticMutator(random.Random(0), _corpus().graphs[0])
    for name in fuzzbuild.SemanticMutator.MUTATIONS:
        getattr(m, name)()  # each runs on a real graph without raising
