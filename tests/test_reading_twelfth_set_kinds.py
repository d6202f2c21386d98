"""Kinds read by design from a twelfth blind set: three on deleting and keeping (a retired bus conductor,
a nephew managing his aunt's account, an Indonesian caregiver, a suspicious retired accountant; an
oyster farmer's wife writing Hokkien, a night-shift worker, a temple volunteer, a granddaughter abroad;
a retired policeman, a woman from Fujian writing simplified characters, a high-school girl, a deaf man
typing formally) and three on all categories, from its development half. Each with sentences written
for the test, not the corpus's."""

from __future__ import annotations

from datetime import date

import pytest

from local_agent import language
from local_agent.language import rules
from local_agent.language.dates import read_dates
from local_agent.language.intents import Reading
from local_agent.language.policy import decide
from local_agent.language.text import reading_form
from local_agent.language.townships import read_places
from tests.test_policy_decide import Given

TODAY = date(2026, 12, 1)
NOW = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("nenek tidak mau 吃素了", "阿嬤不想吃素了"),
        ("kakek sekarang 可以吃肉", "阿公現在可以吃肉"),
        ("bà không cần nữa", "bà不需要了"),
        ("lola 吃全素 salamat", "阿嬤吃全素謝謝"),
    ],
)
def test_a_caregiver_s_own_words_read_as_the_words_the_rules_know(typed: str, read: str) -> None:
    assert reading_form(typed) == read


def test_a_caregiver_s_then_is_a_clause_break() -> None:
    """「lalu」 (then) between a delete and a search: two requests, the delete never lost in the search."""
    said = language.read("素食那個刪掉 lalu 找員林的麵店", NOW)
    assert len(said.clauses) == 2
    assert said.decision.reading.intent in ("forget", "forget_confirm")


@pytest.mark.parametrize(
    ("typed", "holds"),
    [("你毋免閣篩素的矣", "不用再"), ("溪湖抑是二林", "或是"), ("北斗抑或田尾", "或是")],
)
def test_hokkien_no_more_and_or(typed: str, holds: str) -> None:
    assert holds in reading_form(typed)


def test_two_townships_joined_by_a_hokkien_or_are_a_choice() -> None:
    places = read_places(reading_form("阮欲去溪湖抑是埔鹽食暗頓"))
    assert (places.kind, set(places.choices)) == ("choice", {"溪湖鎮", "埔鹽鄉"})


@pytest.mark.parametrize("said", ["拜託一下 以後不要再記我吃全素", "麻煩一下 你以後不用再記我吃蛋奶素了"])
def test_a_courtesy_just_a_moment_is_no_this_once(said: str) -> None:
    """「拜託一下」 asks kindly; its 一下 is no 「for now」 that would make a stop this search's only."""
    assert language.read(said, NOW).decision.reading.intent == "forget"


def test_a_common_word_said_with_a_township_s_ending_is_asked_about() -> None:
    """A word that sounds like a township but is an ordinary word is offered as a near miss once it is
    said with 鄉 or 鎮; without it, it stays the word."""
    places = read_places(reading_form("我想去福星鄉走走 那邊有什麼好吃"))
    assert (places.kind, places.township) == ("confirm", "福興鄉")
    assert read_places(reading_form("大成市場附近有什麼好吃的")).kind == "none"


@pytest.mark.parametrize("said", ["田尾小姐說她下午要來找我", "隔壁的北斗先生請我吃飯", "我跟大城さん約好了"])
def test_a_township_s_name_before_an_honorific_is_a_person(said: str) -> None:
    assert read_places(reading_form(said)).kind == "none"


def test_a_person_with_a_township_s_name_leaves_the_township_asked_for() -> None:
    places = read_places(reading_form("社頭太太推薦我去員林吃肉圓"))
    assert (places.kind, places.township) == ("township", "員林市")


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("12號禮拜六那天", date(2026, 12, 12)),
        ("25號,星期五", date(2026, 12, 25)),
        ("是19號星期六", date(2026, 12, 19)),
    ],
)
def test_a_day_of_the_month_said_with_its_weekday_is_that_day(said: str, day: date) -> None:
    reading = read_dates(said, TODAY)
    assert reading.window is not None and (reading.window.start, reading.window.end) == (day, day)


def test_a_weekday_alone_is_still_this_week_s() -> None:
    reading = read_dates("禮拜六", TODAY)
    assert reading.window is not None and reading.window.start == date(2026, 12, 5)


@pytest.mark.parametrize("said", ["員林哪裡好停機車", "鹿港老街附近可以停遊覽車嗎"])
def test_parking_a_vehicle_is_no_search(said: str) -> None:
    assert language.read(said, NOW).goal == "unsupported"


def test_where_something_is_sold_in_hokkien_is_a_place_search() -> None:
    assert language.read("溪湖佗位有咧賣愛玉", NOW).goal == "places"


@pytest.mark.parametrize(
    "said", ["我差一點忘了帶錢包 幫我找田中吃素的早餐", "險險袂記得 今仔日欲去二水食素的"]
)
def test_the_speaker_nearly_forgetting_something_is_no_delete(said: str) -> None:
    decision = language.read(said, NOW).decision
    assert decision.reading.intent not in ("forget", "forget_confirm")


def test_from_now_on_like_this_is_a_wish_to_be_kept() -> None:
    assert "remember" in rules.readings(reading_form("以後都照這樣幫我找"))
    assert "remember" not in rules.readings(reading_form("以後不要再這樣找了"))
    said = language.read("我現在吃五辛素 往後都按這個找", NOW)
    assert said.decision.reading == Reading("remember", diet="five_pungent")  # (the consent prompt)


def test_a_lasting_wish_the_table_reads_and_a_sure_classifier_get_the_consent_prompt() -> None:
    """No verb of remembering, the hand readers read a search: the consent prompt, never kept unasked."""
    lasting = decide(SEARCH_READING, None, frozenset({"remember"}), Given("remember", 0.97), "vegan")
    assert (lasting.outcome, lasting.reading.intent) == ("ask", "remember")
    unsure = decide(SEARCH_READING, None, frozenset({"remember"}), Given("remember", 0.6), "vegan")
    assert unsure.reading.intent != "remember"


SEARCH_READING = Reading("search")


def test_what_is_kept_asked_of_an_earlier_request_is_shown_never_offered_again() -> None:
    """The hand readers read a remember, the table what is kept (or a question it read nothing of), and
    the classifier is sure of what is kept: shown, where a consent prompt would offer to keep it again."""
    remember = Reading("remember", diet="vegetarian")
    sure = Given("show_kept", 0.98)
    shown = decide(remember, None, frozenset({"show"}), sure, "vegetarian")
    assert (shown.outcome, shown.reading.intent) == ("act", "show_kept")
    asked = decide(remember, None, frozenset(), sure, "vegetarian", classes=frozenset({"question"}))
    assert (asked.outcome, asked.reading.intent) == ("act", "show_kept")
    kept = decide(remember, None, frozenset({"remember"}), sure, "vegetarian")
    assert kept.reading.intent == "remember"


def test_what_is_kept_said_with_a_stop_s_words_and_another_reading_is_the_three_way_question() -> None:
    kept = Reading("show_kept")
    words = frozenset({"negation", "remember_verb"})
    asked = decide(kept, None, frozenset(), Given("consent_yes", 0.7), None, classes=words)
    assert (asked.outcome, asked.reading.intent) == ("ask", "preference_question")
    plain = decide(kept, None, frozenset(), Given("consent_yes", 0.7), None)
    assert (plain.outcome, plain.reading.intent) == ("act", "show_kept")


@pytest.mark.parametrize("said", ["以後都不要再幫我篩了", "往後可以不用再這樣過濾嗎"])
def test_no_more_filtering_from_now_on_is_a_stop(said: str) -> None:
    assert "stop" in rules.readings(reading_form(said))


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("我的飲食偏好，可以停用嗎", "stop"),
        ("那個吃全素的，麻煩你現在幫我刪一下好嗎", "delete"),
        ("素食那筆紀錄，先不要再套用了", "stop"),
    ],
)
def test_the_kept_thing_named_in_the_clause_before_a_bare_stop_or_delete_is_its_object(
    said: str, reading: str
) -> None:
    clauses = rules.read_clauses(reading_form(said))
    assert clauses[0].rule is None
    assert clauses[-1].rule is not None and clauses[-1].rule.reading == reading


def test_a_relative_s_diet_before_a_bare_delete_is_not_its_object() -> None:
    clauses = rules.read_clauses(reading_form("我媽吃全素的，那張照片刪掉"))
    assert all(c.rule is None or c.rule.reading != "delete" for c in clauses)


def test_a_delete_asked_on_someone_s_behalf_is_the_speaker_s_request() -> None:
    """「代她」: the speaker acts for the person whose account it is: their request, not one told of."""
    decision = language.read("我是她女兒 代她處理 請刪除她的全素設定", NOW).decision
    assert decision.reading.intent == "forget"
    told = language.read("我媽說要刪掉她的全素設定", NOW).decision
    assert (told.outcome, told.reading.intent) == ("ask", "forget_confirm")
