"""The text gate: every text the model writes is checked before it reaches the chat.

A model-written text may only be a short answer that claims no action and carries no fact: the
facts LOCAL shows (places, events, the consent question) are rendered by code from tool results,
and when a tool ran this turn its result is the reply and the model's words are dropped. A text
is refused when it

* claims something was done (remembered, deleted, booked, called, sent, ...), unless negated;
* carries a phone number, a link, an e-mail address, a street address, opening hours or a price;
* mentions another person's dietary preference;
* is empty (whitespace or thoughts only) or longer than a LINE-friendly bound.

A refused text is replaced by a fixed, honest one (:data:`FALLBACK_TEXT`); a delete or remember
wording is answered by the router with the forget confirmation or the consent prompt instead. The
refusal is logged and counted as its code, never the text. The vocabulary is data in
``gate_words``; the rules are docs/design.md §9. Stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from local_agent.agent import gate_words as W

GateCode = Literal[
    "GATE_EMPTY",
    "GATE_ACTION_CLAIM",
    "GATE_PHONE",
    "GATE_LINK",
    "GATE_EMAIL",
    "GATE_ADDRESS",
    "GATE_HOURS",
    "GATE_PRICE",
    "GATE_OTHER_PERSON",
    "GATE_TOO_LONG",
    "GATE_BESIDE_TOOL",
    "GATE_SECOND_CALL",
]
# What a refused claim was about: a delete wording gets the forget confirmation, a remember
# wording the consent prompt, anything else the fallback text.
ClaimAbout = Literal["forget", "remember", ""]

FALLBACK_TEXT = (
    "這一句我沒辦法確認，所以不回答細節。我能幫您找彰化縣各鄉鎮的店家和活動，"
    "例如說「花壇有什麼好吃的」；電話和地址請向店家確認。"
)


@dataclass(frozen=True)
class Verdict:
    """The gate's answer for one text: ``code`` None means it may be sent as it is."""

    code: GateCode | None = None
    about: ClaimAbout = ""

    @property
    def ok(self) -> bool:
        return self.code is None


def _compile(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


_FACTS: tuple[tuple[GateCode, tuple[re.Pattern[str], ...]], ...] = (
    ("GATE_LINK", _compile(W.LINK_PATTERNS)),
    ("GATE_EMAIL", _compile(W.EMAIL_PATTERNS)),
    ("GATE_PHONE", _compile(W.PHONE_PATTERNS)),
    ("GATE_HOURS", _compile(W.HOURS_PATTERNS)),
    ("GATE_ADDRESS", _compile(W.ADDRESS_PATTERNS)),
    ("GATE_PRICE", _compile(W.PRICE_PATTERNS)),
)
_CLAIMS: tuple[tuple[ClaimAbout, tuple[str, ...]], ...] = (
    ("forget", W.FORGET_CLAIMS),
    ("remember", W.REMEMBER_CLAIMS),
    ("", W.OTHER_CLAIMS),
)
_SENTENCE = re.compile(r"[。！？!?；;\n]")


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _claim_patterns(verbs: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(done-marker … verb, verb + done-ending) for one group of action verbs."""
    marked = (
        f"(?<!而)(?:{_alternation(W.DONE_MARKERS)})"
        f"(?P<gap>[^{W.CLAUSE_STOPS}]{{0,{W.CLAIM_GAP}}}?)(?:{_alternation(verbs)})"
    )
    ended = f"(?:{_alternation(verbs)})(?:{_alternation(W.DONE_ENDINGS)})"
    return re.compile(marked), re.compile(ended)


_CLAIM_PATTERNS: tuple[tuple[ClaimAbout, tuple[re.Pattern[str], re.Pattern[str]]], ...] = (
    ("forget", _claim_patterns(W.FORGET_VERBS)),
    ("remember", _claim_patterns(W.REMEMBER_VERBS)),
    ("", _claim_patterns(W.OTHER_VERBS)),
)


def compact(text: str) -> str:
    """The text as the gate reads it: no ASCII or full-width spaces, no tabs."""
    return re.sub(r"[ \t\u3000]", "", text)


def _claimed_word(text: str, words: tuple[str, ...]) -> bool:
    """One of ``words`` occurs, not right after a negation."""
    for word in words:
        start = text.find(word)
        while start != -1:
            if not text[:start].endswith(W.NEGATIONS):
                return True
            start = text.find(word, start + 1)
    return False


def _claimed_pattern(text: str, marked: re.Pattern[str], ended: re.Pattern[str]) -> bool:
    """A done-marker … verb with no negation between, or a verb + done-ending not after a negation."""
    for match in marked.finditer(text):
        if not any(n in match.group("gap") for n in W.NEGATIONS):
            return True
    return any(not text[: m.start()].endswith(W.NEGATIONS) for m in ended.finditer(text))


def _claim(text: str) -> ClaimAbout | None:
    """What the first claim of a done action is about, or None when the text claims nothing."""
    for about, words in _CLAIMS:
        if _claimed_word(text, words):
            return about
    for about, (marked, ended) in _CLAIM_PATTERNS:
        if _claimed_pattern(text, marked, ended):
            return about
    if _claimed_word(text, W.PROMISES):
        return "remember"
    return None


def _other_person(text: str) -> bool:
    """A sentence that names someone else and a preference or diet (「他吃素」, 「大家的偏好」)."""
    for sentence in _SENTENCE.split(text.replace("其他人", "別人").replace("其他", "")):
        if any(p in sentence for p in W.OTHER_PEOPLE) and any(w in sentence for w in W.PREFERENCE_WORDS):
            return True
    return False


def check(text: str | None) -> Verdict:
    """The verdict on one model-written text (all of a turn's text parts, joined)."""
    raw = (text or "").strip()
    if not raw:
        return Verdict("GATE_EMPTY")
    flat = compact(raw)
    about = _claim(flat.lower())
    if about is not None:
        return Verdict("GATE_ACTION_CLAIM", about)
    for code, patterns in _FACTS:
        if any(p.search(flat) for p in patterns):
            return Verdict(code)
    if any(word in flat for word in W.HOURS_WORDS):
        return Verdict("GATE_HOURS")
    if _other_person(flat):
        return Verdict("GATE_OTHER_PERSON")
    if len(raw) > W.MAX_CHARS or raw.count("\n") >= W.MAX_LINES:
        return Verdict("GATE_TOO_LONG")
    return Verdict()


__all__ = ["FALLBACK_TEXT", "ClaimAbout", "GateCode", "Verdict", "check", "compact"]
