"""``policy.decide`` weighed directly, with the classifier's scores given: how a weak search (a diet
word alone, no place named), a remember verb the rules did not read as a request, and the privacy
floors combine. The live classifier is scored elsewhere (``tests/test_intent_classifier.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pytest

from local_agent.language.intents import Reading
from local_agent.language.policy import decide

SEARCH = Reading("search")


@dataclass(frozen=True)
class Given:
    best: str
    confidence: float

    @property
    def scores(self) -> Mapping[str, float]:
        return {self.best: self.confidence}


def test_a_weak_search_gives_way_to_a_sure_what_is_kept_and_a_named_search_does_not() -> None:
    sure = Given("show_kept", 0.97)
    weak = decide(SEARCH, "places", frozenset(), sure, named_search=False)
    assert (weak.outcome, weak.reading.intent) == ("act", "show_kept")
    named = decide(SEARCH, "places", frozenset(), sure, named_search=True)
    assert (named.outcome, named.reading.intent) == ("pass", "search")
    unsure = decide(SEARCH, "places", frozenset(), Given("show_kept", 0.6), named_search=False)
    assert unsure.reading.intent == "search"


def test_a_weak_search_gives_way_to_sure_small_talk() -> None:
    talk = decide(SEARCH, "places", frozenset(), Given("smalltalk_health", 0.9), named_search=False)
    assert (talk.outcome, talk.reading.intent, talk.reading.talk) == ("pass", "small_talk", "health")
    kept = decide(SEARCH, "places", frozenset(), Given("smalltalk_health", 0.9), named_search=True)
    assert kept.reading.intent == "search"


def test_a_diet_stated_alone_is_never_a_remember_on_the_classifier_alone() -> None:
    stated = decide(SEARCH, "places", frozenset(), Given("remember", 0.95), "vegan", named_search=False)
    assert stated.reading.intent == "search"  # no remember verb: nothing offered to keep


@pytest.mark.parametrize("ruled", [SEARCH, Reading("unknown")])
def test_a_remember_verb_a_diet_and_a_sure_classifier_ask_with_the_consent_prompt(ruled: Reading) -> None:
    verb = frozenset({"remember_verb", "diet"})
    asked = decide(ruled, "places", frozenset(), Given("remember", 0.9), "vegan", classes=verb)
    assert (asked.outcome, asked.reading.intent, asked.reading.diet) == ("ask", "remember", "vegan")
    unsure = decide(ruled, "places", frozenset(), Given("remember", 0.6), "vegan", classes=verb)
    if ruled.intent == "search":  # a search the rules read stands against a middling remember
        assert (unsure.outcome, unsure.reading.intent) == ("pass", "search")
    else:  # nothing read by the rules: the prompt, a question, as before
        assert (unsure.outcome, unsure.reading.intent) == ("ask", "remember")
    no_diet = decide(ruled, "places", frozenset(), Given("remember", 0.9), None, classes=verb)
    assert no_diet.reading.diet is None


def test_the_rules_what_is_kept_question_stands_against_a_sure_remember() -> None:
    verb = frozenset({"remember_verb", "diet", "question"})
    shown = decide(Reading("show_kept"), None, frozenset(), Given("remember", 0.95), "vegan", classes=verb)
    assert shown.reading.intent == "show_kept"


def test_a_weak_search_turns_an_undo_at_least_middling_into_a_question_never_a_forget() -> None:
    unsure = decide(SEARCH, "places", frozenset(), Given("delete", 0.4), named_search=False)
    assert (unsure.outcome, unsure.reading.intent) == ("pass", "search")
    middling = decide(SEARCH, "places", frozenset(), Given("delete", 0.5), named_search=False)
    assert (middling.outcome, middling.reading.intent) == ("ask", "forget_confirm")
    sure = decide(SEARCH, "places", frozenset(), Given("delete", 0.9), named_search=False)
    assert (sure.outcome, sure.reading.intent) == ("ask", "forget_confirm")  # never a forget


def test_a_lasting_word_without_a_remember_verb_gives_way_to_a_sure_search() -> None:
    remember = Reading("remember", diet="vegetarian")
    searched = decide(remember, "places", frozenset(), Given("search_places", 0.95), "vegetarian")
    assert (searched.outcome, searched.reading.intent) == ("pass", "search")
    verb = frozenset({"remember_verb"})
    kept = decide(remember, "places", frozenset(), Given("search_places", 0.95), "vegetarian", classes=verb)
    assert kept.reading.intent == "remember"  # a remember verb: the rules' remember stands


def test_a_remember_said_beside_a_complaint_gets_the_three_way_question_never_kept() -> None:
    remember = Reading("remember", diet="vegetarian")
    complaint = decide(remember, "places", frozenset({"remember", "complaint"}), Given("stop", 0.6))
    assert (complaint.outcome, complaint.reading.intent) == ("ask", "preference_question")
    other = decide(remember, "places", frozenset({"remember", "complaint"}), Given("other", 0.5))
    assert other.reading.intent == "preference_question"  # the complaint alone makes it doubtful
    sure_stop = decide(remember, "places", frozenset({"remember"}), Given("stop", 0.9))
    assert (sure_stop.outcome, sure_stop.reading.intent) == ("ask", "preference_question")
    # Without a complaint, a middling stop leaves the remember (the consent prompt is itself a question).
    middling = decide(remember, "places", frozenset({"remember"}), Given("stop", 0.6))
    assert (middling.outcome, middling.reading.intent) == ("act", "remember")
    # A complaint beside a remember the classifier reads as one: the remember stands when a verb of
    # remembering asked it (「記住我吃素啦 每次都要講 很煩」); read from lasting words alone
    # (「每次都給我素的 很煩」), keeping or stopping is asked.
    kinds = frozenset({"remember", "complaint"})
    verb = frozenset({"remember_verb"})
    agreed = decide(remember, "places", kinds, Given("remember", 0.9), classes=verb)
    assert (agreed.outcome, agreed.reading.intent) == ("act", "remember")
    lasting = decide(remember, "places", kinds, Given("remember", 0.9))
    assert (lasting.outcome, lasting.reading.intent) == ("ask", "preference_question")


def test_a_stop_the_table_read_and_a_sure_classifier_act_and_nothing_doubtful_keeps_it_a_question() -> None:
    asked = Reading("forget_confirm")
    stop_clause = frozenset({"stop_verb", "diet", "apply_verb"})
    acted = decide(asked, None, frozenset({"stop"}), Given("stop", 0.95), stop_classes=stop_clause)
    assert (acted.outcome, acted.reading.intent) == ("act", "forget")
    for doubt in ("question", "third_person", "temporary", "hesitation"):
        kept = decide(
            asked, None, frozenset({"stop"}), Given("stop", 0.95), stop_classes=stop_clause | {doubt}
        )
        assert (kept.outcome, kept.reading.intent) == ("ask", "forget_confirm"), doubt
    supposed = decide(
        asked, None, frozenset({"stop"}), Given("stop", 0.95), stop_classes=stop_clause, supposed=True
    )
    assert supposed.reading.intent == "forget_confirm"
    middling = decide(asked, None, frozenset({"stop"}), Given("stop", 0.6), stop_classes=stop_clause)
    assert middling.reading.intent == "forget_confirm"  # never on a middling classifier
    unnamed = decide(
        asked, None, frozenset({"stop"}), Given("stop", 0.95), stop_classes=frozenset({"stop_verb"})
    )
    assert unnamed.reading.intent == "forget_confirm"  # the kept thing must be named in the stop
    kept_too = decide(asked, None, frozenset({"stop", "keep"}), Given("stop", 0.95), stop_classes=stop_clause)
    assert kept_too.reading.intent == "forget_confirm"
    no_table = decide(asked, None, frozenset(), Given("stop", 0.99), stop_classes=stop_clause)
    assert no_table.reading.intent == "forget_confirm"  # never on the classifier alone


def test_a_plain_stop_is_read_as_one_and_a_supposed_or_relayed_one_is_asked() -> None:
    from local_agent import language

    assert language.read("拜託不要再用全素幫我過濾了").reading.intent == "forget"
    for said in ("如果不要再用素食過濾會怎樣", "我先生不要再用素食過濾了", "這次先不要用素食過濾"):
        assert language.read(said).reading.intent == "forget_confirm", said


def test_the_kept_thing_named_with_no_verb_and_a_sure_delete_gets_the_three_way_question() -> None:
    search = SEARCH
    diet = frozenset({"diet"})
    sure = decide(search, "places", frozenset(), Given("delete", 0.9), named_search=False, classes=diet)
    assert (sure.outcome, sure.reading.intent) == ("ask", "preference_question")
    middling = decide(search, "places", frozenset(), Given("delete", 0.5), named_search=False, classes=diet)
    assert (middling.outcome, middling.reading.intent) == ("ask", "forget_confirm")
    verb = decide(
        search,
        "places",
        frozenset(),
        Given("delete", 0.9),
        named_search=False,
        classes=diet | {"delete_verb"},
    )
    assert verb.reading.intent != "preference_question"


def test_a_delete_the_rules_read_beside_a_search_the_classifier_reads_is_both_requests() -> None:
    forget = Reading("forget")
    both = decide(forget, "places", frozenset({"delete"}), Given("search_places", 0.99), named_search=True)
    assert (both.outcome, both.reading.intent) == ("act", "forget")
    # with no search named, a sure search from the classifier is a disagreement: asked about
    alone = decide(forget, None, frozenset({"delete"}), Given("search_places", 0.99), named_search=False)
    assert (alone.outcome, alone.reading.intent) == ("ask", "forget_confirm")


def test_a_forgetting_remarked_on_beside_a_named_search_is_the_search() -> None:
    remark = decide(SEARCH, "places", frozenset({"forgot_before"}), Given("delete", 0.97), named_search=True)
    assert (remark.outcome, remark.reading.intent) == ("pass", "search")
    asked = decide(SEARCH, "places", frozenset(), Given("delete", 0.97), named_search=True)
    assert asked.reading.intent == "forget_confirm"  # no remark read: a sure delete is asked about


def test_a_delete_a_sure_classifier_reads_as_a_stop_acts_and_a_sure_other_reading_asks() -> None:
    forget = Reading("forget")
    stop = decide(forget, None, frozenset({"delete"}), Given("stop", 0.97), named_search=False)
    assert (stop.outcome, stop.reading.intent) == ("act", "forget")
    other = decide(forget, None, frozenset({"delete"}), Given("other", 0.97), named_search=False)
    assert (other.outcome, other.reading.intent) == ("ask", "forget_confirm")


def test_a_sure_delete_of_another_thing_named_is_not_asked_about() -> None:
    photos = frozenset({"other_thing", "delete_verb"})
    named = decide(Reading("unknown"), None, frozenset(), Given("delete", 0.97), classes=photos)
    assert (named.outcome, named.reading.intent) == ("pass", "unknown")
    kept = decide(Reading("unknown"), None, frozenset(), Given("delete", 0.97), classes=photos | {"diet"})
    assert kept.reading.intent == "forget_confirm"


@dataclass(frozen=True)
class Split:
    """A classifier that splits a reading between labels."""

    scores: Mapping[str, float]

    @property
    def best(self) -> str:
        return max(self.scores, key=lambda label: self.scores[label])

    @property
    def confidence(self) -> float:
        return self.scores[self.best]


def test_delete_and_stop_together_are_asked_about_where_neither_alone_would_be() -> None:
    split = Split({"other": 0.4, "delete": 0.3, "stop": 0.3})
    kept = frozenset({"diet", "stop_lead"})
    asked = decide(Reading("unknown"), None, frozenset(), split, named_search=False, classes=kept)
    assert (asked.outcome, asked.reading.intent) == ("ask", "forget_confirm")
    beside = decide(Reading("search"), "places", frozenset(), split, named_search=True, classes=kept)
    assert beside.reading.intent == "search"  # a named search stands
    nothing = decide(Reading("unknown"), None, frozenset(), split, named_search=False, classes=frozenset())
    assert nothing.reading.intent == "unknown"  # nothing of the kept thing named


@dataclass(frozen=True)
class Spread:
    """Scores over several labels: the best and the rest."""

    scores: Mapping[str, float]

    @property
    def best(self) -> str:
        return max(self.scores, key=self.scores.__getitem__)

    @property
    def confidence(self) -> float:
        return self.scores[self.best]


def test_a_delete_the_classifier_reads_only_middling_is_asked_never_acted_on() -> None:
    forget = Reading("forget")
    middling = decide(forget, None, frozenset({"delete"}), Spread({"other": 0.6, "delete": 0.4}))
    assert (middling.outcome, middling.reading.intent) == ("ask", "forget_confirm")
    read = decide(forget, None, frozenset({"delete"}), Spread({"other": 0.5, "delete": 0.5}))
    assert (read.outcome, read.reading.intent) == ("act", "forget")
    # a remember the rules read stays the consent prompt, itself a question
    remember = decide(
        Reading("remember", diet="vegan"), None, frozenset({"remember"}), Spread({"other": 0.6})
    )
    assert remember.reading.intent == "remember"


def test_a_stop_beside_a_named_search_is_both_unless_the_sentence_asks() -> None:
    forget, stop = Reading("forget"), frozenset({"stop"})
    said = frozenset({"negation", "remember_verb", "diet"})
    both = decide(forget, "places", stop, Given("search_places", 0.6), classes=said)
    assert (both.outcome, both.reading.intent) == ("act", "forget")
    asked = decide(forget, "places", stop, Given("search_places", 0.6), classes=said | {"question"})
    assert (asked.outcome, asked.reading.intent) == ("ask", "forget_confirm")
    deleted = decide(
        forget, "places", frozenset({"delete"}), Given("search_places", 0.6), classes=said | {"question"}
    )
    assert (deleted.outcome, deleted.reading.intent) == ("act", "forget")  # a delete verb said is acted on
