"""Kinds read by design from an eighth blind set: three on deleting and keeping (a rice-mill owner
dictating slowly, a young mother abbreviating, a Hokkien-only man on voice input, a Malaysian-Chinese
wife writing Cantonese words; a suspicious civil servant, a Yiguandao auntie, a volunteer managing
her late mother's settings, a schoolgirl writing slang; an oyster farmer's run-ons, a Thai-born
helper, a formal retired principal, a son speaking of his parents) and three on all categories, from
its development half and from one test-half delete request that neither forgot nor asked. Each with
sentences written for the test, not the corpus's."""

from __future__ import annotations

import time
from datetime import date

import pytest
from conftest import FakeClock
from helpers_app import AppHarness

from bench.phrasings import FIXED_NOW
from local_agent import language
from local_agent.language import rules, townships
from local_agent.language.dates import read_dates
from local_agent.language.intents import Reading, bare, consent_answer
from local_agent.language.policy import decide
from local_agent.language.text import reading_form
from local_agent.language.utterance import _deleted_by_another
from tests.test_policy_decide import SEARCH, Given
from tests.test_reading_policy import all_text, buttons, grant, kept, say

TODAY = date(2026, 12, 1)  # a Tuesday


@pytest.fixture
def app(tmp_path):
    with AppHarness(tmp_path / "local.sqlite3", clock=FakeClock(time.time())) as harness:
        yield harness


def _undone_or_asked(app: AppHarness) -> bool:
    return kept(app) == ("forgotten", None) or "確定忘記" in buttons(app)


def test_a_cantonese_plea_to_stop_keeping_a_diet_given_up_forgets(app) -> None:
    grant(app, "記住我吃蛋奶素")
    say(app, "唔該你 可唔可以唔好再記我食蛋奶素 我而家冇食啦")
    assert _undone_or_asked(app)
    assert "會繼續套用" not in all_text(app)


@pytest.mark.parametrize("said", ["五辛素那個 還是不要好了", "素的那個設定 不用好了啦"])
def test_a_decision_softened_with_hao_le_drops_the_kept_diet(app, said: str) -> None:
    grant(app, "記住我吃五辛素")
    say(app, said)
    assert _undone_or_asked(app)
    assert "哪個鄉鎮" not in all_text(app)


def test_a_negation_that_ends_the_clause_before_a_ba_negates_nothing_after_it() -> None:
    form = reading_form("早上那個不用了 你把記的全素刪掉")
    assert ",你把" in form
    decision = language.read(form, FIXED_NOW).decision
    assert decision.reading.intent == "forget"
    # a negation inside the 把 clause still keeps it
    kept_it = language.read("不要把記的全素刪掉", FIXED_NOW).decision
    assert kept_it.reading.intent == "forget_declined"


def test_a_polite_tag_with_more_said_after_it_ends_its_clause() -> None:
    assert reading_form("素食的設定幫我清掉好嗎我以後自己講") == "素食的設定幫我清掉好嗎,我以後自己講"
    assert reading_form("你好嗎") == "你好嗎"
    decision = language.read("素食的設定幫我清掉好嗎我以後自己講", FIXED_NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("act", "forget")


@pytest.mark.parametrize(
    "said",
    [
        "記著的全素可以幫我取消嗎？我們現在不需要了",
        "可以不要再記我吃鍋邊素了嗎 我早就沒吃了",
    ],
)
def test_an_undo_asked_as_a_question_with_the_diet_given_up_is_acted_on(said: str) -> None:
    decision = language.read(said, FIXED_NOW).decision
    assert (decision.outcome, decision.reading.intent) == ("act", "forget")


def test_an_undo_asked_as_a_question_with_no_reason_stays_asked() -> None:
    decision = language.read("記著的全素可以取消嗎？", FIXED_NOW).decision
    assert decision.outcome == "ask"


@pytest.mark.parametrize("label", ["stop", "delete"])
@pytest.mark.parametrize("classes", [frozenset(), frozenset({"apply_verb"})])
def test_an_undo_the_classifier_reads_beside_a_named_search_is_asked(label, classes) -> None:
    """With or without a word that undoes: a stop or delete said in words the lexicon lacks must not
    be lost to the search beside it."""
    found = decide(SEARCH, "places", frozenset(), Given(label, 0.99), named_search=True, classes=classes)
    assert found.reading.intent == "forget_confirm"


def test_a_keep_said_beside_a_search_in_a_township_is_that_search(app) -> None:
    grant(app)
    say(app, "千萬別把我吃素忘記喔 溪湖晚上有什麼好吃的")
    assert kept(app) == ("granted", "vegetarian")
    assert app.outcomes[-1].tool_calls
    # with no township named, a keep told among other remarks stays the keep's answer
    declined = Reading("forget_declined")
    alone = decide(declined, "places", frozenset({"keep"}), Given("other", 0.99), named_search=True)
    assert alone.reading.intent == "forget_declined"


def test_a_keep_with_a_question_on_what_is_kept_shows_it(app) -> None:
    """The classifier sure the question asks what is kept: shown, which changes nothing."""
    declined = Reading("forget_declined")
    question = frozenset({"question"})
    shown = decide(declined, None, frozenset({"keep"}), Given("show_kept", 0.95), classes=question)
    assert (shown.outcome, shown.reading.intent) == ("act", "show_kept")
    unsure = decide(declined, None, frozenset({"keep"}), Given("show_kept", 0.6), classes=question)
    assert unsure.reading.intent == "forget_declined"
    grant(app, "記住我吃蛋奶素")
    say(app, "別刪我的蛋奶素喔 你現在還記著我吃什麼嗎")
    assert kept(app) == ("granted", "lacto_ovo")
    assert "蛋奶素" in all_text(app)


def test_a_keep_said_in_so_many_words_stands_against_a_sure_undo() -> None:
    declined = Reading("forget_declined")
    as_is = decide(
        declined, None, frozenset({"keep"}), Given("delete", 0.99), classes=frozenset({"keep_as_is"})
    )
    assert as_is.reading.intent == "forget_declined"


def test_another_thing_named_beside_an_agreed_undo_is_asked() -> None:
    decision = decide(
        Reading("forget"),
        None,
        frozenset({"delete", "other_named"}),
        Given("delete", 0.99),
        named_search=False,
    )
    assert (decision.outcome, decision.reading.intent) == ("ask", "forget_confirm")


@pytest.mark.parametrize(("said", "township"), [("福星有什麼好吃的", "福興鄉"), ("去大成那邊吃飯", "大城鄉")])
def test_a_common_word_sounding_like_a_township_where_a_place_stands_is_asked(
    said: str, township: str
) -> None:
    reading = townships.read_places(said)
    assert (reading.kind, reading.township) == ("confirm", township)


@pytest.mark.parametrize("said", ["他是我們家的福星", "目標終於大成了", "我們達成有共識"])
def test_a_common_word_elsewhere_is_no_place(said: str) -> None:
    assert townships.read_places(said).kind == "none"


def test_a_township_named_in_a_complaint_about_a_shop_asks_for_no_search(app) -> None:
    say(app, "田尾那間麵店有夠難吃 老闆態度很差 以後不要去了")
    assert not app.outcomes[-1].tool_calls
    assert "哪個鄉鎮" not in all_text(app)


def test_a_poinsettia_is_no_christmas() -> None:
    assert read_dates("陽台的聖誕紅開了 這禮拜六有活動嗎", TODAY).window.start == date(2026, 12, 5)
    assert read_dates("聖誕節有活動嗎", TODAY).window.end == date(2026, 12, 25)


@pytest.mark.parametrize(
    ("said", "start", "end"),
    [
        ("12/24-12/26有什麼活動", date(2026, 12, 24), date(2026, 12, 26)),
        ("１２／２４－１２／２６", date(2026, 12, 24), date(2026, 12, 26)),
        ("12月8-9日員林有市集嗎", date(2026, 12, 8), date(2026, 12, 9)),
        ("2026-12-24有活動嗎", date(2026, 12, 24), date(2026, 12, 24)),
    ],
)
def test_a_hyphen_between_two_days_is_a_span(said: str, start: date, end: date) -> None:
    window = read_dates(said, TODAY).window
    assert window is not None and (window.start, window.end) == (start, end)


def test_a_phone_number_is_no_span() -> None:
    assert read_dates("我電話0937-112-334", TODAY).window is None


def test_a_bare_no_with_a_particle_takes_back_the_day_before_it() -> None:
    took_back = language.read("溪湖禮拜五 不是喔 禮拜六有什麼活動", FIXED_NOW)
    assert took_back.dates.window is not None and took_back.dates.window.start == date(2026, 12, 5)
    denied = language.read("下禮拜三 不是這禮拜 溪湖有活動嗎", FIXED_NOW)
    assert denied.dates.window is not None and denied.dates.window.start == date(2026, 12, 9)


@pytest.mark.parametrize("said", ["ได้ ได้", "sige po", "OK ได้ 好"])
def test_a_yes_in_a_helpers_own_language_is_a_yes(said: str) -> None:
    assert consent_answer(bare(reading_form(said))) == "consent_yes"


def test_a_formal_request_to_search_and_record_gets_the_consent_prompt(app) -> None:
    say(app, "本人茹素多年，屬全素，往後煩請依此查詢並記錄")
    assert "同意" in buttons(app)
    assert kept(app)[0] != "granted"


def test_a_formal_stop_with_a_filler_between_negation_and_verb_is_asked_or_done(app) -> None:
    grant(app, "記住我吃蛋奶素")
    say(app, "關於先前登記的蛋奶素，敬請往後不再以此篩選店家，謝謝。")
    assert _undone_or_asked(app)


def test_stir_fry_and_brunch_are_food_searches() -> None:
    assert language.read("員林哪邊有熱炒", FIXED_NOW).goal == "places"
    assert language.read("鹿港有早午餐嗎", FIXED_NOW).goal == "places"


def test_a_generic_vegetarian_word_in_a_search_takes_the_kept_kind_of_vegetarian(app) -> None:
    grant(app, "記住我吃全素")
    say(app, "幫我找溪湖的素食")
    call = app.outcomes[-1].tool_calls[0]
    assert call["effective_arguments"]["dietary_type"] == "vegan"
    # a kind named in so many words is that kind
    say(app, "幫我找溪湖的蛋奶素")
    assert app.outcomes[-1].tool_calls[0]["effective_arguments"]["dietary_type"] == "lacto_ovo"


@pytest.mark.parametrize(
    ("form", "theirs"),
    [
        ("孫子說要刪掉素食那個", True),
        ("他叫你刪掉素食那個", False),  # asked of the bot, whoever says it
        ("幫他把素食的刪掉", False),  # for someone, with 把
        ("素食的那個刪掉", False),
    ],
)
def test_a_delete_someone_else_does_is_told_of_not_asked_for(form: str, theirs: bool) -> None:
    assert _deleted_by_another(rules.read_clauses(form)) is theirs
