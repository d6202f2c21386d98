"""Property tests over random conversations: budget, window, privacy, forgetting and expiry.

Each example drives a fresh SQLite file (a temp dir made inside the test: hypothesis reuses
function-scoped fixtures across examples) through ContextJournal + SessionBudget.prepare with
ByteMeasure, the way a turn does: read the journal under the user's current preference
revision, prepare the request, append the projected turn under that snapshot.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st

from local_agent.context import projection
from local_agent.context.errors import BudgetExceeded
from local_agent.context.journal import TTL_SECONDS, ContextJournal, ScopeKey
from local_agent.context.projection import SafeTurn
from local_agent.context.session_budget import ByteMeasure, SessionBudget, build_envelope, render_contents
from local_agent.context.townships import COUNTY, SHORT_NAMES, TOWNSHIPS
from local_agent.context.window import ContextSummary, ContextWindow

# -- fixed request envelope ----------------------------------------------------------------------------

SYSTEM = (
    "你是 LOCAL，彰化縣在地生活小幫手。只依工具結果回答店家與活動；"
    "對話歷史是應用端投影，不是使用者原句，也不是同意。"
)
TOOLS = [
    {
        "name": "search_local_places",
        "description": "找彰化縣某鄉鎮的店家",
        "parameters": {
            "type": "object",
            "properties": {
                "area": {"type": "string", "description": "鄉鎮市全名"},
                "dietary_type": {"type": "string", "description": "飲食條件代碼，空字串表示未指定"},
                "keyword": {"type": "string"},
            },
            "required": ["area"],
        },
    },
    {
        "name": "search_local_events",
        "description": "查彰化縣某鄉鎮的活動",
        "parameters": {"type": "object", "properties": {"area": {"type": "string"}}, "required": ["area"]},
    },
]
ENVELOPE = build_envelope(SYSTEM, TOOLS)
RAM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
ENVELOPE_SNAPSHOT = json.dumps(ENVELOPE, ensure_ascii=False, sort_keys=True)

DIETARY_LABELS = {"vegetarian": "素食", "vegan": "全素", "lacto_ovo": "蛋奶素", "no_beef": "不吃牛"}
USER_ID = "U4af4980629"
SCOPES = (ScopeKey.for_user(USER_ID), ScopeKey("local", "group", "C8e1f0b2d", USER_ID))

# -- text that may legitimately appear: township names, fixed strings, labels, summary keys ----------

_LEGIT: list[str] = [
    *TOWNSHIPS,
    *SHORT_NAMES,
    COUNTY,
    *projection.FIXED_STRINGS,
    projection.SUMMARY_MARKER,
    projection.SUMMARY_ACK,
    projection.MODEL_PROJECTION,
    projection.USER_PROJECTION_PREFIX,
    projection.USER_PROJECTION_SUFFIX,
    '{"area": "", "goal": ""}',
    "area",
    "goal",
    "turns",
    "summary",
    "window",
]
for _goal in projection.PUBLIC_TOPICS:
    _LEGIT.append(_goal)
    for _town in TOWNSHIPS:
        _turn = SafeTurn(_goal, _town)
        _summary = ContextSummary(_goal, _town)
        _LEGIT += [_turn.label, _turn.user_text(), projection.SUMMARY_MARKER + _summary.to_json()]
_LEGIT += [SafeTurn().label, SafeTurn().user_text()]
ALLOWED_TEXT = "".join(_LEGIT)


def grams(text: str, n: int = 4) -> set[str]:
    return {text[i : i + n] for i in range(len(text) - n + 1)}


ALLOWED_GRAMS = grams(ALLOWED_TEXT)

# -- strategies: realistic elderly voice-typed Chinese -------------------------------------------------

SENTENCES = [
    "阿那個花壇有什麼好吃的可以推薦",
    "我想要找素食的店，不要太貴",
    "八卦山步道那邊停車要不要錢",
    "接駁公車大概幾點會到火車站",
    "附近有沒有乾淨的洗手間",
    "我孫子下禮拜天要回來看我",
    "鹿港老街這個週末有沒有活動",
    "醫生說我血壓比較高不能吃太鹹",
    "我有糖尿病甜的不能吃太多",
    "我初一十五都吃素你幫我記一下",
    "幫我看一下員林有什麼好玩的",
    "那個廟口的肉圓現在還有開嗎",
    "我膝蓋不好走不遠的地方比較好",
    "我女兒住在溪湖那邊的巷子裡",
    "剛才那個鄉鎮，再找一家吃的。",
    "你好你好，這樣講話聽得到嗎",
    "我先生上個月中風住院現在在復健",
    "田尾公路花園現在花開了沒有",
    "我吃全素，蛋奶都不行喔",
    "我不吃牛肉，其他都可以",
    "芳苑那邊的蚵仔煎好不好吃",
    "我兒子叫阿明他的電話你記一下",
]
FILLERS = ["阿", "嗯", "那個", "就是說", "欸", "啦", "喔", "你知道嗎", "對對對", "，", "。", "？", "…", " "]
ILLNESS = ["高血壓", "糖尿病", "洗腎", "心臟病", "失智", "中風過", "膝關節退化", "白內障開刀"]

phones = st.builds(
    lambda prefix, digits, sep: prefix + "09" + digits[:2] + sep + digits[2:5] + sep + digits[5:],
    st.sampled_from(["我的電話", "打給我", "手機是", "你記一下"]),
    st.text(alphabet="0123456789", min_size=8, max_size=8),
    st.sampled_from(["", "-", " "]),
)


@st.composite
def raw_texts(draw) -> str:
    parts = draw(
        st.lists(
            st.one_of(st.sampled_from(SENTENCES), st.sampled_from(FILLERS), phones, st.sampled_from(ILLNESS)),
            min_size=1,
            max_size=8,
        )
    )
    text = "".join(parts)
    if len(text) < 5:
        text += draw(st.sampled_from(SENTENCES))
    return text[:200]


GARBAGE_AREAS = [
    "台中市",
    "彰化縣",
    "",
    "   ",
    "花壇鄉我的電話0912",
    "八卦山",
    "花壇鄉附近",
    "鹿港老街",
    "員林市區",
    "溪湖鎮的巷子",
    "Huatan",
    "花 壇",
    None,
    0,
    3.5,
    ["花壇鄉"],
    {"area": "花壇鄉"},
]


@st.composite
def areas(draw, raw: str) -> object:
    kind = draw(st.sampled_from(["full", "short", "county", "garbage", "fragment", "smuggled"]))
    if kind == "full":
        return draw(st.sampled_from(TOWNSHIPS))
    if kind == "short":
        return draw(st.sampled_from(sorted(SHORT_NAMES)))
    if kind == "county":
        return COUNTY + draw(st.sampled_from(TOWNSHIPS))
    if kind == "garbage":
        return draw(st.sampled_from(GARBAGE_AREAS))
    start = draw(st.integers(0, max(0, len(raw) - 1)))
    fragment = raw[start : start + draw(st.integers(1, 30))]
    if kind == "fragment":
        return fragment
    return draw(st.sampled_from(TOWNSHIPS)) + fragment  # a model putting the user's words into area


@dataclass(frozen=True)
class Turn:
    scope: int
    tool: str | None
    area: object
    ok: bool
    text: str


@dataclass(frozen=True)
class Consent:
    code: str


@dataclass(frozen=True)
class Forget:
    clear: bool


@dataclass(frozen=True)
class Jump:
    seconds: float


@dataclass(frozen=True)
class Budget:
    limit: int


@st.composite
def turns(draw) -> Turn:
    text = draw(raw_texts())
    return Turn(
        scope=draw(st.sampled_from([0, 0, 0, 1])),
        tool=draw(st.sampled_from(["search_local_places", "search_local_events", None])),
        area=draw(areas(text)),
        ok=draw(st.booleans() | st.just(True)),
        text=text,
    )


# Budgets span "refuse" (below rules + tools + question, ~750-1350 bytes), "trim" and "keep all"
# (~1650-2250 bytes for a full window), with extra weight where trimming happens.
budgets = st.integers(1, 3000) | st.integers(900, 2300) | st.just(3000)
# Clock jumps: mostly short pauses, sometimes long ones, and the TTL boundary exactly.
jumps = (
    st.integers(0, 300)
    | st.integers(0, 2000)
    | st.sampled_from([899, 900, 901])
    | st.integers(850, 1000)
    | st.floats(0, 2000, allow_nan=False)
)

events = st.one_of(
    turns(),
    turns(),
    turns(),
    turns(),  # conversations are mostly turns
    st.builds(Consent, st.sampled_from(sorted(DIETARY_LABELS))),
    st.builds(Forget, st.booleans()),
    st.builds(Jump, jumps),
    st.builds(Budget, budgets),
)

# -- the driver --------------------------------------------------------------------------------------


class Clock:
    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def minimal_size(current: str) -> int:
    return ByteMeasure().sync({**ENVELOPE, "contents": render_contents(ContextWindow(), current)})


def window_json(window: ContextWindow) -> str:
    return json.dumps(window.to_dict(), ensure_ascii=False, sort_keys=True)


def check_journal_rows(store) -> str:
    """Every stored row is a whole, valid window of at most two turns; returns the text rows hold."""
    out = []
    for scope_id, row in store.journal_rows().items():
        assert set(row) == {"window", "preference_revision", "updated_at", "version"}
        assert type(row["preference_revision"]) is int
        assert type(row["version"]) is int
        assert isinstance(row["updated_at"], (int, float))
        window = row["window"]
        assert set(window) == {"turns", "summary"}
        assert len(window["turns"]) <= 2
        for turn in window["turns"]:
            assert set(turn) == {"goal", "area"}
            SafeTurn.from_dict(turn)  # raises on anything but a whole, valid projection
        assert set(window["summary"]) == {"goal", "area"}
        ContextSummary.from_dict(window["summary"])
        # The key is a fixed-length hash (hex digits may match a phone-number 4-gram by chance).
        assert scope_id in {s.storage_id for s in SCOPES}
        out.append(json.dumps(window, ensure_ascii=False, sort_keys=True))
    return "\n".join(out)


def assert_no_leak(forbidden: set[str], where: str, text: str) -> None:
    leaked = forbidden & grams(text)
    assert not leaked, f"raw user text leaked into {where}: {sorted(leaked)[:5]}"


def assert_no_dietary(forgotten: set[str], where: str, text: str) -> None:
    for code in forgotten:
        assert code not in text, f"forgotten dietary code {code!r} in {where}"
        assert DIETARY_LABELS[code] not in text, f"forgotten dietary label of {code!r} in {where}"


async def drive(store, conversation: list, initial_limit: int) -> None:
    clock = Clock()
    journal = ContextJournal(store, clock=clock)
    measure = ByteMeasure()
    limit = initial_limit
    # reference model per scope: (window, revision written under, time of last write) or None
    model: dict[int, tuple[ContextWindow, int, float] | None] = {0: None, 1: None}
    raw_seen: list[str] = []
    forbidden: set[str] = set()
    forgotten: set[str] = set()

    for event in conversation:
        if isinstance(event, Jump):
            clock.now += event.seconds
        elif isinstance(event, Budget):
            limit = event.limit
        elif isinstance(event, Consent):
            store.set_consent(USER_ID, consent="granted", dietary_type=event.code, now=clock.now)
            forgotten.discard(event.code)
            assert store.get(USER_ID).dietary_type == event.code
        elif isinstance(event, Forget):
            before = store.get(USER_ID)
            after = store.set_consent(USER_ID, consent="forgotten", dietary_type=None, now=clock.now)
            assert after.revision == before.revision + 1
            if before.dietary_type:
                forgotten.add(before.dietary_type)
            if event.clear:
                for i, scope in enumerate(SCOPES):
                    journal.clear(scope)
                    model[i] = None
            stored = store.get(USER_ID)
            assert stored.dietary_type is None
            assert stored.consent == "forgotten"
        else:
            assert isinstance(event, Turn)
            scope = SCOPES[event.scope]
            revision = store.get(USER_ID).revision
            snap = journal.read(scope, revision)

            # An expired or revision-stale window is never read.
            state = model[event.scope]
            expected_window = ContextWindow()
            if state is None:
                expected_statuses = {"empty"}
            else:
                stale = state[1] != revision
                expired = clock.now - state[2] > TTL_SECONDS
                # Which reason is reported when both hold is not specified: accept either.
                expected_statuses = ({"revision_mismatch"} if stale else set()) | (
                    {"expired"} if expired else set()
                )
                if not expected_statuses:
                    expected_statuses, expected_window = {"fresh"}, state[0]
            assert snap.status in expected_statuses
            hypothesis_event(f"read {snap.status}")
            assert snap.window == expected_window
            assert snap.revision == revision
            assert len(snap.window.turns) <= 2

            raw_seen.append(event.text)
            forbidden |= grams(event.text) - ALLOWED_GRAMS
            assert_no_leak(forbidden, "snapshot", window_json(snap.window) + snap.status)

            budget = SessionBudget(limit=limit)
            try:
                result = await budget.prepare(snap.window, event.text, ENVELOPE, measure)
            except BudgetExceeded as err:
                hypothesis_event("budget refused")
                assert err.code == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET"
                assert err.limit == limit
                assert minimal_size(event.text) > limit
                assert err.count == minimal_size(event.text)
            else:
                request = result.request
                hypothesis_event("budget trimmed" if len(result.counts) > 1 else "budget kept all")
                # Within budget, honestly measured on the whole request.
                assert result.count <= limit
                assert result.count == measure.sync(request)
                assert result.counts[-1] == result.count
                assert all(c > limit for c in result.counts[:-1])
                # Rules, tools and the current question untouched.
                assert set(request) == {"system_instruction", "tools", "contents"}
                assert request["system_instruction"] == SYSTEM
                assert request["tools"] == TOOLS
                assert json.dumps(ENVELOPE, ensure_ascii=False, sort_keys=True) == ENVELOPE_SNAPSHOT
                assert request["contents"][-1] == {"role": "user", "parts": [{"text": event.text}]}
                # Whole exchanges only, newest kept; history alternates user/model.
                kept = result.kept
                assert len(kept.turns) <= 2
                assert kept.turns == snap.window.turns[len(snap.window.turns) - len(kept.turns) :]
                assert result.dropped_turns == len(snap.window.turns) - len(kept.turns)
                if result.summary_dropped:
                    assert kept == ContextWindow()
                if len(result.counts) == 1:
                    assert kept == snap.window
                history = request["contents"][:-1]
                assert len(history) % 2 == 0
                assert [c["role"] for c in history] == ["user", "model"] * (len(history) // 2)
                assert request["contents"] == render_contents(kept, event.text)
                history_text = json.dumps(history, ensure_ascii=False)
                assert_no_leak(forbidden, "request history", history_text)
                assert_no_dietary(forgotten, "request history", history_text)

                projected = SafeTurn.from_tool(event.tool, event.area, ok=event.ok)
                record = journal.append(snap, projected, current_revision=store.get(USER_ID).revision)
                model[event.scope] = (expected_window.append(projected), revision, clock.now)
                assert record.window == model[event.scope][0]
                assert record.preference_revision == revision
                assert record.updated_at == clock.now

        # After every event: the stored rows hold whole projections, no raw text, nothing forgotten.
        rows_text = check_journal_rows(store)
        assert_no_leak(forbidden, "journal rows", rows_text)
        assert_no_dietary(forgotten, "journal rows", rows_text)
        pref_text = json.dumps(store.preference_rows(), ensure_ascii=False)
        assert_no_dietary(forgotten, "preference rows", pref_text)
        for text in raw_seen:
            assert text not in rows_text and text not in pref_text


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(conversation=st.lists(events, min_size=1, max_size=25), initial_limit=budgets)
def test_random_conversations_keep_budget_window_privacy_and_forgetting(conversation, initial_limit):
    from local_agent.stores.sqlite import SqliteStore

    # A RAM-backed temp dir when there is one: every example opens a fresh SQLite file.
    with tempfile.TemporaryDirectory(dir=RAM_DIR) as tmp:
        store = SqliteStore(Path(tmp) / "local.sqlite3")
        try:
            asyncio.run(drive(store, conversation, initial_limit))
        finally:
            store.close()


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(raw_texts(), min_size=3, max_size=8), data=st.data())
def test_no_raw_user_text_survives_projection_whatever_the_area_the_model_proposes(texts, data):
    window = ContextWindow()
    forbidden: set[str] = set()
    for text in texts:
        forbidden |= grams(text) - ALLOWED_GRAMS
        tool = data.draw(st.sampled_from(["search_local_places", "search_local_events", None]))
        turn = SafeTurn.from_tool(tool, data.draw(areas(text)))
        window = window.append(turn)
        rendered = json.dumps(render_contents(window, "下一句"), ensure_ascii=False)
        assert_no_leak(forbidden, "rendered window", rendered + window_json(window))
        assert len(window.turns) <= 2


@settings(max_examples=100, deadline=None)
@given(
    limit=st.integers(0, 3000),
    text=raw_texts(),
    turn_specs=st.lists(
        st.tuples(
            st.sampled_from(["search_local_places", "search_local_events", None]), st.sampled_from(TOWNSHIPS)
        ),
        max_size=5,
    ),
)
def test_budget_result_is_the_largest_suffix_that_fits(limit, text, turn_specs):
    window = ContextWindow()
    for tool, area in turn_specs:
        window = window.append(SafeTurn.from_tool(tool, area))
    try:
        result = asyncio.run(SessionBudget(limit=limit).prepare(window, text, ENVELOPE, ByteMeasure()))
    except BudgetExceeded:
        assert minimal_size(text) > limit
        return
    assert result.count <= limit
    # Maximal: the stage kept before the last trim did not fit.
    if len(result.counts) > 1:
        assert result.counts[-2] > limit
    # Counts strictly decrease as exchanges (then the summary) are dropped.
    assert list(result.counts) == sorted(result.counts, reverse=True)
