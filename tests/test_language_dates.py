"""The language layer's dates: lunar festivals through the lunar calendar, 初一/十五, months,
full-width digits, dates that do not exist; and the offline rules carrying a window across a township
question and into 「那後天呢」."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.agent import offline_rules as rules
from local_agent.context.projection import SafeTurn
from local_agent.context.session_budget import render_contents
from local_agent.context.window import ContextWindow
from local_agent.language.dates import (
    INVALID_DATE_TEXT,
    OUT_OF_RANGE_TEXT,
    PAST_DATE_TEXT,
    SOLAR_TERMS,
    easter,
    read_dates,
)

TODAY = date(2026, 12, 1)  # a Tuesday; lunar 10/23


def window(text: str, today: date = TODAY) -> tuple[str, str]:
    reading = read_dates(text, today)
    assert reading.kind == "window" and reading.window is not None, reading
    return reading.window.start.isoformat(), reading.window.end.isoformat()


@pytest.mark.parametrize(
    "text,expected",
    [
        # Taiwan's published dates for these festivals
        ("端午節二林有什麼活動", ("2027-06-09", "2027-06-09")),
        ("中秋節", ("2027-09-15", "2027-09-15")),
        ("元宵", ("2027-02-20", "2027-02-20")),
        ("除夕", ("2027-02-05", "2027-02-05")),
        ("過年有什麼活動", ("2027-02-05", "2027-02-10")),
        ("春節", ("2027-02-05", "2027-02-10")),
        ("大年初一", ("2027-02-06", "2027-02-06")),
        ("七夕", ("2027-08-08", "2027-08-08")),
        ("中元普渡", ("2027-08-16", "2027-08-16")),
        ("重陽節", ("2027-10-08", "2027-10-08")),
        ("初一", ("2026-12-09", "2026-12-09")),
        ("農曆十五", ("2026-12-23", "2026-12-23")),
        ("初一十五", ("2026-12-09", "2026-12-09")),
        ("2027年中秋", ("2027-09-15", "2027-09-15")),
    ],
)
def test_lunar_festivals_resolve_to_taiwan_days(text, expected):
    assert window(text) == expected


def test_a_festival_is_its_next_occurrence_and_one_in_progress_starts_today():
    assert window("中秋", date(2026, 9, 25)) == ("2026-09-25", "2026-09-25")
    assert window("中秋", date(2026, 9, 26)) == ("2027-09-15", "2027-09-15")
    assert window("過年", date(2027, 2, 7)) == ("2027-02-07", "2027-02-10")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("１２／５", ("2026-12-05", "2026-12-05")),
        ("１２月５日有什麼活動", ("2026-12-05", "2026-12-05")),
        ("3月", ("2027-03-01", "2027-03-31")),
        ("12月", ("2026-12-01", "2026-12-31")),
        ("那後天呢", ("2026-12-03", "2026-12-03")),
        ("那下禮拜呢", ("2026-12-07", "2026-12-13")),
    ],
)
def test_other_dates_full_width_digits_and_months(text, expected):
    assert window(text) == expected


@pytest.mark.parametrize("text", ["2月30日有什麼活動", "4/31", "13月有活動嗎", "十三月", "0/5", "２月３０日"])
def test_a_date_that_does_not_exist_is_invalid(text):
    reading = read_dates(text, TODAY)
    assert reading.kind == "invalid" and reading.answer == INVALID_DATE_TEXT


@pytest.mark.parametrize(
    "text,today", [("2200年中秋", TODAY), ("1800年端午", TODAY), ("初一", date(2150, 1, 1))]
)
def test_a_festival_outside_the_calendars_years(text, today):
    reading = read_dates(text, today)
    assert reading.kind == "out_of_range" and reading.answer == OUT_OF_RANGE_TEXT


@pytest.mark.parametrize(
    "text,expected",
    [
        ("那16號呢", ("2026-12-16", "2026-12-16")),
        ("１號有活動嗎", ("2026-12-01", "2026-12-01")),
        ("31日", ("2026-12-31", "2026-12-31")),
        ("下下禮拜二水有活動嗎", ("2026-12-14", "2026-12-20")),
        ("下下週六", ("2026-12-19", "2026-12-19")),
        ("下禮拜二水有活動嗎", ("2026-12-07", "2026-12-13")),  # 二水 is the township, not Tuesday
        ("禮拜二二林有什麼", ("2026-12-01", "2026-12-01")),
        ("五日節鹿港有划龍船無", ("2027-06-09", "2027-06-09")),
    ],
)
def test_a_day_on_its_own_the_week_after_next_and_weekday_like_townships(text, expected):
    assert window(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("聖誕節彰化市有什麼活動", ("2026-12-24", "2026-12-25")),
        ("跨年鹿港有活動嗎", ("2026-12-31", "2027-01-01")),
        ("元旦田尾有什麼活動", ("2027-01-01", "2027-01-01")),
        ("情人節", ("2027-02-14", "2027-02-14")),
        ("國慶日", ("2027-10-10", "2027-10-10")),
        ("月底員林有什麼表演", ("2026-12-25", "2026-12-31")),
        ("年底", ("2026-12-01", "2026-12-31")),
        ("下個月初", ("2027-01-01", "2027-01-05")),
        ("這幾天大村有什麼活動", ("2026-12-01", "2026-12-07")),
        ("過兩天北斗有活動嗎", ("2026-12-02", "2026-12-04")),
        ("禮拜六禮拜天花壇有什麼好玩的", ("2026-12-05", "2026-12-06")),
        ("週休二日去田中有活動嗎", ("2026-12-05", "2026-12-06")),
        ("下週六日", ("2026-12-12", "2026-12-13")),
        ("一月鹿港有什麼活動", ("2027-01-01", "2027-01-31")),
        ("十二月十號員林有什麼活動", ("2026-12-10", "2026-12-10")),
        ("二十五號", ("2026-12-25", "2026-12-25")),
        ("正月十五", ("2027-02-20", "2027-02-20")),  # 元宵, not the 15th
        ("這個月12號竹塘有什麼活動", ("2026-12-12", "2026-12-12")),
        ("下個月5號", ("2027-01-05", "2027-01-05")),
        ("媽祖生鹿港有什麼活動", ("2027-04-29", "2027-04-29")),
    ],
)
def test_solar_holidays_stretches_of_days_and_chinese_numerals(text, expected):
    assert window(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("聖誕節12/25那天鹿港有什麼活動", ("2026-12-25", "2026-12-25")),
        ("耶誕夜十二月二十四號", ("2026-12-24", "2026-12-24")),
        ("過年期間2月8號溪湖有廟會嗎", ("2027-02-08", "2027-02-08")),
        ("跨年12/31那晚", ("2026-12-31", "2027-01-01")),  # a night across two days keeps both
        ("聖誕節前的12/20", ("2026-12-20", "2026-12-20")),  # a day written outside it is that day
        ("2027年1月1日跨年晚會", ("2027-01-01", "2027-01-01")),
    ],
)
def test_a_day_written_with_a_holiday_is_that_day(text, expected):
    assert window(text) == expected


def test_a_holiday_that_has_passed_this_year_is_next_years():
    assert window("聖誕節", date(2026, 12, 26)) == ("2027-12-24", "2027-12-25")
    assert window("跨年", date(2027, 1, 1)) == ("2027-01-01", "2027-01-01")


def test_a_day_of_the_month_that_comes_round_later_and_one_that_never_does():
    assert window("31號", date(2027, 2, 10)) == ("2027-03-31", "2027-03-31")  # February has none
    assert read_dates("32號", TODAY).kind == "invalid"


@pytest.mark.parametrize("text", ["國一學生", "花壇有什麼好吃的", "我十五歲", "", "二林3日遊"])
def test_no_date(text):
    assert read_dates(text, TODAY).kind == "none"


# -- the offline rules: a window across the township question, and 「那後天呢」 ------------------------


def propose(current: str, *turns: SafeTurn, today: date = TODAY) -> dict:
    return rules.propose(render_contents(ContextWindow(tuple(turns)), current), (), today)


def test_a_festival_question_searches_that_window():
    call = propose("端午節二林有什麼活動")["function_call"]
    assert call["args"] == {
        "area": "二林鎮",
        "keyword": "",
        "date_from": "2027-06-09",
        "date_to": "2027-06-09",
    }


def test_a_window_said_before_the_township_question_survives_it():
    contents = render_contents(ContextWindow(()), "端午節有什麼活動")
    asked = rules.ask_call(contents, (), TODAY)
    assert asked is not None and asked["function_call"]["args"]["date_from"] == "2027-06-09"
    pending = SafeTurn("events", "", "2027-06-09", "2027-06-09")
    args = propose("鹿港", pending)["function_call"]["args"]
    assert (args["area"], args["date_from"], args["date_to"]) == ("鹿港鎮", "2027-06-09", "2027-06-09")


def test_that_day_after_tomorrow_reruns_the_event_search_with_the_new_window():
    args = propose("那後天呢", SafeTurn("events", "鹿港鎮"))["function_call"]["args"]
    assert (args["area"], args["date_from"]) == ("鹿港鎮", "2026-12-03")
    args = propose("那下禮拜呢", SafeTurn("events", "鹿港鎮"))["function_call"]["args"]
    assert (args["date_from"], args["date_to"]) == ("2026-12-07", "2026-12-13")
    assert propose("那後天呢", SafeTurn("places", "鹿港鎮")) == {"text": rules.UNKNOWN_TEXT}


def test_asking_again_reruns_the_last_search_where_it_was():
    args = propose("剛才那個鄉鎮再查一次", SafeTurn("places", "二林鎮"))["function_call"]["args"]
    assert args["area"] == "二林鎮"
    call = propose("再幫我查一下", SafeTurn("events", "鹿港鎮"))["function_call"]
    assert (call["name"], call["args"]["area"]) == ("search_local_events", "鹿港鎮")
    assert propose("再查一次") == {"text": rules.UNKNOWN_TEXT}  # nothing to run again


def test_bad_dates_and_zhuyin_get_an_answer_not_a_search():
    assert propose("2月30日鹿港有什麼活動") == {"text": INVALID_DATE_TEXT}
    assert propose("2200年中秋鹿港有什麼活動") == {"text": OUT_OF_RANGE_TEXT}
    assert propose("ㄌㄨˋ ㄍㄤˇ ㄏㄠˇ ㄔ") == {"text": rules.ZHUYIN_TEXT}


# -- what people say for events: counts ahead, weekday forms, lunar days, solar terms, several days ------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("三天後鹿港有活動嗎", ("2026-12-04", "2026-12-04")),  # that day
        ("10天後", ("2026-12-11", "2026-12-11")),
        ("下三天", ("2026-12-02", "2026-12-04")),  # the three days after today
        ("未來七天員林有什麼活動", ("2026-12-01", "2026-12-07")),  # today and the six after
        ("接下來兩個禮拜", ("2026-12-01", "2026-12-14")),
        ("下兩週", ("2026-12-07", "2026-12-20")),
        ("兩個禮拜後", ("2026-12-14", "2026-12-20")),
        ("下三個月", ("2027-01-01", "2027-03-31")),
        ("三個月後", ("2027-03-01", "2027-03-31")),
        ("未來一個月", ("2026-12-01", "2026-12-31")),
        ("這一週", ("2026-12-01", "2026-12-06")),
        ("下個月初", ("2027-01-01", "2027-01-05")),
        ("下個月中", ("2027-01-11", "2027-01-20")),
        ("下個月底", ("2027-01-25", "2027-01-31")),
        ("這個月中旬", ("2026-12-11", "2026-12-20")),
        ("下旬", ("2026-12-21", "2026-12-31")),
        ("下週週六", ("2026-12-12", "2026-12-12")),
        ("下禮拜的禮拜六", ("2026-12-12", "2026-12-12")),
        ("這禮拜天", ("2026-12-06", "2026-12-06")),
        ("下禮拜三", ("2026-12-09", "2026-12-09")),  # next week's, not tomorrow
        ("下一個禮拜六", ("2026-12-12", "2026-12-12")),
        ("晚上週六有表演嗎", ("2026-12-05", "2026-12-05")),  # 晚上 is not 上週
        ("今年12月", ("2026-12-01", "2026-12-31")),
        ("明年九月", ("2027-09-01", "2027-09-30")),
        ("明年三月五號", ("2027-03-05", "2027-03-05")),
        ("明年中秋", ("2027-09-15", "2027-09-15")),
        ("今年過年", ("2027-02-05", "2027-02-10")),  # the new year this year ends with
        ("12/31跨年", ("2026-12-31", "2027-01-01")),
        ("十二月第二個星期六", ("2026-12-12", "2026-12-12")),
        ("二零二七年一月三號", ("2027-01-03", "2027-01-03")),
        ("復活節", ("2027-03-28", "2027-03-28")),
        ("兒童節", ("2027-04-04", "2027-04-04")),  # Taiwan's, 4/4
    ],
)
def test_counts_ahead_weeks_parts_of_months_and_years(text, expected):
    assert window(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("農曆十一月十五", ("2026-12-23", "2026-12-23")),
        ("臘月初八", ("2027-01-15", "2027-01-15")),
        ("臘八", ("2027-01-15", "2027-01-15")),
        ("正月初三", ("2027-02-08", "2027-02-08")),
        ("農曆十月二十五", ("2026-12-03", "2026-12-03")),
        ("農曆十月初一", ("2027-10-29", "2027-10-29")),  # this year's has passed: next lunar year's
        ("初八", ("2026-12-16", "2026-12-16")),
        ("農曆七月", ("2027-08-02", "2027-08-31")),  # the whole lunar month
        ("中秋前一天", ("2027-09-14", "2027-09-14")),
        ("過年後第三天", ("2027-02-09", "2027-02-09")),  # from 正月初一
        ("端午節後兩天", ("2027-06-11", "2027-06-11")),
        ("冬至", ("2026-12-22", "2026-12-22")),
        ("清明", ("2027-04-05", "2027-04-05")),
        ("立春有什麼活動", ("2027-02-04", "2027-02-04")),
        ("大雪那天", ("2026-12-07", "2026-12-07")),
        ("2027年冬至", ("2027-12-22", "2027-12-22")),
    ],
)
def test_any_lunar_day_days_from_a_festival_and_solar_terms(text, expected):
    assert window(text) == expected


def test_the_twenty_four_solar_terms_each_fall_in_the_year_ahead():
    days = [
        window(
            name
            if name not in ("雨水", "小雪", "大雪", "白露", "霜降", "小滿", "小暑", "大暑")
            else name + "那天"
        )
        for name in SOLAR_TERMS
    ]
    assert len(SOLAR_TERMS) == 24 and len(set(days)) == 24
    assert all("2026-12-01" <= start <= "2027-12-01" for start, _ in days)


@pytest.mark.parametrize("text", ["雨水很多", "外面在下大雪", "白露路上的店"])
def test_weather_words_that_name_a_solar_term_are_not_dates_alone(text):
    assert read_dates(text, TODAY).kind == "none"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("禮拜六跟下禮拜天", ("2026-12-05", "2026-12-13")),  # the span covering both
        ("12/5到12/8鹿港有活動嗎", ("2026-12-05", "2026-12-08")),
        ("明天或後天", ("2026-12-02", "2026-12-03")),
        ("12月5號到10號", ("2026-12-05", "2026-12-10")),
        ("過年到元宵", ("2027-02-05", "2027-02-20")),
        ("禮拜一到禮拜五", ("2026-12-07", "2026-12-11")),  # Monday gone: next week's Monday to Friday
        ("昨天跟明天", ("2026-12-02", "2026-12-02")),  # the day gone is dropped
        ("初一跟十五", ("2026-12-09", "2026-12-23")),  # 十五 said bare is the lunar one too
        ("我跟老伴明天想去和美", ("2026-12-02", "2026-12-02")),
    ],
)
def test_several_days_in_one_phrase_give_the_span_covering_them(text, expected):
    assert window(text) == expected


@pytest.mark.parametrize(
    "text,today,said",
    [
        ("昨天鹿港有什麼活動", TODAY, "11/30（一）"),
        ("這週一", TODAY, "11/30（一）"),  # this week's Monday, said on Tuesday
        ("上禮拜六", TODAY, "11/28（六）"),
        ("2025年3月3日", TODAY, "3/3（一）"),
        ("11/20有活動嗎", TODAY, "11/20（五）"),  # gone last month: past, not next year's
        ("今年3月", TODAY, "3/1（日）至 3/31（二）"),
        ("這個月1號", date(2026, 12, 5), "12/1（二）"),
        ("2026年中秋", TODAY, "9/25（五）"),
        ("這個月初", date(2026, 12, 20), "12/1（二）至 12/5（六）"),
    ],
)
def test_a_day_already_past_is_said_to_be_past_never_moved_forward(text, today, said):
    reading = read_dates(text, today)
    assert (reading.kind, reading.window) == ("past", None)
    assert reading.answer == PAST_DATE_TEXT.format(day=f"「{said}」")


@pytest.mark.parametrize("text", ["上個月有什麼活動", "去年的燈會"])
def test_a_past_stretch_is_past_without_a_day_to_name(text):
    reading = read_dates(text, TODAY)
    assert reading.kind == "past" and reading.answer == PAST_DATE_TEXT.format(day="那個日子")


def test_something_said_beside_a_past_day_still_wins():
    assert window("昨天去過了，今天有什麼活動") == ("2026-12-01", "2026-12-01")


@pytest.mark.parametrize(
    "text,kind",
    [
        ("農曆二月三十", "invalid"),  # 2027's second lunar month has 29 days
        ("十月第五個星期一", "invalid"),
        ("2027-02-30", "invalid"),
        ("２０２７／１３／０５", "invalid"),
        ("2月30號跟3月1號", "invalid"),
        ("明天 tomorrow 😊 ㄅㄆㄇ", "window"),  # mixed scripts, emoji, Zhuyin
        ("１０天後", "window"),  # full-width digits
        ("下" * 5000, "none"),
        ("明天" + "有什麼活動" * 1000, "window"),  # 5,000 characters
        ("999天後", "window"),
        ("下999個月", "window"),  # capped to the longest window
    ],
)
def test_bad_input_keeps_an_answer(text, kind):
    reading = read_dates(text, TODAY)
    assert reading.kind == kind
    if reading.window is not None:
        assert TODAY <= reading.window.start and reading.window.days <= 366


def test_easter_is_the_western_date():
    assert [easter(y) for y in (2013, 2026, 2027)] == [date(2013, 3, 31), date(2026, 4, 5), date(2027, 3, 28)]


def test_a_past_day_for_an_event_search_is_asked_as_said_so_the_tool_says_it_is_past():
    # The offline model, like a model that resolved 昨天, calls the tool with the day; the tool's
    # PAST_DATE answer is the reply (its words are PAST_DATE_TEXT, checked in test_event_windows).
    call = propose("昨天鹿港有什麼活動")["function_call"]
    assert call["name"] == "search_local_events"
    assert call["args"] == {
        "area": "鹿港鎮",
        "keyword": "",
        "date_from": "2026-11-30",
        "date_to": "2026-11-30",
    }
    # No day named (上個月): the text says 「那個日子」, which has no number for the text gate to refuse.
    assert propose("上個月鹿港有什麼活動") == {"text": PAST_DATE_TEXT.format(day="那個日子")}


_TOKENS = (
    "0000年 9999年 今年 明年 去年 後年 0月 13月 12月 2月 十月 0號 31號 29號 30日 第五個 第0個 第一個 星期一 "
    "禮拜天 下 下下 上 這 未來 接下來 999 0 三 天 個月 週 後 之後 到 跟 、 農曆 臘月 正月 初 初十 三十 廿 十五 "
    "中秋 過年 前 第 冬至 雨水 節氣 那天 / - 12/31 2/29 0/0 99/99 9999/12/31 月初 月中 月底 下旬 復活節 跨年 "
    "１２ ／ 昨天 上個月 每週六 二林 二水 😊 ㄅ ，"
).split()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=6).map("".join),
    st.dates(min_value=date(2000, 1, 1), max_value=date(2098, 12, 31)),
)
def test_any_mix_of_date_words_gets_an_answer_and_no_window_before_today(text, today):
    reading = read_dates(text, today)
    assert reading.answer  # every kind has words for the person
    if reading.window is not None:
        assert today <= reading.window.start <= reading.window.end and reading.window.days <= 366
    else:
        assert reading.kind != "window"


@pytest.mark.parametrize("text", ["0000年中秋", "9999/12/31", "3000年1月1日", "二一零一年元旦"])
def test_a_year_outside_the_calendars_range_is_out_of_range(text):
    reading = read_dates(text, TODAY)
    assert reading.kind == "out_of_range" and reading.answer == OUT_OF_RANGE_TEXT


@pytest.mark.parametrize(
    "text,start,end",
    [
        ("下下個禮拜", "2026-12-14", "2026-12-20"),
        ("下下一個禮拜", "2026-12-14", "2026-12-20"),  # no count: not 「下 一個禮拜」
        ("那再下一個禮拜呢", "2026-12-14", "2026-12-20"),  # 再下 says 下下
        ("下下個月", "2027-02-01", "2027-02-28"),
        ("再下個月", "2027-02-01", "2027-02-28"),
        ("下下個月5號", "2027-02-05", "2027-02-05"),
        ("再下個月底", "2027-02-22", "2027-02-28"),
        ("下一個禮拜", "2026-12-07", "2026-12-13"),
        ("下兩個禮拜", "2026-12-07", "2026-12-20"),
    ],
)
def test_the_one_after_next_is_two_weeks_or_months_ahead(text, start, end):
    window = read_dates(text, TODAY).window
    assert window is not None and (window.start.isoformat(), window.end.isoformat()) == (start, end)


def test_the_month_before_last_is_past():
    assert read_dates("上上個月鹿港有什麼活動", TODAY).kind == "past"


@pytest.mark.parametrize(
    "text,day",
    [
        ("元旦開始算第三天 和美有活動嗎", "2027-01-03"),  # the holiday's own day is the first
        ("聖誕節開始算第二天", "2026-12-26"),
        ("中秋起第二天", "2027-09-16"),
        ("元旦後兩天", "2027-01-03"),
        ("元旦前一天", "2026-12-31"),
    ],
)
def test_days_counted_from_a_holiday_or_festival_are_that_one_day(text, day):
    assert window(text) == (day, day)
