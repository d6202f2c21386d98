"""The conversation eval's corpus and runner (bench/conversations.py), offline, in-process."""

from __future__ import annotations

import asyncio

import pytest

from bench.conversations import build_corpus, run_corpus


def test_the_default_corpus_has_at_least_150_conversations_in_ten_categories_over_the_catalogue() -> None:
    corpus = build_corpus()
    assert len(corpus) >= 150
    assert len({c.category for c in corpus}) == 10
    assert [c.name for c in build_corpus()] == [c.name for c in corpus]  # seeded: reproducible
    assert [c.name for c in build_corpus(seed=7)] != [c.name for c in corpus]


@pytest.mark.slow
def test_a_small_corpus_passes_on_the_offline_model() -> None:
    results = asyncio.run(run_corpus(build_corpus(seed=3, per_category=2)))
    failures = [(conv.category, conv.name, f) for conv, f in results if f]
    assert len(results) == 20 and failures == []
