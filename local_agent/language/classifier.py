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
import operator
import struct
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


LANE = 32  # bits per label in a packed weight vector (half the memory of 64: the look-ups miss less)
OFFSET = 1 << 16  # added to every whole-number weight, so that each lane stays non-negative
_MAX_WEIGHT = OFFSET - 1  # a weight's size the file may hold (the shipped model's largest is 17,761)
# Packed vectors one sum may add: each lane gains at most 2 * OFFSET - 1 a vector, so this many fit.
MAX_TERMS = (1 << LANE) // (2 * OFFSET)


@dataclass(frozen=True)
class Model:
    """The weights as whole numbers (thousandths when ``scale`` is 1000). Each feature's weights are
    one packed integer: label ``k``'s weight plus :data:`OFFSET` in bits ``k*LANE`` to ``(k+1)*LANE``,
    so that adding the packed integers of a sentence's features adds every label's weights at once,
    exactly, in one C loop (``sum``) instead of one per label."""

    labels: tuple[str, ...]
    bias: tuple[int, ...]
    packed: Mapping[str, int]  # feature -> its weights, one lane per label in label order
    scale: int


_LANE_CODE = {32: "I", 64: "Q"}[LANE]  # struct's code for one unsigned lane


def pack(vector: Iterable[int]) -> int:
    """Whole-number weights, one per label, as one packed integer (see :class:`Model`)."""
    return sum((w + OFFSET) << (k * LANE) for k, w in enumerate(vector))


def unpack(total: int, count: int, labels: int) -> list[int]:
    """The per-label sums of ``count`` packed vectors (at most :data:`MAX_TERMS`) added into ``total``."""
    base = count * OFFSET  # (the total's bytes read as ``labels`` unsigned lanes, in one C call)
    lanes = struct.unpack(f"<{labels}{_LANE_CODE}", total.to_bytes(labels * LANE // 8, "little"))
    return [lane - base for lane in lanes]


def summed(vectors: list[int], labels: int) -> list[int]:
    """The per-label sums of any number of packed ``vectors``: added :data:`MAX_TERMS` at a time, so
    that no lane overflows into the next one however long the text."""
    if len(vectors) <= MAX_TERMS:
        return unpack(sum(vectors), len(vectors), labels)
    parts = [vectors[at : at + MAX_TERMS] for at in range(0, len(vectors), MAX_TERMS)]
    return [sum(column) for column in zip(*(unpack(sum(p), len(p), labels) for p in parts), strict=True)]


def features(form: str, classes: Iterable[str] = ()) -> list[str]:
    """The features of reading-form ``form`` with lexicon ``classes``, in a fixed order: its n-grams
    left to right, shortest first (an n-gram said twice counts twice), then each class once, sorted."""
    padded = f"^{form}$"
    if NGRAMS == (1, 2, 3):  # (the same list, each length made in one C loop: this is the hot path)
        pairs = list(map(operator.add, padded, padded[1:]))
        found = [*padded, *pairs, *map(operator.add, pairs, padded[2:])]
    else:
        found = [padded[at : at + n] for n in NGRAMS for at in range(len(padded) - n + 1)]
    return found + [CLASS_PREFIX + cls for cls in sorted(set(classes))]


def classify(form: str, classes: Iterable[str] = ()) -> IntentScores:
    """The shipped model's scores for reading-form ``form`` and its lexicon ``classes``."""
    return score(model(), form, classes)


def score(m: Model, form: str, classes: Iterable[str] = ()) -> IntentScores:
    """``m``'s scores: the bias and the weights of :func:`features`, added as packed integers (the hot
    path: one ``sum`` in C for every label at once, exact in whole numbers)."""
    sums = summed(list(filter(None, map(m.packed.get, features(form, classes)))), len(m.labels))
    logits = [(b + w) / m.scale for b, w in zip(m.bias, sums, strict=True)]
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    probs = [e / total for e in exps]
    best = probs.index(max(probs))  # (the first best, as ``max`` gives it)
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
    packed = {str(f): _entry(path, f, e) for f, e in table.items()}
    return Model(LABELS, tuple(bias), packed, scale)


def _entry(path: Path, feature: str, entry: Any) -> int:
    """``[label, weight, label, weight, …]`` as whole numbers → one weight per label (0 for the
    labels not listed), packed."""
    ok = isinstance(entry, list) and entry and len(entry) % 2 == 0 and all(type(x) is int for x in entry)
    if not ok or not all(0 <= i < len(LABELS) for i in entry[::2]):
        raise _fail(path, f"feature {feature!r} is not a list of label index, weight pairs")
    vector = [0] * len(LABELS)
    for at in range(0, len(entry), 2):
        vector[entry[at]] += entry[at + 1]
    if any(abs(w) > _MAX_WEIGHT for w in vector):
        raise _fail(path, f"feature {feature!r} has a weight larger than {_MAX_WEIGHT}")
    return pack(vector)
