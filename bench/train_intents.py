"""Train the intent classifier and write its model file.

    python -m bench.train_intents [--out local_agent/language/data/intent_model.json] [--seeds 30,31]
                                  [--epochs 12] [--check]

A multinomial logistic regression over the classifier's features (``classifier.features``: the
reading form's character 1–3-grams and the lexicon classes in it), trained in pure Python by
stochastic gradient descent: the examples of ``bench.intent_labels.training_examples`` (the
phrasing corpus's development half, the generated conversations, the rule examples and
``bench/data/intent_training.jsonl``) in a fixed order, shuffled each epoch by a
``random.Random(seed)``, the step size falling by epoch; once per seed of ``SEEDS``, and the weights
averaged (one shuffle order flips borderline sentences, the average of eight does not). Then every
weight under ``PRUNE`` is dropped and the rest rounded to thousandths, so the file stays small and
the same corpora and seeds give the same file byte for byte (``--check`` says whether the file at
``--out`` is what this run makes, without writing it; ``tests/test_intent_classifier.py`` runs it).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bench.intent_labels import Example, classes, training_examples
from local_agent.language import classifier
from local_agent.language.text import reading_form

SCALE = 1000
# The model is the average of the models trained with these seeds (each a different shuffle order):
# one seed's order flips borderline sentences from one retrain to the next; their average does not.
SEEDS = tuple(range(30, 38))
EPOCHS = 12
RATE = 0.4
PRUNE = 0.17  # weights smaller than this go
TINY = 1e-5  # a gradient this small moves nothing (it would round away)


def _encode(examples: Sequence[Example]) -> list[tuple[list[str], int]]:
    index = {label: n for n, label in enumerate(classifier.LABELS)}
    out = []
    for ex in examples:
        form = reading_form(ex.text)
        out.append((classifier.features(form, classes(form)), index[ex.label]))
    return out


def _softmax(logits: list[float]) -> list[float]:
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


def averaged(
    examples: Sequence[Example], seeds: Sequence[int] = SEEDS, epochs: int = EPOCHS
) -> tuple[list[float], dict[str, list[float]]]:
    """The bias and each feature's weights averaged over the models trained with ``seeds``."""
    bias = [0.0] * len(classifier.LABELS)
    weights: dict[str, list[float]] = {}
    for seed in seeds:
        one_bias, one_weights = train(examples, seed, epochs)
        bias = [b + x / len(seeds) for b, x in zip(bias, one_bias, strict=True)]
        for feature, row in one_weights.items():
            total = weights.setdefault(feature, [0.0] * len(bias))
            for k, w in enumerate(row):
                total[k] += w / len(seeds)
    return bias, weights


def train(
    examples: Sequence[Example], seed: int = SEEDS[0], epochs: int = EPOCHS, rate: float = RATE
) -> tuple[list[float], dict[str, list[float]]]:
    """The bias and each feature's weights per label, after ``epochs`` passes."""
    data = _encode(examples)
    n_labels = len(classifier.LABELS)
    bias = [0.0] * n_labels
    weights: dict[str, list[float]] = {}
    order = list(range(len(data)))
    rng = random.Random(seed)
    for epoch in range(epochs):
        rng.shuffle(order)
        step = rate / (1 + epoch)
        for at in order:
            feats, gold = data[at]
            _step(feats, gold, bias, weights, step)
    return bias, weights


def _step(
    feats: list[str], gold: int, bias: list[float], weights: dict[str, list[float]], step: float
) -> None:
    logits = list(bias)
    rows = [weights.setdefault(f, [0.0] * len(bias)) for f in feats]
    for row in rows:
        for k, w in enumerate(row):
            logits[k] += w
    grads = _softmax(logits)
    grads[gold] -= 1.0
    moved = [(k, step * g) for k, g in enumerate(grads) if abs(g) > TINY]
    for k, delta in moved:
        bias[k] -= delta
    for row in rows:
        for k, delta in moved:
            row[k] -= delta


def pruned(weights: dict[str, list[float]]) -> dict[str, list[int]]:
    """Each feature's weights of at least ``PRUNE``, in thousandths, as ``[label, weight, …]``."""
    table: dict[str, list[int]] = {}
    for feature in sorted(weights):
        pairs = [(k, round(w * SCALE)) for k, w in enumerate(weights[feature]) if abs(w) >= PRUNE]
        if pairs:
            table[feature] = [x for pair in pairs for x in pair]
    return table


def fitted(bias: list[float], weights: dict[str, list[float]]) -> classifier.Model:
    """The model as the file would hold it (pruned and rounded), without writing it."""
    raw = {"format": classifier.FORMAT, "labels": list(classifier.LABELS), "scale": SCALE}
    raw |= {"bias": [round(b * SCALE) for b in bias], "features": pruned(weights)}
    return classifier.parse(raw, Path("(in memory)"))


def model_json(
    bias: list[float],
    weights: dict[str, list[float]],
    examples: Sequence[Example],
    seeds: Sequence[int],
    epochs: int,
) -> str:
    """The model file's text: fixed key order, one feature a line, weights in thousandths."""
    table = pruned(weights)
    counts = Counter(ex.label for ex in examples)
    sources = Counter(ex.source.split(":")[0] for ex in examples)
    head = {
        "format": classifier.FORMAT,
        "labels": list(classifier.LABELS),
        "scale": SCALE,
        "trained": {
            "seeds": list(seeds),
            "epochs": epochs,
            "prune": PRUNE,
            "examples": len(examples),
            "by_label": {label: counts[label] for label in classifier.LABELS},
            "by_source": dict(sorted(sources.items())),
        },
        "bias": [round(b * SCALE) for b in bias],
    }
    lines = ["{"] + [f"{json.dumps(k)}: {_dump(v)}," for k, v in head.items()] + ['"features": {']
    items = [f"{_dump(f)}: {_dump(v)}" for f, v in table.items()]
    lines += [",\n".join(items), "}", "}"]
    return "\n".join(lines) + "\n"


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def build(seeds: Sequence[int] = SEEDS, epochs: int = EPOCHS) -> str:
    examples = training_examples()
    bias, weights = averaged(examples, seeds, epochs)
    return model_json(bias, weights, examples, seeds, epochs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train_intents", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=classifier.MODEL)
    parser.add_argument(
        "--seeds", type=lambda v: tuple(int(x) for x in v.split(",")), default=SEEDS, help="e.g. 30,31,32"
    )
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args(argv)
    text = build(args.seeds, args.epochs)
    size = len(text.encode("utf-8"))
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out.name}: {'the same' if same else 'DIFFERENT'} ({size:,} bytes retrained)")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    classifier.load(args.out)  # what was written reads back
    print(f"wrote {args.out.name}: {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
