"""The decision on a message, from two readers: the rules (``intents``, ``rules.py``) and the learned
classifier (``classifier.py``), combined so that privacy comes first.

- **act** when the rules and the classifier agree with high confidence (or the rules are sure and the
  classifier does not disagree with confidence);
- **ask** with buttons when they disagree or the confidence is middling: for anything that touches the
  kept preference (remember, delete, stop, consent, what is kept) the answer is a question, never an
  action and never silence;
- **pass** when both say other (the search or the model reads it).

Delete, stop and a consent grant are never taken on the classifier alone: at most they make the
answer a question (the 確定忘記 / 不用 buttons, the consent prompt again). Every decision carries its
reasons (which rule, which label with what score), kept with the ``Utterance``.

The classifier is optional at run time: :data:`CLASSIFIER` is ``None`` when the module or its weights
are absent, and the policy is then the rules' reading alone (reason ``classifier:absent``).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Literal, Protocol

from local_agent.language import rules
from local_agent.language.intents import Intent, Reading
from local_agent.language.text import has_words_form

Outcome = Literal["act", "ask", "pass"]
HIGH = 0.75  # the classifier is sure at or above this score
MIDDLE = 0.45  # below this it is unsure; between the two, middling
CERTAIN = 0.9  # sure enough to act where the rules read two things at once
# Labels of the classifier that touch the kept preference.
PREFERENCE_LABELS = frozenset({"remember", "delete", "stop", "show_kept", "consent_yes", "consent_no"})
# Intents that are an act on the kept preference (what the rules must say for the act).
_ACTS: dict[str, str] = {
    "forget": "delete",
    "show_kept": "show_kept",
    "remember": "remember",
    "consent_yes": "consent_yes",
    "consent_no": "consent_no",
}
# Intents that already ask (a question with buttons) or decline: the classifier never makes them act.
_ASKS = frozenset({"forget_confirm", "preference_question", "consent_unclear", "forget_declined"})
# The lexicon classes that name the kept thing (a diet, 偏好, 紀錄).
_KEPT_NAMED = frozenset({"diet", "memory_object"})


class Scores(Protocol):
    """What ``classifier.classify`` returns (``IntentScores``)."""

    @property
    def scores(self) -> Mapping[str, float]: ...

    @property
    def best(self) -> str: ...

    @property
    def confidence(self) -> float: ...


@dataclass(frozen=True)
class Decision:
    outcome: Outcome
    reading: Reading  # what the consumers act on (an ask is forget_confirm, preference_question …)
    rules_label: str  # the rules' reading as one of the classifier's labels
    reasons: tuple[str, ...]


def _load() -> ModuleType | None:
    try:
        return importlib.import_module("local_agent.language.classifier")
    except (ImportError, OSError, ValueError):
        return None  # no classifier (or no weights): the rules alone decide


CLASSIFIER = _load()


def classify(form: str, classes: Iterable[str]) -> Scores | None:
    """The classifier's scores for reading-form ``form``, or None without a classifier or without a
    word to read (「！？…」: marks alone are nobody's request)."""
    if CLASSIFIER is None or not has_words_form(form):
        return None
    found: Scores = CLASSIFIER.classify(form, classes)
    return found


def label_of(reading: Reading, goal: str | None, kinds: frozenset[str]) -> str:
    """The rules' reading as a classifier label (``classifier.LABELS``)."""
    intent = reading.intent
    if intent in ("forget", "forget_confirm"):
        return "stop" if "stop" in kinds and not kinds & {"delete", "delete_that"} else "delete"
    if intent in _ACTS:
        return _ACTS[intent]
    if intent == "search":
        return "search_events" if goal == "events" else "search_places"
    if intent == "help":
        return "help"
    if intent in ("greeting", "thanks"):
        return f"smalltalk_{intent}"
    if intent == "small_talk" and reading.talk:
        return f"smalltalk_{reading.talk}"
    return "other"


def decide(
    reading: Reading,
    goal: str | None,
    kinds: frozenset[str],
    scores: Scores | None,
    diet: str | None = None,
    *,
    named_search: bool = True,
    classes: frozenset[str] = frozenset(),
    supposed: bool = False,
    stop_classes: frozenset[str] = frozenset(),
    kept_named: bool = True,
    ended: bool = False,
    stated: bool = False,
    undo_clause: str = "kept",
    undos: int = 0,
    place_named: bool = False,
    by_another: bool = False,
) -> Decision:
    """The outcome for the rules' ``reading`` (``kinds``: its clauses' rule readings; ``diet``: the
    rememberable diet named) beside the classifier's ``scores`` (module docstring). What the sentence
    holds: ``named_search``, a place or a search named in words other than a diet (without it a
    rules' search is weak); ``classes``, its lexicon classes; ``supposed`` (如果, 萬一: no stop acted
    on); ``stop_classes``, the classes of the clauses read as a stop; ``kept_named``, no record the
    service never keeps (「記住我的電話」); ``ended``, a diet no longer eaten; ``stated``, a diet only
    stated; ``undo_clause``, where an undo stands beside a search; ``undos``, its undo words;
    ``place_named``, a township; ``by_another``, a delete someone else does (``utterance``'s readers)."""
    ruled = label_of(reading, goal, kinds)
    why = (f"rules:{reading.intent}", *(f"rule:{k}" for k in sorted(kinds)))
    if scores is None:
        return Decision(_outcome_alone(reading, ruled), reading, ruled, (*why, "classifier:absent"))
    best, sure = scores.best, scores.confidence
    why = (*why, f"classifier:{best}:{sure:.2f}")
    agreed = None if supposed else _undone_by_both(reading, kinds, best, sure, stop_classes, classes, ended)
    if agreed is not None:
        return Decision("act", Reading("forget"), ruled, (*why, agreed))
    first = _first_asks(reading, ruled, (best, sure), diet, classes, kinds, stop_classes, stated, why)
    if (first := first or _their_diet_given_up(reading, ruled, kinds, best, why)) is not None:
        return first
    if reading.intent in _ASKS:
        named = "place" if place_named else "search" if named_search else ""
        return _rules_ask(reading, ruled, (best, sure), classes, why, kinds, named, undos)
    if ruled not in PREFERENCE_LABELS and (undoing := _undoing_unread(scores, named_search, classes, kinds)):
        return Decision("ask", Reading("forget_confirm"), ruled, (*why, undoing))
    if (elses := _someone_elses(reading, ruled, kinds, named_search, by_another, why)) is not None:
        return elses
    if ruled == best or {ruled, best} <= _UNDOING:  # (a delete and a stop both undo: their scores add)
        where = undo_clause if named_search and goal is not None and reading.intent == "forget" else ""
        return _agreed(reading, ruled, scores, kinds, why, where, classes)
    if (by := _aside(reading, ruled, scores, named_search, kinds, why, undo_clause, classes)) is not None:
        return by
    if ruled in PREFERENCE_LABELS:
        return _rules_touch(reading, ruled, best, sure, scores, why, kinds, classes)
    if (remark := _remark(reading, kinds, scores, named_search, classes)) is not None:
        return Decision("pass", remark, ruled, (*why, "a remark, no search named: small talk"))
    named_search = named_search and not _asks_what_was_told(scores, classes, place_named)
    return _no_act_read(reading, ruled, scores, why, diet, named_search, classes, kept_named)


def _their_diet_given_up(
    reading: Reading, ruled: str, kinds: frozenset[str], best: str, why: tuple[str, ...]
) -> Decision | None:
    """「我兒子說他不要再吃素了 我還是照舊 找員林的餐廳」: the undo the classifier hears is someone else's
    own diet given up, the speaker's kept as before (the rules' search says so): the search."""
    if reading.intent == "search" and "other_diet" in kinds and best in _UNDOING:
        return Decision("pass", reading, ruled, (*why, "someone else's diet given up, the speaker's kept"))
    return None


def _asks_what_was_told(scores: Scores, classes: frozenset[str], place_named: bool) -> bool:
    """「我之前有叫你記什麼吃的嗎」, 「我敢有共恁講過我食啥」: no township, a remembering verb or what the
    speaker eats asked, and a classifier certain that what is kept is asked: the food words name no
    search (showing what is kept changes nothing)."""
    told = bool(classes & {"remember_verb", "eats_what"})
    return told and not place_named and scores.best == "show_kept" and scores.confidence >= CERTAIN


def _someone_elses(
    reading: Reading,
    ruled: str,
    kinds: frozenset[str],
    named_search: bool,
    by_another: bool,
    why: tuple[str, ...],
) -> Decision | None:
    """A delete the rules act on that may be someone else's or of another thing: asked, even where
    both readers agree."""
    if reading.intent != "forget":
        return None
    if by_another and "stop" not in kinds:
        # 「孫子說要刪掉素食那個」: someone else is the one who deletes: told of, or theirs to do
        return Decision("ask", Reading("forget_confirm"), ruled, (*why, "a delete someone else does: ask"))
    if ruled in _UNDOING and "other_named" in kinds and not named_search:
        # 「…的訂單取消了 那個也刪掉」: a clause names another thing of the person's beside the undo, so
        # which one goes is theirs to say
        return Decision("ask", Reading("forget_confirm"), ruled, (*why, "another thing named beside: ask"))
    return None


def _talk_score(scores: Scores) -> float:
    """How sure the classifier is that the sentence is small talk, of whatever kind."""
    return sum(v for label, v in scores.scores.items() if label.startswith("smalltalk_"))


def _undo_score(scores: Scores) -> float:
    """How sure the classifier is that the sentence undoes what is kept, by a delete or a stop."""
    return sum(scores.scores.get(label, 0.0) for label in _UNDOING)


def _agreed(
    reading: Reading,
    ruled: str,
    scores: Scores,
    kinds: frozenset[str],
    why: tuple[str, ...],
    beside: str = "",
    classes: frozenset[str] = frozenset(),
) -> Decision:
    """Both readers read the same. An undo agreed on, but not surely, is asked about; where the table
    read a stop and a delete in two clauses (「吃齋那個不用記了 清掉它」) the request is said twice and
    acted on, and so is one beside a search (``beside``: where the undo stands, ``utterance._undo_clause``)
    that the classifier reads at least middling, with the search's score making it sure. What is kept asked beside
    a delete of 「that」 is acted on only when the classifier is certain, and what is kept, agreed on but
    not surely beside the words of a stop, is the three-way question."""
    sure = scores.confidence if ruled == scores.best else _undo_score(scores)  # (a delete and a stop add)
    # (beside a search, the classifier's scores split between the undo and the search: both read)
    split = sure + max(scores.scores.get("search_places", 0.0), scores.scores.get("search_events", 0.0))
    twice = len(kinds & UNDO_READINGS) >= 2 or (beside == "kept" and sure >= MIDDLE and split >= HIGH)
    if ruled == "remember" and "complaint" in kinds and "remember_verb" not in classes:
        # lasting words beside a diet in a complaint, no verb of remembering (「每次都給我素的 煩耶」):
        # keep it or stop it is the person's to say, even where the classifier reads a remember too
        asked = Reading("preference_question")
        return Decision("ask", asked, ruled, (*why, "a remember read in a complaint: the three-way question"))
    if ruled == "show_kept" and kinds & UNDO_READINGS:
        # what is kept, read by both, beside a stop or delete the table read in a clause of its own
        # (「你都找什麼素的 … 不要再這樣找 也不要再記」): keep, delete or look is the person's to choose
        asked = Reading("preference_question")
        return Decision("ask", asked, ruled, (*why, "what is kept beside an undo the table read: ask"))
    if ruled in _UNDOING and beside == "other":
        # 「學校叫我刪除電腦裡的學生資料 … 幫我找田中的素食午餐」: the table read the undo of another thing
        # (no diet in its clause) beside a named search: the search, whatever the classifier says
        return Decision("pass", Reading("search"), ruled, (*why, "another thing deleted: the search"))
    if ruled in _UNDOING and {"show", "delete_that"} <= kinds and sure < CERTAIN:
        # 「你存了我什麼 那個刪掉」: what is kept asked, and a delete of 「that」, which may be what
        # is shown or something else: keep, delete or look is the person's to choose
        return Decision(
            "ask", Reading("preference_question"), ruled, (*why, "asked what is kept beside a delete of that")
        )
    if ruled == "show_kept" and sure < HIGH and {"negation", "remember_verb"} <= classes:
        # what is kept, agreed on but not surely, said with the words of a stop (a negation and a
        # remembering verb the table read no rule of): showing it is one answer of the three-way question
        return Decision(
            "ask",
            Reading("preference_question"),
            ruled,
            (*why, "what is kept, not surely, beside a stop's words"),
        )
    if ruled in _UNDOING and sure < HIGH and not twice:
        return Decision("ask", Reading("forget_confirm"), ruled, (*why, "agree, not surely: ask"))
    outcome: Outcome = "pass" if ruled == "other" else "act"
    return Decision(outcome, reading, ruled, (*why, "agree"))


def _first_asks(
    reading: Reading,
    ruled: str,
    read: tuple[str, float],
    diet: str | None,
    classes: frozenset[str],
    kinds: frozenset[str],
    stop_classes: frozenset[str],
    stated: bool,
    why: tuple[str, ...],
) -> Decision | None:
    """A remember the rules missed gets the consent prompt; a stop of other people's is asked about, and
    so is what is kept, named undecided (unless the classifier is sure of something else)."""
    others = _of_others(kinds, stop_classes)
    missed = _remember_missed(reading, ruled, read, diet, classes, kinds, others, stated)
    if missed:
        return Decision("ask", Reading("remember", diet=diet), ruled, (*why, missed))
    if others and reading.intent == "forget":
        return Decision("ask", Reading("forget_confirm"), ruled, (*why, "a stop of other people's: ask"))
    if (
        "hesitant" in kinds
        and classes & _KEPT_NAMED
        and reading.intent in ("search", "unknown", "small_talk")
        and not (read[1] >= HIGH and (read[0].startswith("search_") or read[0] == "show_kept"))
    ):
        # 「那你記的那個要不要改」: undecided about what is kept, where the classifier is not sure of
        # a search or of what is kept shown
        return Decision(
            "ask", Reading("preference_question"), ruled, (*why, "undecided about what is kept: ask")
        )
    if reading.intent == "forget" and "stop" in kinds and {"third_person", "complaint"} <= stop_classes:
        # a complaint about someone in the stop's own clause (「我老公都說不用記我吃什麼 很過分」): whose
        # words the stop is, and whether the bot is asked, are the person's to say
        return Decision("ask", Reading("forget_confirm"), ruled, (*why, "a stop inside a complaint: ask"))
    return None


def _of_others(kinds: frozenset[str], stop_classes: frozenset[str]) -> bool:
    """The table read a stop of other people's (「其他人的不用記」): a third person in the stop's clause,
    and no diet or kept record named there. Nothing of theirs is kept: asked about, never acted on."""
    return "stop" in kinds and "third_person" in stop_classes and not stop_classes & _KEPT_NAMED


def _remember_missed(
    reading: Reading,
    ruled: str,
    read: tuple[str, float],
    diet: str | None,
    classes: frozenset[str],
    kinds: frozenset[str],
    others: bool = False,
    stated: bool = False,
) -> str | None:
    """A remember verb and a diet named, where the rules read no act on the kept preference: a
    remember request they missed, answered with the consent prompt (itself a question). A regret
    with no delete verb beside a remember rule's clause (「我後悔了，還是幫我記全素」) is one on the
    rules' word; otherwise the classifier must be sure of a remember: 「你記得我吃素嗎」: the rules'
    what-is-kept question stands; the three-way question, which the consent prompt answers as well,
    gives way to it; and so does a stop the table read only of other people (``others``) beside a
    remember (「我吃全素 記下來 其他人的不用記」), and what-is-kept read by the hand readers where the
    table read a remember, or nothing and no question asks (「敬請惠予記錄本人之素食需求」). A diet
    only stated as the speaker's or a relative's (``stated``: 「我吃蛋奶素」, nothing searched, asked or
    undone) is offered to be kept the same way, unless the classifier is sure it undoes. The reason,
    or None."""
    best, sure = read
    if stated and reading.intent == "search" and diet and not (best in _UNDOING and sure >= HIGH):
        return "a diet stated as the speaker's or a relative's, nothing else asked: consent prompt"
    if diet and "remember" in kinds and reading.intent in ("search", "unknown") and best == "remember":
        if "remember_verb" not in classes and sure >= HIGH:
            # 「我打算以後吃五辛素了 能不能一直照這樣找」: a lasting wish the table read, no verb of
            # remembering, and a sure classifier: asked with the consent prompt, never kept unasked
            return "a lasting wish the table read and a sure classifier: consent prompt"
    # (a lasting wish the three-way question was read for, 「往後查詢一律以此為準」, needs no remember verb)
    wished = "lasting" in classes and reading.intent == "preference_question"
    if not (diet and ("remember_verb" in classes or wished)):
        return None
    if "remember" in kinds and _regret_then_remember(ruled, classes):
        return "a regret beside a remember rule: consent prompt"
    if best != "remember" or sure < HIGH:
        return None
    plain = reading.intent not in _ASKS and ruled not in PREFERENCE_LABELS
    # (the table's remember breaks the tie; a what-is-kept no rule read and no question asks is none)
    shown = ruled == "show_kept" and ("remember" in kinds or _unasked(kinds, classes))
    table = shown or ("remember" in kinds and others)
    missed = plain or table or reading.intent == "preference_question"
    return "a remember verb and a sure classifier: consent prompt" if missed else None


def _unasked(kinds: frozenset[str], classes: frozenset[str]) -> bool:
    """Nothing in the sentence asks what is kept: no rule read anything, and no question word is in it."""
    return not kinds and "question" not in classes


def _aside_a_search(
    reading: Reading, read: tuple[str, float], classes: frozenset[str], kinds: frozenset[str], searched: str
) -> bool:
    """A keep, or a delete of another thing, beside a named search (``searched``: "place", a township
    named, "search", a search named in words, or ""), which the classifier reads as a search: sure,
    or middling where the delete names another thing or record; a keep of one's own beside a search
    in a township named (「別忘了我吃素喔 員林午餐吃什麼」) whatever else it reads, unless an undo or
    what is kept."""
    best, sure = read
    # (another thing or record the delete is of, named or read by the table: 「檳榔錢袂記得收」)
    named = bool(classes & OTHER_NAMED) or kinds == {"delete_other"}
    aside = reading.intent == "forget_declined" or (bool(kinds) and kinds <= {"keep", "other_named"})
    aside = aside or (named and bool(kinds) and kinds <= {"keep", "other_named", "delete_other"})
    searching = best.startswith("search_") and sure >= (MIDDLE if named else HIGH)
    kept_aside = reading.intent == "forget_declined" and best not in (*_UNDOING, "show_kept")
    return aside and searched != "" and (searching or (kept_aside and searched == "place"))


def _rules_ask(
    reading: Reading,
    ruled: str,
    read: tuple[str, float],
    classes: frozenset[str],
    why: tuple[str, ...],
    kinds: frozenset[str],
    searched: str,
    undos: int = 0,
) -> Decision:
    """The rules ask (``undos``: how many delete, stop or undo words the sentence holds). The
    three-way question asked of a question the classifier is sure asks what is kept (「此帳號目前是否保存有任何飲食方面之紀錄？」) is answered with what is kept: its third
    button, which changes nothing. A keep said beside a what-is-kept question the table read, which
    the classifier is sure shows, shows it too; one said beside a named search the classifier is
    sure of (「I'm not asking you to delete anything, search …」) is that search, which changes nothing,
    and so is a delete question asked only of another thing (「訂的桌取消了 鹿港有什麼素食」, 「外賣app
    刪了 幫我媽找埤頭的」), the search read at least middling."""
    best, sure = read
    if _aside_a_search(reading, read, classes, kinds, searched):
        why = (*why, "a keep or another thing beside a named search: the search")
        return Decision("pass", Reading("search"), ruled, why)
    if (
        reading.intent == "preference_question"
        and best == "show_kept"
        and sure >= HIGH
        and "question" in classes
    ):
        return Decision(
            "act", Reading("show_kept"), ruled, (*why, "asked what is kept, a sure classifier: show")
        )
    if _keep_against_an_undo(reading, read, classes, undos, kinds):
        return Decision("ask", Reading("forget_confirm"), ruled, (*why, "a keep read, a sure undo: ask"))
    shown = kinds == {"show", "self_forgot"} and best not in _UNDOING
    if shown or (kinds == {"self_forgot"} and best == "show_kept" and sure >= HIGH and "question" in classes):
        # 「我設定過什麼？自己都忘了」: asked what is kept (by the table, or in other words by a sure
        # classifier), the speaker's own forgetting told: show it
        return Decision(
            "act", Reading("show_kept"), ruled, (*why, "asked what is kept, own forgetting: show")
        )
    asked_kept = "show" in kinds or bool(classes & {"question", "a_not_a"})
    if reading.intent == "forget_declined" and asked_kept and best == "show_kept" and sure >= HIGH:
        # 「沒要你刪 只想知道你存了哪些」, 「別刪喔 只是想確認你還記得嗎」: keep it and show it (the
        # table's what-is-kept, or a question the classifier is sure asks it); showing changes nothing
        return Decision("act", Reading("show_kept"), ruled, (*why, "keep and show asked: show"))
    return Decision("ask", reading, ruled, (*why, "rules ask"))


def _keep_against_an_undo(
    reading: Reading, read: tuple[str, float], classes: frozenset[str], undos: int, kinds: frozenset[str]
) -> bool:
    """A not-delete the table read that the classifier reads as an undo, asked with the 確定忘記 / 不用
    question (whose 不用 keeps as the table read): beside another delete, read at least middling
    (「毋係刪相片 係刪你記个吃素」), or from a negated loose verb, read surely (「素食那個我可以不要嗎 我
    不會用」; 「我不想取消吃素」 negates the verb itself, 「記的不要動」 keeps it in so many words), or
    where a clause of its own is a delete with no negation in it (「以後不用了 刪」: the verb said
    after a pause, alone), read surely."""
    best, sure = read
    if reading.intent != "forget_declined" or best not in _UNDOING:
        return False
    if "delete_that" in kinds and "keep" not in kinds and sure >= HIGH:
        return True
    loose = not classes & {"delete_verb", "stop_verb", "keep_as_is"}
    return (undos > 1 or loose) and sure >= (MIDDLE if undos > 1 else HIGH)


def _aside(
    reading: Reading,
    ruled: str,
    scores: Scores,
    named_search: bool,
    kinds: frozenset[str],
    why: tuple[str, ...],
    undo_clause: str,
    classes: frozenset[str],
) -> Decision | None:
    """A search the classifier reads beside what the rules read: a lasting word beside a diet with no
    remember verb (「…的素食都幫我找一下」), the classifier sure of a search, is the search; otherwise
    :func:`_beside_a_search`."""
    best, sure = scores.best, scores.confidence
    if ruled == "remember" and best.startswith("search_") and sure >= HIGH and "remember_verb" not in classes:
        return Decision("pass", Reading("search"), ruled, (*why, "no remember verb, a sure search"))
    return _beside_a_search(reading, ruled, best, named_search, kinds, why, undo_clause, classes)


def _beside_a_search(
    reading: Reading,
    ruled: str,
    best: str,
    named_search: bool,
    kinds: frozenset[str],
    why: tuple[str, ...],
    undo_clause: str = "kept",
    classes: frozenset[str] = frozenset(),
) -> Decision | None:
    """A search named beside what touches the kept thing, where the two readers read different
    parts of one sentence rather than disagree: a delete the table read in its own clause beside
    the search the classifier reads (「把素食偏好刪掉，然後看看鹿港有什麼好吃的」) is both requests; a
    forgetting the table read as a remark about someone (「我爸很健忘，常忘記吃藥，溪州有素食嗎」) is
    the search, never a delete question on the classifier's word alone. Only a delete whose clause
    (or the clause before it) names the kept thing is acted on beside the search: one of another
    thing or record is the search alone, and one read in the search's own clause or naming nothing
    kept is asked about, and so is a stop (no delete verb) in a sentence that asks something. A keep
    the table read beside a named search is that search."""
    if ruled in _UNDOING and best.startswith("search_") and named_search and reading.intent == "forget":
        if undo_clause == "other":  # 「公司要我清除手機中的客戶資料 … 查和美的素食餐廳」
            return Decision("pass", Reading("search"), ruled, (*why, "another thing deleted: the search"))
        if undo_clause != "kept":  # in the search's clause, or naming nothing kept: asked
            return Decision("ask", Reading("forget_confirm"), ruled, (*why, f"a delete {undo_clause}: ask"))
        if ruled == "stop" and "question" in classes:  # (a stop in a sentence that asks: 「不用記嗎」)
            return Decision(
                "ask", Reading("forget_confirm"), ruled, (*why, "a stop beside a search, asked: ask")
            )
        return Decision("act", reading, ruled, (*why, "a delete and a search beside it: both"))
    if reading.intent == "search" and named_search and "forgot_before" in kinds and best in _UNDOING:
        return Decision("pass", reading, ruled, (*why, "a forgetting remarked on, a search named"))
    if reading.intent == "search" and named_search and kinds == {"keep"} and best in _UNDOING:
        # 「Please don't delete my vegan setting, find me dinner in 員林」: the table read only a keep,
        # the classifier's undo is the delete said not to be done
        return Decision("pass", reading, ruled, (*why, "a keep the table read, a search named"))
    return None


# Clause readings that remark on something rather than ask: small talk, a forgetting told.
_REMARKS = (rules.SMALL_TALK_READINGS - {"bot_question"}) | {"forgot_before"}


def _remark(
    reading: Reading, kinds: frozenset[str], scores: Scores, named_search: bool, classes: frozenset[str]
) -> Reading | None:
    """A search read from food or event words in a remark (「最近老是忘東忘西」, a complaint about a
    group deleted), with no place nor search named, and a classifier sure it is nothing to do, or
    sure it deletes when what is deleted is another thing: small talk (the remark's kind, else
    chat), never the township question; so is a diet word in a remark (「我姊說她們吃素的社團又吵架了」)."""
    nothing = scores.scores.get("other", 0.0) + _talk_score(scores)  # (nothing to do: other and chat add)
    if _diet_in_a_remark(reading, kinds, classes, named_search, (scores.best, nothing)):
        return Reading("small_talk", talk="chat")
    if reading.intent != "search" or named_search or not kinds & _REMARKS:
        return None
    another = "other_thing" in classes and not classes & _KEPT_NAMED
    nothing = scores.best == "other" or (scores.best in _UNDOING and another)
    if not nothing or scores.confidence < HIGH:
        return None
    talk = next((k for k in sorted(kinds) if k in _REMARKS and k != "forgot_before"), "chat")
    if talk in ("thanks", "goodbye"):
        return None  # (read as thanks or goodbye by the rules already)
    return Reading("small_talk", talk=talk)


def _no_act_read(
    reading: Reading,
    ruled: str,
    scores: Scores,
    why: tuple[str, ...],
    diet: str | None,
    named_search: bool,
    classes: frozenset[str],
    kept_named: bool,
) -> Decision:
    """The rules read no act on the kept preference and the readers disagree: the classifier's
    reading may ask (never act), or answer small talk; else the rules stand."""
    best, sure = scores.best, scores.confidence
    if _names_the_kept_thing_only(reading, best, sure, named_search, classes):
        # 「那個我吃素的紀錄喔…」: the kept thing named with no verb, trailing off; keep it, delete it
        # or show it is the person's to say, with the three-way question (never a delete question
        # for a verb nobody said; 「我吃素」 names no record and stays a statement)
        asked = Reading("preference_question")
        return Decision(
            "ask", asked, ruled, (*why, "the kept thing named with no verb: the three-way question")
        )
    if best in _UNDOING and "other_thing" in classes and not classes & (_KEPT_NAMED | {"remember_verb"}):
        # (a remembering verb beside the other thing, 「不想讓 app 記住任何事 全部清掉」, speaks of what
        # is kept: that one is asked)
        return Decision("pass", reading, ruled, (*why, "another thing named is deleted: rules stand"))
    if best in _UNDOING and "self_correction" in classes and named_search and not classes & _KEPT_NAMED:
        # 「取消取消 講錯了 是鹿港啦」: the speaker takes back their own words, and names the search
        return Decision("pass", reading, ruled, (*why, "own words taken back, a search named: rules stand"))
    if best in _UNDOING and sure >= MIDDLE and "hesitation" in classes and classes & _KEPT_NAMED:
        # 「醫師說我要多吃點蛋 那你記的那個要不要改」: whether to change what is kept, wondered beside a
        # search: keeping it, deleting it or looking is the person's to choose
        asked = Reading("preference_question")
        return Decision("ask", asked, ruled, (*why, "undecided about what is kept: the three-way question"))
    if best in PREFERENCE_LABELS and sure >= MIDDLE:
        if best == "remember" and not kept_named and diet is None:  # (a diet named is what is kept)
            return Decision("pass", reading, ruled, (*why, "a remember of something never kept: rules stand"))
        return _classifier_touches(reading, best, sure, why, diet, weak=not named_search)
    weak = ruled == "other" or (reading.intent == "search" and not named_search)
    if weak and _speaks_of_the_record(reading, best, classes):
        asked = Reading("preference_question")
        return Decision(
            "ask", asked, ruled, (*why, "the record and the diet named, nothing read: the three-way question")
        )
    if (
        weak
        and best.startswith("smalltalk_")
        and reading.intent != "diet_change"
        and (sure >= MIDDLE if reading.intent == "unknown" else _talk_score(scores) >= HIGH)
    ):
        # (nothing read: small talk beats 「聽不懂」 even when middling; against a search read, small
        # talk's kinds add up, as a delete and a stop do; a diet given up is never passed as chat)
        talk = best.removeprefix("smalltalk_")
        intent: Intent = talk if talk in ("thanks", "greeting") else "small_talk"  # type: ignore[assignment]
        talked = Reading(intent, talk=None if intent != "small_talk" else talk)
        return Decision("pass", talked, ruled, (*why, "small talk by the classifier"))
    if reading.intent == "unknown" and named_search and best.startswith("search_") and sure >= HIGH:
        # 「台北有什麼 concert」: a place named and words the rules do not know, a sure search: the
        # search (a place outside the county gets its honest answer there)
        return Decision("pass", Reading("search"), ruled, (*why, SURE_SEARCH))
    return Decision(_outcome_alone(reading, ruled), reading, ruled, (*why, "rules stand"))


def _diet_in_a_remark(
    reading: Reading,
    kinds: frozenset[str],
    classes: frozenset[str],
    named_search: bool,
    read: tuple[str, float],
) -> bool:
    """A search read from a diet word alone (no place, no search nor question asked, no rule read),
    and a classifier sure it is nothing to do (``read``: its best label, and other and small talk's
    scores added): a remark that names a diet."""
    diet_only = "diet" in classes and "question" not in classes
    searched = reading.intent == "search" and not named_search and not kinds and diet_only
    idle = read[0] == "other" or read[0].startswith("smalltalk_")
    return searched and idle and read[1] >= HIGH


# The classifier's labels that undo what is kept, and the lexicon's classes that say what to do.
_UNDOING = frozenset({"delete", "stop"})
# What a stop may be read as and still stand: a refusal, or the thanks or goodbye said with it.
_STOP_BESIDE = frozenset({"consent_no", "smalltalk_thanks", "smalltalk_goodbye"})
UNDO_READINGS = frozenset({"delete", "stop", "delete_that"})  # (the table's readings that undo)
# Classes that name a thing or record the service never keeps (「手機中的客戶資料」, 「會議紀錄」).
OTHER_NAMED = frozenset({"other_thing", "other_record"})
# The reason given when only the classifier read the search (``utterance`` takes its goal too).
SURE_SEARCH = "a place named, a sure search"
_VERBS = frozenset(
    {
        *("delete_verb", "stop_verb", "remember_verb", "apply_verb", "show_verb", "filter_loose"),
        *("drop", "undo_phrase", "bare_stop", "stop_again", "stop_lead", "keep_as_is"),
    }
)


def _undoing_unread(
    scores: Scores, named_search: bool, classes: frozenset[str], kinds: frozenset[str]
) -> str:
    """Why an undo the rules' reading left out is asked about, never ignored ("" when none is): neither
    delete nor stop is the classifier's middling-or-better reading, but the two together are (a stop
    said so that the classifier splits it between them), the sentence names the kept thing or a word
    saying what to do with it, and no search is named; or a clause the table read as a delete or a
    stop, where the classifier hears small talk (「好啦講好了 還是刪掉」 after the 確定忘記 question)."""
    if kinds & _UNDO_READINGS and scores.best.startswith("smalltalk_") and "other_thing" not in classes:
        return "an undo the table read, small talk by the classifier: ask"
    together = scores.scores.get("delete", 0.0) + scores.scores.get("stop", 0.0)
    alone = scores.best in _UNDOING and scores.confidence >= MIDDLE
    touched = bool(classes & _KEPT_NAMED) or (bool(classes & _VERBS) and "other_thing" not in classes)
    return (
        "delete and stop together: ask"
        if together >= MIDDLE and not alone and touched and not named_search
        else ""
    )


_UNDO_READINGS = frozenset({"delete", "delete_that", "stop"})


def _names_the_kept_thing_only(
    reading: Reading, best: str, sure: float, named_search: bool, classes: frozenset[str]
) -> bool:
    """The rules read a search from a diet word alone, the sentence names the kept thing (a diet,
    偏好, 紀錄) with no word saying what to do, and the classifier is sure it undoes it: 「那個我吃素
    的那件事喔…」 trails off before its verb."""
    return (
        reading.intent == "search"
        and best in _UNDOING
        and sure >= HIGH
        and not named_search
        and bool(classes & _KEPT_NAMED)
        and not classes & _VERBS
    )


def _speaks_of_the_record(reading: Reading, best: str, classes: frozenset[str]) -> bool:
    """The rules read a search from a diet word alone, and the sentence names the kept record with a
    remembering word (紀錄, 設定) beside the diet, while the classifier reads no preference label and
    no search: keep it, delete it or look is the person's to say (the three-way question), never a
    township question or small talk for words that may undo what is kept."""
    return (
        reading.intent == "search"
        and not best.startswith("search_")
        and best not in PREFERENCE_LABELS
        and {"memory_object", "remember_verb"} <= classes
        and bool(classes & {"diet", "diet_place"})
    )


# Clause readings that make a stop doubtful (keep it, it was forgotten before, undecided, apart from).
_STOP_DOUBTS = frozenset({"keep", "forgot_before", "self_forgot", "hesitant", "exclusion"})
# Words that leave a stop a question: asked, for someone else, for now only, undecided.
_STOP_ASKED = frozenset({"question", "a_not_a", "third_person", "temporary", "hesitation", "exclusion"})


def _a_plain_stop(
    reading: Reading, kinds: frozenset[str], best: str, sure: float, classes: frozenset[str]
) -> bool:
    """The rules ask about a stop their table read, and the classifier is sure it is one: a stop
    clause (``classes``: its words' classes) that names the kept thing (a diet, 偏好, 過濾), with nothing
    in it that makes it a question, someone else's, for now only or undecided."""
    return (
        reading.intent == "forget_confirm"
        and "stop" in kinds
        and not kinds & _STOP_DOUBTS
        and best == "stop"
        and sure >= HIGH
        and bool(classes & _FILTER_NAMED)
        and not classes & _STOP_ASKED
    )


# A stop names the kept thing by a diet, 偏好, or filtering: the only filter is the kept diet.
_FILTER_NAMED = _KEPT_NAMED | {"apply_verb"}


def _regret_then_remember(ruled: str, classes: frozenset[str]) -> bool:
    """「啊我後悔了，還是幫我記吃素好了」: what the rules read as a delete is only a phrase taking back
    what was done before (後悔, 反悔), with no delete or stop verb, beside a remember verb; a sure
    remember from the classifier is the consent prompt (what is kept asks 「你記得我吃素嗎」 stands)."""
    return ruled == "delete" and "undo_phrase" in classes and not classes & _UNDO_VERBS


# The classes that say to delete or stop in so many words.
_UNDO_VERBS = frozenset(
    {"delete_verb", "forget_verb", "stop_verb", "bare_stop", "stop_again", "stop_lead", "drop"}
)


def _undone_by_both(
    reading: Reading,
    kinds: frozenset[str],
    best: str,
    sure: float,
    stop_classes: frozenset[str],
    classes: frozenset[str],
    ended: bool = False,
) -> str | None:
    """Why both readers agree the kept thing is to be undone where the rules alone would ask, or None."""
    if _a_plain_stop(reading, kinds, best, sure, stop_classes):
        # 「不要再用素食幫我過濾了」: a stop rule read a clause, nothing says keep, wait or for now,
        # the kept thing is named, and the classifier is sure it is a stop
        return "a stop rule and a sure stop: act"
    sure_undo = (
        reading.intent == "forget_confirm"
        and not kinds & _STOP_DOUBTS
        and best in _UNDOING
        and sure >= HIGH
        and not classes & _STOP_ASKED
    )  # the rules ask; nothing keeps, asks, waits or speaks of someone else; the classifier is sure
    if sure_undo and "stop" in kinds and "delete_verb" in classes:
        # 「我不要讓你記 刪掉」: a stop to the bot and a delete verb say one thing, what it keeps
        return "a stop and a delete said together, a sure classifier: act"
    if (
        sure_undo
        and "delete_that" in kinds
        and "undo_phrase" in classes
        and classes & {"delete_verb", "bare_stop"}
    ):
        # 「啊 按錯了 剛剛那個不要記 刪掉」: the person takes back what they just did (按錯, 反悔) and says
        # to delete it; the rules read a delete of 「that」
        return "a mistake taken back with a delete: act"
    if _ended_then_deleted(reading, kinds, best, sure, classes, ended):
        # 「那個幫我拿掉 我早就沒在吃素了」: a delete verb (or a stop to the bot) beside the diet said
        # given up, nothing about another thing, and the classifier is sure it is an undo: the
        # delete is of the kept diet, and a question put with that reason asks for it
        return "an undo with the diet said given up, a sure classifier: act"
    return None


# Delete readings of a clause, whatever it names.
_DELETES = frozenset({"delete", "delete_that", "delete_other"})


def _ended_then_deleted(
    reading: Reading, kinds: frozenset[str], best: str, sure: float, classes: frozenset[str], ended: bool
) -> bool:
    """The rules ask about a delete (a delete verb) or a stop, the sentence says the diet is no longer
    eaten, nothing keeps it, hesitates or names another thing to delete, and the classifier is sure
    it is an undo."""
    deleted = bool(kinds & _DELETES) and "delete_verb" in classes
    # (a stop for this search only, 「這次先不要用素食」, or of someone else's, 「她不吃素了 不用記她的」)
    stopped = "stop" in kinds and not classes & {"temporary", "third_person"}
    return (
        ended
        and reading.intent == "forget_confirm"
        and (deleted or stopped)
        and not kinds & (_STOP_DOUBTS | {"other_named"})
        and not classes & {"other_thing", "hesitation", "exclusion", "a_not_a", "keep_as_is"}
        and best in _UNDOING
        and sure >= HIGH
    )


def _outcome_alone(reading: Reading, ruled: str) -> Outcome:
    if reading.intent in _ASKS:
        return "ask"
    return "act" if ruled in PREFERENCE_LABELS else "pass"


def _rules_touch(
    reading: Reading,
    ruled: str,
    best: str,
    sure: float,
    scores: Scores,
    why: tuple[str, ...],
    kinds: frozenset[str] = frozenset(),
    classes: frozenset[str] = frozenset(),
) -> Decision:
    """The rules read an act on the kept preference and the classifier's best is another label: the
    act stands unless the classifier is sure of something else; then a delete or a stop is asked
    about (one the classifier is sure is a refusal stands: both undo it); a remember said beside a
    complaint (``kinds``), where the classifier does not read a
    remember, gets the three-way question; what is kept asked (the table's what-is-kept, or a question
    it read nothing of) that the hand readers read as a remember and the classifier as what is kept is
    shown; a remember or a consent answer otherwise stays what the rules read (a consent prompt is
    itself a question; a typed yes is checked against the live prompt's token)."""
    own = scores.scores.get(ruled, 0.0)
    doubted = "complaint" in kinds or (best in ("delete", "stop") and sure >= HIGH)
    if ruled == "remember" and own < MIDDLE and doubted:
        # A lasting word beside a diet, read as a remember, said as a complaint (or read by a sure
        # classifier as a stop): keep it or stop it is the person's to say, with the three-way
        # question (記住 / 刪除 / 看看記了什麼), never 「已經記住了」
        asked = Reading("preference_question")
        return Decision("ask", asked, ruled, (*why, "a remember said as a complaint: the three-way question"))
    stop_words = {"negation", "remember_verb"} <= classes  # (what is kept, said with a stop's words)
    if ruled == "show_kept" and own < MIDDLE and (best in _UNDOING or sure < MIDDLE or stop_words):
        return _kept_asked(best, why, kinds)
    if own >= MIDDLE or (sure < HIGH and ruled not in ("delete", "stop")):
        return Decision("act", reading, ruled, (*why, f"rules sure, classifier {ruled}:{own:.2f}"))
    if sure < HIGH:
        # a delete or a stop the classifier does not read, and nothing else it is sure of: asked
        return Decision(
            "ask", Reading("forget_confirm"), ruled, (*why, f"an undo, classifier {ruled}:{own:.2f}")
        )
    if ruled == "delete" and best == "consent_no" and reading.intent == "forget":
        # both undo what is kept: the rules read the delete in so many words, the classifier a refusal
        # (「我是要按不同意的 你不要記我」)
        return Decision(
            "act", reading, ruled, (*why, "a delete the classifier reads as a refusal: both undo it")
        )
    if ruled == "delete" or (ruled == "stop" and best not in _STOP_BESIDE):  # (a stop read as chat: asked)
        return Decision("ask", Reading("forget_confirm"), ruled, (*why, "disagree on an undo: ask"))
    kept_asked = "show" in kinds or (not kinds and "question" in classes)
    if ruled == "remember" and best == "show_kept" and kept_asked and "remember" not in kinds:
        # 「我以前是不是有請你記住什麼 是素食嗎」: what is kept asked (read so by the table, or a
        # question no rule read) and a sure classifier: showing it changes nothing, where a consent
        # prompt would offer to keep it again
        return Decision(
            "act", Reading("show_kept"), ruled, (*why, "what is kept asked, a sure classifier: show")
        )
    return Decision("act", reading, ruled, (*why, "disagree; the rules' act stands"))


def _kept_asked(best: str, why: tuple[str, ...], kinds: frozenset[str]) -> Decision:
    """What is kept, read by the rules where the classifier reads an undo or is unsure of everything:
    never just shown (the three-way question has showing as one of its answers; a sure remember beside
    a what-is-kept question, 「你記得我吃素嗎」, leaves the question standing)."""
    asked = Reading("preference_question")
    if best not in _UNDOING:
        return Decision(
            "ask", asked, "show_kept", (*why, f"what is kept read, classifier {best}: the three-way question")
        )
    if kinds & UNDO_READINGS:
        # 「毋免閣記我食啥物矣 彼个攏總共我提掉」: the hand readers' what-is-kept (記我吃什麼) beside a
        # stop the table read: asked, never shown as if nothing were asked
        return Decision(
            "ask", Reading("forget_confirm"), "show_kept", (*why, "what is kept beside a stop: ask")
        )
    # whether to keep it still, wondered aloud (「還要不要讓你記著，我也不知道」): what is kept, deleting it
    # and keeping it are the person's to choose
    return Decision("ask", asked, "show_kept", (*why, "what is kept read, an undo: the three-way question"))


def _classifier_touches(
    reading: Reading, best: str, sure: float, why: tuple[str, ...], diet: str | None, *, weak: bool = False
) -> Decision:
    """The classifier reads the kept preference touched where the rules read something else: never an
    act on the classifier alone. A delete or stop becomes the 確定忘記 / 不用 question; what is kept is
    shown when the classifier is sure (it changes nothing) and the rules read no search nor a diet
    changed (「我現在沒有吃素了」 is asked whether to forget it); a remember
    gets the consent prompt for the diet named (itself a question), else the question which diet when
    the classifier is sure, else the three-way question; a consent word stays the rules' reading
    (the typed answer is checked against the prompt's token, and a grant needs the rules' yes)."""
    # Any search gives way to a delete or stop question; a search read from a diet word alone (``weak``)
    # to a sure what-is-kept (it changes nothing), never to a remember (「我吃素」 asks nothing kept).
    asked_search = reading.intent in ("search", "unsupported", "help")  # (「記住」 alone: how, the help)
    searching = reading.intent == "unsupported" or (reading.intent == "search" and not weak)
    if best in ("delete", "stop"):  # (beside a named search too: a middling undo is asked, never lost)
        return Decision("ask", Reading("forget_confirm"), "other", (*why, "classifier alone: ask"))
    if best == "show_kept" and sure >= HIGH and not searching and reading.intent != "diet_change":
        return Decision(
            "act", Reading("show_kept"), "other", (*why, "classifier alone: show, nothing changes")
        )
    if best == "remember" and not asked_search and diet:
        return Decision(
            "ask", Reading("remember", diet=diet), "other", (*why, "classifier alone: consent prompt")
        )
    if best == "remember" and not asked_search and sure >= HIGH:
        return Decision("ask", Reading("which_diet"), "other", (*why, "classifier alone: which diet"))
    if best == "remember" and not asked_search:
        return Decision(
            "ask", Reading("preference_question"), "other", (*why, "classifier alone: the three-way question")
        )
    return Decision("pass", reading, "other", (*why, "rules stand"))
