"""Kinds read by design from the development half of a fifth blind set on deleting and keeping (its
speakers: a retired bus driver dictating Hokkien loudly, a young mother mixing English and emoji, a
woman speaking for her husband after a stroke, a devout vegan wary of data collection; an elderly
tailor in fragments, a pharmacist precise about personal data, a grandmother with simplified
characters, a man who teases the bot; an Indonesian caregiver, a retired schoolmaster writing long
polite letters, a flower farmer in Hokkien, a young man annoyed that the filter stays). Each with
sentences written for the test, not the corpus's."""

from __future__ import annotations

import time
from datetime import date

import pytest
from conftest import FakeClock
from helpers_app import AppHarness

from local_agent import language
from local_agent.language.dates import read_dates
from tests.test_reading_policy import all_text, grant, kept, say


@pytest.fixture
def app(tmp_path):
    with AppHarness(tmp_path / "local.sqlite3", clock=FakeClock(time.time())) as harness:
        yield harness


@pytest.mark.parametrize(
    "text", ["我從沒同意讓你記我吃蛋奶素", "我不准你記下我吃鍋邊素", "我沒有答應你記錄我吃全素"]
)
def test_a_refusal_of_the_keeping_is_never_a_remember_request(text: str) -> None:
    said = language.read(text)
    assert said.intent in ("forget", "forget_confirm"), said.decision.reasons


@pytest.mark.parametrize(
    "text",
    [
        "想了幾天還是覺得不妥當 我要撤回同意 把我的偏好刪掉",
        "本人已不再持素 煩請將先前所記之飲食偏好刪除 以免日後搜尋受限",
    ],
)
def test_a_delete_after_a_misgiving_or_a_diet_given_up_is_not_negated(app, text: str) -> None:
    grant(app)
    say(app, text)
    assert kept(app) == ("forgotten", None)


@pytest.mark.parametrize("text", ["please 不要再幫我 filter 了啦", "拜託別再幫我篩選了"])
def test_no_more_filtering_said_alone_stops_the_kept_diet(app, text: str) -> None:
    grant(app)
    say(app, text)
    assert kept(app) == ("forgotten", None)
    assert language.read(text).consent is None  # said with a filtering verb: no bare answer


def test_then_in_english_parts_a_delete_from_the_search_after_it(app) -> None:
    grant(app, "記住我吃全素")
    outcome = say(app, "我的偏好 delete 掉 then 鹿港明天有什麼活動")
    assert kept(app) == ("forgotten", None)
    assert [c["tool"] for c in outcome.tool_calls] == ["search_local_events"]


@pytest.mark.parametrize(
    ("text", "diet"), [("我是五辛素食者", "five_pungent"), ("本人乃蛋奶素食者", "lacto_ovo")]
)
def test_a_kind_of_vegetarian_said_with_the_familys_word_after_it_is_that_kind(text: str, diet: str) -> None:
    assert language.read(text).reading.diet == diet


def test_the_diet_named_where_the_search_is_asked_is_the_searchs(app) -> None:
    outcome = say(app, "我爸吃鍋邊素 我是蛋奶素 幫我找員林蛋奶素的店")
    searched = [c["effective_arguments"] for c in outcome.tool_calls if c.get("effective_arguments")]
    assert searched and searched[-1]["dietary_type"] == "lacto_ovo"


def test_the_hokkien_weekend_is_the_weekend() -> None:
    reading = read_dates(language.read("二林這禮拜尾有啥物活動").form, date(2026, 12, 1))
    assert reading.window is not None
    assert (reading.window.start, reading.window.end) == (date(2026, 12, 5), date(2026, 12, 6))


def test_a_diet_word_in_a_remark_gets_no_township_question(app) -> None:
    say(app, "我姊說她們吃素的那個社團又在吵架 好好笑喔")
    assert "哪個鄉鎮" not in all_text(app)


@pytest.mark.parametrize(
    ("text", "diet"), [("我先生吃五辛素", "five_pungent"), ("阿嬤吃蛋奶素喔", "lacto_ovo")]
)
def test_a_relatives_diet_stated_alone_is_offered_to_be_kept(text: str, diet: str) -> None:
    # the family types for its elders; someone else's (他同事) or a past diet (以前) is not offered
    said = language.read(text)
    assert (said.outcome, said.intent, said.reading.diet) == ("ask", "remember", diet)
    assert language.read("我先生以前吃五辛素").intent != "remember"


def test_a_yes_concluded_after_a_condition_answers_the_live_prompt(app) -> None:
    say(app, "我吃蛋奶素 可以幫我記嗎")
    say(app, "只會拿來找吃的吧 這樣的話我同意")
    assert kept(app) == ("granted", "lacto_ovo")


def test_a_condition_that_names_a_diet_agrees_to_nothing() -> None:
    assert language.read("要是記全素的話 那就可以").consent is None


@pytest.mark.parametrize("text", ["你還記得我阿公吃啥嗎", "我媳婦問你記不記得她吃哪一種"])
def test_asked_whether_what_someone_eats_is_remembered_shows_what_is_kept(text: str) -> None:
    assert language.read(text).intent == "show_kept"


def test_kept_as_it_is_beside_a_search_is_the_search_and_deletes_nothing(app) -> None:
    grant(app)
    outcome = say(app, "今天先不用素的 要請朋友 溪湖的 素食設定照舊")
    assert kept(app) == ("granted", "vegetarian")
    assert [c["tool"] for c in outcome.tool_calls] == ["search_local_places"]


def test_a_yes_with_the_keeping_said_again_then_a_search_answers_and_searches(app) -> None:
    say(app, "我吃五辛素 可以幫我記嗎")
    outcome = say(app, "好 你就記 順便找田尾吃的")
    assert kept(app) == ("granted", "five_pungent")
    assert [c["tool"] for c in outcome.tool_calls] == ["search_local_places"]


@pytest.mark.parametrize("text", ["𠊎个資料全部刪忒", "食齋該隻毋使記了 清忒佢", "你莫再記𠊎食齋"])
def test_hakka_deletes_and_stops_forget(app, text: str) -> None:
    grant(app)
    say(app, text)
    assert kept(app) == ("forgotten", None)


def test_a_hakka_own_diet_asked_to_be_kept_gets_the_prompt() -> None:
    said = language.read("𠊎係食齋个 幫我記起來好無")
    assert (said.intent, said.reading.diet) == ("remember", "vegetarian")


def test_hokkien_wrong_negates_no_delete_and_a_hokkien_still_asks(app) -> None:
    grant(app)
    assert language.read("你敢閣有記我食菜").intent == "show_kept"
    say(app, "我只有初一十五食素 你記做食素毋著 共我刪掉")
    assert kept(app) == ("forgotten", None)


def test_more_deity_birthdays_are_festivals() -> None:
    today = date(2026, 12, 1)
    assert read_dates("天公生員林有什麼活動", today).window.start == date(2027, 2, 14)  # type: ignore[union-attr]
    assert read_dates("觀音生", today).window.start == date(2027, 3, 26)  # type: ignore[union-attr]


def test_a_hokkien_play_word_asks_for_events_and_a_verbless_one_more_is_more() -> None:
    assert language.read("溪湖禮拜六有啥物通耍").goal == "events"
    assert language.read("再一家").more


def test_what_do_you_remember_in_english_shows_what_is_kept() -> None:
    assert language.read("what do you remember about me").intent == "show_kept"


@pytest.mark.parametrize("text", ["吃素的那個可不可以幫我刪掉", "素食的設定能不能麻煩你取消"])
def test_a_delete_asked_with_an_a_not_a_lead_and_a_plea_is_a_request(app, text: str) -> None:
    grant(app)
    say(app, text)
    assert kept(app) == ("forgotten", None)
    assert language.read("可以刪除我的偏好嗎").intent == "forget_confirm"  # whether it can be done: asked


def test_a_story_then_so_delete_it_forgets(app) -> None:
    grant(app, "記住我吃全素")
    say(app, "醫生說我鐵質不夠 要多吃肉 所以全素那個幫我刪掉")
    assert kept(app) == ("forgotten", None)


def test_dont_remember_this_time_stops_nothing(app) -> None:
    grant(app)
    say(app, "這一次找芳苑的 不吃牛就好 這一次而已 不用記")
    assert kept(app) == ("granted", "vegetarian")


def test_a_record_of_ones_own_deleted_beside_a_named_search_is_the_search(app) -> None:
    grant(app)
    outcome = say(app, "手機的通話紀錄我自己清掉了 順便查一下二林的素食")
    assert kept(app) == ("granted", "vegetarian")
    assert [c["tool"] for c in outcome.tool_calls] == ["search_local_places"]
