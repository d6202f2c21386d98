"""The learned reader: a small text classifier beside the rules, for recall.

It scores a sentence's intent over :data:`LABELS` from two kinds of features: the character 1-, 2-
and 3-grams of its reading form (``text.reading_form``, with ``^`` and ``$`` marking the ends), and
the lexicon classes found in it (``lexicon.tokens``), which the caller passes in as it has already
read them. The weights are a multinomial logistic regression trained by ``python -m
bench.train_intents`` and shipped as ``data/intent_model.json``; scoring is a dictionary look-up per
feature and a softmax, in pure Python (the bare-``python3`` demo keeps working).

    classify("拜託不要再一直給我素食店了", {"stop_again", "diet_place"})
    → IntentScores(scores={..., "stop": 0.81, ...}, best="stop", confidence=0.81)

The classifier only scores; what is done with a score is the policy's (``intents``): delete, stop and
consent are never taken on its word alone. Standard library only; imports nothing of the project.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL = Path(__file__).parent / "data" / "intent_model.json"
FORMAT = "local-intent-model/1"
SMALL_TALK_KINDS: tuple[str, ...] = (
    "greeting",
    "thanks",
    "goodbye",
    "compliment",
    "complaint",
    "health",
    "weather",
    "bot_question",
    "visited",
    "chat",  # anything else said to pass the time: a playful ask, a remark, news of the day
)
LABELS: tuple[str, ...] = (
    "remember",
    "delete",
    "stop",
    "show_kept",
    "consent_yes",
    "consent_no",
    "search_places",
    "search_events",
    "help",
    *(f"smalltalk_{kind}" for kind in SMALL_TALK_KINDS),
    "other",
)
NGRAMS = (1, 2, 3)
CLASS_PREFIX = "#"  # a lexicon class as a feature, "#stop_verb": longer than any n-gram, so never one


class ModelError(ValueError):
    """The model file is missing or malformed; the message names the file."""


@dataclass(frozen=True)
class IntentScores:
    """One sentence's scores: every label's probability (summing to 1), the best label and its score."""

    scores: Mapping[str, float]
    best: str
    confidence: float


@dataclass(frozen=True)
class Model:
    labels: tuple[str, ...]
    bias: tuple[float, ...]
    weights: Mapping[str, tuple[float, ...]]  # feature -> its weight for each label, in label order


def features(form: str, classes: Iterable[str] = ()) -> list[str]:
    """The features of reading-form ``form`` with lexicon ``classes``, in a fixed order: its n-grams
    left to right, shortest first (an n-gram said twice counts twice), then each class once, sorted."""
    padded = f"^{form}$"
    found = [padded[at : at + n] for n in NGRAMS for at in range(len(padded) - n + 1)]
    return found + [CLASS_PREFIX + cls for cls in sorted(set(classes))]


def classify(form: str, classes: Iterable[str] = ()) -> IntentScores:
    """The shipped model's scores for reading-form ``form`` and its lexicon ``classes``."""
    return score(model(), form, classes)


def score(m: Model, form: str, classes: Iterable[str] = ()) -> IntentScores:
    """``m``'s scores: the bias and the weights of :func:`features`, summed label by label in that
    order (inlined: the hot path; ``zip`` and ``sum`` add the vectors in C)."""
    padded = f"^{form}$"
    found = [padded[at : at + n] for n in NGRAMS for at in range(len(padded) - n + 1)]
    found += [CLASS_PREFIX + cls for cls in sorted(set(classes))]
    logits = list(map(sum, zip(m.bias, *filter(None, map(m.weights.get, found)), strict=True)))
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    probs = [e / total for e in exps]
    best = max(range(len(probs)), key=probs.__getitem__)
    return IntentScores(dict(zip(m.labels, probs, strict=True)), m.labels[best], probs[best])


@functools.cache
def model() -> Model:
    """The shipped model, read once, on first use."""
    return load(MODEL)


def load(path: Path) -> Model:
    """A model file read and checked, else :class:`ModelError` naming the file and what is wrong."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(
            f"{path}: the intent model file is missing (python -m bench.train_intents)"
        ) from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: not readable as JSON ({exc.__class__.__name__})") from None
    return parse(raw, path)


def _fail(path: Path, what: str) -> ModelError:
    return ModelError(f"{path}: malformed intent model: {what}")


def parse(raw: Any, path: Path) -> Model:
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise _fail(path, f"its format is not {FORMAT!r}")
    if raw.get("labels") != list(LABELS):
        raise _fail(path, "its labels are not classifier.LABELS (retrain it)")
    scale, bias, table = raw.get("scale"), raw.get("bias"), raw.get("features")
    if not isinstance(scale, int) or scale <= 0:
        raise _fail(path, "'scale' is not a positive whole number")
    if not isinstance(bias, list) or len(bias) != len(LABELS) or not all(type(b) is int for b in bias):
        raise _fail(path, "'bias' is not one whole number per label")
    if not isinstance(table, dict):
        raise _fail(path, "no 'features' object")
    values: dict[int, float] = {0: 0.0}  # each weight's float made once
    weights = {str(f): _entry(path, f, e, scale, values) for f, e in table.items()}
    return Model(LABELS, tuple(b / scale for b in bias), weights)


def _entry(path: Path, feature: str, entry: Any, scale: int, values: dict[int, float]) -> tuple[float, ...]:
    """``[label, weight, label, weight, …]`` as whole numbers → one weight per label (0 for the
    labels not listed)."""
    ok = isinstance(entry, list) and entry and len(entry) % 2 == 0 and all(type(x) is int for x in entry)
    if not ok or not all(0 <= i < len(LABELS) for i in entry[::2]):
        raise _fail(path, f"feature {feature!r} is not a list of label index, weight pairs")
    vector = [0] * len(LABELS)
    for at in range(0, len(entry), 2):
        vector[entry[at]] += entry[at + 1]
    return tuple(values.setdefault(w, w / scale) for w in vector)
