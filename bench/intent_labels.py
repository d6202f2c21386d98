"""Labelled sentences for the intent classifier (``local_agent.language.classifier``), from the corpora here.

One mapping from what a corpus expects of a turn to a classifier label, used alike by the training
(``bench.train_intents``) and the figures (``bench.intent_classifier``):

- the phrasing corpus (``bench/data/phrasings.jsonl``): a turn marked ``delete_request`` is *stop*
  when its words are a stop (a stop class of the lexicon and no delete verb), else *delete*; a
  consent prompt is *remember*; 「consent granted」 *consent_yes*, 「not granted」 *consent_no* when its
words hold a negation or a hesitation (else no label: a remark made while the prompt waited); what
  is kept *show_kept*; help *help*; a search its tool's label, and a township question, a township
  confirmation or 「only Changhua」 the search their words name (an event word → events, else
  places); a short answer the small-talk kind its lexicon classes name (else *chat*); a diet kept,
  no consent prompt or an honest "cannot do that" *other*. A turn with none of these (a tap, a
  preference question alone, a township read inside a longer word) has no label.
- the generated conversations of ``bench.conversations``: each step's expectation the same way.
- the rule examples of ``language.rules``: each rule's ``matches`` with the rule's reading.
- ``bench/data/intent_training.jsonl``: sentences written for the classifier, ``{"text", "label"}``.

Only the training takes the phrasing corpus's development half (``phrasings.half_of``), of the
batches in ``TRAINED_BATCHES``; its test half is only ever scored. A new blind batch stays out of
the training whole until its first score is taken, so that score says what the learned reader does
on sentences it never saw; after that its development half is training data like the others'.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from local_agent.language import lexicon
from local_agent.language.classifier import LABELS, SMALL_TALK_KINDS
from local_agent.language.text import reading_form

TRAINING = Path(__file__).parent / "data" / "intent_training.jsonl"
STOP_CLASSES = frozenset({"stop_verb", "stop_lead", "stop_again", "bare_stop", "apply_verb"})
# Words that make a search an event search when the expectation does not name the tool.
EVENT_WORDS = ("活動", "市集", "展覽", "展", "表演", "節", "祭", "演唱", "燈會", "廟會", "音樂會", "晚會")
TALK_CLASSES = {
    "thanks_word": "thanks",
    "goodbye": "goodbye",
    "compliment": "compliment",
    "complaint": "complaint",
    "health": "health",
    "weather": "weather",
    "bot_question": "bot_question",
    "visited": "visited",
}
RULE_LABELS = {
    "delete": "delete",
    "delete_that": "delete",
    "stop": "stop",
    "remember": "remember",
    "show": "show_kept",
    "keep": "other",
    "forgot_before": "other",
    "self_forgot": "other",
    "other_diet": "other",
    "delete_other": "other",
    **{kind: f"smalltalk_{kind}" for kind in TALK_CLASSES.values()},
}


@dataclass(frozen=True)
class Example:
    text: str
    label: str
    source: str  # "phrasings:<id>", "conversations", "rules:<name>", "written:<line>"


def classes(form: str) -> list[str]:
    """The lexicon classes in reading-form ``form``, sorted (what the classifier's caller passes)."""
    return sorted({c for token in lexicon.tokens(form) for c in token.classes})


def _search_by_words(text: str) -> str:
    return "search_events" if any(w in reading_form(text) for w in EVENT_WORDS) else "search_places"


def talk_label(text: str) -> str:
    found = set(classes(reading_form(text)))
    kind = next((k for c, k in TALK_CLASSES.items() if c in found), None)
    if kind is None and _is_greeting(reading_form(text)):
        kind = "greeting"
    return f"smalltalk_{kind or 'chat'}"


def _is_greeting(form: str) -> bool:
    from local_agent.language import words

    core = form
    for filler in words.GREETING_FILLERS:
        core = core.replace(filler, "")
    return core.rstrip("~!?") in words.GREETING_WORDS


def _delete_label(text: str) -> str:
    found = set(classes(reading_form(text)))
    return "stop" if found & STOP_CLASSES and "delete_verb" not in found else "delete"


def _outcome_label(expect: dict[str, Any], text: str) -> str | None:
    outcome = expect.get("outcome")
    if outcome in ("search", "search_each"):
        return "search_places" if expect.get("tool") == "places" else "search_events"
    if outcome in ("ask_township", "confirm_township", "only_changhua"):
        return _search_by_words(text)
    fixed = {
        "consent_prompt": "remember",
        "consent_granted": "consent_yes",
        "kept_answer": "show_kept",
        "help": "help",
        "kept": "other",
        "no_consent_prompt": "other",
        "honest_unsupported": "other",
    }
    if outcome == "short_answer":
        return talk_label(text)
    if outcome == "not_granted":  # a no, or anything else said while the prompt waited
        said = set(classes(reading_form(text)))
        return "consent_no" if said & {"negation", "hesitation"} else None
    return fixed.get(str(outcome))


# Which alternative of an "any" expectation names the turn, first found first.
_ORDER = ("consent_prompt", "kept_answer", "consent_granted", "search", "search_each", "help", "short_answer")


def turn_label(turn: dict[str, Any]) -> str | None:
    """The label of one phrasing-corpus turn, or None (see the module docstring)."""
    text = turn.get("text")
    if not isinstance(text, str):
        return None
    if turn.get("delete_request"):
        return _delete_label(text)
    expect = turn.get("expect") or {}
    if turn.get("remember_request"):
        return "remember"
    options = expect.get("any", expect.get("all"))
    if options is None:
        return _outcome_label(expect, text)
    for outcome in _ORDER:
        chosen = next((o for o in options if o.get("outcome") == outcome), None)
        if chosen is not None:
            return _outcome_label(chosen, text)
    return None


def phrasing_examples(half: str, batches: set[int] | None = None) -> Iterator[Example]:
    """The labelled text turns of the phrasing corpus's ``half`` ("dev" or "test"), of ``batches`` only
    when given."""
    from bench.phrasings import load_corpus

    for item in load_corpus():
        if item.half != half or (batches is not None and item.batch not in batches):
            continue
        for turn in item.turns:
            label = turn_label(turn)
            if label is not None:
                yield Example(turn["text"], label, f"phrasings:{item.id}")


def conversation_examples() -> Iterator[Example]:
    """The text steps of ``bench.conversations``' generated corpus (its default seed and size)."""
    from bench import conversations as conv

    fixed = {
        **{t: "search_places" for t in (*conv.PLACE_OPENERS, *conv.PLACE_REFS)},
        **{t: "search_events" for t in (*conv.EVENT_OPENERS, *conv.EVENT_REFS)},
        **{t: "remember" for t, _ in conv.DIETS},
        **{t: "other" for t in conv.NEGATED_FORGET},
        **{t: "delete" for t in conv.QUESTION_FORGET},
        "忘記我的飲食偏好": "delete",
    }
    seen: set[tuple[str, str]] = set()
    for c in conv.build_corpus():
        for step in c.steps:
            if step.action != "text":
                continue
            label = _step_label(step, fixed, conv)
            if label is not None and (step.text, label) not in seen:
                seen.add((step.text, label))
                yield Example(step.text, label, "conversations")


def _step_label(step: Any, fixed: dict[str, str], conv: Any) -> str | None:
    if step.expect == "search":
        return "search_places" if step.tool == conv.PLACES else "search_events"
    if step.expect == "help":
        return "help"
    return fixed.get(step.text)  # else none: unaddressed group chatter says nothing of its intent


def rule_examples() -> Iterator[Example]:
    """Every rule's ``matches``, with the label of the rule's reading (rules whose reading is no
    label of its own, exclusion or hesitation, are left out)."""
    from local_agent.language import rules

    for rule in rules.RULES:
        label = RULE_LABELS.get(rule.reading)
        if label is not None:
            for sentence in rule.matches:
                yield Example(sentence, label, f"rules:{rule.name}")


def written_examples(path: Path = TRAINING) -> Iterator[Example]:
    """The sentences written for the classifier: one ``{"text", "label"}`` object a line; a line
    that is not one, or names an unknown label, is a ValueError naming the file and line."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except ValueError:
            raise ValueError(f"{path.name}:{n}: not a JSON object") from None
        if (
            not isinstance(raw, dict)
            or not isinstance(raw.get("text"), str)
            or raw.get("label") not in LABELS
        ):
            raise ValueError(f"{path.name}:{n}: needs a text and one of classifier.LABELS as label")
        yield Example(raw["text"], raw["label"], f"written:{n}")


# The phrasing corpus's batches whose development half the classifier learns from. A blind batch
# joins only after its first score was taken (see the module docstring).
TRAINED_BATCHES = frozenset(range(1, 178))


def training_examples(path: Path = TRAINING) -> list[Example]:
    """Everything the classifier is trained on, in a fixed order."""
    phrasings = phrasing_examples("dev", set(TRAINED_BATCHES))
    return [*phrasings, *conversation_examples(), *rule_examples(), *written_examples(path)]


assert set(RULE_LABELS.values()) <= set(LABELS) and all(f"smalltalk_{k}" in LABELS for k in SMALL_TALK_KINDS)
