"""The intent classifier's figures: per-class precision and recall on the phrasing corpus, its cost.

    python -m bench.intent_classifier [--repeat 2000] [--batch N ...] [--folds K [--show]]

Scores the shipped model (``local_agent/language/data/intent_model.json``) on the labelled turns of
the phrasing corpus's test half and development half (labels from each turn's expectation,
``bench.intent_labels.turn_label``: the mapping the training uses). The test half is never trained
on; its sentences are not printed. For each half: every label's precision, recall and count, the
accuracy, and the confusion of the privacy classes: how often a delete, stop, remember or typed
yes was read as anything else, and how often a sentence labelled other or small talk was read as
one of them. Then the cost: the median and 95th percentile of one ``classify`` call over the
development half's sentences (reading form and lexicon classes made beforehand, as the caller has
them), and the memory the model takes when it is read (``tracemalloc``), with the file's size.
A ``KEY intent_classifier:`` line closes it. ``--batch N`` (repeatable) scores only those batches of
the corpus (the blind batches 9–11, say); the test figures also say how the turns whose reading form
is not among the training sentences fared ("unseen").

``--folds K`` is for tuning the training data and settings without the test half: the development
half's conversations in K folds (by a hash of their ids), each fold scored by a model trained on
everything else; the folds' figures are printed the same way (``--show``: and each misread development sentence).
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence

from bench.intent_labels import Example, classes, phrasing_examples, training_examples
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


def pair_lines(title: str, pairs: Sequence[tuple[str, str]]) -> list[str]:
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    family = sum(_family(g) == _family(p) for g, p in pairs) / len(pairs)
    lines = [
        f"{title}: {len(pairs)} labelled turns, accuracy {accuracy:.1%} "
        f"(small-talk kinds and other taken as one: {family:.1%})",
        f"    {'label':<24}{'precision':>10}{'recall':>8}{'n':>6}",
    ]
    for label, (prec, rec, n) in per_class(pairs).items():
        lines.append(f"    {label:<24}{_pct(prec):>10}{_pct(rec):>8}{n:>6}")
    return [*lines, "  privacy confusion:", *privacy_lines(pairs)]


def half_report(
    title: str, examples: Sequence[Example], seen: frozenset[str] = frozenset()
) -> tuple[list[str], float]:
    """The figures of one set of labelled turns; ``seen``: the training sentences' reading forms."""
    pairs = predict(examples)
    lines = pair_lines(title, pairs)
    if seen:
        fresh = [pair for ex, pair in zip(examples, pairs, strict=True) if reading_form(ex.text) not in seen]
        right = sum(g == p for g, p in fresh)
        lines.insert(1, f"  unseen (reading form not among the training sentences): {right}/{len(fresh)}")
    return lines, sum(g == p for g, p in pairs) / len(pairs)


def _fold(example: Example, folds: int) -> int:
    digest = hashlib.sha256(example.source.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % folds


def cross_validate(folds: int, show: bool = False) -> tuple[list[str], float]:
    """Each fold of the development half scored by a model trained without it (module docstring)."""
    from bench.train_intents import averaged, fitted

    everything = training_examples()
    pairs: list[tuple[str, str]] = []
    for k in range(folds):
        is_out = [ex.source.startswith("phrasings:") and _fold(ex, folds) == k for ex in everything]
        model = fitted(*averaged([ex for ex, out in zip(everything, is_out, strict=True) if not out]))
        for ex, out in zip(everything, is_out, strict=True):
            if out:
                form = reading_form(ex.text)
                pairs.append((ex.label, classifier.score(model, form, classes(form)).best))
                if show and pairs[-1][0] != pairs[-1][1]:
                    print(f"  {ex.label} → {pairs[-1][1]}: {ex.text}  [{ex.source}]")
    return pair_lines(f"development half, {folds} folds", pairs), sum(g == p for g, p in pairs) / len(pairs)


def _median_us(
    calls: Sequence[tuple[str, list[str]]], repeat: int, fn: Callable[[str, list[str]], object]
) -> float:
    times = []
    for n in range(repeat):
        form, found = calls[n % len(calls)]
        start = time.perf_counter_ns()
        fn(form, found)
        times.append((time.perf_counter_ns() - start) / 1000)
    return statistics.median(times)


def cost(repeat: int) -> tuple[list[str], float]:
    """Median µs of one call beside the median of making the reading form it takes (same sentences,
    same run: the ratio holds on a busy machine), the model's memory when read, the file's size."""
    classifier.model.cache_clear()
    tracemalloc.start()
    classifier.model()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    texts = [ex.text for ex in phrasing_examples("dev")]
    prepared = [(f, classes(f)) for f in map(reading_form, texts)]
    raw = [(t, []) for t in texts]
    median = _median_us(prepared, repeat, classifier.classify)
    form = _median_us(raw, repeat, lambda text, _: reading_form(text))
    size = classifier.MODEL.stat().st_size
    return [
        f"cost: one classify {median:.1f} µs median ({repeat} calls over {len(prepared)} sentences), "
        f"{median / form:.1f}× one reading_form ({form:.1f} µs) in the same run",
        f"memory: the model read {held / 2**20:.2f} MiB ({len(classifier.model().packed):,} features); "
        f"file {size:,} bytes",
    ], median


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.intent_classifier", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--repeat", type=int, default=2000, help="classify calls timed")
    parser.add_argument(
        "--batch", type=int, action="append", help="only this batch of the corpus (repeatable)"
    )
    parser.add_argument("--folds", type=int, default=0, help="cross-validate on the development half instead")
    parser.add_argument("--show", action="store_true", help="with --folds: print each misread sentence")
    args = parser.parse_args(argv)
    if args.folds:
        lines, accuracy = cross_validate(args.folds, args.show)
        print("\n".join(lines))
        print(f"KEY intent_classifier_folds: dev_folds_accuracy={accuracy:.3f}")
        return 0
    batches = set(args.batch) if args.batch else None
    seen = frozenset(reading_form(ex.text) for ex in training_examples())
    which = f" (batches {', '.join(map(str, sorted(batches)))})" if batches else ""
    test, test_acc = half_report(f"test half{which}", list(phrasing_examples("test", batches)), seen)
    dev, dev_acc = half_report(f"development half{which}", list(phrasing_examples("dev", batches)))
    spent, median = cost(args.repeat)
    print("\n".join([*test, "", *dev, "", *spent]))
    print(
        f"KEY intent_classifier: test_accuracy={test_acc:.3f}; dev_accuracy={dev_acc:.3f}; classify_us={median:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
