"""The byte figures README.md, examples/day15/README.md and bench/README.md state are the ones the offline
demo computes now: the demo's own computation (``Demo`` → ``run_all`` → ``summarize``, as its command runs
it) is run once, and every sentence below that quotes a figure must be found and must carry that figure.
When a change moves a figure, the failure names the document, the sentence and the number to write."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from examples.day15 import demo as D
from local_agent import fingerprint

ROOT = Path(__file__).resolve().parents[1]
N = r"([\d,]+)"

D_FIXED = ("rules", "search_local_places", "search_local_events", "manage_preference", "envelope")
Figures = Callable[[dict[str, Any]], tuple[object, ...]]

# (document, a sentence with one group per figure, the figures the demo computes for it)
STATED: list[tuple[str, str, Figures]] = [
    (
        "README.md",
        rf"Turn 5: full history {N} bytes, two turns \+ summary {N} bytes",
        lambda s: (s["turn5_full_history_bytes"], s["turn5_budget_bytes"]),
    ),
    (
        "README.md",
        rf"Cumulative at 50 turns: full history {N} bytes, two turns \+ summary {N} bytes \(ratio ([\d.]+)\)",
        lambda s: (s["cumulative_full_at_50"], s["cumulative_budget_at_50"], s["cumulative_ratio_at_50"]),
    ),
    ("examples/day15/README.md", rf"both are {N} bytes", lambda s: (s["turn5_budget_bytes"],)),
    (
        "examples/day15/README.md",
        rf"sent {N} bytes through the production router; the demo measured {N}",
        lambda s: (s["turn5_budget_bytes"], s["turn5_budget_bytes"]),
    ),
    ("examples/day15/README.md", rf"The demo's turn 5 \({N} bytes\)", lambda s: (s["turn5_budget_bytes"],)),
    (
        "examples/day15/README.md",
        rf"the rules \({N} bytes with today's line\) and each declaration \(`search_local_places` {N}, "
        rf"`search_local_events` {N}, `manage_preference` {N}\), {N} bytes as one envelope",
        lambda s: tuple(s["fixed_part_bytes"][k] for k in D_FIXED),
    ),
    (
        "bench/README.md",
        rf"rules {N} bytes with today's line, declarations {N} \+ {N} \+ {N}, {N} bytes as one envelope",
        lambda s: tuple(s["fixed_part_bytes"][k] for k in D_FIXED),
    ),
    ("bench/README.md", rf"the five-turn script's turn 5 is {N}", lambda s: (s["turn5_budget_bytes"],)),
]


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    fingerprint.configure_key(b"local-day15-offline-demo")  # as the demo's command does
    demo = D.Demo(tmp_path_factory.mktemp("demo"))
    try:
        results = asyncio.run(D.run_all(demo))
    finally:
        demo.store.close()
    computed = D.summarize(results)
    assert computed["checks_failed"] == 0
    return computed


def _prose(name: str) -> str:
    """The document with its line breaks and indentation folded into single spaces."""
    return re.sub(r"\s+", " ", (ROOT / name).read_text(encoding="utf-8"))


def _written(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


@pytest.mark.parametrize(
    ("name", "sentence", "figures"), STATED, ids=[f"{n}: {p[:40]}" for n, p, _ in STATED]
)
def test_every_figure_a_document_states_is_what_the_demo_computes(
    summary: dict[str, Any], name: str, sentence: str, figures: Figures
) -> None:
    found = re.findall(sentence, _prose(name))
    assert found, f"{name}: no sentence matches {sentence!r} (reworded? update this test's STATED)"
    expected = tuple(_written(v) for v in figures(summary))
    for stated in found:
        stated = (stated,) if isinstance(stated, str) else tuple(stated)
        assert stated == expected, f"{name}: {sentence!r} states {stated}; the demo computes {expected}"
