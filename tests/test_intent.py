"""The offline model's rules: township named > reference resolved from the request's
projections > summary area; nothing else is read."""

from __future__ import annotations

import ast
import copy
import inspect
import socket
import sqlite3
import time
from unittest import mock

import pytest

from local_agent.agent import offline_rules as intent
from local_agent.context.projection import MODEL_PROJECTION, SUMMARY_MARKER, USER_PROJECTION_PREFIX, SafeTurn
from local_agent.context.session_budget import render_contents, text_content
from local_agent.context.window import ContextSummary, ContextWindow
from local_agent.replies.render import SMALL_TALK_TEXTS

REFERENCE = "剛才那個鄉鎮，再找一家吃的。"


NO_SUMMARY = ContextSummary()


def contents_for(current: str, turns=(), summary: ContextSummary = NO_SUMMARY) -> list[dict]:
    return render_contents(ContextWindow(tuple(turns), summary), current)


def call_of(proposal: dict) -> tuple[str, dict]:
    assert "function_call" in proposal, proposal
    return proposal["function_call"]["name"], proposal["function_call"]["args"]


# -- where the area comes from -------------------------------------------------------------------------


def test_a_named_township_beats_the_projected_turns_and_the_summary():
    contents = contents_for(
        "員林有什麼好吃的", [SafeTurn("places", "鹿港鎮")], ContextSummary("events", "花壇鄉")
    )
    assert call_of(intent.propose(contents)) == (
        "search_local_places",
        {"area": "員林市", "dietary_type": "", "keyword": ""},
    )


def test_a_named_township_beats_a_reference_word_in_the_same_sentence():
    contents = contents_for("不要剛才那個鄉鎮了，改成田中有什麼吃的", [SafeTurn("places", "鹿港鎮")])
    assert call_of(intent.propose(contents))[1]["area"] == "田中鎮"


def test_a_reference_resolves_to_the_latest_projected_turn():
    contents = contents_for(
        REFERENCE,
        [SafeTurn("places", "鹿港鎮"), SafeTurn("events", "員林市")],
        ContextSummary("events", "花壇鄉"),
    )
    assert call_of(intent.propose(contents))[1]["area"] == "員林市"


def test_a_reference_skips_a_newer_non_public_turn_and_uses_the_older_public_one():
    contents = contents_for(
        REFERENCE, [SafeTurn("events", "員林市"), SafeTurn()], ContextSummary("places", "花壇鄉")
    )
    assert call_of(intent.propose(contents))[1]["area"] == "員林市"


def test_a_reference_falls_back_to_the_summary_area_like_the_seeds_fifth_turn():
    contents = contents_for(REFERENCE, [SafeTurn(), SafeTurn()], ContextSummary("events", "花壇鄉"))
    assert call_of(intent.propose(contents)) == (
        "search_local_places",
        {"area": "花壇鄉", "dietary_type": "", "keyword": "", "more": True},
    )


@pytest.mark.parametrize(
    "turns,summary", [((), ContextSummary()), ((SafeTurn(), SafeTurn()), ContextSummary())]
)
def test_a_reference_with_no_clue_in_the_request_asks_which_township(turns, summary):
    assert intent.propose(contents_for(REFERENCE, turns, summary)) == {"text": "請問是哪個鄉鎮？"}
    assert intent.ASK_TOWNSHIP == "請問是哪個鄉鎮？"


def test_a_projection_in_the_model_role_is_not_a_clue():
    contents = [
        text_content("user", "你好"),
        text_content("model", f"{USER_PROJECTION_PREFIX}鹿港鎮：找店家"),
        text_content("user", REFERENCE),
    ]
    assert intent.propose(contents) == {"text": intent.ASK_TOWNSHIP}


def test_a_summary_naming_something_other_than_a_township_is_not_a_clue():
    contents = [
        text_content("user", SUMMARY_MARKER + '{"area": "台中市", "goal": "places"}'),
        text_content("model", MODEL_PROJECTION),
        text_content("user", REFERENCE),
    ]
    assert intent.propose(contents) == {"text": intent.ASK_TOWNSHIP}


def test_a_malformed_summary_is_ignored_rather_than_raising():
    contents = [text_content("user", SUMMARY_MARKER + "{not json"), text_content("user", REFERENCE)]
    assert intent.propose(contents) == {"text": intent.ASK_TOWNSHIP}


# -- what is asked -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "附近哪裡可以停車？",
        "花壇哪裡可以停車",
        "接駁公車幾點會到火車站",
        "附近有沒有乾淨的洗手間",
    ],
)
def test_questions_outside_places_and_events_get_the_capability_text(text):
    contents = contents_for(text, [SafeTurn("places", "花壇鄉")])
    assert intent.propose(contents) == {"text": intent.CAPABILITIES}


@pytest.mark.parametrize("text", ["你好你好，這樣講話聽得到嗎", "我孫子下禮拜天要回來看我"])
def test_other_sentences_get_a_short_answer_without_parking_or_buses(text):
    contents = contents_for(text, [SafeTurn("places", "花壇鄉")])
    answer = intent.propose(contents)
    # a short answer, no search, no question: the chat answer, or 「聽不懂」 when no reader is sure of chat
    assert answer in ({"text": SMALL_TALK_TEXTS["chat"]}, {"text": intent.UNKNOWN_TEXT})
    assert "停車" not in answer["text"] and "公車" not in answer["text"]


@pytest.mark.parametrize(
    ("text", "talk"),
    [("我先生上個月中風住院", "health"), ("今天天氣真好", "weather"), ("你是誰", "bot_question")],
)
def test_small_talk_that_reaches_the_model_gets_its_fitting_answer(text, talk):
    contents = contents_for(text, [SafeTurn("places", "花壇鄉")])
    answer = intent.propose(contents)
    assert answer == {"text": SMALL_TALK_TEXTS[talk]}
    assert not any(w in answer["text"] for w in ("停車", "公車", "聽不懂", "哪個鄉鎮"))


def test_a_bare_township_after_an_unrelated_turn_asks_what_to_look_for_there():
    answer = intent.propose(contents_for("二林", [SafeTurn()]))
    assert answer == {"text": intent.township_only_text("二林鎮")} and "停車" not in answer["text"]


@pytest.mark.parametrize(
    "text,area",
    [("阮欲去和美，有啥物好食？", "和美鎮"), ("鹿港有啥物通食", "鹿港鎮"), ("欲去田尾𨑨迌", "田尾鄉")],
)
def test_taiwanese_flavoured_questions_search(text, area):
    tool, args = call_of(intent.propose(contents_for(text)))
    assert args["area"] == area
    assert tool == ("search_local_events" if "迌" in text else "search_local_places")


def test_a_parking_question_about_a_trail_gets_the_capability_text():
    contents = contents_for("八卦山步道那邊停車要不要錢", [SafeTurn("places", "花壇鄉")])
    assert intent.propose(contents) == {"text": intent.CAPABILITIES}


def test_an_event_question_proposes_the_events_tool_without_a_dietary_argument():
    assert call_of(intent.propose(contents_for("鹿港這週有什麼活動"))) == (
        "search_local_events",
        {"area": "鹿港鎮", "keyword": ""},
    )


@pytest.mark.parametrize(
    "text,diet",
    [
        ("花壇有什麼素食的店", "vegetarian"),
        ("花壇有全素的餐廳嗎", "vegan"),
        ("花壇哪裡有蛋奶素早餐", "lacto_ovo"),
        ("我不吃素，花壇有什麼吃的", ""),
    ],
)
def test_a_dietary_word_becomes_dietary_type_not_keyword(text, diet):
    _, args = call_of(intent.propose(contents_for(text)))
    assert args["dietary_type"] == diet
    assert args["keyword"] not in {"素食", "全素", "蛋奶素", "吃素"}


def test_a_catalogue_category_becomes_the_keyword():
    assert "小吃" in intent.catalogue.KEYWORD_VOCABULARY
    _, args = call_of(intent.propose(contents_for("鹿港有什麼小吃")))
    assert args == {"area": "鹿港鎮", "dietary_type": "", "keyword": "小吃"}


def test_a_tool_missing_from_the_request_is_never_proposed():
    proposal = intent.propose(contents_for("花壇有什麼好吃的"), ["search_local_events"])
    assert proposal == {"text": intent.UNKNOWN_TEXT}


def test_empty_contents_get_the_short_unknown_answer():
    assert intent.propose([]) == {"text": intent.UNKNOWN_TEXT}


# -- purity --------------------------------------------------------------------------------------------


def _boom(*_a, **_k):
    raise AssertionError("intent.propose must read only its argument")


def test_propose_reads_nothing_but_its_argument_and_does_not_mutate_it():
    contents = contents_for(REFERENCE, [SafeTurn(), SafeTurn()], ContextSummary("events", "花壇鄉"))
    before = copy.deepcopy(contents)
    expected = intent.propose(contents)
    with (
        mock.patch("builtins.open", _boom),
        mock.patch.object(sqlite3, "connect", _boom),
        mock.patch.object(socket, "socket", _boom),
        mock.patch.object(time, "time", _boom),
        mock.patch("os.getenv", _boom),
        mock.patch("os.environ.get", _boom),
    ):
        again = intent.propose(contents)
    assert again == expected
    assert contents == before


def test_same_request_same_proposal_regardless_of_history_outside_it():
    short = contents_for(REFERENCE)
    assert intent.propose(short) == {"text": intent.ASK_TOWNSHIP}
    intent.propose(contents_for("鹿港有什麼好吃的"))  # an earlier "turn" leaves nothing behind
    assert intent.propose(short) == {"text": intent.ASK_TOWNSHIP}


def test_intent_module_imports_no_store_settings_network_or_clock():
    tree = ast.parse(inspect.getsource(intent))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(("." * node.level) + (node.module or ""))
    assert imported <= {
        "__future__",
        "dataclasses",
        "local_agent",  # ``language.read``: the language layer's one entry
        "local_agent.language.utterance",
        "json",
        "re",
        "collections.abc",
        "typing",
        "datetime",  # the date type only: today comes in as an argument, read from the request
        "local_agent.listings",
        "local_agent.listings.dates",
        "local_agent.context.projection",
        "local_agent.context.townships",
        # the language layer: vocabulary read from data, no store, clock or network
        "local_agent.language",
        "local_agent.language.text",
        "local_agent.language.dates",
        "local_agent.language.townships",
        "local_agent.language.intents",
        "local_agent.replies.render",  # the fixed small-talk answer
    }, imported


# -- pending township questions --------------------------------------------------------------------------

PENDING_PLACES = SafeTurn("places", "")


@pytest.mark.parametrize(
    ("answer", "area"), [("花壇", "花壇鄉"), ("花壇鄉的", "花壇鄉"), ("在鹿港", "鹿港鎮")]
)
def test_a_township_answer_completes_the_pending_search_from_the_window(answer, area):
    contents = contents_for(answer, [SafeTurn("events", "員林市"), PENDING_PLACES])
    assert call_of(intent.propose(contents)) == (
        "search_local_places",
        {"area": area, "dietary_type": "", "keyword": ""},
    )


def test_a_township_answer_completes_the_pending_search_from_the_summary_when_no_turn_is_left():
    contents = contents_for("鹿港", (), ContextSummary("events", ""))
    assert call_of(intent.propose(contents)) == ("search_local_events", {"area": "鹿港鎮", "keyword": ""})


def test_only_the_latest_turn_decides_whether_a_question_is_pending():
    township_only = {"text": intent.township_only_text("花壇鄉")}
    assert intent.propose(contents_for("花壇", [PENDING_PLACES, SafeTurn()])) == township_only
    assert intent.propose(contents_for("花壇", [SafeTurn("places", "員林市")])) == township_only
    assert intent.propose(contents_for("花壇", (), ContextSummary("places", "員林市"))) == township_only


def test_asking_is_a_search_with_no_area_so_the_turn_projects_as_pending():
    contents = contents_for("我想吃素食")
    assert intent.propose(contents) == {"text": intent.ASK_TOWNSHIP}
    assert call_of(intent.ask_call(contents)) == (
        "search_local_places",
        {"area": "", "keyword": "", "dietary_type": "vegetarian"},
    )
    assert intent.ask_call(contents_for("花壇有什麼好吃的")) is None  # not asking: no ask call


def test_the_gemini_rules_say_what_a_pending_question_means():
    from local_agent.agent.instructions import SYSTEM_INSTRUCTION

    assert "未指定區域：找店家" in SYSTEM_INSTRUCTION and "area 留空" in SYSTEM_INSTRUCTION


@pytest.mark.parametrize("text,area", [("員林呢", "員林市"), ("那鹿港呢？", "鹿港鎮")])
def test_a_township_follow_up_repeats_the_last_search_there(text, area):
    tool, args = call_of(intent.propose(contents_for(text, [SafeTurn("events", "北斗鎮")])))
    assert (tool, args["area"]) == ("search_local_events", area)
