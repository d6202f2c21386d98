"""One message, read once: :class:`Utterance`, what every consumer of a message's words takes.

``read(text, now, context)`` normalises the text once (``text.reading_form``), finds the lexicon's
words once, reads each clause by the rule table (``rules.py``), weighs the words' reading
(``intents``) beside the classifier's scores by policy (``policy.py``), and reads the diet, the
townships (``townships.read_places``) and the date window (``dates.read_dates``) from the same
reading form. The service, the commands, the static answers, the router, the tools and the text gate
read the ``Utterance``, never the raw text again; the offline model (the stand-in for Gemini, which
reads only its request) reads its request's text once through this function.

Only :attr:`Utterance.search_part` (the clauses of a sentence that asks for a search besides a
preference command) reads clause by clause, when first asked for, since only such sentences need it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Literal

from local_agent.language import intents, lexicon, policy, rules, words
from local_agent.language.dates import DateReading, read_dates, today_in_taipei
from local_agent.language.diets import diet_said_form, find_diet, negated_diet, rememberable
from local_agent.language.intents import Intent, Reading, SearchGoal
from local_agent.language.memo import one_reading
from local_agent.language.policy import Decision, Scores
from local_agent.language.text import has_any, reading_form, without
from local_agent.language.townships import (
    PlaceReading,
    corrected_tail,
    corrects,
    is_no,
    is_yes,
    is_zhuyin,
    read_places,
    refers_to_older_form,
)
from local_agent.listings import catalogue

Whose = Literal["self", "other", "named"]  # the speaker, someone else (他, 朋友), a named person (我媽, 阿嬤)
Asked = Literal["", "consent", "forget", "kind", "township"]


@dataclass(frozen=True)
class Context:
    """What the conversation waits for when the message comes, as far as the caller knows it (a live
    consent prompt, a 確定忘記 question, the kind question, the township question). Only names."""

    asked: Asked = ""


@dataclass(frozen=True)
class DietReading:
    """The diet a message states: ``code`` (a dietary code; ``catalogue.ANY`` when said not to apply
    now), whether it was said negated, for whom, whether it is lasting or for now, and the diets the
    speaker names as their own (none when the message is about someone else)."""

    code: str | None = None
    negated: bool = False
    whose: Whose = "self"
    lasting: bool = False
    for_now: bool = False
    own: frozenset[str] = frozenset()
    named: str | None = None  # the dietary code the words name, negated or not (``find_diet``)


@dataclass(frozen=True)
class Utterance:
    text: str  # as received: only the model's request carries it
    form: str  # the reading form, the only form anything here is read from
    bare: str  # the reading form without trailing particles (「好喔!」 → 「好」)
    tokens: tuple[lexicon.Token, ...]
    clauses: tuple[rules.ClauseReading, ...]
    words: Reading  # the rules' reading, before the policy
    decision: Decision
    scores: Scores | None  # the classifier's, or None without one
    diet: DietReading
    places: PlaceReading
    dates: DateReading  # the date window (or past, invalid …); none without a clock
    goal: SearchGoal | None  # the search asked (``intents.goal_of``)
    also_searches: bool  # a search asked beside a preference command
    consent: Intent | None  # consent_yes / consent_no / consent_unclear as a short answer, else None
    consent_only: bool  # 同意 / 不同意 exactly (answered with a pointer when nothing is asked)
    thanked: bool  # a thank-you (「好的，謝謝你」), not a bare 「好」
    more: bool  # 「再找一家」「還有嗎」: results not shown yet
    again: bool  # 「再查一次」: the last search again
    follow_up: bool  # 「員林呢」, 「不是啦 是福興」: the same question about something new
    yes: bool  # 是 / 對 to 「您是說員林市嗎？」
    no: bool  # 不是 / 不對
    older: bool  # 「一開始問的那個鄉鎮」: a place older than the live conversation
    zhuyin: bool  # mostly Zhuyin symbols
    today: date | None = None  # the Taiwan day the dates were read against
    context: Context = field(default_factory=Context)

    @property
    def reading(self) -> Reading:
        """What the consumers act on: the policy's reading."""
        return self.decision.reading

    @property
    def intent(self) -> Intent:
        return self.decision.reading.intent

    @property
    def outcome(self) -> policy.Outcome:
        return self.decision.outcome

    @property
    def talk(self) -> str | None:
        return self.decision.reading.talk

    @property
    def kept_diet(self) -> str | None:
        """The diet a remember request names, when it can be remembered."""
        diet = self.reading.diet
        return diet if diet and rememberable(diet) else None

    @functools.cached_property
    def search_part(self) -> str:
        """The clauses that ask for the search, without the preference command said with them
        (``intents.search_part``); read clause by clause on first use."""
        return intents.search_part(self.text)

    @functools.cached_property
    def search(self) -> Utterance:
        """The search part read as a message of its own (its diet is what that part says): what the
        model gets after a preference command said with a search."""
        part = self.search_part
        return self if part == self.text else read(part, self.today, self.context)

    @functools.cached_property
    def answer_first(self) -> Utterance | None:
        """「可以 順便找鹿港的素食」: a yes or no said as the first clause of a message that goes on to ask
        for a search, or to remark on something that is not the diet (「好啦 哇這顆芒果好大」), read as a
        message of its own; None for anything else (the whole message is then the answer, or no
        answer). A no before a search may also read as dropping the diet (「不用了，幫我找…」); a yes
        beside a delete is never split off."""
        answers = _ANSWERED_FIRST.get(self.reading.intent, ())
        searched = self.reading.intent in ("search", "forget_confirm")
        if self.consent is not None or (searched and not self.also_searches) or not answers:
            return None
        said = next((c for c in intents.RAW_CLAUSES.split(self.text.strip()) if c), "")
        head = next((c for c in intents.CLAUSES.split(reading_form(said)) if c), "")
        answer = intents.consent_answer(intents.bare(head))
        if head == self.form or answer not in answers:
            return None
        rest = lexicon.tokens(self.form.removeprefix(head))
        # After a yes, the keeping asked may be said again (「好啊 記啦 客人來了」), but not with a diet
        # in its clause (「好 記住我吃蛋奶素 順便找…」 may name another one; 「你就記起來 然後找純素的便當」
        # names the search's); a remark after the answer (「好啦 哇這顆芒果好大」) may name neither a diet
        # nor another preference verb.
        diet_named = _keeps_a_diet(self.form.removeprefix(head))
        again = answer == "consent_yes" and not diet_named
        kept_again = frozenset({"remember_verb"}) if again else frozenset()
        said_more = (_PREFERENCE_VERBS | _DIET_CLASSES) - kept_again
        if not searched and any(token.classes & said_more for token in rest):
            return None
        if answer == "consent_yes" and any(token.classes & _TAKEN_BACK for token in rest):
            return None  # 「嗯…好 不對 先不要」: a yes taken back or hedged after it is no yes
        if searched and any(token.classes & (_PREFERENCE_VERBS - kept_again) for token in rest):
            return None  # 「好 刪掉吧 順便找二林的」: the rest does more than search; no answer split off
        return read(head, self.today, self.context)

    @property
    def asks_kept(self) -> bool:
        """A clause asks what is kept (a rule read it so), beside whatever else the message does."""
        return any(c.rule is not None and c.rule.reading == "show" for c in self.clauses)

    @property
    def own_diet(self) -> str | None:
        """The rememberable diet the message says is the speaker's own, now and for good (「我吃五辛素
        幫我找秀水的餐廳」), else None: not someone else's, not negated, not for now, not of the past."""
        diet, named = self.diet, self.diet.code
        if not named or not rememberable(named) or diet.whose != "self" or diet.negated or diet.for_now:
            return None
        if named not in diet.own or any("past_marker" in t.classes for t in self.tokens):
            return None
        return named if _speaker_before_a_diet(self.form, self.tokens) else None

    def search_with(self, diet: str | None) -> Utterance:
        """:attr:`search` with ``diet`` as the diet it says (a diet asked to be remembered applies to
        the search said with it, this once)."""
        found = self.search
        if not diet:
            return found
        return replace(found, diet=replace(found.diet, code=diet, named=diet))


# Before a speaker word, these make the speaker the one a thing is done for (幫我找), not the eater.
_FOR_THE_SPEAKER = ("幫", "給", "替", "讓", "帶", "叫", "跟", "陪")


def _speaker_before_a_diet(form: str, found: tuple[lexicon.Token, ...]) -> bool:
    """A speaker word (我, I'm) before the last diet word, not as the one something is done for (「幫我找
    埔心的餐廳 要可以吃素的」 says nobody's diet; 「我吃五辛素 幫我找秀水的餐廳」 the speaker's)."""
    diet = next((t for t in reversed(found) if "diet" in t.classes), None)
    end = diet.start if diet is not None else len(form)
    for word in words.SPEAKER_WORDS:
        at = form.find(word)
        while 0 <= at < end:
            if not form[:at].endswith(_FOR_THE_SPEAKER):
                return True
            at = form.find(word, at + 1)
    return False


# After a yes said first, these take it back or hedge it (不對, 不要, 再說): the yes is no answer alone.
_TAKEN_BACK = frozenset({"negation", "negation_request", "hesitation", "stop_lead"})
# Words that do something to the kept preference: after a yes or no, the message is no plain search.
_PREFERENCE_VERBS = rules.VERBS | {"bare_stop", "drop", "stop_again", "stop_lead"}
# The readings of a whole message whose first clause may be a consent answer, and the answers it may be.
_ANSWERED_FIRST: dict[str, tuple[str, ...]] = {
    "search": ("consent_yes", "consent_no"),
    "forget_confirm": ("consent_no",),
    "unknown": ("consent_yes", "consent_no"),
    "small_talk": ("consent_yes", "consent_no"),
}


def _whose(found: tuple[lexicon.Token, ...]) -> Whose:
    classes: set[str] = set().union(*(t.classes for t in found)) if found else set()
    if "kin" in classes:
        return "named"
    return "other" if "third_person" in classes else "self"


def _diet(
    form: str,
    kinds: frozenset[str],
    found: tuple[lexicon.Token, ...],
    clauses: tuple[rules.ClauseReading, ...],
) -> DietReading:
    said = diet_said_form(form, kinds)
    whose = _whose(found)
    searched = _searched_diet(clauses)
    named = searched or find_diet(form)
    code = said.code if said.code is not None and (said.code == catalogue.ANY or not searched) else named
    lasting = said.lasting
    as_before = any("keep_as_is" in t.classes for t in found)
    theirs = code == catalogue.ANY and whose != "self" and _own_as_before(form, found)
    if as_before and ("other_diet" in kinds or theirs):
        code, lasting = None, False  # 「她不吃素了 但我還是照舊」: hers given up; the speaker's kept applies
    for_now = has_any(form, words.FOR_NOW)
    own = frozenset({named}) if named and whose == "self" else frozenset()
    negated = code == catalogue.ANY
    return DietReading(code, negated, whose, lasting, for_now, own, named)


def _own_as_before(form: str, found: tuple[lexicon.Token, ...]) -> bool:
    """The speaker says their own stays as before (「我照舊」, 「我還是照舊」): 我 shortly before 照舊."""
    return any("keep_as_is" in t.classes and "我" in form[max(0, t.start - 3) : t.start] for t in found)


def _searched_diet(clauses: tuple[rules.ClauseReading, ...]) -> str | None:
    """Different diets named in different clauses (「我爸吃鍋邊素，我是蛋奶素，找員林蛋奶素的店」):
    the one named by the last clause that asks a search (a goal or a township) is the search's. None
    when one diet or none is named."""
    named = [(c.clause, code) for c in clauses if (code := find_diet(c.clause))] if len(clauses) > 1 else []
    if len({code for _, code in named}) < 2:
        return None
    asked = (
        code
        for clause, code in reversed(named)
        if intents.goal_of(clause) or read_places(clause).kind != "none"
    )
    return next(asked, None)


# The lexicon classes of a diet said, and those that may stand beside it in a plain statement of it
# (「我吃素三十年了」): anything else (a question, a search word, a past or a negation) says more.
_DIET_CLASSES = frozenset({"diet", "vegetarian_word"})


def _keeps_a_diet(form: str) -> bool:
    """A clause of ``form`` names a diet beside a remember verb, or no clause remembers and one names a
    diet: a diet said with the keeping (a search's own diet, in a clause of its own, is not)."""
    parts = [lexicon.tokens(part) for part in rules.clauses(form)]
    keeping = [p for p in parts if any("remember_verb" in t.classes for t in p)]
    return any(t.classes & _DIET_CLASSES for p in (keeping or parts) for t in p)


_STATEMENT_ASIDE = frozenset({"aspect", "clause_close"})
# A relative named by kin (我太太, 阿公) may stand beside it too: the family types for its elders.
_KIN_ASIDE = _STATEMENT_ASIDE | {"kin", "third_person"}


def _states_a_diet(form: str, diet: DietReading, places: PlaceReading, classes: list[str]) -> bool:
    """The message only states a diet as the speaker's own or a relative's named by kin, now and for
    good: 「我吃蛋奶素」, 「I'm vegan 我吃全素的」, 「我先生吃五辛素」; not 「他朋友吃素」, 「我今天吃素」,
    「我以前吃素」, 「有素食嗎」, nor a diet said before something else (「我吃全素，想問問看」)."""
    plain = not diet.negated and not diet.for_now and places.kind == "none"
    own = diet.whose == "self" and bool(diet.own) and set(classes) - _DIET_CLASSES <= _STATEMENT_ASIDE
    kin = diet.whose == "named" and "kin" in classes and set(classes) - _DIET_CLASSES <= _KIN_ASIDE
    if not (plain and (own or kin)):
        return False
    whole = all(find_diet(clause) for clause in intents.CLAUSES.split(form) if clause)  # (nothing else said)
    return whole and (kin or has_any(form, words.SPEAKER_WORDS))


UndoClause = Literal["kept", "inside", "other", "unnamed"]


def _undo_clause(clauses: tuple[rules.ClauseReading, ...]) -> UndoClause:
    """Where the table read a delete or a stop, beside a search: ``inside`` the search's own clause
    (「刪掉素食幫我找員林的午餐」, one request read two ways); in a clause of its own
    that, or whose clause before it, names the kept thing (``kept``: 「把素食刪掉，然後看看鹿港」,
    「你不要再用素的找了 那個取消」); naming another thing or record and no diet (``other``: 「清除手機中
    的客戶資料」); or naming nothing kept, or another thing beside a diet (``unnamed``: 「那間店有夠難吃
    幫他刪掉 另外找一間」, 「把手機裡吃素的照片刪掉」, or only a record where another clause names
    another thing). With no delete or stop read, ``kept``: nothing is held back."""
    undoing = [
        i for i, c in enumerate(clauses) if c.rule is not None and c.rule.reading in policy.UNDO_READINGS
    ]
    apart = [i for i in undoing if not _searches(clauses[i].clause)]
    if not apart:
        return "inside" if undoing else "kept"
    named = [_classes_of(clauses[i].clause) for i in apart]
    if any(classes & policy.OTHER_NAMED for classes in named):
        # (another thing and a diet in one undo clause, 「把手機裡吃素的照片刪掉」: whose is unsaid, asked)
        return "unnamed" if any(classes & {"diet"} for classes in named) else "other"
    before = [_classes_of(clauses[i - 1].clause) if i else frozenset() for i in apart]
    # (a record named with no diet, where another clause names another thing, may be that thing's:
    # 「保險的單子跟健檢報告 之前的資料不要了 順便找…」 is asked; the thing a search asks for, 「鹿港明天
    # 有什麼活動」, is no such thing)
    others = any(_classes_of(c.clause) & policy.OTHER_NAMED for c in clauses if not _searches(c.clause))
    kept = rules.KEPT_CLASSES - {"memory_object"} if others else rules.KEPT_CLASSES
    if any((classes | earlier) & kept for classes, earlier in zip(named, before, strict=True)):
        return "kept"
    return "unnamed"


def _searches(clause: str) -> bool:
    """The clause asks for a search: a verb of finding, or a township named."""
    return has_any(clause, words.FIND_VERBS) or read_places(clause).kind != "none"


def _classes_of(clause: str) -> frozenset[str]:
    """The lexicon classes of one clause's words."""
    return frozenset(cls for token in lexicon.tokens(clause) for cls in token.classes)


def _classifier_goal(decision: Decision, scores: Scores | None) -> SearchGoal | None:
    """The search goal of a search only the classifier read (a place named with words the rules do
    not know): the classifier's search label."""
    if scores is None or decision.reasons[-1] != policy.SURE_SEARCH:
        return None
    return _GOALS.get(scores.best)


def _stop_classes(clauses: tuple[rules.ClauseReading, ...]) -> frozenset[str]:
    """The lexicon classes of the clauses the rule table read as a stop, with the kept thing a bare
    stop's topic names in the clause before it, read by no rule (「那個菜食的，莫記啊啦」)."""
    stops = [c.clause for c in clauses if c.rule is not None and c.rule.reading == "stop"]
    topics = [
        _classes_of(before.clause) & rules.KEPT_CLASSES
        for before, c in zip(clauses, clauses[1:], strict=False)
        if before.rule is None and c.rule is not None and c.rule.reading == "stop"
    ]
    return frozenset().union(
        *(_classes_of(s) - _ASKED_POLITELY if _politely(s) else _classes_of(s) for s in stops), *topics
    )


# A stop put as a polite request (「可以不要再幫我們過濾全素了嗎」) asks for the stop, not about it.
_ASKED_POLITELY = frozenset({"question"})


def _politely(clause: str) -> bool:
    """``clause`` is a request put politely: it begins with a polite asking word (可以, 能不能, 麻煩)
    and, without that word and a closing 嗎 (好嗎, 可以嗎), asks nothing."""
    bare = intents.bare(clause).rstrip("?" + words.TRAILING_PARTICLES)
    lead = next((w for w in words.POLITE_ASKING if bare.startswith(w)), "")
    if not lead or not bare.endswith(words.REQUEST_QUESTIONS):
        return False
    asked = bare[len(lead) :]
    tag = next((q for q in words.REQUEST_QUESTIONS if asked.endswith(q)), "")
    return not intents.is_question(asked.removesuffix(tag))


def _diet_ended(
    form: str, found: tuple[lexicon.Token, ...], clauses: tuple[rules.ClauseReading, ...]
) -> bool:
    """The sentence says a diet is no longer eaten: a vegetarian diet negated now (「現在沒在吃素了」),
    or a diet named with words that give it up (「已經不吃了」, 「蛋奶素的那個不需要了」 in one clause,
    or a clause of its own that ends in them: 「…可以刪掉嗎，我們現在不需要了」)."""
    if negated_diet(form) is not None:
        return True
    if not any("diet" in token.classes for token in found):
        return False
    if has_any(form, words.EATS_NO_MORE):
        return True
    return any(
        _dropped_not_searched(lexicon.tokens(clause.clause))
        or (
            intents.bare(clause.clause).endswith(words.DROP_ENDINGS)
            and not intents.is_question(clause.clause)
        )
        for clause in clauses
    )


def _dropped_not_searched(found: tuple[lexicon.Token, ...]) -> bool:
    """A clause names a diet and drops it (「素食那個算了」), unless its diet is what a search looks
    for (「算了…幫我找鹿港另一間素食就好」: a finding verb before it and no negation anywhere in the
    clause; the drop there is of something else)."""
    if not {"diet", "drop"} <= {cls for token in found for cls in token.classes}:
        return False
    diet = next((t.start for t in found if "diet" in t.classes), None)
    find = next((t.start for t in found if "filter_loose" in t.classes), None)
    negated = any(t.classes & rules.NEGATIONS for t in found)
    return not (diet is not None and find is not None and find < diet and not negated)


# Clause readings that remark on something (small talk, someone's or the speaker's own forgetting).
_REMARKS = rules.SMALL_TALK_READINGS | {"forgot_before", "self_forgot"}
_FORGETTING = frozenset({"forgot_before", "self_forgot"})
# Remarks, and another's thing deleted, told (「那間素食店把我的集點卡取消了」): no search named by them.
_TOLD = _REMARKS | {"other_named", "delete_other"}


def _named_search(
    also_searches: bool,
    places: PlaceReading,
    kinds: frozenset[str],
    clauses: tuple[rules.ClauseReading, ...],
    scores: policy.Scores | None = None,
    form: str = "",
) -> bool:
    """Whether the search is named (policy.decide's ``named_search``). A search read from a diet word
    alone, with no place named, is a weak reading: a sure classifier may read it as what is kept or
    as small talk; so is one read from food words in a remark (a visit, someone's forgetting: 「上次你
    推薦那家麵很好吃」, 「我媽很健忘，常忘記吃藥」), or in telling of another's thing deleted (「那間素食店
    把我的集點卡取消了」), with no question asked and no place named, or a place named but no search
    asked for in words. A classifier sure it is small talk (``scores``) makes a remark of it as a
    remark kind of the table does (「溪湖那間羊肉店換人做了 味道差好多」)."""
    chatted = scores is not None and scores.best.startswith("smalltalk_") and scores.confidence >= policy.HIGH
    unsought = places.kind == "none" or not any(has_any(c.clause, words.FIND_VERBS) for c in clauses)
    # (a township in a remark, 「溪湖那間麵攤很難吃 不會再去」, with no 找: no search either)
    # (「二水 have good 早餐?」: a question mark, which no clause keeps, asks too)
    if (kinds & _TOLD or chatted) and not (_asks(clauses) or "?" in form) and unsought:
        return False
    return also_searches or places.kind != "none"


def _asks(clauses: tuple[rules.ClauseReading, ...]) -> bool:
    """A clause asks a question, other than one inside a forgetting (「我忘記那家叫什麼了」 asks nothing)."""
    return any(
        intents.is_question(c.clause) for c in clauses if c.rule is None or c.rule.reading not in _FORGETTING
    )


def _today(now: float | date | None) -> date | None:
    if now is None or isinstance(now, date):
        return now
    return today_in_taipei(now)


def _dates(form: str, today: date | None) -> DateReading:
    """The dates ``form`` names; a day said after a correction (「禮拜六…我是說禮拜天」, 「明天 不對 是後天」)
    replaces the days said before it."""
    if today is None or not form:
        return DateReading()
    said = read_dates(form, today)
    if said.kind == "past" and _asked_after_a_past_day(form, today):
        return DateReading()  # 「昨天去了一場活動…再查一次最近的活動」: the past day is told, not asked
    if said.window is not None and said.window.start <= today:  # (today, or a past day, told apart)
        said = _today_told_apart(form, today) or said
    tail = corrected_tail(form) if said.kind != "none" else None
    corrected = read_dates(tail, today) if tail else said
    return corrected if corrected.kind != "none" else said


def _today_told_apart(form: str, today: date) -> DateReading | None:
    """「昨日忘記帶眼鏡，今日補上。請查和美本週末活動」: today (or a past day) told in clauses of their
    own, which ask for nothing, beside one clause that asks for a search and names its days: the
    days asked are that clause's. None when that is not so."""
    read = [(part, read_dates(part, today)) for part in rules.clauses(form)]
    dated = [(reading, _asks_a_search(part)) for part, reading in read if reading.kind != "none"]
    asking = [reading for reading, asks in dated if asks]
    if len(dated) < 2 or len(asking) != 1 or asking[0].kind != "window":
        return None
    told = [reading for reading, asks in dated if not asks]
    return asking[0] if all(r.kind == "past" or _only_today(r, today) for r in told) else None


def _asks_a_search(part: str) -> bool:
    asked = intents.goal_of(part) in ("places", "events") or intents.is_question(part)
    return asked or has_any(part, words.FIND_VERBS)


def _only_today(said: DateReading, today: date) -> bool:
    return said.window is not None and said.window.start == said.window.end == today


# Rule readings that say what to do with the kept preference: after a correction, they decide.
_PREFERENCE_READINGS = frozenset({"delete", "delete_that", "stop", "remember", "show", "keep"})
_UNDO_WORDS = frozenset({"delete_verb", "undo_phrase", "stop_verb"})
_GOALS: dict[str, SearchGoal] = {"search_places": "places", "search_events": "events"}


def _corrected(form: str, found: tuple[lexicon.Token, ...]) -> tuple[str, tuple[rules.ClauseReading, ...]]:
    """The part of ``form`` that says what to do with the kept preference, and its clauses: what
    follows the last correction (「記住吃素 不對不對 是把吃素刪掉」, 「先不要動 啊不對 還是刪掉」) when
    the rule table reads a preference there, else the whole sentence. The kept thing named before
    the correction is what a bare verb after it acts on (「素食的先不要動 不對不對 還是刪掉啦」 deletes
    the 素食) unless the part after it names its own; a correction word that ends an undo (the 錯了 of 「按錯了」) takes back a tap, not words."""
    tail = corrected_tail(form)
    start = len(form) - len(tail or "")
    if tail and not any("undo_phrase" in t.classes and t.start < start <= t.end + 2 for t in found):
        own = any(t.start >= start and not t.classes.isdisjoint(rules.KEPT_CLASSES) for t in found)
        named = [
            t.word
            for t in found
            if t.end <= start
            and not own  # (「弄成蛋奶素 不對啦 我是吃全素的 幫我記全素」: the tail names its own)
            and not t.classes.isdisjoint(rules.KEPT_CLASSES)
            and lexicon.classes_of(t.word).isdisjoint(rules.VERBS)  # (a record pointed at stays out too)
        ]
        heard = "".join(named) + tail
        later = rules.read_clauses(heard)
        if any(c.rule is not None and c.rule.reading in _PREFERENCE_READINGS for c in later):
            return heard, later
    return form, rules.read_clauses(form)


def _deleted_by_another(clauses: tuple[rules.ClauseReading, ...]) -> bool:
    """A clause the table read as a delete has someone else as the one who deletes: a third person
    before the delete verb, with nothing of the kept thing, no 把 and nobody asking the bot before
    it (「孫子說要刪掉素食那個」, 「店家取消了素食套餐」), or one who wants to do it, with the kept
    thing and 把 named and nobody asked anywhere to do it for them (「鄰居說他想把他的素食設定刪掉」):
    told of, or theirs to do, never the bot's (asked about)."""
    for clause in clauses:
        if clause.rule is None or clause.rule.reading not in _DELETE_READINGS:
            continue
        found = lexicon.tokens(clause.clause)
        verb = next((t for t in found if "delete_verb" in t.classes), None)
        if verb is None or has_any(clause.clause[: verb.start], words.ASKED_OF_THE_BOT):
            continue
        before = [t for t in found if t.end <= verb.start]
        someone = any(_the_doer(clause.clause, t) for t in before)
        if someone and not any(t.classes & _THEIRS_TO_ASK for t in before):
            return True
        if any(_wishes_it(clause.clause, t) for t in before) and not _asked_anywhere(clauses):
            return True  # 「鄰居說他想把他的素食設定刪掉」: the kept thing and 把, but their own wish
    return False


def _asked_anywhere(clauses: tuple[rules.ClauseReading, ...]) -> bool:
    """Some clause asks the bot to do it, or to do it for someone (麻煩幫她刪, 請你)."""
    said = "".join(clause.clause for clause in clauses)
    return has_any(said, words.ASKED_FOR_SOMEONE) or has_any(said, words.ASKED_OF_THE_BOT)


def _wishes_it(clause: str, token: lexicon.Token) -> bool:
    """A third person who may do something, followed right away by a wish (想, 打算): it is theirs."""
    return _the_doer(clause, token) and clause.startswith(words.THEIR_WISH, token.end)


def _the_doer(clause: str, token: lexicon.Token) -> bool:
    """``token`` is a third person who may do something, not one it is done for (幫她, 請幫阿嬤, 替我媽)."""
    done_for = "for_someone" in token.classes or clause.endswith(("幫", "替"), 0, token.start)
    return "third_person" in token.classes and not done_for


_DELETE_READINGS = frozenset({"delete", "delete_that"})
# Before the verb, these make the delete one the person asks for (of the kept thing, with 把, for
# someone, kindly).
_THEIRS_TO_ASK = rules.KEPT_CLASSES | {"disposal", "for_someone", "courtesy"}


_FOR_SOMEONE = lexicon.words_of("for_someone")


def _again(form: str) -> bool:
    """The last search asked again (再查一次), also for someone named inside it (「再幫他查一次」)."""
    return has_any(without(form, _FOR_SOMEONE), words.AGAIN_WORDS)


def _asked_after_a_past_day(form: str, today: date) -> bool:
    """A past day told in an earlier clause, and the last clause asks (a question or a search verb)
    naming no day of its own: the question is about what is to come."""
    parts = [part for part in rules.CLAUSE_BREAKS.split(form) if part]
    if len(parts) < 2 or read_dates(parts[-1], today).kind != "none":
        return False
    return intents.is_question(parts[-1]) or has_any(parts[-1], words.FIND_VERBS)


def read(text: str, now: float | date | None = None, context: Context | None = None) -> Utterance:
    """``text`` read once (module docstring). ``now``: the clock (epoch seconds or a Taiwan day) the
    date window is read against; without it no dates are read. ``context``: what the conversation
    waits for."""
    with one_reading():
        return _read(text if isinstance(text, str) else "", now, context)


def _read(text: str, now: float | date | None, context: Context | None) -> Utterance:
    form = reading_form(text)
    found = lexicon.tokens(form)
    heard, clauses = _corrected(form, found)
    kinds = frozenset(c.rule.reading for c in clauses if c.rule is not None)
    said = intents.read_form(text, heard, clauses)
    goal = intents.goal_of(form) if form else None
    classes = sorted({c for t in found for c in t.classes})
    scores = policy.classify(form, classes)
    diet = _diet(form, kinds, found, clauses)
    named = diet.code if diet.code and rememberable(diet.code) else None
    places = read_places(form)
    also_searches = intents.searches_besides(form) or intents.searches_in_a_pause(text, form)
    named_search = _named_search(also_searches, places, kinds, clauses, scores, form)
    decision = policy.decide(
        said,
        goal,
        kinds,
        scores,
        named,
        named_search=named_search,
        classes=frozenset(classes),
        supposed=intents.supposed(form),
        stop_classes=_stop_classes(clauses),
        kept_named=not has_any(form, words.OTHER_RECORDS),
        ended=("delete_verb" in classes or "stop" in kinds) and _diet_ended(form, found, clauses),
        stated=bool(named) and not named_search and _states_a_diet(form, diet, places, classes),
        undo_clause=_undo_clause(clauses),
        undos=sum(1 for t in found if not t.classes.isdisjoint(_UNDO_WORDS)),
        place_named=places.kind == "township",
        by_another=_deleted_by_another(clauses),
    )
    today, bare = _today(now), intents.bare(form)
    return Utterance(
        text=text,
        form=form,
        bare=bare,
        tokens=found,
        clauses=clauses,
        words=said,
        decision=decision,
        scores=scores,
        diet=diet,
        places=places,
        dates=_dates(form, today),
        goal=goal if goal is not None else _classifier_goal(decision, scores),
        also_searches=also_searches,
        consent=intents.consent_answer(bare) if form else None,
        consent_only=bare in words.CONSENT_ONLY,
        thanked=intents.thanked(form),
        more=has_any(form, words.MORE_WORDS),
        again=_again(form),
        follow_up=intents.is_follow_up_form(form) or (places.kind == "township" and corrects(form)),
        yes=is_yes(form),
        no=is_no(form),
        older=refers_to_older_form(form),
        zhuyin=is_zhuyin(form),
        today=today,
        context=context or Context(),
    )
