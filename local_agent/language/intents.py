"""What a message asks for, read from the lexicon (``lexicon.py``) and the vocabulary in ``words.py``.

``read(text)`` gives one :class:`Reading`. The intents:

- ``forget`` a clear request to delete the remembered diet, in any word order (「取消吃素」,
  「把我吃素的資料刪掉」, 「我吃素的事不用記了」, 「不想讓你記得我吃素」);
- ``forget_confirm`` an unclear or asking one (「可以刪除我的偏好嗎？」, 「全部刪掉」), or a request
  to stop filtering by the diet (「以後不要再幫我過濾素食」): ask first;
- ``forget_declined`` a negated one (「不要忘記我的飲食偏好」, 「我不想取消吃素」,
  「你不會忘記我吃素吧」): nothing changes;
- ``show_kept`` 「你記得我什麼？」, 「你還記得我吃素嗎」;
- ``remember`` a request to remember a diet, in any order (「我吃素，請你記住」); ``diet`` is its code,
  ``unsupported`` a diet that cannot be remembered (早齋, 不吃牛) as the sentence names it;
- ``consent_yes`` / ``consent_no`` a short answer (同意, 好, 可以 / 不要, 不用), ``consent_unclear``
  one that is neither (「考慮一下」) — they answer a consent prompt only where one is live, which the
  caller decides;
- ``diet_change`` a diet said now with no search (「我現在沒有吃素了」);
- ``help``, ``greeting``, ``thanks`` (thanks, goodbyes, 「好，謝謝你喔」), ``unreadable`` (nothing
  to read: emoji, Zhuyin or punctuation alone);
- ``search`` a place or event question, ``unsupported`` (parking, buses), ``unknown`` otherwise;
- ``preference_question`` a sentence that touches the kept preference without saying what it wants
  (the three-way question), ``small_talk`` goodbyes, compliments, complaints, health and weather
  remarks, questions about the bot, a comment on a place (``talk`` says which).

The vocabulary's readers below give the first reading; ``by_policy`` then weighs it against the rule
table (``rules.py``): act only when sure, ask with buttons when not, pass when the sentence is about
something else (``docs/design.md``, "Reading people's words").

What it deliberately does not do: guess a diet nobody named, read a question about the speaker's
own memory (「我忘記我吃什麼了」) as a request, or treat a sentence that merely contains a word
(「記得那家素食店在哪嗎」) as a command.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from local_agent.language import lexicon, rules, words
from local_agent.language.diets import diet_said_form, find_diet, negated_diet, rememberable, unsupported_diet
from local_agent.language.memo import memoised, one_reading
from local_agent.language.patterns import alternatives, quick
from local_agent.language.text import has_any, has_words_form, reading_form, without
from local_agent.language.townships import find_townships, read_places
from local_agent.listings import catalogue

# Word lists read together, as one tuple each (``has_any`` searches a tuple once compiled).
_QUESTION_MARKERS = tuple(q for q in words.QUESTION_MARKERS if q != "可以")
_SHOW_ME_OR = (*words.SHOW_ME, "還是")
_SEARCH_WORDS = (*words.EVENT_WORDS, *words.PLACE_WORDS)
_ASKS_FOR_PLACE = (*words.ASKING_PLACE, *words.SEARCH_ASKS)
_LONG_FILTER_VERBS = tuple(v for v in words.FILTER_VERBS if len(v) > 1)  # (not the 用 of 不用)
_THANKS_LONGEST_FIRST = tuple(sorted(words.THANKS_WORDS, key=len, reverse=True))


Intent = Literal[
    "forget",
    "forget_confirm",
    "forget_declined",
    "show_kept",
    "remember",
    "consent_yes",
    "consent_no",
    "consent_unclear",
    "diet_change",
    "help",
    "greeting",
    "thanks",
    "unreadable",
    "search",
    "unsupported",
    "unknown",
    "preference_question",
    "which_diet",
    "small_talk",
]
ForgetMatch = Literal["forget", "forget_confirm", "forget_declined"]
SearchGoal = Literal["places", "events", "unsupported"]
# Longer than this, a message is no short command: unreadable or not, the normal turn answers it.
SHORT_MESSAGE_CHARS = 200
CLAUSES = quick("[,。!?;；]+|然後|接著|順便")
# What the speaker eats, asked about in a question on what is kept (「你知道我平常吃什麼嗎」): no search.
_EATING_ABOUT_ME = quick("我.{0,2}吃(?:什麼|啥|哪一?種)?|吃(?:什麼|啥|哪一?種)")


@dataclass(frozen=True)
class Reading:
    intent: Intent
    diet: str | None = None  # remember: the dietary code named
    unsupported: str | None = None  # remember: a diet that cannot be remembered, as named
    talk: str | None = None  # small_talk: which (``rules.SMALL_TALK_READINGS``)


def bare(t: str) -> str:
    """A reading-form text without trailing particles and punctuation (「好喔!」 → 「好」)."""
    return t.lower().rstrip(words.TRAILING_PARTICLES) or t.lower()


@functools.cache
def _indefinite() -> re.Pattern[str]:
    return quick(f"(?:{'|'.join(map(re.escape, _QUESTION_MARKERS))})就?(?:{'|'.join(words.ANY_WORDS)})")


@memoised
def is_question(t: str) -> bool:
    """A question marker in ``t``; 「可以」 only when the sentence does not end as a statement
    (「偏好可以刪掉了」 says it may go now). A question word before 都 / 也 / 全部 says "any" or "all"
    and asks nothing (「我現在什麼都吃」, 「有沒有都沒關係」, 「存了我什麼全部刪掉」)."""
    if has_any(t, _QUESTION_MARKERS):
        return has_any(_indefinite().sub("", t), _QUESTION_MARKERS) if has_any(t, words.ANY_WORDS) else True
    return "可以" in t and not t.rstrip(words.TRAILING_PARTICLES).endswith(("了", "吧"))


def _ends_negated(
    head: str, extra: tuple[str, ...] = (), depth: int = 4, fillers: tuple[str, ...] = words.NEGATION_FILLERS
) -> bool:
    """A negation ends ``head`` (「不要」, 「別」, 「不想讓你」, or one of ``extra``), allowing up to
    four ``fillers`` (幫我/再/你/把 …) after it; an asking form (「要不要」, 「會不會」) is no negation.
    Every way of taking the fillers off is tried, so none of them eats a negation's own last
    character (「不想讓你們」: 你們 off leaves 不想讓; 讓你們 off would leave only 不想)."""
    if any(head.endswith(q) for q in words.ASKING):
        return False
    ending = next((n for n in (*words.NEGATIONS, *words.STOP_LEADS, *extra) if head.endswith(n)), None)
    if ending is not None:
        return not _a_not_a(head, len(head) - len(ending))
    return depth > 0 and any(
        _ends_negated(head.removesuffix(f), extra, depth - 1, fillers) for f in fillers if head.endswith(f)
    )


def _a_not_a(head: str, at: int) -> bool:
    """The negation at ``at`` is the middle of an A-not-A question (「是不是要拿掉」, 「要不要刪」):
    the character before the 不 / 沒 is the one after it, and the question negates nothing."""
    return 0 < at < len(head) - 1 and head[at] in "不沒" and head[at - 1] == head[at + 1]


@functools.cache
def _longest_first(verbs: tuple[str, ...]) -> tuple[str, ...]:
    """A vocabulary tuple, longest words first (sorted once per tuple, not per sentence)."""
    return tuple(sorted(verbs, key=len, reverse=True))


def _verb_positions(
    t: str, verbs: tuple[str, ...], outside: tuple[str, ...] = words.NOT_REMEMBER
) -> list[tuple[int, str]]:
    """Where each verb occurs (the longest at a position), outside words like 忘記 or 日記."""
    if not has_any(t, verbs):
        return []
    blocked: set[int] = set()
    for word in outside:
        start = t.find(word)
        while start != -1:
            blocked.update(range(start, start + len(word)))
            start = t.find(word, start + 1)
    found: dict[int, str] = {}
    for verb in _longest_first(verbs):
        start = t.find(verb)
        while start != -1:
            if start not in found and not blocked & set(range(start, start + len(verb))):
                found[start] = verb
            start = t.find(verb, start + 1)
    return sorted(found.items())


def supposed(t: str, clause: str | None = None) -> bool:
    """A delete or stop in ``t`` is supposed (如果, 萬一: anywhere before it) or hedged in its own
    ``clause`` (好像, 應該, 可能; the whole of ``t`` when no clause is given), not asked for plainly:
    it is confirmed first."""
    return has_any(t, words.SUPPOSING) or has_any(t if clause is None else clause, words.HEDGES)


_KEPT_CLASSES = frozenset({"memory_object", "diet"})


@memoised
def has_object(t: str) -> bool:
    """The sentence says what to delete: the preference, a diet, 「我的資料」."""
    # The lexicon's words, longest first: 行車紀錄器 and 病歷 hold no kept record, 素食館 no diet;
    # a record said as another record's or thing's (帳本的紀錄, 照片的資料) is none either.
    found = lexicon.tokens(t)
    return any(
        token.classes & _KEPT_CLASSES and not (at and _of_another(t, found[at - 1], token))
        for at, token in enumerate(found)
    )


def _of_another(t: str, before: lexicon.Token, token: lexicon.Token) -> bool:
    return (
        "memory_object" in token.classes
        and bool(before.classes & {"other_record", "other_thing"})
        and t[before.end : token.start] in _WITHIN
    )


# Between another thing and a record, what makes the record that thing's (手機的資料, 手機裡的資料).
_WITHIN = ("", "的", "裡的", "裡面的", "內的", "中的", "上的")


def _stop_remembering(t: str) -> ForgetMatch | None:
    """「不用記了」, 「不想讓你記得我吃素」: a negated remembering verb asks to forget."""
    for at, _ in _verb_positions(t, words.REMEMBER_VERBS):
        if _ends_negated(t[:at]):  # 「不要再記」 is said to the bot: only its own question asks
            if is_question(_clause_at(t, at)) or supposed(t, _clause_at(t, at)) or _relayed(t, at):
                return "forget_confirm"
            return "forget" if has_object(t) or len(t) <= 8 else "forget_confirm"
    for at, verb in _verb_positions(t, words.FILTER_VERBS, ()):
        if has_any(_clause_at(t, at), words.FOR_NOW):
            continue  # 「今天不用找素的」: this search only, no stop
        if verb in words.MINDING_VERBS and _someone_after(t, at + len(verb)):
            continue  # 「我孫子不吃素 不用管他」: minding someone else, no filter
        if _ends_negated(t[:at]) and has_object(t):
            return "forget_confirm"  # 「以後不要再幫我過濾素食」: stop applying it, asked first
    return None


def _someone_after(t: str, at: int) -> bool:
    """A third person (他, 她, 我孫子) begins at ``at``: the verb before it takes a person."""
    return any(token.start == at and "third_person" in token.classes for token in lexicon.tokens(t))


def _relayed(t: str, at: int) -> bool:
    """The stop at ``at`` is someone else's words passed on (「她說她吃素的事不用你記」: X 說 before
    it) and the speaker asks nothing themselves (no 幫她, 麻煩, 請): asked about first."""
    head = t[:at]
    said = any(
        "third_person" in tok.classes and head.startswith("說", tok.end) for tok in lexicon.tokens(head)
    )
    return said and not has_any(t, words.REQUEST_LEADS) and not has_any(t, words.ASKED_FOR_SOMEONE)


def _negated_request(t: str, at: int) -> bool:
    head, extra = t[:at], words.FORGET_NEGATIONS
    if _ends_negated(head, extra):
        return True
    # 「別把我的偏好刪掉」; not 「不要把我吃素的事存起來了，刪掉」 (存 is its verb), nor a negation that
    # ends the clause before the 把 (「那個不用了，你把素食的刪掉」)
    for ba in ("把", "將"):
        at_ba = head.rfind(ba)
        if at_ba == -1 or _a_verb_in(head[at_ba:]):
            continue
        if _ends_negated(head[:at_ba], extra, fillers=_IN_CLAUSE_FILLERS):
            return True
    return False


_IN_CLAUSE_FILLERS = tuple(f for f in words.NEGATION_FILLERS if not CLAUSES.fullmatch(f))


def _a_verb_in(t: str) -> bool:
    """A verb the rules read (keep, delete, stop, apply, show) in ``t``."""
    return any(not token.classes.isdisjoint(rules.VERBS) for token in lexicon.tokens(t))


def _clause_at(t: str, at: int) -> str:
    """The clause of ``t`` around position ``at`` (「…你把那個刪掉，然後幫我看芬園有啥好吃的」: the
    delete is no question because the search after it is one)."""
    start = max((m.end() for m in CLAUSES.finditer(t) if m.end() <= at), default=0)
    end = next((m.start() for m in CLAUSES.finditer(t) if m.start() > at), len(t))
    return t[start:end]


def _clause_before(t: str, at: int) -> str:
    """The clause of ``t`` just before the one around position ``at`` (empty when there is none)."""
    start = max((m.start() for m in CLAUSES.finditer(t) if m.end() <= at), default=0)
    return _clause_at(t, start - 1) if start else ""


def _asks_about_deleting(t: str, at: int) -> bool:
    """The delete at ``at`` is asked or supposed, not requested: its own clause is a question, or
    the sentence is one and its question is no search (「如果以後要取消素食，要怎麼用？」, 「我把聊天
    紀錄刪掉了，你還記得我吃素嗎」); a search asked after a clear delete (「你把那個刪掉，然後幫我看
    芬園有啥好吃的」) leaves the delete a request."""
    clause = _clause_at(t, at)
    if is_question(clause) or supposed(t, clause):
        return True
    others = t.replace(clause, "")
    return is_question(others) and goal_of(_without_diet(others)) is None


def _unclear_delete(t: str, verb: bool) -> bool:
    """The net under the rules above, so that no delete request is ignored: a delete verb that says
    nothing it is about (「那個東西你可以幫我取消嗎」), or the kept thing with 不要再 / 不用再
    (「不要再推薦素食的了」), in a sentence that asks for no search, is asked about (確定忘記 / 不用)."""
    if not verb:
        if not has_object(t):
            return False
        negated_filter = has_any(t, words.NEGATIONS) and bool(_verb_positions(t, _LONG_FILTER_VERBS, ()))
        if not (negated_filter or has_any(t, words.STOP_AGAIN)):  # 「不需要素食篩選」
            return False
    return goal_of(_without_diet(t)) is None and not find_townships(t)


def _dropped(t: str) -> bool:
    """「吃素那個不要了」, 「我不要這個設定了」: a clause that drops the diet or the kept data."""
    for clause in (c for c in CLAUSES.split(t) if c):
        softened = bare(bare(clause.rstrip("?")).removesuffix("吧"))  # (不用了吧, 算了吧)
        dropped = softened.endswith(words.DROP_ENDINGS)
        ending = next((e for e in words.DROP_ENDINGS if softened.endswith(e)), "") if dropped else ""
        if ending and not softened[: -len(ending)].endswith("才") and has_object(t):
            return True  # (「才不要了」 refuses what someone else said: no drop)
        lead = min((clause.find(n) for n in words.DATA_DROP_LEADS if n in clause), default=-1)
        if lead != -1 and clause.endswith("了") and has_any(clause[lead:], words.DATA_OBJECTS):
            return True
    return False


def match_forget(t: str) -> ForgetMatch | None:
    """A delete request in reading form ``t``, or None (not one). Every delete verb is weighed: one
    clear request forgets, even after the speaker's own forgetting earlier in the sentence
    (「老實說我也忘記什麼時候叫你記的了…你那邊記的通通刪掉」)."""
    stop = _stop_remembering(t)
    hits = _verb_positions(t, words.FORGET_VERBS, words.NOT_A_VERB)
    if stop is not None and not (stop == "forget_confirm" and hits):
        return stop  # (「不想讓你知道我吃素了，刪掉」 goes on to its 刪掉)
    if not hits:
        # 「吃素的事不用改，照原本的就好」; not inside an A-not-A question (「那個要不要改」 asks)
        if any("keep_as_is" in token.classes for token in lexicon.tokens(t)) and has_object(t):
            return "forget_declined"
        # (a remember asked with a reason, 「…記住嗎，下次就不用再講」, is no stop for the net)
        net = _unclear_delete(t, False) and not asks_to_remember(t)
        unclear = _dropped(t) or bare(t) in words.BARE_STOPS or net
        return "forget_confirm" if unclear else None
    verdicts = {_verdict(t, at, verb) for at, verb in hits}
    order: tuple[ForgetMatch, ...] = ("forget", "forget_confirm", "forget_declined")
    for strongest in order:
        if strongest in verdicts:
            return strongest
    return None


def _requested(t: str, clause: str, verb: str) -> bool:
    """The delete's clause asks someone to do it (「請直接幫我刪除」, 「你把那個刪掉」, or ends with the
    verb: 「…我不是說過不用了嗎 刪掉」, 「吃素那個取消」), not a question; a plea put as a question
    (「可以麻煩幫我把蛋奶素刪除嗎」) asks it too."""
    if supposed(t, clause):
        return False
    if is_question(clause):
        return _pleaded(clause, verb)
    ending = bare(clause).removesuffix("光光").removesuffix("掉").removesuffix("一下")
    return ending.endswith(verb.removesuffix("掉")) or has_any(clause, words.ASKING_SOMEONE)


def _pleaded(clause: str, verb: str) -> bool:
    """A delete put kindly, ending with the verb and a polite question: a tag after the verb
    (「把那個提掉好嗎」, 「忘掉好不好」), or a bare 嗎 or an A-not-A lead in a plea (麻煩, 拜託, 幫我:
    「可以麻煩幫我把之前記的蛋奶素刪除嗎」, 「可不可以幫我刪掉」). Not a question whether it can be done
    (「怎麼刪除」, 「可以刪除嗎」 stay asked)."""
    if has_any(clause, words.HOW_TO):
        return False
    asked = bare(clause).rstrip("?")
    thanks = next((w for w in _THANKS_LONGEST_FIRST if asked.endswith(w) and asked != w), "")
    asked = bare(asked.removesuffix(thanks)).rstrip("?")  # 「…刪掉好嗎 謝謝」: the tag before the thanks
    tag = next((q for q in words.REQUEST_QUESTIONS if asked.endswith(q)), "")
    pleaded = has_any(clause, words.PLEAS)
    disposed = tag == "嗎" and _kept_thing_disposed(clause, verb)
    if (not tag and not (pleaded and has_any(clause, words.ASKING))) or (
        tag == "嗎" and not (pleaded or disposed)
    ):
        return False  # (「可不可以幫我刪掉」: an A-not-A lead and a plea, no tag, asks it too)
    ending = asked.removesuffix(tag).removesuffix("光光").removesuffix("掉").removesuffix("一下")
    return ending.endswith(verb.removesuffix("掉"))


def _kept_thing_disposed(clause: str, verb: str) -> bool:
    """「可以把我的全素設定取消嗎」: the kept thing named between 把 and the verb asks it done, as a plea
    would (「可以刪除嗎」 alone asks whether it can be)."""
    at, end = clause.find("把"), clause.find(verb)
    return 0 <= at < end and has_object(clause[at:end])


def _reported(clause: str, verb: str) -> bool:
    """Someone else did the delete, said as done (「老闆剛剛把會取消了」): a third person before the
    verb, 了 after it, and nothing of the speaker's kept thing in the clause."""
    at = clause.find(verb)
    found = lexicon.tokens(clause)
    if not _said_done(verb, clause[at + len(verb) :]) or any(
        token.classes & _KEPT_CLASSES for token in found
    ):
        return False
    return any("third_person" in token.classes and token.end <= at for token in found)


def _verdict(t: str, at: int, verb: str) -> ForgetMatch | None:
    head, clause = t[:at], _clause_at(t, at)
    speaker = head.endswith(words.SELF_FORGET_LEADS) and not head.endswith(("幫我", "給我"))
    if verb in words.SELF_FORGET_VERBS and speaker and "把" not in clause:
        return None  # 「我忘記我吃什麼了」: the speaker forgot something
    if verb in words.SELF_FORGET_VERBS and t[at + len(verb) :].startswith(words.FORGOT_TO):
        return None  # 「你忘了帶我去吃素食」: forgetting to do something is no request
    if _negated_request(t, at):
        return "forget_declined"
    if _reported(clause, verb):
        return None  # 「老闆把中午的會取消了」: someone else did it, nothing is asked
    about = has_object(t)
    marked = len(bare(t)) <= 6 or has_any(t, words.REQUEST_MARKERS)
    if not about and not marked:
        return "forget_confirm" if _unclear_delete(t, True) else None
    if not about:
        return "forget_confirm"
    before = _clause_before(t, at)
    if (
        has_any(before, words.ASKING)
        and has_any(before, ("把", "將"))
        and not has_any(before, words.FORGET_VERBS)
    ):
        # 「我是不是可以把那個全素的，嗯，取消掉」: a question and a 把 with no verb yet go on past the pause
        return "forget_confirm"
    if _told_as_done(t, at, verb, clause):
        return "forget_confirm"  # 「我取消了素食便當的訂單」, 「素食展取消了」: told, not asked; asked about at most
    if _requested(t, clause, verb) or not _asks_about_deleting(t, at):
        return "forget"
    return "forget_confirm"


def _told_as_done(t: str, at: int, verb: str, clause: str) -> bool:
    """The delete at ``at`` is told as done (了 right after the verb), with nobody asked to do it in
    its clause (幫我, 請, 你, 吧 …): a report of something, never acted on."""
    return _said_done(verb, t[at + len(verb) :]) and not has_any(clause, words.ASKING_SOMEONE)


def _said_done(verb: str, after: str) -> bool:
    """A delete verb told as done: 了 in it (刪了) or right after it (取消了, 刪掉了)."""
    return verb.endswith("了") or after.removeprefix("掉").startswith("了")


def _only_kept_topic(t: str) -> bool:
    """「查我的偏好」, 「目前的設定是？」: a kept thing and asking words, nothing else."""
    if not has_any(t, words.KEPT_TOPICS) or bare(t) in words.KEPT_TOPICS:
        return False  # a bare 「偏好」 says too little
    rest = t
    for word in (*words.KEPT_TOPICS, *words.KEPT_ASKING):
        rest = rest.replace(word, "")
    return not rest.rstrip(words.TRAILING_PARTICLES)


def _about_kept(head: str, tail: str) -> bool:
    """Around a kept verb: the speaker asked about (「…記得我吃素嗎」), what is kept asked for
    (「你現在記的是什麼」), or the speaker's diet or data named before it (「我吃素你有記起來嗎」)."""
    if tail.startswith(words.KEPT_ABOUT_ME) or tail.startswith(words.KEPT_WHAT):
        return True
    if find_diet(tail[:5]) is not None:
        return True  # 「你那邊現在是設定全素嗎」: whether that diet is kept
    if tail.startswith("我") and "吃" in tail[:5]:
        return True  # 「你知道我平常吃啥嗎」
    if "我" in head and has_any(head, words.VEGETARIAN_WORDS):
        return True  # 「我上次說我吃哪一種素你記得嗎」
    return "我" in head and (find_diet(head) is not None or has_any(head, words.KEPT_TOPICS))


def asks_what_is_kept(t: str) -> bool:
    if has_any(t, words.KEPT_PHRASES) or _only_kept_topic(t):
        return True
    if not (is_question(t) or has_any(t, _SHOW_ME_OR)):
        return False  # (「你記的是蛋奶素還是全素」 asks too)
    rest = _EATING_ABOUT_ME.sub("", t)
    if goal_of(_without_diet(rest)) is not None or find_townships(t):
        return False  # 「你知道什麼好吃的嗎」 asks for a search
    hits = _verb_positions(t, words.KEPT_VERBS)
    for at, verb in hits:
        head, tail = t[:at], t[at + len(verb) :]
        if head.endswith("我") and not head.endswith(("幫我", "給我")):
            continue  # 「我記得…」: the speaker remembers
        # 「你幫我記的是哪一種素」, 「你有幫我記吃素嗎」 ask what was done
        done = tail.startswith(("的", "了")) or head.endswith(words.ASKED_DONE)
        lead = _lead_of(head)
        polite = lead.endswith(words.POLITE_ASKING) or has_any(lead, words.REQUEST_LEADS)
        if not done and (polite or _asked_to_do(tail)):
            continue  # 「能不能記得我吃全素」, 「幫我記一下我吃素好嗎」, 「我吃素 記一下好嗎」 ask to remember
        if _about_kept(head, tail):
            return True
    return _asks_about_my_data(t) if not hits else False


_LASTING_ADVERBS = lexicon.words_of("lasting_adverbs")


def _lead_of(head: str) -> str:
    """What leads a remember verb, without how long (「可以一直」) and with the person it is for said as
    the speaker (「可以幫阿嬤」 leads as 「可以幫我」 does)."""
    for _ in range(2):
        head = head.removesuffix(next((w for w in _LASTING_ADVERBS if head.endswith(w)), ""))
        kin = next((k for k in lexicon.words_of("kin") if head.endswith("幫" + k)), "")
        head = head[: -len(kin)] + "我" if kin else head
    return head


def _asks_how_to_keep(t: str) -> bool:
    """「怎麼設定我的偏好」, 「要如何讓你記住我吃素」: how to have a diet kept."""
    if not has_any(t, words.HOW_TO) or goal_of(_without_diet(t)) is not None:
        return False
    return has_any(t, words.KEPT_TOPICS) or bool(_verb_positions(t, words.REMEMBER_VERBS))


def _asks_about_my_data(t: str) -> bool:
    """「我有給你什麼個人資料嗎」, 「我有什麼偏好在你那」: a question about the speaker's kept data,
    naming no diet and asking no how-to (「怎麼設定偏好」 is for the help text)."""
    if not is_question(t) or "我" not in t or find_diet(t) is not None:
        return False
    if has_any(t, words.HOW_TO) or _verb_positions(t, words.FORGET_VERBS, ()):
        return False
    return has_any(t, words.KEPT_TOPICS)


_REMEMBER_TAIL_STARTS = (
    "我",
    ":",
    ",",
    "。",
    "!",
    "喔",
    "哦",
    "啦",
    "吧",
    "阿",
    "一下",
    "起來",
    "下來",
    "好",
    "咧",
    "乎",
    "嘿",
    "著",
    "耶",
    "嗎",  # after a polite asking word only: 「可以幫忙記起來嗎」
    # a time word right after the verb begins what follows it, a reason (「你記著 以後就不用每次講」)
    "下次",
    "以後",
    "之後",
)


def _asked_to_do(tail: str) -> bool:
    """What follows a verb is only a polite question asking it done (「記一下好嗎」, 「記起來好不好」,
    「存起來可以嗎」): a request put as a question, not a question about what was done."""
    rest = tail.rstrip("?" + words.TRAILING_PARTICLES)
    for done in ("一下", "起來", "下來", "著", "住"):
        rest = rest.removeprefix(done)
    return rest in words.REQUEST_QUESTIONS and rest != "嗎"


def asks_to_remember(t: str) -> bool:
    """A remembering verb addressed to the bot (not 「我記得…」, not negated), with what follows it
    being the speaker or the end of the clause."""
    asking = is_question(_polite_endings().sub("", t) if has_any(t, words.REQUEST_QUESTIONS) else t)
    for at, verb in _verb_positions(t, words.CHANGE_VERBS, ()):
        lasting = not has_any(t, words.FOR_NOW) and not find_townships(t)  # (looked up only here)
        if lasting and find_diet(t[at + len(verb) : at + 5]) and not _ends_negated(t[:at]):
            return True  # 「…改全素」 (but 「今天改吃全素，社頭有什麼」 is this search's)
    for at, verb in _verb_positions(t, words.REMEMBER_VERBS):
        head, tail = t[:at], t[at + len(verb) :]
        if _ends_negated(head):
            return False
        if asking and not (head.endswith(words.POLITE_ASKING) or _asked_to_do(tail)):
            continue  # 「記得那家素食店在哪嗎」; but 「能不能記得我吃全素」, 「記一下好嗎」 ask
        if head.endswith("我") and not head.endswith(("幫我", "給我", "把我", "將我")):
            continue
        tail = tail.lstrip(":：,").removeprefix("飲食").removeprefix("偏好").removeprefix("為").lstrip(":：,")
        if not tail or tail.startswith(_REMEMBER_TAIL_STARTS) or find_diet(tail[:5]):
            return True
        if head.endswith(words.REQUEST_LEADS + ("幫他", "幫她")):
            return True  # 「我爸吃素 幫他記著 以後他會用這個帳號」
    return False


@memoised
def _without_diet(t: str) -> str:
    """``t`` with its diet words taken out, and the 吃 or 食 that says one (「別忘了我吃素」 and
    「我吃五辛素」 ask for no search by their 吃)."""
    return without(t, _diet_said())


@functools.cache
def _diet_said() -> tuple[str, ...]:
    """The diet words, each also after 吃 and 食 (those first: they are taken out whole)."""
    words_ = lexicon.words_of("diet")
    return tuple(f"{verb}{word}" for word in words_ for verb in "吃食") + words_


def _asks_unsupported(t: str) -> bool:
    """Parking or buses asked about in the last clause that asks anything: 「搭客運去二林，二林有什麼
    好吃的」 asks for food, 「二林有什麼好吃的，哪裡停車」 for parking, a life on the buses told before
    a question to the bot (你, 您) asks that. A question added by the way
    (順便, 另外: 「竹塘有什麼好吃的，順便問一下有公車嗎」) leaves a search asked before it the request."""
    aside = min((t.find(w) for w in words.BY_THE_WAY if w in t), default=-1)
    if aside > 0 and has_any(t[:aside], _SEARCH_WORDS):
        return False
    to_the_bot = False  # a question to the bot said after: only a bus or parking asked counts
    for clause, asked in reversed(_clauses_asked(t)):
        asking = has_any(clause, _SEARCH_WORDS)
        if asking:  # 「搭員林客運去二林吃飯」: the bus is how they get there
            for company in words.BUS_COMPANIES:
                clause = clause.replace(company, "")
        questioned = asked or is_question(clause)
        if has_any(clause, words.UNSUPPORTED_WORDS) and (questioned or not to_the_bot):
            return True  # (「我在客運公司做了三十年，你們這系統誰做的？」 asks the bot about itself)
        if asking or find_diet(clause):
            return False
        to_the_bot = to_the_bot or (questioned and has_any(clause, _TO_THE_BOT))
    return False


_TO_THE_BOT = lexicon.words_of("the_bot_addressed")


def _clauses_asked(t: str) -> list[tuple[str, bool]]:
    """The clauses of reading-form ``t``, each with whether a question mark closes it."""
    out, start = [], 0
    for brk in CLAUSES.finditer(t):
        out.append((t[start : brk.start()], "?" in brk.group()))
        start = brk.end()
    out.append((t[start:], False))
    return [(clause, asked) for clause, asked in out if clause]


def _goal_words(t: str) -> SearchGoal | None:
    if has_any(t, words.EVENT_WORDS):
        return _asked_for(t) or "events"
    if has_any(t, words.PLACE_WORDS) or find_diet(t):
        return "places"  # a diet named is about food: 「彰化市有沒有純素的」
    return None


@functools.cache
def _goal_word_at() -> re.Pattern[str]:
    """Every event and place word, longest first, each in a group of its kind."""
    events, places = (alternatives(ws) for ws in (words.EVENT_WORDS, words.PLACE_WORDS))
    return quick(f"(?P<events>{events})|(?P<places>{places})")


_KIND_LINKS = lexicon.words_of("kind_links")


def _asked_for(clause: str) -> SearchGoal | None:
    """With place and event words in one clause, the kind the question asks for: the noun phrase right
    after its asking word (有什麼, 有沒有, 哪裡), read to its last word (「有什麼親子餐廳」 is a restaurant,
    「有什麼吃飯的地方…要去走走」 a place to eat); None when no place word is in it or nothing asks."""
    if not has_any(clause, words.PLACE_WORDS):
        return None
    starts = [
        clause.find(w) + len(w) for w in (*words.ASKING_PLACE, *lexicon.words_of("which")) if w in clause
    ]
    if not starts:
        return None
    head: re.Match[str] | None = None
    for found in _goal_word_at().finditer(clause, min(starts)):
        if head is not None and found.start() - head.end() > 1:
            if clause[head.end() : found.start()] not in _KIND_LINKS:
                break  # (one character between: 的; or 「搓湯圓之類的活動」: of that kind)
        elif head is not None and head.lastgroup == "events" and found.group() in rules.EATING:
            break  # 「有什麼活動 吃完去走走」: eating after the events, a verb of its own
        elif head is not None and head.lastgroup == "events" and clause.startswith(_KIND_LINKS, found.end()):
            break  # 「有什麼活動 搓湯圓那種的」: the events, said of that kind
        head = found
    if head is None:
        return None
    return "events" if head.lastgroup == "events" else "places"


def search_goal(text: str) -> SearchGoal | None:
    """The search ``text`` asks for (any form: read into the reading form first)."""
    return goal_of(reading_form(text))


@memoised
def goal_of(t: str) -> SearchGoal | None:
    """The search reading-form ``t`` asks for: places, events, unsupported (parking, buses) or None."""
    if _asks_unsupported(t):
        return "unsupported"
    goal = _goal_words(t)
    clauses = [(c, _goal_words(c)) for c in CLAUSES.split(t) if c]
    if len({g for _, g in clauses if g}) > 1:  # 「…去鹿港走走，有推薦的餐廳嗎？」: the asking clause's
        asking = [
            g
            for c, g in clauses
            if g and (is_question(c) or has_any(c, words.ASKING_PLACE)) and not has_any(c, _WONDERING)
        ]
        return asking[-1] if asking else goal
    return goal


_WONDERING = lexicon.words_of("wondering")


def also_searches(text: str) -> bool:
    """Besides a preference command, the sentence asks for a search (「吃素的不用記了，幫我找員林好
    吃的」); diet words alone ask for none (「把我吃素的資料刪掉」)."""
    return searches_besides(reading_form(text))


def searches_besides(t: str) -> bool:
    """:func:`also_searches` on reading-form ``t``: a search word besides the diet's, or a clause that
    asks to find something in a township and is no preference command (「幫我找員林的素食，以後都要
    記得我吃素」)."""
    if goal_of(_without_diet(t)) in ("places", "events"):
        return True
    if not find_townships(t):
        return False
    return any(_finds_in_a_township(clause) for clause in CLAUSES.split(t) if clause)


def _finds_in_a_township(clause: str) -> bool:
    """Reading-form ``clause`` asks to find something in a township and is no preference command."""
    return (
        has_any(clause, words.FIND_VERBS)
        and bool(find_townships(clause))
        and match_forget(clause) is None
        and _about_keeping(clause) is None
    )


RAW_CLAUSES = quick(r"[，,。.！!？?；;\s]+")


def searches_in_a_pause(text: str, form: str) -> bool:
    """「好 那留著 找田尾素食」: typed with pauses (spaces) that the reading form ``form`` drops, one part
    of ``text`` between them asks to find something in a township and is no preference command."""
    if " " not in text or not has_any(form, words.FIND_VERBS) or not find_townships(form):
        return False  # (the parts are read only where the whole could hold such a part)
    parts = [reading_form(part) for part in _SEARCH_CLAUSES.split(text) if part]
    return len(parts) > 1 and any(_finds_in_a_township(part) for part in parts)


# The search part's clauses end at a mark, or at a space not between two words of a Latin script
# (「ăn trưa」, 「tidak perlu」 stay one phrase, read whole by the caregivers' map).
_LATIN_LETTER = "A-Za-z\u00c0-\u024f\u1e00-\u1eff"
_SEARCH_CLAUSES = quick(f"[，,。.！!？?；;]+\\s*|(?<![{_LATIN_LETTER}])\\s+|\\s+(?![{_LATIN_LETTER}])")


def search_part(text: str) -> str:
    """The clauses of ``text`` that ask for the search, without the preference command said with
    it: 「吃素的不用記了，幫我找員林好吃的」 searches with 「幫我找員林好吃的」, so the diet it asked to
    forget is not the diet said now. The whole text when no clause is left."""
    parts = [(part, reading_form(part)) for part in _SEARCH_CLAUSES.split(text) if part]
    kept = [part for part, form in parts if match_forget(form) is None and _about_keeping(form) is None]
    return "，".join(kept) if kept else text


def asks_again(text: str) -> bool:
    """「再查一次」, 「重新找」: the last search again."""
    t = reading_form(text)
    return has_any(t, words.AGAIN_WORDS)


def is_follow_up(text: str) -> bool:
    """「員林呢」, 「那台中呢」, 「換鹿港」: the same question again, about something new."""
    return is_follow_up_form(reading_form(text))


def is_follow_up_form(form: str) -> bool:
    """:func:`is_follow_up` on reading-form ``form``."""
    t = bare(form).rstrip("?")
    return t.endswith(words.FOLLOW_UP_ENDINGS) or t.startswith(words.FOLLOW_UP_STARTS)


@memoised
def small_talk(t: str) -> Intent | None:
    """help, greeting or thanks for reading form ``t``, else None."""
    b = bare(t)
    if b in words.HELP_WORDS or t.lower() in words.HELP_WORDS:
        return "help"
    plain = without(t.lower(), words.GREETING_FILLERS)
    if b in words.GREETING_WORDS or plain.rstrip("?") in words.GREETING_WORDS:
        return "greeting"
    if plain and len(plain) <= 12 and not _greeting_rest(t.lower(), plain):
        return "greeting"  # greetings said one after another: 「早安啊，吃飽沒」, 「你好啊 呷飽未」
    rest = t.lower()
    if not has_any(rest, _THANKS_LONGEST_FIRST):
        return None
    for word in _THANKS_LONGEST_FIRST:
        rest = rest.replace(word, "")
    return "thanks" if not without(rest, words.SMALL_TALK_FILLERS) else None


def _greeting_rest(t: str, plain: str) -> str:
    """What is left of ``t`` without its greetings and fillers: the greetings taken out before the
    fillers too, so a filler inside a greeting (the 你 of 你好) does not break it."""
    rest = without(plain.rstrip("?"), words.GREETING_WORDS)
    return rest and without(without(t, words.GREETING_WORDS), words.GREETING_FILLERS).rstrip("?")


def thanked(t: str) -> bool:
    """Reading form ``t`` is a thank-you (「好的，謝謝你」), not a bare 「好」."""
    return small_talk(t) == "thanks" and has_any(t.lower(), words.GRATITUDE)


@functools.cache
def _polite_endings() -> re.Pattern[str]:
    asks = [q for q in words.REQUEST_QUESTIONS if q != "嗎"]  # (a bare 嗎 asks)
    return quick(f"(?:{'|'.join(map(re.escape, asks))})\\?*(?=[,!?]|$)")  # (and its own question mark)


def _lasting(t: str) -> bool:
    """「以後找店家都幫我找素食的」, 「以後推薦都用素食就好」: from now on, every time (no question;
    a clause ending in a polite 好嗎 / 可以嗎 asks it kindly, it is no question)."""
    if is_question(_polite_endings().sub("", t) if has_any(t, words.REQUEST_QUESTIONS) else t):
        return False
    if has_any(t, words.LASTING_PREFERENCE):
        return True
    start = min((t.find(w) for w in words.FROM_NOW_ON if w in t), default=-1)
    return start != -1 and has_any(t[start:], words.EVERY_TIME)


def _remember(t: str) -> Reading | None:
    lasting = _lasting(t)
    if not (asks_to_remember(t) or lasting):
        return None
    return _diet_to_keep(t)


def _diet_to_keep(t: str) -> Reading | None:
    """The remember of the diet ``t`` names (one that cannot be kept, named as such), or None."""
    odd = unsupported_diet(t)
    diet = find_diet(t)
    if odd is not None or (diet is not None and not rememberable(diet)):
        return Reading("remember", unsupported=odd or catalogue.dietary_label(diet or ""))
    return Reading("remember", diet=diet) if diet else None


# Longer than this (in reading form), a message is no answer to a consent prompt.
CONSENT_ANSWER_CHARS = 16


@memoised
def consent_answer(b: str) -> Intent | None:
    """A short answer to a yes/no question, in bare reading form ``b``: 「好」, 「好的，謝謝你」,
    「可以，幫我記住」, 「嘿啊」 say yes; 「不用了，謝謝」, 「毋免啦」 say no; 「考慮一下」 neither. An
    answer started over (等等, 等一下) is what follows."""
    b = _relayed_answer(b.replace("!", ","))  # (an exclamation parts an answer as a comma does)
    last = _answered_last(b)
    b = b.replace(",", "").replace("、", "").replace(".", "")
    if (whole := _whole_answers().get(b) or last or _started_over(b) or _concluded(b)) is not None:
        return whole
    if len(b) > CONSENT_ANSWER_CHARS:
        return None
    rest = b
    for latin, core in words.CONSENT_SAME.items():
        rest = rest.replace(latin, core)
    for phrase in lexicon.words_of("agree_phrase"):
        rest = rest.replace(phrase, "好")  # 「就這樣」, 「這樣就好」: a yes in a phrase
    for word in words.CONSENT_COURTESIES:
        rest = rest.replace(word, "")
    rest = rest.strip(words.TRAILING_PARTICLES + "!?")
    if not rest or has_any(rest, lexicon.words_of("diet")):
        return None  # 「謝謝」 alone is thanks; 「我不用吃素了」 is about the diet
    if has_any(rest, words.CONSENT_NO_CORES):
        # (「不要再幫我篩選了」 says no to the filtering: a stop, not an answer)
        return "consent_no" if len(rest) <= 8 and not has_any(rest, lexicon.words_of("apply_verb")) else None
    if _a_yes(rest):
        return "consent_yes"  # 「嗯嗯好」, 「好啦好啦」, 「OK的」
    told = without(without(rest, _keeping_verbs()), words.CONSENT_DOERS)
    if has_any(b, _keeping_verbs()) and _a_yes(told):
        return "consent_yes"  # a yes said with the keeping it asked for: 「好啦就記下來吧」, 「嗯 你就記吧」
    return None


@functools.cache
def _whole_answers() -> dict[str, Intent]:
    """The answers the lexicon lists whole (「好」, 「不用了」, 「考慮一下」), each with what it says."""
    lists: tuple[tuple[Intent, tuple[str, ...]], ...] = (  # (a later list wins a word in two)
        ("consent_unclear", words.CONSENT_UNCLEAR),
        ("consent_no", words.CONSENT_NO),
        ("consent_yes", words.CONSENT_YES),
    )
    return {answer: intent for intent, answers in lists for answer in answers}


def _answered_last(b: str) -> Intent | None:
    """「你不會跟別人講吧，好啦，同意啦」, 「會給別人看嗎？不同意」: a worry or a question first, then
    同意 or 不同意 in a clause of its own: the answer said last. Nothing when the message ends asking or
    names a diet (then it is about the diet, not an answer)."""
    parts = [part for part in re.split(r"[,?]", b) if part]
    if len(parts) < 2 or b.rstrip("。.!").endswith(("?", "嗎")) or has_any(b, lexicon.words_of("diet")):
        return None  # (「關於素食的登錄…也許不需要了…嗎」 is about the diet, and asks)
    if "同意" not in parts[-1]:
        return _reassured_yes(parts)  # (「…，不要太貴喔」 answers nothing)
    said = consent_answer(parts[-1])
    return said if said in ("consent_yes", "consent_no") else None


def _reassured_yes(parts: list[str]) -> Intent | None:
    """「嗯…應該沒關係吧 好 就這樣」: the speaker reassures themselves, then says yes in a clause of its
    own. A yes only when nothing before it says no, hesitates or asks (「不要 好啦」 stays unread), nor
    asks for a search (「…兩邊都幫我看有什麼好吃的 麻煩你了」 is a courtesy after it)."""
    if consent_answer(parts[-1]) != "consent_yes":
        return None
    before = "".join(parts[:-1])
    for word in lexicon.words_of("no_negation"):
        before = before.replace(word, "")  # (沒關係, 沒問題 negate nothing)
    doubts = (*words.CONSENT_NO_CORES, *lexicon.words_of("hesitation"), *words.NEGATIONS)
    asked = goal_of(before) is not None or bool(find_townships(before))  # (a search asked, then 麻煩你)
    return "consent_yes" if before and not asked and not has_any(before, doubts) else None


def _relayed_answer(b: str) -> str:
    """「阿嬤說好」, 「我媽說不要」, 「他點頭說好」: the answer of the person the speaker types for (a
    relative, or he / she), relayed: what they said."""
    kin = next((w for w in _RELAYERS if b.startswith(w)), "")
    said = next((w for w in _RELAYING if b.startswith(w, len(kin))), "") if kin else ""
    return b[len(kin) + len(said) :] if said and len(b) > len(kin) + len(said) else b


_RELAYING = lexicon.words_of("relaying")
_RELAYERS = tuple(
    sorted({*lexicon.words_of("kin"), *lexicon.words_of("relayers")}, key=lambda w: (-len(w), w))
)


def _started_over(b: str) -> Intent | None:
    """「好 嗯等等 不要 呃 好啦 可以記」: the yes or no said last, after the answer was started over."""
    restart = max((b.rfind(w) + len(w) for w in lexicon.words_of("answer_restarts") if w in b), default=0)
    # (the particle that closes what is set aside goes with it: 「我不會按欸 好啦」)
    later = (
        consent_answer(b[restart:].lstrip(words.TRAILING_PARTICLES + "欸")) if 0 < restart < len(b) else None
    )
    return later if later in ("consent_yes", "consent_no") else None


def _concluded(b: str) -> Intent | None:
    """「只拿來找店家的吧 那我同意」, 「只記這個 這樣的話可以」: a yes or no concluded after a condition
    (那我, 那就, 這樣的話), when the condition names no diet (「如果是全素 那我同意」 agrees to no diet asked)."""
    at = max((b.rfind(w) for w in lexicon.words_of("answer_conclusions") if w in b), default=-1)
    if at <= 0 or has_any(b[:at], lexicon.words_of("diet")):
        return None
    lead = max((w for w in lexicon.words_of("answer_conclusions") if b.startswith(w, at)), key=len)
    later = consent_answer(b[at + len(lead) :])
    return later if later in ("consent_yes", "consent_no") else None


def _a_yes(rest: str) -> bool:
    return (
        0 < len(rest) <= 6 and set(rest) <= words.CONSENT_YES_CHARS and has_any(rest, words.CONSENT_YES_CORES)
    )


@functools.cache
def _keeping_verbs() -> tuple[str, ...]:
    """The lexicon's remember verbs that keep (記, 存, 留, 保) and say no 不 / 免 / 別 / 莫."""
    verbs = lexicon.words_of("remember_verb")
    return tuple(v for v in verbs if any(c in v for c in "記存留保") and not any(c in v for c in "不免別莫"))


def _about_keeping(t: str) -> Reading | None:
    """How to have a diet kept (the help text), what is kept, or a request to keep one."""
    if _asks_how_to_keep(t):
        return Reading("help")  # 「怎麼設定我的偏好」: the help text says how
    if asks_what_is_kept(t):
        return Reading("show_kept")
    return _remember(t)


def _asks_whether_kept(t: str) -> bool:
    """「確定刪掉了嗎」 (what is kept now says whether it was), 「我有跟你說過我吃素嗎 忘了」 (the
    speaker forgot, and asks): questions on what is kept that carry a delete word."""
    if has_any(t, words.DONE_QUESTIONS):
        return True
    ending = next((w for w in words.I_FORGOT if t.endswith(w)), "")
    return bool(ending) and asks_what_is_kept(t.removesuffix(ending))


def read(text: str) -> Reading:
    """What ``text`` asks for (see the module docstring): the words' reading, then the policy (the
    questions both ask of the text answered once, as in ``language.read``)."""
    with one_reading():
        t = reading_form(text)
        return by_policy(t, _read_words(text, t))


def read_form(text: str, t: str, clauses: tuple[rules.ClauseReading, ...]) -> Reading:
    """:func:`read` given the reading form ``t`` of ``text`` and its clauses' rule readings."""
    return by_policy(t, _read_words(text, t), clauses)


def _read_words(text: str, t: str) -> Reading:
    """The reading of the vocabulary's rules, before the policy weighs it."""
    if not t:
        if not (text or "").strip():
            return Reading("help")
        return Reading("unreadable" if len(text) <= SHORT_MESSAGE_CHARS else "unknown")
    if _asks_whether_kept(t):
        return Reading("show_kept")
    forget = match_forget(t)
    if forget == "forget_declined" and (
        goal_of(_without_diet(t)) in ("places", "events") or find_townships(t)
    ):
        return Reading("search")  # 「不要忘記我吃素，二林有什麼吃的」: the search, the diet kept
    if forget is not None:
        return Reading(forget)
    about_kept = _about_keeping(t)
    if about_kept is not None:
        return about_kept
    answer = consent_answer(bare(t))
    if answer is not None:
        return Reading(answer)
    negated = negated_diet(t)
    rest = t if negated is None else t[: negated.start()] + t[negated.end() :]
    goal = goal_of(rest) or ("places" if find_townships(t) else None)
    # (before small talk: 「純素好累 還是不要素了」 gives the diet up; the diet named as what is given up
    # asks for no search)
    if diet_said_form(t).code == catalogue.ANY and (goal is None or _given_up_only(t, rest, negated)):
        return Reading("diet_change")
    talk = small_talk(t)
    if talk is not None:
        return Reading(talk)
    if len(t) <= SHORT_MESSAGE_CHARS and not has_words_form(t):
        return Reading("unreadable")
    if goal == "unsupported":
        return Reading("unsupported")
    return Reading("search" if goal else "unknown")


def _given_up_only(t: str, rest: str, negated: re.Match[str] | None) -> bool:
    """A diet is given up (``negated``, the match that says so) and the search the sentence reads
    comes from diet words alone: no township, no place or event word beside them."""
    return negated is not None and not find_townships(t) and goal_of(_without_diet(rest)) is None


# -- the policy: act only when sure, ask with buttons when not, pass when it is about something else --
# Classes that touch the kept preference when said with a diet.
_PREFERENCE_VERBS = ("remember_verb", "delete_verb", "stop_verb", "apply_verb", "show_verb")


def touches_preference(t: str) -> bool:
    """Reading-form ``t`` has a verb that keeps, deletes, stops, applies or shows, and names what is
    kept (偏好, 設定, 資料; not a verb such as 記住) or a diet; no one else's (大家, 我媽)."""
    found = lexicon.tokens(t)
    present: set[str] = set().union(*(tok.classes for tok in found)) if found else set()
    if "third_person" in present:
        return False  # 「大家的偏好」 is no one's own
    kept = any("memory_object" in tok.classes and "remember_verb" not in tok.classes for tok in found)
    if present & set(_PREFERENCE_VERBS) - {"remember_verb"}:
        return kept or "diet" in present
    # 「吃素那件事就算了吧」 says no verb, 「幫我記一下我的飲食習慣」 no diet: the model reads them
    return "diet" in present and "remember_verb" in present


def _delete_outcome(t: str, kinds: frozenset[str]) -> Reading:
    """A reading that would delete: act only when a clause asks to delete or stop the kept
    preference and no clause says not to; ask when both are said; never delete otherwise."""
    asked = bool(kinds & {"delete", "stop"}) or ("delete_that" in kinds and has_object(t))
    asked = asked or (kinds == {"delete_that"} and len(bare(t)) <= 6)  # 「幫我刪掉」
    if asked and kinds & {"keep", "forgot_before", "hesitant"}:
        return Reading("forget_confirm")
    if asked:
        return Reading("forget")
    if "keep" in kinds:
        return Reading("forget_declined")
    if "exclusion" in kinds:
        return Reading("search" if goal_of(_without_diet(t)) or find_townships(t) else "unknown")
    if kinds & {"forgot_before", "self_forgot"}:
        named = find_townships(t) or read_places(t).kind == "confirm"  # (a township misheard too)
        if named and (goal_of(_without_diet(t)) or has_any(t, words.FIND_VERBS)):
            return Reading("search")  # 「阿嬤常忘記她吃素，幫她找鹿港的素食」: a remark, then the search
        if _someone_forgot_something_else(t):
            return Reading("unknown")  # 「阿公常常忘記吃藥」: nothing of what is kept
        return Reading("preference_question")
    return Reading("forget_confirm")


def _someone_forgot_something_else(t: str) -> bool:
    """Someone else forgets, and the sentence names neither a diet nor what is kept (偏好, 設定)."""
    present = {cls for token in lexicon.tokens(t) for cls in token.classes}
    return "third_person" in present and not present & {"diet", "memory_object"}


def _small_talk(t: str, legacy: Reading, kinds: frozenset[str]) -> Reading | None:
    """Small talk the words' reading left unknown (or a comment on a place read as a search, a
    goodbye read as thanks), or what the bot can do asked beside it."""
    if "help" in kinds and legacy.intent in ("unknown", "greeting", "thanks"):
        return Reading("help")  # 「你會做什麼啊，我孫子說你很厲害」: the question, not the compliment
    talk = next((k for k in sorted(kinds) if k in rules.SMALL_TALK_READINGS), None)
    if talk is None:
        return None
    if legacy.intent == "unknown":
        return Reading("small_talk", talk=talk)
    remark = next((k for k in _REMARKS if k in kinds), None)
    if legacy.intent == "search" and remark is not None and _only_a_remark(t):
        return Reading("small_talk", talk=remark)  # 「謝謝，很好吃」: a comment, no new search
    if legacy.intent == "thanks" and "goodbye" in kinds and not has_any(t.lower(), words.GRATITUDE):
        return Reading("small_talk", talk="goodbye")
    if legacy.intent == "search" and talk == "thanks" and _said_of_before(t):
        return Reading("small_talk", talk="thanks")  # 「謝謝你上次幫我找到那間」: no new search
    return None


def _said_of_before(t: str) -> bool:
    """A remark on what was done before (上次, 之前): no question, no township named."""
    if is_question(t) or find_townships(t):
        return False
    return any("past_marker" in token.classes for token in lexicon.tokens(t))


_DELETE_READINGS = ("forget", "forget_confirm", "forget_declined")
_ASKED_TO_DELETE = frozenset({"delete", "delete_that", "stop"})


def _another_shop(t: str) -> bool:
    """A delete said of the shop just shown, with another asked for (「這家不要 刪掉 換一家」): one
    more result, the kept preference neither named nor touched."""
    return has_any(t, words.MORE_WORDS) and not has_object(t)


def _something_else_deleted(t: str, legacy: Reading, kinds: frozenset[str]) -> Reading | None:
    """A delete the words read that is about something else: the shop just shown (「這家不要 刪掉
    換一家」: one more result) or another thing named (照片, 通知): no question about the kept diet."""
    if legacy.intent not in _DELETE_READINGS:
        return None
    if _another_shop(t):
        return Reading("search")
    if _none_of_its_concern(t):
        return Reading("search")
    if _only_another_thing(t, kinds):
        return Reading("search" if goal_of(t) in ("places", "events") or find_townships(t) else "unknown")
    return None


def _only_another_thing(t: str, kinds: frozenset[str]) -> bool:
    """What is deleted, cancelled or turned off is named and is something else (「群組的通知可以關掉嗎」,
    「孫子幫我把照片刪了」), no clause asks anything of the kept thing, and the sentence names none."""
    return "other_named" in kinds and not kinds & (_ASKED_TO_DELETE | {"keep"}) and not has_object(t)


def _none_of_its_concern(t: str) -> bool:
    """「健身的紀錄我要刪掉 你不用管 芬園有什麼好吃的」: the delete is told to be
    none of the bot's concern, names no diet nor the preference, and a search is asked beside it."""
    if not has_any(t, words.NOT_FOR_THE_BOT) or find_diet(t) is not None or has_any(t, words.THE_PREFERENCE):
        return False
    return goal_of(t) in ("places", "events") or bool(find_townships(t))


# Small talk a search's words can carry: a comment on a place, a remark on health, a complaint.
_REMARKS = ("visited", "health", "complaint")


def _only_a_remark(t: str) -> bool:
    """A remark read as a search only for its food words (「醫生說我血糖太高 甜的要少吃」, 「那間肉圓店
    老闆有夠兇 下次不去了」): no question, no asking or search word, and a township only beside a
    past visit (「上禮拜去員林那間火鍋 服務有夠差」; 「鹿港很好吃的肉圓」 asks for one)."""
    if is_question(t) or has_any(t, _ASKS_FOR_PLACE):
        return False
    if not find_townships(t):
        return True
    found = lexicon.tokens(t)
    return any("past_marker" in k.classes or ("visited" in k.classes and "去" in k.word) for k in found)


_STILL_THERE = next(rule for rule in rules.TABLE if rule.name == "still_there_after")


def _still_there(t: str, legacy: Reading, read_clauses: tuple[rules.ClauseReading, ...]) -> Reading | None:
    """「快取清掉之後 吃素的設定還在嗎」: whether what is kept survived something deleted, where the words
    read an unclear delete: what is kept answers it (the search, when one is asked beside it)."""
    if legacy.intent != "forget_confirm" or not any(c.rule is _STILL_THERE for c in read_clauses):
        return None
    return Reading("search") if searches_besides(t) else Reading("show_kept")


def by_policy(
    t: str, legacy: Reading, read_clauses: tuple[rules.ClauseReading, ...] | None = None
) -> Reading:
    """The outcome for reading-form ``t`` given the words' reading: *act* (forget, remember, show)
    only on an unambiguous reading, *ask* with buttons (forget_confirm, preference_question) when
    the kept preference is touched but the reading is not certain, *pass* (search, the model, small
    talk) only when the sentence is about something else. A stop request is never read as a
    remember; nothing is deleted on a sentence that did not ask."""
    read_clauses = rules.read_clauses(t) if read_clauses is None else read_clauses
    kinds = frozenset(c.rule.reading for c in read_clauses if c.rule is not None)
    other = _something_else_deleted(t, legacy, kinds) or _still_there(t, legacy, read_clauses)
    other = other or _weighed_then_kept(t, legacy, kinds, read_clauses)
    if (other := other or _told_by_the_table(t, legacy, kinds, read_clauses)) is not None:
        return other
    if legacy.intent == "forget":
        return _delete_outcome(t, kinds)
    remarked = "forgot_before" in kinds and not kinds & _ASKED_TO_DELETE  # nothing asked deleted
    if legacy.intent == "forget_confirm" and ("exclusion" in kinds or remarked):
        return _delete_outcome(t, kinds)  # apart from a diet; someone's forgetting remarked on
    if "stop" in kinds and legacy.intent in ("remember", "unknown", "diet_change", "search", "show_kept"):
        # (beside a search, 「別再給我素的 鹿港有什麼吃的」, the stop is asked about first)
        return Reading("forget_confirm")
    if (
        kinds == {"remember"}
        and legacy.intent == "forget_confirm"
        and any(c.rule is not None and c.rule.name == "lasting_diet" for c in read_clauses)
    ):
        return _remember(t) or legacy  # 「以後都幫我過濾素食 不用每次講」: a lasting wish, no delete
    if "remember" in kinds and legacy.intent == "search" and searches_besides(t):
        said = [c.clause for c in read_clauses if c.rule and c.rule.reading == "remember"]
        return _remember(said[0]) or legacy  # 「我吃素請記住，順便看鹿港有什麼吃的」: both (the service)
    kept = _about_the_kept_thing(t, legacy, kinds)
    if kept is not None:
        return kept
    talk = _small_talk(t, legacy, kinds)
    if talk is not None:
        return talk
    if legacy.intent == "unknown" and touches_preference(t):
        return Reading("preference_question")
    if legacy.intent == "unknown" and len(bare(t)) > 1 and "remember_verb" in lexicon.classes_of(bare(t)):
        return Reading("help")  # 「記住」 typed alone (the three-way question's first button): how to
    if legacy.intent == "search" and (_only_the_kept_thing(t) or _kept_thing_alone(t)):
        return Reading(
            "preference_question"
        )  # about what is kept, no search asked (the diet alone made it one)
    return legacy


def _weighed_then_kept(
    t: str, legacy: Reading, kinds: frozenset[str], read_clauses: tuple[rules.ClauseReading, ...]
) -> Reading | None:
    """「本來想把全素刪掉… 算了不用 留著好了」: a delete weighed, then kept as it is
    (``rules._decided_to_keep``): every clause the table reads keeps it, so nothing is deleted; a
    search asked or a township named beside it (「…還是不動好了 芳苑有素食嗎」) is that search, with
    what is kept."""
    kept = any(c.rule is not None and c.rule.name == "keep_as_is" for c in read_clauses)
    if legacy.intent not in ("forget_confirm", "forget") or kinds != {"keep"} or not kept:
        return None
    return Reading("search") if searches_besides(t) or find_townships(t) else Reading("forget_declined")


def _told_by_the_table(
    t: str, legacy: Reading, kinds: frozenset[str], read_clauses: tuple[rules.ClauseReading, ...]
) -> Reading | None:
    """What a rule of the table says where the hand readers read otherwise: someone else's diet given
    up beside the speaker's kept as before and a search (「她不吃素了 但我還是照舊 找溪州的餐廳」) is the
    search; keeping a diet from now on, asked (「下回還記得我吃素嗎」), or a diet to be watched out for
    (「蛋奶素是我們家的習慣 你幫我注意著」), is a remember, not what is kept nor a search."""
    # (every message comes here: the sentence is searched for a search only when a rule asks)
    theirs = "other_diet" in kinds and not kinds & _ASKED_TO_DELETE
    if theirs and (legacy.intent == "search" or searches_besides(t)):
        return Reading("search")
    kept = [c.clause for c in read_clauses if c.rule is not None and c.rule.name in _KEEPING_ASKED]
    if not kept or kinds & {"show", "stop", "delete"}:
        return None
    unread = legacy.intent == "show_kept" or (legacy.intent == "search" and not searches_besides(t))
    return _diet_to_keep(kept[0]) if unread else None


# Rules that read a wish to be kept the hand readers miss (asked ahead, or watched out for).
_KEEPING_ASKED = frozenset({"remember_asked_ahead", "diet_watched_for"})


def _about_the_kept_thing(t: str, legacy: Reading, kinds: frozenset[str]) -> Reading | None:
    """What the table read about the kept thing where the words read a search or nothing: which diet
    was remembered, asked (shown); something to be done to it, unsaid what (the three-way question);
    keeping it or not, undecided (the 確定忘記 / 不用 question)."""
    if legacy.intent in ("search", "unknown") and not find_townships(t):
        if "show" in kinds:
            return Reading("show_kept")  # 「你記得她吃哪一種素」, 「列出我的偏好」
    unsure = legacy.intent in ("search", "unknown") or (
        legacy.intent == "remember" and _noun_not_verb(t, kinds)
    )
    if "unclear" in kinds and unsure and not find_townships(t) and not has_any(t, words.FIND_VERBS):
        if has_object(t):
            return Reading("preference_question")  # 「吃素那個你弄一下」, 「素食的設定喔，你看著辦」
    if "hesitant" in kinds and legacy.intent in ("show_kept", "unknown") and touches_preference(t):
        return Reading("forget_confirm")  # 「吃素的設定，我在想要不要留著」
    return None


# Classes that say what to do with the kept thing without a verb (drop it, no more, leave it, not yet).
_SAYS_WHAT_TO_DO = frozenset({"drop", "stop_again", "stop_lead", "keep_as_is", "hesitation", "negation"})


def _noun_not_verb(t: str, kinds: frozenset[str]) -> bool:
    """The words' remember stood on a verb the lexicon reads as a noun here (「素食的設定喔」: 的設定 is
    the setting): no remember the table read, no remembering verb and no changing verb (改吃)."""
    if "remember" in kinds or has_any(t, words.CHANGE_VERBS):
        return False
    return not any("remember_verb" in token.classes for token in lexicon.tokens(t))


def _kept_thing_alone(t: str) -> bool:
    """A diet and what is kept named as a topic with no verb, no question and no search
    (「我媽吃素的那個紀錄喔」): what to do with it is asked (the three-way question)."""
    found = lexicon.tokens(t)
    present = {cls for token in found for cls in token.classes}
    if not _KEPT_CLASSES <= present or present & _SAYS_WHAT_TO_DO:
        return False  # 「吃素那件事就算了吧」 says: drop it
    if is_question(t) or find_townships(t):
        return False
    verbs = any(token.classes & rules.VERBS and "memory_object" not in token.classes for token in found)
    return not verbs and goal_of(_without_diet(t)) is None


def _only_the_kept_thing(t: str) -> bool:
    """The sentence touches what is kept (``touches_preference``) and nothing but its diet makes it a
    search: no township, no search word."""
    return touches_preference(t) and goal_of(_without_diet(t)) is None and not find_townships(t)
