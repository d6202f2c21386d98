"""The intent classifier's figures: per-class precision and recall on the phrasing corpus, its cost.

    python -m bench.intent_classifier [--repeat 2000]

Scores the shipped model (``local_agent/language/data/intent_model.json``) on the labelled turns of
the phrasing corpus's test half and development half (labels from each turn's expectation,
``bench.intent_labels.turn_label``: the mapping the training uses). The test half is never trained
on; its sentences are not printed. For each half: every label's precision, recall and count, the
accuracy, and the confusion of the privacy classes: how often a delete, stop, remember or typed
yes was read as anything else, and how often a sentence labelled other or small talk was read as
one of them. Then the cost: the median and 95th percentile of one ``classify`` call over the
development half's sentences (reading form and lexicon classes made beforehand, as the caller has
them), and the memory the model takes when it is read (``tracemalloc``), with the file's size.
A ``KEY intent_classifier:`` line closes it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence

from bench.intent_labels import Example, classes, phrasing_examples
from local_agent.language import classifier
from local_agent.language.text import reading_form

PRIVACY = ("delete", "stop", "remember", "consent_yes")


def predict(examples: Sequence[Example]) -> list[tuple[str, str]]:
    """(gold, predicted) per example."""
    out = []
    for ex in examples:
        form = reading_form(ex.text)
        out.append((ex.label, classifier.classify(form, classes(form)).best))
    return out


def per_class(pairs: Sequence[tuple[str, str]]) -> dict[str, tuple[float | None, float | None, int]]:
    """label → (precision, recall, gold count); None where nothing was predicted / labelled."""
    out: dict[str, tuple[float | None, float | None, int]] = {}
    for label in classifier.LABELS:
        hit = sum(1 for g, p in pairs if g == p == label)
        said = sum(1 for _, p in pairs if p == label)
        gold = sum(1 for g, _ in pairs if g == label)
        if said or gold:
            out[label] = (hit / said if said else None, hit / gold if gold else None, gold)
    return out


def _pct(x: float | None) -> str:
    return f"{'-':>7}" if x is None else f"{x:>7.1%}"


def _family(label: str) -> str:
    return "smalltalk/other" if label.startswith("smalltalk_") or label == "other" else label


def privacy_lines(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """Privacy classes read as something else, and other/small talk read as a privacy class."""
    lines = []
    for label in PRIVACY:
        wrong = Counter(p for g, p in pairs if g == label and p != label)
        n = sum(1 for g, _ in pairs if g == label)
        shown = ", ".join(f"{p} {c}" for p, c in sorted(wrong.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"    {label:<12} ({n:>3}) read as another class: {sum(wrong.values()):>3}  {shown}")
    calm = [(g, p) for g, p in pairs if _family(g) == "smalltalk/other"]
    taken = Counter(p for _, p in calm if p in PRIVACY)
    shown = ", ".join(f"{p} {c}" for p, c in sorted(taken.items()))
    lines.append(
        f"    other/small talk ({len(calm)}) read as a privacy class: {sum(taken.values())}  {shown}"
    )
    return lines


def half_report(half: str) -> tuple[list[str], float]:
    pairs = predict(list(phrasing_examples(half)))
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    family = sum(_family(g) == _family(p) for g, p in pairs) / len(pairs)
    lines = [
        f"{half} half: {len(pairs)} labelled turns, accuracy {accuracy:.1%} "
        f"(small-talk kinds and other taken as one: {family:.1%})",
        f"    {'label':<24}{'precision':>10}{'recall':>8}{'n':>6}",
    ]
    for label, (prec, rec, n) in per_class(pairs).items():
        lines.append(f"    {label:<24}{_pct(prec):>10}{_pct(rec):>8}{n:>6}")
    lines += ["  privacy confusion:", *privacy_lines(pairs)]
    return lines, accuracy


def cost(repeat: int) -> tuple[list[str], float]:
    """Median and p95 µs of one call, memory of the model when read, the file's size."""
    classifier.model.cache_clear()
    tracemalloc.start()
    classifier.model()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    prepared = [(f, classes(f)) for f in (reading_form(ex.text) for ex in phrasing_examples("dev"))]
    times = []
    for n in range(repeat):
        form, found = prepared[n % len(prepared)]
        start = time.perf_counter_ns()
        classifier.classify(form, found)
        times.append((time.perf_counter_ns() - start) / 1000)
    median = statistics.median(times)
    p95 = statistics.quantiles(times, n=20)[-1]
    size = classifier.MODEL.stat().st_size
    return [
        f"cost: one classify {median:.1f} µs median, {p95:.1f} µs p95 ({repeat} calls over {len(prepared)} "
        f"sentences); the model read: {held / 2**20:.2f} MiB ({len(classifier.model().weights):,} features), "
        f"file {size:,} bytes",
    ], median


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.intent_classifier", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--repeat", type=int, default=2000, help="classify calls timed")
    args = parser.parse_args(argv)
    test, test_acc = half_report("test")
    dev, dev_acc = half_report("dev")
    spent, median = cost(args.repeat)
    print("\n".join([*test, "", *dev, "", *spent]))
    print(
        f"KEY intent_classifier: test_accuracy={test_acc:.3f}; dev_accuracy={dev_acc:.3f}; classify_us={median:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
