"""The learned intent reader (``language/classifier.py``): its interface, its model file's checks, and
the shipped model's figures on the phrasing corpus's development half; retraining reproduces the
shipped file byte for byte (slow)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from bench.intent_classifier import per_class, predict
from bench.intent_labels import TRAINED_BATCHES, classes, phrasing_examples, turn_label, written_examples
from local_agent.language import classifier
from local_agent.language.text import reading_form

ROOT = Path(__file__).resolve().parents[1]


def _read(text: str) -> classifier.IntentScores:
    form = reading_form(text)
    return classifier.classify(form, classes(form))


def test_labels_are_the_interface() -> None:
    assert classifier.LABELS[:9] == (
        "remember",
        "delete",
        "stop",
        "show_kept",
        "consent_yes",
        "consent_no",
        "search_places",
        "search_events",
        "help",
    )
    assert classifier.LABELS[-1] == "other"
    talk = [label for label in classifier.LABELS if label.startswith("smalltalk_")]
    assert talk == [f"smalltalk_{k}" for k in classifier.SMALL_TALK_KINDS]
    assert len(set(classifier.LABELS)) == len(classifier.LABELS)


@pytest.mark.parametrize("text", ["記住我吃素", "員林有什麼好吃的", "", "🙂", "a" * 400])
def test_scores_are_a_distribution_over_every_label(text: str) -> None:
    got = _read(text)
    assert set(got.scores) == set(classifier.LABELS)
    assert math.isclose(sum(got.scores.values()), 1.0, rel_tol=1e-9)
    assert all(0.0 <= p <= 1.0 for p in got.scores.values())
    assert got.best == max(got.scores, key=got.scores.__getitem__)
    assert got.confidence == got.scores[got.best]


def test_frozen_and_deterministic() -> None:
    first = _read("以後不要再幫我過濾素食了")
    with pytest.raises(AttributeError):
        first.best = "other"  # type: ignore[misc]
    assert _read("以後不要再幫我過濾素食了") == first
    assert classifier.classify("記住我吃素") == classifier.classify("記住我吃素", ())


def test_classes_are_features_of_their_own() -> None:
    feats = classifier.features("刪掉", ["delete_verb", "delete_verb"])
    assert feats.count("#delete_verb") == 1
    assert "^刪" in feats and "刪掉$" in feats and "^刪掉" in feats
    assert classifier.classify("好", ["delete_verb"]) != classifier.classify("好")


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("幫我記住我吃全素", "remember"),
        ("溪湖這週末有什麼活動", "search_events"),
        ("把我的偏好刪除", "delete"),
    ],
)
def test_plain_sentences_read_plainly(text: str, label: str) -> None:
    assert _read(text).best == label


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "intent_model.json"
    with pytest.raises(classifier.ModelError, match=r"intent_model\.json.*missing"):
        classifier.load(missing)


def _shipped() -> dict[str, object]:
    raw: dict[str, object] = json.loads(classifier.MODEL.read_text(encoding="utf-8"))
    return raw


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda raw: "{not json", "not readable as JSON"),
        (lambda raw: json.dumps({**raw, "format": "other/9"}), "format"),
        (lambda raw: json.dumps({**raw, "labels": raw["labels"][:-1]}), "labels"),
        (lambda raw: json.dumps({**raw, "bias": [0.5] * len(classifier.LABELS)}), "bias"),
        (lambda raw: json.dumps({**raw, "scale": 0}), "scale"),
        (lambda raw: json.dumps({**raw, "features": {"好": [99, 5]}}), "'好'"),
        (lambda raw: json.dumps({**raw, "features": {"好": [1]}}), "'好'"),
        (lambda raw: json.dumps({**raw, "features": []}), "features"),
        (lambda raw: json.dumps({**raw, "features": {"好": [1, classifier.OFFSET]}}), "larger"),
    ],
)
def test_a_malformed_model_file_is_named(tmp_path: Path, change: object, said: str) -> None:
    path = tmp_path / "broken_model.json"
    path.write_text(change(_shipped()), encoding="utf-8")  # type: ignore[operator]
    with pytest.raises(classifier.ModelError, match="broken_model.json") as caught:
        classifier.load(path)
    assert said in str(caught.value)


def test_packed_weights_add_every_label_exactly() -> None:
    """The packed sum of many vectors, negative and at the largest weight allowed, unpacks to the
    label-by-label sums, as plain addition gives them."""
    big = classifier.OFFSET - 1
    vectors = [[(-1) ** k * (k * 7919 % 1000) for k in range(20)], [big] * 20, [-big] * 20, [0] * 20]
    vectors *= 50
    total = sum(classifier.pack(v) for v in vectors)
    assert classifier.unpack(total, len(vectors), 20) == [sum(col) for col in zip(*vectors, strict=True)]


def test_more_vectors_than_one_sum_holds_still_add_exactly() -> None:
    """Past :data:`classifier.MAX_TERMS` vectors (a text of some 11,000 characters), every one at the
    largest weight allowed, the sums are taken a part at a time: no lane spills into the next."""
    big = classifier.OFFSET - 1
    vectors = [[big] * 20, [-big] * 20, [big] * 19 + [-big]]
    counts = (classifier.MAX_TERMS + 3, 2, classifier.MAX_TERMS + 1)
    packed = [classifier.pack(v) for v, n in zip(vectors, counts, strict=True) for _ in range(n)]
    expected = [sum(w * n for w, n in zip(col, counts, strict=True)) for col in zip(*vectors, strict=True)]
    assert classifier.summed(packed, 20) == expected
    assert classifier.summed(packed[: classifier.MAX_TERMS], 20) == [big * classifier.MAX_TERMS] * 20


def test_scores_are_the_softmax_of_the_whole_number_sums() -> None:
    """The packed scoring gives what adding each feature's weights label by label gives."""
    m = classifier.model()
    form = reading_form("拜託不要再一直給我素食店了")
    feats = [f for f in classifier.features(form, ["stop_again"]) if f in m.packed]
    sums = [
        b + sum(classifier.unpack(m.packed[f], 1, len(m.labels))[k] for f in feats)
        for k, b in enumerate(m.bias)
    ]
    exps = [math.exp((s - max(sums)) / m.scale) for s in sums]
    got = classifier.score(m, form, ["stop_again"])
    assert got.scores == pytest.approx({lab: e / sum(exps) for lab, e in zip(m.labels, exps, strict=True)})
    assert got.best == m.labels[sums.index(max(sums))]


def test_the_shipped_model_is_small_and_reads_back() -> None:
    assert classifier.MODEL.stat().st_size <= 1_000_000
    assert classifier.load(classifier.MODEL).labels == classifier.LABELS


def test_turn_labels_come_from_expectations() -> None:
    delete = {"text": "把我吃素的資料刪掉", "delete_request": True, "expect": {"outcome": "forgotten"}}
    stop = {"text": "不要再幫我過濾素食", "delete_request": True, "expect": {"outcome": "forgotten"}}
    assert turn_label(delete) == "delete"
    assert turn_label(stop) == "stop"
    assert turn_label({"text": "好", "expect": {"outcome": "consent_granted"}}) == "consent_yes"
    assert turn_label({"text": "員林", "expect": {"outcome": "ask_township"}}) == "search_places"
    assert turn_label({"text": "謝謝你", "expect": {"outcome": "short_answer"}}) == "smalltalk_thanks"
    assert turn_label({"tap": "同意", "expect": {"outcome": "consent_granted"}}) is None


def test_written_training_sentences_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "training.jsonl"
    path.write_text(
        '{"text": "好", "label": "consent_yes"}\n{"text": "嗯", "label": "maybe"}\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match="training.jsonl:2"):
        list(written_examples(path))


# Measured on the shipped model (python -m bench.intent_classifier); a retrained model that reads
# its own development half (the batches it learns from) worse than this has lost something.
DEV_ACCURACY_FLOOR = 0.97
DEV_PRIVACY_RECALL_FLOOR = 0.95


def test_the_shipped_model_reads_the_development_half() -> None:
    pairs = predict(list(phrasing_examples("dev", set(TRAINED_BATCHES))))
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    assert accuracy >= DEV_ACCURACY_FLOOR
    figures = per_class(pairs)
    for label in ("delete", "stop", "remember", "consent_yes", "show_kept"):
        recall = figures[label][1]
        assert recall is not None and recall >= DEV_PRIVACY_RECALL_FLOOR, label


@pytest.mark.slow
def test_retraining_reproduces_the_shipped_file() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.train_intents", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the same" in done.stdout
