"""The phrasing corpus (bench/data/phrasings.jsonl) and its harness (bench/phrasings.py)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from datetime import date

import pytest

from bench import phrasings as P
from bench.phrasings import Item, Observed, check, forgot_or_confirmed
from local_agent.language.dates import today_in_taipei


def test_the_corpus_loads_with_at_least_300_items_in_every_category() -> None:
    items = P.load_corpus()
    assert len(items) >= 300
    counts = Counter(i.category for i in items)
    assert set(counts) == set(P.CATEGORIES)
    assert min(counts.values()) >= 10
    deletes = [t for i in items for t in i.turns if t.get("delete_request")]
    assert len(deletes) >= 50


def test_every_category_is_split_evenly_between_the_two_halves() -> None:
    halves: dict[str, Counter[str]] = {}
    for item in P.load_corpus():
        halves.setdefault(item.category, Counter())[item.half] += 1
    for category, count in halves.items():
        assert abs(count["dev"] - count["test"]) <= 1, category


def test_the_split_is_fixed_by_the_seed_and_does_not_depend_on_other_items() -> None:
    # Recorded when the split was made: a change here moves items between the halves.
    assert [P.half_of(i) for i in ("delete-001", "delete-002", "festival-003", "homophone-010")] == [
        "test",
        "dev",
        "test",
        "test",
    ]
    assert {P.half_of(f"voice-{n:03d}") for n in (25, 26)} == {"dev", "test"}  # a future pair splits too
    assert [P.half_of(f"x-{n:03d}", seed="other") for n in range(1, 41)] != [
        P.half_of(f"x-{n:03d}") for n in range(1, 41)
    ]


def test_the_fixed_clock_is_a_tuesday_in_taiwan() -> None:
    assert today_in_taipei(P.FIXED_NOW) == date(2026, 12, 1) and date(2026, 12, 1).weekday() == 1


@pytest.mark.parametrize(
    "line, error",
    [
        ('{"id": "a-001", "category": "nope", "turns": [{"text": "x"}]}', "unknown category"),
        ('{"id": "a-001", "category": "small talk", "turns": []}', "non-empty"),
        (
            '{"id": "a-001", "category": "small talk", "turns": [{"text": "x", "expect": {"outcome": "?"}}]}',
            "unknown outcome",
        ),
        ('{"id": "a-001", "category": "small talk", "turns": [{"text": "x", "tap": "是"}]}', "exactly one"),
        ('{"id": "a-001", "category": "small talk", "batch": 0, "turns": [{"text": "x"}]}', "batch"),
        ('{"id": "a-001", "category": "small talk", "batch": "2", "turns": [{"text": "x"}]}', "batch"),
    ],
)
def test_a_malformed_item_is_refused_with_its_reason(line: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        P.parse_item(line, "here")


def _search(tool: str, area: str, **args: str) -> dict:
    return {"tool": tool, "args": {"area": area, **args}, "origin": "none"}


GRANTED = ("granted", "vegetarian")


def test_the_harness_scores_searches_by_tool_area_diet_and_window() -> None:
    places = Observed(texts=["..."], searches=[_search("search_local_places", "員林市", dietary_type="any")])
    expect = {"outcome": "search", "tool": "places", "area": "員林市"}
    assert check(expect, places) is None
    assert check({**expect, "dietary_type": "any"}, places) is None
    assert "dietary_type" in (check({**expect, "dietary_type": "vegetarian"}, places) or "")
    assert check({**expect, "area": "鹿港鎮"}, places) is not None
    assert check({**expect, "tool": "events"}, places) is not None
    assert check(expect, Observed(texts=["請問是哪個鄉鎮？"])) is not None

    dated = Observed(
        searches=[_search("search_local_events", "鹿港鎮", date_from="2027-06-08", date_to="2027-06-10")]
    )
    event = {"outcome": "search", "tool": "events", "area": "鹿港鎮"}
    assert check({**event, "dates_contain": "2027-06-09", "max_days": 5}, dated) is None
    assert check({**event, "dates_contain": "2027-06-09", "max_days": 2}, dated) is not None
    assert check({**event, "date_from": "2027-06-09", "date_to": "2027-06-09"}, dated) is not None
    assert check({**event, "no_dates": True}, dated) is not None
    both = Observed(
        searches=[_search("search_local_places", "員林市"), _search("search_local_places", "鹿港鎮")]
    )
    assert check(expect, both) is not None  # a second township searched is not "the search in 員林市"
    assert check({"outcome": "search_each", "tool": "places", "areas": ["員林市", "鹿港鎮"]}, both) is None


def test_the_harness_scores_preference_effects_from_the_stored_state() -> None:
    forgot = Observed(texts=["已刪除"], before=GRANTED, after=("forgotten", None))
    asked = Observed(
        texts=["要刪除嗎？"], buttons={"確定忘記": "d", "不用": "n"}, before=GRANTED, after=GRANTED
    )
    ignored = Observed(texts=["請問是哪個鄉鎮？"], before=GRANTED, after=GRANTED)
    assert check({"outcome": "forgotten"}, forgot) is None
    assert check({"outcome": "forgotten"}, asked) is not None
    assert check({"any": [{"outcome": "forgotten"}, {"outcome": "forget_confirm"}]}, asked) is None
    assert [forgot_or_confirmed(o) for o in (forgot, asked, ignored)] == [True, True, False]
    assert check({"outcome": "kept"}, ignored) is None and check({"outcome": "kept"}, forgot) is not None
    granted = Observed(before=("none", None), after=GRANTED)
    assert check({"outcome": "consent_granted", "dietary_type": "vegetarian"}, granted) is None
    assert check({"outcome": "consent_granted", "dietary_type": "vegan"}, granted) is not None
    assert check({"outcome": "not_granted"}, granted) is not None


def test_the_harness_scores_answers_without_a_search() -> None:
    from local_agent.agent.offline_rules import CAPABILITIES

    thanks = Observed(texts=["不客氣！"])
    assert check({"outcome": "short_answer"}, thanks) is None
    assert check({"outcome": "short_answer"}, Observed(texts=[CAPABILITIES])) is not None  # parking/bus
    only = Observed(texts=["目前只服務彰化縣的 26 個鄉鎮市。"])
    assert check({"outcome": "only_changhua"}, only) is None
    assert check({"outcome": "only_changhua"}, Observed(texts=["請問是哪個鄉鎮？"])) is not None
    confirm = Observed(texts=["您是說員林市嗎？"], buttons={"是": "y", "不是": "n"})
    assert check({"outcome": "confirm_township", "area": "員林市"}, confirm) is None
    assert check({"outcome": "confirm_township", "area": "鹿港鎮"}, confirm) is not None
    kept = Observed(
        texts=["我記得您吃「素食」。說「忘記我的飲食偏好」就會刪除。"], before=GRANTED, after=GRANTED
    )
    assert check({"outcome": "kept_answer", "dietary_type": "vegetarian"}, kept) is None
    assert check({"outcome": "kept_answer", "dietary_type": "vegan"}, kept) is not None
    assert check({"all": [{"outcome": "kept"}, {"outcome": "short_answer"}]}, kept) is None


@pytest.mark.slow
def test_the_replay_path_scores_a_known_success_and_a_known_failure() -> None:
    ask = {"text": "員林有什麼好吃的", "expect": {"outcome": "search", "tool": "places", "area": "員林市"}}
    wrong = {"text": "員林有什麼好吃的", "expect": {"outcome": "search", "tool": "places", "area": "鹿港鎮"}}
    dated = {
        "text": "鹿港明天有什麼活動",
        "expect": {
            "outcome": "search",
            "tool": "events",
            "area": "鹿港鎮",
            "date_from": "2026-12-02",
            "date_to": "2026-12-02",
        },
    }
    forget = {"text": "忘記我的飲食偏好", "delete_request": True, "expect": {"outcome": "forgotten"}}
    items = [
        Item("t-001", "place search", (ask,)),
        Item("t-002", "place search", (wrong,)),
        Item("t-003", "event dates", (dated,)),
        Item("t-004", "delete request", (forget,), given_diet="vegan"),
    ]
    results = asyncio.run(P.run_phrasings(items))
    assert [r.ok for r in results] == [True, False, True, True]
    assert "鹿港鎮" in results[1].failures[0] and results[3].deletes == [True]
    text, key = P.report(results, 1.0, show=10, show_test=True)
    assert "delete requests: forget or confirm" in text and "delete_forget_or_confirm=1.000" in key


def _delete_items() -> list[Item]:
    return [i for i in P.load_corpus() if any(t.get("delete_request") for t in i.turns)]


# Every sentence in the corpus that asks to delete, stop remembering or cancel the diet must either
# forget it or ask 確定忘記 / 不用 (the privacy promise: no delete request is ignored).
@pytest.mark.slow
def test_every_delete_request_in_the_corpus_forgets_or_confirms() -> None:
    results = asyncio.run(P.run_phrasings(_delete_items()))
    # a test-half item is named by its id only: its sentence stays unread while tuning
    missed = [
        (r.item.id, r.item.name if r.item.half == "dev" else "")
        for r in results
        for ok in r.deletes
        if not ok
    ]
    assert missed == [], json.dumps(missed, ensure_ascii=False)


def test_the_report_lists_only_development_half_failures_unless_asked() -> None:
    pair = [Item(f"x-00{n}", "small talk", ({"text": "謝謝"},)) for n in (1, 2)]  # a pair: one per half
    dev, test = sorted(pair, key=lambda i: i.half)
    assert (dev.half, test.half) == ("dev", "test")
    results = [P.ItemResult(dev, ["dev reason"]), P.ItemResult(test, ["test reason"])]
    text, _ = P.report(results, 1.0, show=10, show_test=False)
    assert "dev reason" in text and "test reason" not in text
    assert "1 test-half failures not shown" in text
    text, _ = P.report(results, 1.0, show=10, show_test=True)
    assert "dev reason" in text and "test reason" in text
    rows = P.csv_rows(results, show_test=False)
    assert {r[3]: r[6] for r in rows[1:]} == {"dev": "dev reason", "test": ""}


def test_the_report_gives_each_batch_its_halves() -> None:
    first = [Item(f"x-00{n}", "small talk", ({"text": "謝謝"},)) for n in (1, 2)]
    later = [Item(f"y-00{n}", "small talk", ({"text": "謝謝"},), batch=2) for n in (1, 2)]
    results = [P.ItemResult(i) for i in first] + [P.ItemResult(i, ["missed"]) for i in later]
    text, _ = P.report(results, 1.0, show=10, show_test=False)
    lines = {line.split()[1]: line for line in text.splitlines() if line.strip().startswith("batch ")}
    assert "2/2" in lines["1"] and "0/1" in lines["2"]
    assert P.parse_item('{"id": "a-001", "category": "small talk", "turns": [{"text": "x"}]}', "h").batch == 1
    assert P.csv_rows(results, show_test=False)[1][2] == "1"


def _seen(buttons: dict[str, str], before=("granted", "vegetarian"), after=None, searched=False) -> Observed:
    obs = Observed(texts=["…"], buttons=buttons, before=before, after=after or before)
    if searched:
        obs.searches = [{"tool": "search_local_places", "args": {"area": "員林市"}, "origin": "none"}]
    return obs


def test_the_preference_question_outcome_passes_only_an_ask_that_changed_nothing() -> None:
    expect = {"outcome": "preference_question"}
    three = {"記住": "記住我吃素", "刪除": "刪除我的飲食偏好", "看看記了什麼": "你記得我什麼"}
    assert check(expect, _seen(three)) is None
    assert check(expect, _seen({"確定忘記": "local:forget:yes", "不用": "local:forget:no"})) is None
    assert "changed" in (check(expect, _seen(three, after=("forgotten", None))) or "")
    assert "no search" in (check(expect, _seen(three, searched=True)) or "")
    assert "question with buttons" in (check(expect, _seen({"記住": "記住我吃素"})) or "")


def test_turns_are_classed_act_ask_pass_with_the_privacy_counts() -> None:
    delete = {"text": "刪掉", "delete_request": True, "expect": {"outcome": "forgotten"}}
    forgot = _seen({}, after=("forgotten", None))
    assert P.classify_turn(delete, forgot, False) == P.TurnClass("delete", "act", True, False, False)
    asked = _seen({"確定忘記": "local:forget:yes"})
    assert P.classify_turn(delete, asked, False).outcome == "ask"
    kept = Observed(texts=["「素食」已經記住了，會繼續套用。"], before=("granted", "vegetarian"))
    kept.after = kept.before
    ignored = P.classify_turn(delete, kept, False)
    assert (ignored.outcome, ignored.kept_answer) == ("pass", True)
    other = {"text": "員林有什麼好吃的", "expect": {"outcome": "search", "tool": "places", "area": "員林市"}}
    assert P.classify_turn(other, forgot, False).unasked_delete
    assert not P.classify_turn(other, forgot, True).unasked_delete  # a typed answer to 確定忘記
    remember = {"text": "記住我吃素", "expect": {"outcome": "consent_prompt", "dietary_type": "vegetarian"}}
    prompt = _seen({"同意": "x", "不同意": "y"}, before=("none", None))
    assert P.classify_turn(remember, prompt, False) == P.TurnClass("remember", "act", True, False, False)
    results = [P.ItemResult(P.Item("delete-001", "delete request", (delete,)), turns=[ignored])]
    figures = P.outcome_figures(results)
    assert (figures["ignored_deletes"], figures["kept_answers_to_stop"], figures["asks_on_clear"]) == (
        1,
        1,
        (0, 1),
    )
