"""The text gate: every text the model writes is checked before it reaches the chat.

The facts LOCAL shows (places, events, the consent question) are rendered by code from tool
results, and when a tool ran this turn its result is the reply and the model's words are dropped.
So the gate says what a model-written text *may* be, and refuses everything else:

* a short question back (「請問是哪個鄉鎮？」), a pointer to the buttons or the commands
  (「要刪除請按「確定忘記」」), or small talk — with no claim that anything was done or will be
  kept, and no fact;
* naming a diet only in the person's own 1:1 chat, only one their message named, only in a
  question; in a group or room no diet at all, and nowhere anyone else's.

Everything else gets a refusal code (the first rule that fires): a claim of an action (every verb
of the lexicon's delete, stop, remember, apply and show classes, and the gate's own outside actions,
in any aspect: 了, 已, 已經, 幫您…了, 為您…好了, …囉), a contact, an address, hours, a price or any
other number, another person's preference, a diet where none may be named, an empty text or one
longer than a LINE-friendly bound. A refused text is replaced by a fixed, honest one
(:data:`FALLBACK_TEXT`); a delete or remember claim is answered by the router with the forget
confirmation or the consent prompt instead. The refusal is logged and counted as its code, never
the text. The verbs, negations, question words and diets are read through ``language.lexicon``
(its interface only: ``words_of``); the gate's own words are ``gate_words``; the policy is
docs/design.md §9.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from local_agent.agent import gate_words as W
from local_agent.language import diets
from local_agent.language.lexicon import WORD_CLASSES, classes_of, words_of
from local_agent.language.patterns import alternatives
from local_agent.language.text import reading_form
from local_agent.language.utterance import Utterance

GateCode = Literal[
    "GATE_EMPTY",
    "GATE_ACTION_CLAIM",
    "GATE_PHONE",
    "GATE_LINK",
    "GATE_EMAIL",
    "GATE_ADDRESS",
    "GATE_HOURS",
    "GATE_PRICE",
    "GATE_NUMBER",
    "GATE_OTHER_PERSON",
    "GATE_DIET_IN_GROUP",
    "GATE_DIET_NOT_OWN",
    "GATE_DIET_NOT_ASKED",
    "GATE_TOO_LONG",
    "GATE_BESIDE_TOOL",
    "GATE_SECOND_CALL",
]
# What a refused claim was about: a delete wording gets the forget confirmation, a remember
# wording the consent prompt, anything else the fallback text.
ClaimAbout = Literal["forget", "remember", ""]
# Where the text would be sent (``ScopeKey.source_type``): the person's 1:1 chat, a group, a room.
Chat = Literal["user", "group", "room"]

FALLBACK_TEXT = (
    "這一句我沒辦法確認，所以不回答細節。我能幫您找彰化縣各鄉鎮的店家和活動，"
    "例如說「花壇有什麼好吃的」；電話和地址請向店家確認。"
)
# A text this many times over the bound is refused without being read.
_UNREAD_FACTOR = 8


@dataclass(frozen=True)
class Verdict:
    """The gate's answer for one text: ``code`` None means it may be sent as it is."""

    code: GateCode | None = None
    about: ClaimAbout = ""

    @property
    def ok(self) -> bool:
        return self.code is None


# -- the words a clause is read in ------------------------------------------------------------------
# The lexicon's verb classes, by what a claim of them is about; a class the lexicon may add (an undo
# phrase such as 恢復預設) is read when it is there.
_VERB_CLASSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("delete", ("delete_verb", "forget_verb", "undo_phrase")),
    ("stop", ("stop_verb",)),
    ("remember", ("remember_verb",)),
    ("apply", ("apply_verb",)),
    ("show", ("show_verb",)),
)
_KIND_ABOUT: dict[str, ClaimAbout] = {"delete": "forget", "stop": "forget", "remember": "remember"}
_PRIORITY: dict[ClaimAbout, int] = {"forget": 2, "remember": 1, "": 0}
_ABOUT: dict[str, ClaimAbout] = {"forget": "forget", "remember": "remember", "": ""}
_NEGATIONS = (*words_of("negation"), *W.NEGATIONS)
_ASPECT = words_of("aspect")
_DONE = (*W.DONE_MARKERS, *(w for w in _ASPECT if w not in W.HELPING and w not in W.DONE_ENDINGS))
_ENDINGS = tuple(
    sorted({*W.DONE_ENDINGS, *(w for w in _ASPECT if w in W.DONE_ENDINGS)}, key=len, reverse=True)
)


def _roles() -> dict[str, tuple[str, str]]:
    """Each word the gate reads a clause in, with its role (a verb's role is its kind); the first
    role given a word wins."""
    roles: dict[str, tuple[str, str]] = {}
    for kind, classes in _VERB_CLASSES:
        for word_class in classes:
            for word in words_of(word_class) if word_class in WORD_CLASSES else ():
                roles.setdefault(word.lower(), ("verb", kind))
    for word in W.OTHER_VERBS:
        roles.setdefault(word, ("verb", "other"))
    groups = (
        ("filler", (*W.NOT_DONE_MARKERS, *W.FILLERS)),
        ("done", _DONE),
        ("help", W.HELPING),
        ("offer", W.OFFERS),
        ("neg", _NEGATIONS),
        ("speaker", W.SPEAKER),
    )
    for role, words in groups:
        for word in words:
            roles.setdefault(word.lower(), (role, ""))
    return roles


_ROLES = _roles()
_TOKENS = re.compile(alternatives(_ROLES))
_QUESTION_WORDS = tuple(w.lower() for w in words_of("question"))
_DIETS = re.compile(alternatives([w.lower() for w in words_of("diet")]))
_OTHER_PEOPLE = tuple(w for w in (*W.OTHER_PEOPLE, *words_of("third_person")) if w not in W.NOT_OTHER_PEOPLE)
_PREFERENCE = (*W.PREFERENCE_WORDS, *(w.lower() for w in words_of("diet")))
_SENTENCES = re.compile(f"[^{W.SENTENCE_STOPS}]+[{W.SENTENCE_STOPS}]*")
_CLAUSES = re.compile(f"[^{W.CLAUSE_STOPS}]+")
_QUOTES = {"「": "」", "『": "』", "“": "”", '"': '"'}


def _facts() -> tuple[tuple[GateCode, tuple[re.Pattern[str], ...]], ...]:
    words = {"GATE_ADDRESS": W.ADDRESS_WORDS, "GATE_HOURS": W.HOURS_WORDS, "GATE_PRICE": W.PRICE_WORDS}
    rules: tuple[tuple[GateCode, tuple[str, ...]], ...] = (
        ("GATE_LINK", W.LINK_PATTERNS),
        ("GATE_EMAIL", W.EMAIL_PATTERNS),
        ("GATE_PHONE", W.PHONE_PATTERNS),
        ("GATE_HOURS", W.HOURS_PATTERNS),
        ("GATE_ADDRESS", W.ADDRESS_PATTERNS),
        ("GATE_PRICE", W.PRICE_PATTERNS),
    )
    out = []
    for code, patterns in rules:
        extra = words.get(code, ())
        shapes = (*patterns, alternatives(extra)) if extra else patterns
        out.append((code, tuple(re.compile(p) for p in shapes)))
    return tuple(out)


_FACTS = _facts()
_DATES = re.compile("|".join(f"(?:{p})" for p in W.DATE_PATTERNS))
_NUMBERS = re.compile("|".join(f"(?:{p})" for p in W.NUMBER_PATTERNS))


def _number(text: str) -> bool:
    """A digit or a counted measure outside the dates and years the text names."""
    return _NUMBERS.search(_DATES.sub("、", text)) is not None


def compact(text: str) -> str:
    """The text as the gate reads it: no ASCII or full-width spaces, no tabs."""
    return re.sub(r"[ \t\u3000]", "", text)


def _quoted(text: str) -> list[bool]:
    """For each character, whether it is inside 「」 (or 『』, quotation marks): a named button or
    command, an example of what to say."""
    mask = [False] * len(text)
    if not any(q in text for q in _QUOTES):
        return mask
    closing: list[str] = []
    for i, ch in enumerate(text):
        if closing and ch == closing[-1]:
            closing.pop()
        elif ch in _QUOTES:
            closing.append(_QUOTES[ch])
        else:
            mask[i] = bool(closing)
    return mask


def _sentences(text: str) -> Iterator[tuple[int, str]]:
    for match in _SENTENCES.finditer(text):
        yield match.start(), match.group()


@dataclass
class _Clause:
    """What came before the verb being read, in one clause (the latest position of each role)."""

    text: str
    asking: bool
    pointer: bool
    seen: dict[str, int]

    def after(self, role: str, other: str) -> bool:
        return self.seen.get(role, -1) > self.seen.get(other, -1)


@dataclass
class _Verb:
    """One verb of a clause, or several said together (「停止套用」): where it is and what it is about."""

    start: int
    end: int
    word: str
    kinds: set[str]
    quoted: bool

    @property
    def about(self) -> ClaimAbout:
        if self.word.startswith(_NEGATIONS) and self.kinds & {"remember", "apply"}:
            return "forget"  # one word that negates a remember or apply (「不記了」) claims a stop
        return max((_KIND_ABOUT.get(k, "") for k in self.kinds), key=_PRIORITY.__getitem__)

    @property
    def rank(self) -> tuple[bool, bool, int]:
        """A verb that is not also a done-ending (完成) first, then one that is not also a thing kept
        (設定, 記錄), then a delete before a remember."""
        kept = "memory_object" in classes_of(self.word)
        return self.word not in _ENDINGS, not kept, _PRIORITY[self.about]


def _verb_claims(clause: _Clause, verb: _Verb) -> ClaimAbout | None:
    """What the verb claims, or None when it claims nothing (the rules are ``gate_words``)."""
    rest = clause.text[verb.end :]
    if clause.after("neg", "done"):
        # A denial (「還沒有幫您刪除」, 「目前已經無法預約」), unless a negated remember or apply is
        # said as done: 「以後不記了」, 「不套用囉」 claim a stop.
        stopped = verb.kinds & {"remember", "apply"} and rest.startswith(W.STOPPED_ENDINGS)
        adjacent = clause.text[: verb.start].endswith(_NEGATIONS)
        return "forget" if stopped and adjacent else None
    if "done" in clause.seen:
        return verb.about
    ending = next((e for e in _ENDINGS if rest.startswith(e)), "" if verb.word.endswith(_ENDINGS) else None)
    if ending is not None and not rest[len(ending) :].startswith(W.ASKED_AFTER):
        return verb.about
    if verb.quoted:
        return None  # 「請按「確定忘記」」 names a button
    helped = "help" in clause.seen
    if helped and any(e in rest for e in W.STOPPED_ENDINGS):
        return verb.about  # 幫您…了, 為您…好了
    if clause.asking or clause.pointer or "offer" in clause.seen:
        return None  # a question back, a pointer, an offer
    by_speaker = "speaker" in clause.seen and len(verb.word) >= 2 and not verb.word.startswith(_NEGATIONS)
    return verb.about if helped or by_speaker else None


def _clause_claim(text: str, asking: bool, quoted: list[bool]) -> ClaimAbout | None:
    """What the clause's claims are about: the first by :attr:`_Verb.rank` (「已經把飲食設定套用了」
    applies; 「已經把設定歸零」 deletes)."""
    clause = _Clause(text, asking, any(p in text for p in W.POINTERS), {})
    claimed: list[tuple[tuple[bool, bool, int], ClaimAbout]] = []
    verb: _Verb | None = None

    def read(verb: _Verb | None) -> None:
        about = _verb_claims(clause, verb) if verb is not None else None
        if verb is not None and about is not None:
            claimed.append((verb.rank, about))

    for match in _TOKENS.finditer(text):
        role, kind = _ROLES[match.group()]
        if role == "verb" and verb is not None and verb.end == match.start() and verb.rank[1]:
            verb.end, verb.word = match.end(), verb.word + match.group()
            verb.kinds.add(kind)
            continue
        read(verb)
        verb = None
        if role == "verb":
            verb = _Verb(match.start(), match.end(), match.group(), {kind}, quoted[match.start()])
            continue
        clause.seen[role] = match.start()
    read(verb)
    return max(claimed)[1] if claimed else None


def _clauses(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each clause with its offset, and whether it asks: it holds one of the lexicon's question words,
    or it ends a sentence that ends with a question mark (「我幫您刪除，可以嗎？」 asks only in its
    second clause)."""
    for match in _SENTENCES.finditer(text):
        sentence = match.group()
        marked = sentence.rstrip("。！!；;\n").endswith(W.QUESTION_ENDINGS)
        clauses = list(_CLAUSES.finditer(sentence))
        for i, clause in enumerate(clauses):
            words = any(q in clause.group() for q in _QUESTION_WORDS)
            yield match.start() + clause.start(), clause.group(), words or (marked and i == len(clauses) - 1)


def _claim(text: str) -> ClaimAbout | None:
    """What the first claim of an action is about, or None when the text claims nothing."""
    for kind, phrases in (*W.PROMISES, *W.ENGLISH_CLAIMS):
        if any(p in text for p in phrases):
            return _ABOUT[kind]
    quoted = _quoted(text)
    for start, clause, asking in _clauses(text):
        about = _clause_claim(clause, asking, quoted[start : start + len(clause)])
        if about is not None:
            return about
    return None


def _other_person(text: str) -> bool:
    """A sentence that names someone else and a preference or diet (「他吃素」, 「大家的偏好」)."""
    for _, sentence in _sentences(text.replace("其他人", "別人").replace("其他", "")):
        if any(p in sentence for p in _OTHER_PEOPLE) and any(w in sentence for w in _PREFERENCE):
            return True
    return False


def _diet_key(word: str) -> str:
    return diets.find_diet(word) or word


def own_diets(said: Utterance | str) -> frozenset[str]:
    """The diets the person's own message names (codes, or the word when it has none); none when the
    message names someone else too (「我媽吃全素」 is not the speaker's diet). The message is read in
    the language layer's reading form (「我食菜」 names 吃素): the ``Utterance``'s, or a text's."""
    t = said.form if isinstance(said, Utterance) else reading_form(said)
    if any(p in t for p in _OTHER_PEOPLE):
        return frozenset()
    return frozenset(_diet_key(m.group()) for m in _DIETS.finditer(t))


def _diet(text: str, chat: Chat, said: Utterance | str) -> GateCode | None:
    """Where the text may not name the diet it names (module docstring)."""
    hits = list(_DIETS.finditer(text))
    if not hits:
        return None
    if chat != "user":
        return "GATE_DIET_IN_GROUP"
    quoted = _quoted(text)
    own = own_diets(said)
    for start, clause, asking in _clauses(text):
        named = [m for m in hits if start <= m.start() < start + len(clause) and not quoted[m.start()]]
        if any(_diet_key(m.group()) not in own for m in named):
            return "GATE_DIET_NOT_OWN"
        if named and not asking:
            return "GATE_DIET_NOT_ASKED"
    return None


def check(text: str | None, *, chat: Chat = "group", said: Utterance | str = "") -> Verdict:
    """The verdict on one model-written text (all of a turn's text parts, joined), to be sent in
    ``chat`` as the answer to the person's message ``said`` (its ``Utterance``; a text is read here). Without a chat the strictest (a group)."""
    raw = (text or "").strip()
    if not raw:
        return Verdict("GATE_EMPTY")
    if len(raw) > W.MAX_CHARS * _UNREAD_FACTOR:
        return Verdict("GATE_TOO_LONG")
    flat = compact(raw).lower()
    about = _claim(flat)
    if about is not None:
        return Verdict("GATE_ACTION_CLAIM", about)
    for code, patterns in _FACTS:
        if any(p.search(flat) for p in patterns):
            return Verdict(code)
    if _number(flat):
        return Verdict("GATE_NUMBER")
    if _other_person(flat):
        return Verdict("GATE_OTHER_PERSON")
    diet = _diet(flat, chat, said)
    if diet is not None:
        return Verdict(diet)
    if len(raw) > W.MAX_CHARS or raw.count("\n") >= W.MAX_LINES:
        return Verdict("GATE_TOO_LONG")
    return Verdict()


__all__ = ["FALLBACK_TEXT", "Chat", "ClaimAbout", "GateCode", "Verdict", "check", "compact", "own_diets"]
