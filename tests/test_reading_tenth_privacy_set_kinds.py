"""Kinds read by design from a tenth blind set: three on deleting and keeping (a retired farmer's wife
whose voice typing makes homophones, a precise pharmacist, a grandson managing his grandfather's
account, an Indonesian factory worker; an elderly Hakka woman, a lawyer worried about what is kept, a
temple cook, a distracted mother; a veteran writing simplified characters, a Hokkien betel-nut stall
owner, a night-shift nurse, a careful teacher) and three on all categories, from its development
half. Each with sentences written for the test, not the corpus's."""

from __future__ import annotations

import pytest

from bench.phrasings import FIXED_NOW
from local_agent import language
from local_agent.language import lexicon, rules
from local_agent.language.intents import Reading
from local_agent.language.policy import decide
from local_agent.language.text import reading_form
from tests.test_policy_decide import SEARCH, Given


@pytest.mark.parametrize("said", ["千萬不要幫我素食的記錄刪除", "拜託別幫我吃全素的紀錄清掉"])
def test_a_record_named_right_before_a_delete_verb_is_what_a_negation_keeps(said: str) -> None:
    """記錄 is a record and a remembering: right before a delete verb it is the thing deleted, so
    the negation reaches the delete (a keep), not a remembering (a stop)."""
    assert rules.readings(reading_form(said)) == {"keep"}
    assert language.read(said, FIXED_NOW).decision.reading.intent != "forget"


def test_a_record_still_remembered_is_a_stop() -> None:
    assert "stop" in rules.readings(reading_form("不要再記錄我吃素了"))


@pytest.mark.parametrize(
    ("said", "asked"),
    [("𠊎个素食設定愛毋愛刪忒", "要不要刪"), ("阮的素食設定欲毋欲清掉", "要不要清掉")],
)
def test_a_hakka_or_hokkien_a_not_a_question_is_no_negation(said: str, asked: str) -> None:
    """愛毋愛 / 欲毋欲 ask whether (要不要): a delete asked about, never a 「不要刪」 that keeps."""
    assert asked in reading_form(said)
    decision = language.read(said, FIXED_NOW).decision
    assert decision.outcome == "ask" and decision.reading.intent != "forget_declined"


@pytest.mark.parametrize("confidence", [0.5, 0.7, 0.99])
def test_what_is_kept_read_beside_an_undo_the_classifier_reads_is_the_three_way_question(confidence) -> None:
    """The rules read a what-is-kept question, the classifier a delete with no score for it: keep,
    delete or look is the person's to choose, never just shown."""
    shown = Reading("show_kept")
    decision = decide(shown, None, frozenset({"show"}), Given("delete", confidence))
    assert (decision.outcome, decision.reading.intent) == ("ask", "preference_question")
    # a classifier unsure of everything asks the same; one sure of a remember leaves the question
    # standing (「你記得我吃素嗎」 asks what is kept)
    unsure = decide(shown, None, frozenset({"show"}), Given("help", 0.38))
    assert (unsure.outcome, unsure.reading.intent) == ("ask", "preference_question")
    remembered = decide(shown, None, frozenset({"show"}), Given("remember", 0.7))
    assert (remembered.outcome, remembered.reading.intent) == ("act", "show_kept")


@pytest.mark.parametrize("said", ["吃全素那筆紀錄要刪掉還是留著才好", "那個設定保留或是取消 我想不出來"])
def test_deleting_and_keeping_offered_as_a_choice_is_asked_never_acted_on(said: str) -> None:
    assert "hesitant" in rules.readings(reading_form(said))
    decision = language.read(said, FIXED_NOW).decision
    assert decision.outcome == "ask"


def test_a_choice_already_made_stays_a_keep() -> None:
    assert rules.readings(reading_form("不要刪啦 還是留著好了")) == {"keep"}


def test_the_record_and_the_diet_named_with_nothing_read_is_the_three_way_question() -> None:
    classes = frozenset({"memory_object", "remember_verb", "diet_place"})  # (素食店, 素食館)
    asked = decide(
        SEARCH, None, frozenset(), Given("smalltalk_chat", 0.99), named_search=False, classes=classes
    )
    assert (asked.outcome, asked.reading.intent) == ("ask", "preference_question")
    # a remark of the record of something else, no diet: small talk as before
    other = decide(
        SEARCH,
        None,
        frozenset(),
        Given("smalltalk_chat", 0.99),
        named_search=False,
        classes=classes - {"diet_place"},
    )
    assert other.reading.intent == "small_talk"


def test_undecided_about_what_is_kept_beside_a_search_is_the_three_way_question() -> None:
    classes = frozenset({"hesitation", "memory_object"})
    found = decide(SEARCH, "places", frozenset(), Given("delete", 0.6), named_search=True, classes=classes)
    assert (found.outcome, found.reading.intent) == ("ask", "preference_question")


@pytest.mark.parametrize("marks", ["！？…", "...", "～～"])
def test_marks_alone_are_not_read_by_the_classifier(marks: str) -> None:
    said = language.read(marks, FIXED_NOW)
    assert said.scores is None and said.decision.reading.intent == "unreadable"


@pytest.mark.parametrize("said", ["你好啊你好 呷飽未", "阿伯你好 食飽未"])
def test_greetings_one_after_another_are_a_greeting(said: str) -> None:
    assert language.read(said, FIXED_NOW).decision.reading.intent == "greeting"


@pytest.mark.parametrize("said", ["想看廟會員林有沒有", "明天晚會員林哪裡有"])
def test_an_event_word_ending_where_a_township_begins_leaves_the_township(said: str) -> None:
    assert language.read(said, FIXED_NOW).places.township == "員林市"


def test_a_word_spanning_a_township_still_masks_it_elsewhere() -> None:
    assert language.read("我是農會會員林先生", FIXED_NOW).places.kind != "township"


@pytest.mark.parametrize(
    ("said", "days"),
    [
        ("12/19–20有什麼活動", (19, 20)),
        ("12/19-20 鹿港", (19, 20)),
        ("12/19到20", (19, 20)),
        ("12/19～20號", (19, 20)),
    ],
)
def test_a_day_alone_after_a_month_day_span_word_is_that_months(said: str, days: tuple[int, int]) -> None:
    window = language.read(said, FIXED_NOW).dates.window
    assert window is not None and (window.start.day, window.end.day) == days


def test_an_hour_after_a_span_word_is_no_day() -> None:
    window = language.read("12/19到6點", FIXED_NOW).dates.window
    assert window is not None and (window.start.day, window.end.day) == (19, 19)


def test_a_joined_emoji_between_clauses_is_a_pause() -> None:
    said = language.read("今天被老闆念 😮‍💨 算了 幫我找鹿港的素食", FIXED_NOW)
    assert len(said.clauses) >= 2 and said.decision.reading.intent == "search"


@pytest.mark.parametrize("said", ["阿彌陀佛 好的", "阿們 同意", "好 就這麼辦"])
def test_a_yes_said_with_a_blessing_or_a_phrase_is_a_yes(said: str) -> None:
    assert language.read(said, FIXED_NOW).consent == "consent_yes"


@pytest.mark.parametrize("said", ["芬園有河粉嗎", "花壇哪裡有米線"])
def test_rice_noodle_dishes_ask_for_places(said: str) -> None:
    assert language.read(said, FIXED_NOW).goal == "places"


def test_a_record_after_a_word_ending_in_de_is_the_record_not_a_remembering() -> None:
    found = lexicon.tokens(reading_form("阿公吃素的設定 幫他取消"))
    record = next(t for t in found if t.word == "設定")
    assert "remember_verb" not in record.classes and "memory_object" in record.classes
    assert "remember_verb" in next(t for t in lexicon.tokens("幫我記錄我吃素") if t.word == "記錄").classes


def test_a_negation_reaches_the_finding_before_a_delete_later_in_the_clause() -> None:
    """「不用再幫我找素的啦 那個設定取消」 said without a pause: the 不用 is of the finding."""
    assert "keep" not in rules.readings(reading_form("你不用再幫我找素的啦那個吃素的設定取消"))
    assert rules.readings(reading_form("不用幫我把吃素的設定取消")) == {"keep"}


def test_where_one_lives_and_works_asked_together_searches_both() -> None:
    places = language.read("我住二林 女兒在芳苑上班 兩個地方都幫我找吃的", FIXED_NOW).places
    assert places.kind == "choice" and places.together


@pytest.mark.parametrize("said", ["幫我找二林的午餐 不要牛肉", "芳苑晚餐 我不能吃牛"])
def test_no_beef_asked_of_a_search_filters_it(said: str) -> None:
    assert language.read(said, FIXED_NOW).diet.code == "no_beef"


@pytest.mark.parametrize(
    "said", ["你那個吃素的紀錄，有空的時候請幫我消掉", "我媽那筆蛋奶素的紀錄 麻煩你找時間清除一下"]
)
def test_a_bare_delete_after_the_record_named_as_its_topic_deletes_it(said: str) -> None:
    assert "delete" in rules.readings(reading_form(said))
    assert language.read(said, FIXED_NOW).decision.reading.intent == "forget"


@pytest.mark.parametrize("said", ["那個設定，幫我取消訂閱", "素食的設定不變 幫我刪掉照片"])
def test_a_short_delete_naming_another_thing_is_never_the_kept_ones(said: str) -> None:
    assert language.read(said, FIXED_NOW).decision.reading.intent != "forget"
