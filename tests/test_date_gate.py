"""The date reader's first searches (``dates._may_name_a_date``): a sentence in which no reader would
find what it looks for first is answered ``none`` at once, and that answer is the readers' own."""

from __future__ import annotations

import json
import random
from datetime import date
from pathlib import Path

from local_agent.language import dates

DATA = Path(__file__).resolve().parents[1] / "bench" / "data"
TODAY = date(2026, 12, 1)
# Pieces of date phrases and of ordinary sentences, put together at random.
_PIECES = (
    *"下上這本今明後前大去每第初正臘冬閏農曆年月日號天週周星期禮拜末旬季半個多內以來之到至跟和或、/-~ 0123456789",
    *("一", "二", "三", "五", "六", "十", "十五", "廿", "兩", "2027", "12", "31", "13"),
    *("端午", "中秋", "過年", "元宵", "聖誕", "跨年", "立春", "冬至", "清明", "節氣", "那天", "復活節"),
    *("今天", "明天", "後天", "昨天", "這幾天", "年底", "月初", "月底", "下旬", "週末", "週休二日"),
    *("員林", "有什麼", "活動", "吃素", "幫我找", "好吃的", "二林", "二水", "喔", "嗎", "的"),
)


def _texts() -> list[tuple[str, date]]:
    found = []
    for name in ("duckling_zh_dates.jsonl", "duckling_zh_day_level.jsonl", "jionlp_dates.jsonl"):
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            found.append((item["text"], date.fromisoformat(item.get("today", "2013-02-12"))))
    rng = random.Random(5)
    for _ in range(1200):
        found.append(("".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 6))), TODAY))
    return found


def test_the_first_search_answers_as_the_readers_do() -> None:
    for said, today in _texts():
        text = dates.normalise(said)
        arabic = dates._arabic_dates(text)
        assert dates._read_one(text, today) == dates._read_each(text, arabic, today), said


def test_a_sentence_without_a_date_is_not_read_reader_by_reader() -> None:
    assert not dates._may_name_a_date("請問花壇這附近有什麼好吃的,我想找一家中午可以去吃飯的店。")
    assert dates._may_name_a_date("下禮拜二水有什麼活動")
