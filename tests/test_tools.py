"""TurnTools: effective arguments, consented memory read at execution time, audit rows, and
structured errors instead of exceptions."""

from __future__ import annotations

import json
import re

import pytest

from local_agent.agent.tools import (
    MAX_KEYWORD_CHARS,
    TOOL_DECLARATIONS,
    TOOL_NAMES,
    TurnTools,
    keyword_for_audit,
)
from local_agent.listings import catalogue
from local_agent.stores.sqlite import SqliteStore

SPEC_AUDIT_FIELDS = (
    "tool",
    "proposed_arguments",
    "memory_revision",
    "effective_arguments",
    "preference_origin",
)


@pytest.fixture
def store(tmp_path):
    s = SqliteStore(tmp_path / "tools.db")
    yield s
    s.close()


@pytest.fixture
def tools(store, clock):
    return TurnTools(
        preferences=store, audit=store, clock=clock, user_id="U1", scope_id="scope-1", turn_id="t1"
    )


def spec_view(row) -> dict:
    d = row.to_dict()
    return {k: d[k] for k in SPEC_AUDIT_FIELDS}


# -- effective arguments -------------------------------------------------------------------------------


def test_without_explicit_value_or_consent_dietary_type_is_any(tools):
    result = tools.search_local_places(area="花壇鄉", dietary_type="", keyword="")
    assert result["status"] == "ok"
    assert result["dietary_type"] == catalogue.ANY
    assert result["preference_origin"] == "none"


def test_consented_memory_applies_when_the_call_has_no_dietary_type(tools, store, clock):
    store.set_consent("U1", consent="granted", dietary_type="vegetarian", now=clock())
    result = tools.search_local_places(area="花壇鄉")
    assert (result["dietary_type"], result["preference_origin"], result["memory_revision"]) == (
        "vegetarian",
        "consented_memory",
        1,
    )


@pytest.mark.parametrize(
    "explicit,expected",
    [("vegan", "vegan"), ("全素", "vegan"), ("蛋奶素", "lacto_ovo"), ("不限", catalogue.ANY)],
)
def test_explicit_dietary_type_beats_consented_memory(tools, store, clock, explicit, expected):
    store.set_consent("U1", consent="granted", dietary_type="vegetarian", now=clock())
    result = tools.search_local_places(area="花壇鄉", dietary_type=explicit)
    assert result["dietary_type"] == expected
    assert result["preference_origin"] == "explicit"
    assert tools.executions[-1].effective_arguments["dietary_type"] == expected


def test_consent_is_read_at_execution_time_not_when_the_tools_were_built(tools, store, clock):
    first = tools.search_local_places(area="花壇鄉")  # nothing consented yet
    store.set_consent("U1", consent="granted", dietary_type="vegan", now=clock())
    second = tools.search_local_places(area="花壇鄉")  # same TurnTools object
    store.set_consent("U1", consent="forgotten", dietary_type=None, now=clock())
    third = tools.search_local_places(area="花壇鄉")
    assert [
        (r["dietary_type"], r["preference_origin"], r["memory_revision"]) for r in (first, second, third)
    ] == [(catalogue.ANY, "none", 0), ("vegan", "consented_memory", 1), (catalogue.ANY, "none", 2)]


def test_refused_consent_never_applies_a_dietary_type(tools, store, clock):
    store.set_consent("U1", consent="refused", dietary_type=None, now=clock())
    result = tools.search_local_places(area="花壇鄉")
    assert (result["dietary_type"], result["preference_origin"]) == (catalogue.ANY, "none")


def test_another_users_consent_is_not_applied(store, clock):
    store.set_consent("U2", consent="granted", dietary_type="vegan", now=clock())
    mine = TurnTools(preferences=store, audit=store, clock=clock, user_id="U1", scope_id="s")
    assert mine.search_local_places(area="花壇鄉")["dietary_type"] == catalogue.ANY


def test_short_township_name_becomes_the_full_name(tools):
    result = tools.search_local_places(area="花壇")
    assert result["area"] == "花壇鄉"
    assert tools.executions[-1].effective_arguments == {
        "area": "花壇鄉",
        "dietary_type": "any",
        "keyword": "",
    }


def test_every_returned_item_is_in_the_area_and_the_notice_is_attached(tools):
    result = tools.search_local_events(area="鹿港")
    assert result["status"] == "ok" and result["items"]
    assert {i["township"] for i in result["items"]} == {"鹿港鎮"}
    assert all(i["snapshot"] is True for i in result["items"])
    assert result["notice"] == catalogue.SNAPSHOT_NOTICE


# -- audit rows ----------------------------------------------------------------------------------------


def test_audit_rows_reproduce_the_seed_consent_then_forget_evidence(tools, store, clock):
    store.set_consent("U1", consent="granted", dietary_type="vegetarian", now=clock())
    tools.search_local_places(area="花壇鄉", dietary_type="", keyword="")
    store.set_consent("U1", consent="forgotten", dietary_type=None, now=clock())
    tools.search_local_places(area="花壇鄉", dietary_type="", keyword="")
    rows = store.audit_rows("scope-1")
    assert [spec_view(r) for r in rows] == [
        {
            "tool": "search_local_places",
            "proposed_arguments": {"area": "花壇鄉", "dietary_type": "", "keyword": ""},
            "memory_revision": 1,
            "effective_arguments": {"area": "花壇鄉", "dietary_type": "vegetarian", "keyword": ""},
            "preference_origin": "consented_memory",
        },
        {
            "tool": "search_local_places",
            "proposed_arguments": {"area": "花壇鄉", "dietary_type": "", "keyword": ""},
            "memory_revision": 2,
            "effective_arguments": {"area": "花壇鄉", "dietary_type": "any", "keyword": ""},
            "preference_origin": "none",
        },
    ]


def test_audit_row_carries_scope_turn_status_and_time(tools, store, clock):
    tools.search_local_events(area="鹿港鎮", keyword="導覽")
    (row,) = store.audit_rows()
    assert (row.scope_id, row.turn_id, row.status, row.at) == ("scope-1", "t1", "ok", clock())
    assert spec_view(row) == {
        "tool": "search_local_events",
        "proposed_arguments": {"area": "鹿港鎮", "keyword": "導覽"},
        "memory_revision": 0,
        "effective_arguments": {"area": "鹿港鎮", "keyword": "導覽"},
        "preference_origin": "none",
    }


def test_keyword_outside_the_vocabulary_is_audited_only_as_a_hash(tools, store):
    raw = "我的電話0912345678"
    result = tools.search_local_places(area="花壇鄉", keyword=raw)
    assert result["status"] == "ok"
    (row,) = store.audit_rows()
    assert row.proposed_arguments["keyword"] == keyword_for_audit(raw)
    assert row.effective_arguments["keyword"] == keyword_for_audit(raw)
    assert row.proposed_arguments["keyword"].startswith("#hmac:")
    assert row.proposed_arguments["keyword"].endswith(f"/len={len(raw)}")
    dumped = json.dumps([r.to_dict() for r in store.audit_rows()], ensure_ascii=False)
    assert "0912345678" not in dumped and "電話" not in dumped


def test_keyword_from_the_catalogue_vocabulary_is_audited_as_is():
    assert "小吃" in catalogue.KEYWORD_VOCABULARY
    assert keyword_for_audit("小吃") == "小吃"
    assert keyword_for_audit("") == ""
    assert keyword_for_audit("阿明") != keyword_for_audit("阿華")


# -- structured errors ---------------------------------------------------------------------------------

ERROR_CASES = [
    ("unknown township", {"area": "火星"}, "UNKNOWN_TOWNSHIP"),
    ("outside the county", {"area": "台中市"}, "OUTSIDE_COUNTY"),
    ("smuggled text in area", {"area": "花壇鄉我的電話0912"}, "UNKNOWN_TOWNSHIP"),
    ("empty area", {"area": ""}, "AREA_REQUIRED"),
    ("blank area", {"area": "   "}, "AREA_REQUIRED"),
    ("non-string area", {"area": 5}, "INVALID_ARGUMENT"),
    ("list area", {"area": ["花壇鄉"]}, "INVALID_ARGUMENT"),
    ("non-string keyword", {"area": "花壇鄉", "keyword": 3.5}, "INVALID_ARGUMENT"),
    ("non-string dietary type", {"area": "花壇鄉", "dietary_type": {"x": 1}}, "INVALID_ARGUMENT"),
    ("too-long keyword", {"area": "花壇鄉", "keyword": "我" * (MAX_KEYWORD_CHARS + 1)}, "INVALID_ARGUMENT"),
    ("invalid dietary type", {"area": "花壇鄉", "dietary_type": "keto"}, "INVALID_DIETARY_TYPE"),
    ("illness as dietary type", {"area": "花壇鄉", "dietary_type": "我有糖尿病"}, "INVALID_DIETARY_TYPE"),
]


@pytest.mark.parametrize("kwargs,code", [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_bad_place_arguments_return_a_structured_error_and_are_still_audited(tools, store, kwargs, code):
    result = tools.search_local_places(**kwargs)  # must not raise
    assert result["status"] == "error"
    assert result["code"] == code
    assert isinstance(result["message"], str) and result["message"]
    (row,) = store.audit_rows()
    assert (row.tool, row.status, row.effective_arguments, row.preference_origin) == (
        "search_local_places",
        "error",
        {},
        "none",
    )
    dumped = json.dumps(row.to_dict(), ensure_ascii=False)
    for secret in ("0912", "糖尿病", "台中市", "我我我"):
        assert secret not in dumped


@pytest.mark.parametrize("kwargs", [c[1] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_error_messages_shown_to_the_person_name_no_argument_or_code(tools, kwargs):
    """A tool error's message is what the person reads (``render_tool_result``): plain Chinese, never
    an argument name, a code or the tool's own vocabulary, whatever the model got wrong."""
    results = [
        tools.search_local_places(**kwargs),
        tools.call("search_local_places", {**kwargs, "unexpected": 1}),
        tools.call("book_table", kwargs),
    ]
    for result in results:
        assert result["status"] == "error"
        assert re.search(r"[A-Za-z_]", result["message"]) is None, result["message"]


def test_invalid_dietary_type_error_lists_the_valid_codes(tools):
    result = tools.search_local_places(area="花壇鄉", dietary_type="keto")
    assert set(result["choices"]) == set(catalogue.DIETARY_TYPES)


def test_keyword_of_exactly_the_maximum_length_is_accepted(tools):
    assert tools.search_local_places(area="花壇鄉", keyword="我" * MAX_KEYWORD_CHARS)["status"] == "ok"


@pytest.mark.parametrize(
    "kwargs,code",
    [
        ({"area": "台北市"}, "OUTSIDE_COUNTY"),
        ({"area": "火星"}, "UNKNOWN_TOWNSHIP"),
        ({"area": ""}, "AREA_REQUIRED"),
        ({"area": None}, "AREA_REQUIRED"),
        ({"area": "鹿港鎮", "keyword": 7}, "INVALID_ARGUMENT"),
        ({"area": "鹿港鎮", "keyword": "活" * 40}, "INVALID_ARGUMENT"),
    ],
)
def test_bad_event_arguments_return_a_structured_error_and_are_still_audited(tools, store, kwargs, code):
    result = tools.search_local_events(**kwargs)
    assert (result["status"], result["code"]) == ("error", code)
    (row,) = store.audit_rows()
    assert (row.tool, row.status) == ("search_local_events", "error")


# -- call() dispatch -----------------------------------------------------------------------------------


def test_call_dispatches_to_the_named_tool(tools, store):
    result = tools.call("search_local_places", {"area": "花壇鄉", "keyword": "素食"})
    assert result["status"] == "ok" and result["tool"] == "search_local_places"
    assert store.audit_rows()[0].tool == "search_local_places"


@pytest.mark.parametrize("name", ["delete_user", "", "search_local_parking", "SEARCH_LOCAL_PLACES"])
def test_call_with_an_unknown_tool_returns_an_error_not_an_exception(tools, name):
    result = tools.call(name, {"area": "花壇鄉"})
    assert (result["status"], result["code"]) == ("error", "UNKNOWN_TOOL")
    assert tools.executions == []


@pytest.mark.parametrize(
    "name,args",
    [
        ("search_local_places", {"area": "花壇鄉", "phone": "0912345678"}),
        ("search_local_events", {"area": "鹿港鎮", "dietary_type": "vegan"}),
        ("search_local_places", ["花壇鄉"]),
        ("search_local_events", None),
    ],
)
def test_call_with_extra_or_malformed_arguments_returns_an_error(tools, name, args):
    result = tools.call(name, args)
    assert (result["status"], result["code"]) == ("error", "INVALID_ARGUMENT")
    assert tools.executions == []


def test_tool_declarations_name_exactly_the_three_tools():
    assert tuple(d["name"] for d in TOOL_DECLARATIONS) == TOOL_NAMES
    preference = TOOL_DECLARATIONS[2]["parameters"]
    assert preference["properties"]["action"]["enum"] == ["remember", "forget", "show"]
    assert preference["properties"]["dietary_type"]["enum"] == list(catalogue.DIETARY_TYPES)
    assert preference["required"] == ["action"]
    places = TOOL_DECLARATIONS[0]["parameters"]["properties"]
    assert set(places) == {"area", "dietary_type", "keyword", "more"}
    assert set(TOOL_DECLARATIONS[1]["parameters"]["properties"]) == {
        "area",
        "keyword",
        "date_from",
        "date_to",
        "more",
    }


# -- manage_preference: checks a proposal, never writes a preference ---------------------------------


def preference_tools(store, clock, *, named_diet=None, personal=True) -> TurnTools:
    return TurnTools(
        preferences=store,
        audit=store,
        clock=clock,
        user_id="U1",
        scope_id="scope-1",
        turn_id="t1",
        personal=personal,
        named_diet=named_diet,
    )


@pytest.mark.parametrize("action", ["remember", "forget", "show"])
def test_manage_preference_never_writes_the_preference(store, clock, action):
    store.set_consent("U1", consent="granted", dietary_type="vegan", now=clock())
    before = store.get("U1")
    tools = preference_tools(store, clock, named_diet="vegetarian")
    result = tools.call("manage_preference", {"action": action, "dietary_type": "vegetarian"})
    assert result["status"] == "ok" and result["action"] == action
    assert store.get("U1") == before


def test_remember_offers_the_diet_the_user_named_not_the_one_proposed(store, clock):
    tools = preference_tools(store, clock, named_diet="vegetarian")
    result = tools.manage_preference(action="remember", dietary_type="vegan")
    assert (result["status"], result["dietary_type"]) == ("ok", "vegetarian")
    (row,) = store.audit_rows()
    assert row.proposed_arguments == {"action": "remember", "dietary_type": "vegan"}
    assert row.effective_arguments == {"action": "remember", "dietary_type": "vegetarian"}


@pytest.mark.parametrize("proposed", ["vegan", "", "keto", None])
def test_remember_without_a_diet_in_the_users_words_is_refused(store, clock, proposed):
    result = preference_tools(store, clock).manage_preference(action="remember", dietary_type=proposed)
    assert (result["status"], result["code"]) == ("error", "DIET_NOT_NAMED")


@pytest.mark.parametrize("action", ["delete_all", "", 7, None, ["forget"]])
def test_an_unknown_action_is_an_error(store, clock, action):
    result = preference_tools(store, clock).manage_preference(action=action)
    assert (result["status"], result["code"]) == ("error", "UNKNOWN_ACTION")
    (row,) = store.audit_rows()
    assert row.proposed_arguments == {"action": "#invalid"}


def test_in_a_group_every_action_is_passed_on_without_a_diet(store, clock):
    tools = preference_tools(store, clock, named_diet="vegetarian", personal=False)
    result = tools.manage_preference(action="remember", dietary_type="vegetarian")
    assert (result["status"], result["personal"], result["dietary_type"]) == ("ok", False, "")
