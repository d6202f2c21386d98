"""LOCAL Day 15, offline: contract checks, the spec's five turns, a 50-turn sweep, the budget
refusal and the revocation drill.

    python3 -m examples.day15.demo --out out/day15/first-run

Runs on a bare Python 3.11 with nothing installed: it imports only the standard library and the
stdlib-only modules of ``local_agent`` (the context layer, the pipeline, the offline model's
rules, TurnTools, commands, rendering, the SQLite store and the teaching catalogue).

What it is and is not:
- The "model" is the offline rules of ``local_agent.agent.offline_rules``: a deterministic stand-in for Gemini
  that reads only the request it is given. It is not Gemini.
- Places and events come from a teaching snapshot (invented data), not live listings.
- Every size is UTF-8 bytes of the canonical JSON request (rules + tool contract + contents),
  not tokens. Time comes from a fake clock; nothing sleeps and nothing goes on the network.

Exit code 0 when every contract check passes, 1 otherwise (the outputs are written either way).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import importlib.util
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from local_agent import fingerprint
from local_agent.agent import offline_rules as intent
from local_agent.agent.instructions import dated_rules, today_from
from local_agent.agent.pipeline import ContextPipeline, TurnState
from local_agent.agent.tools import TOOL_DECLARATIONS, TOOL_NAMES
from local_agent.context import (
    BudgetExceeded,
    BudgetResult,
    ByteMeasure,
    ContextJournal,
    ContextWindow,
    CounterUnitMismatch,
    InvalidCounterResult,
    MemoryJournalStorage,
    SafeTurn,
    ScopeKey,
    SessionBudget,
    StaleContextError,
    build_envelope,
    projection,
    render_contents,
)
from local_agent.context.canonical import canonical_json
from local_agent.context.journal import TTL_SECONDS
from local_agent.context.townships import COUNTY, SHORT_NAMES, TOWNSHIPS
from local_agent.listings import catalogue
from local_agent.replies.render import BUDGET_REFUSAL, render_tool_result
from local_agent.stores.ports import FORGOTTEN_MARK
from local_agent.stores.sqlite import SqliteStore
from local_agent.turns.commands import Commands, parse_postback
from local_agent.turns.consent import ConsentTokens

DEFAULT_OUT = "out/day15/first-run"
DB_NAME = "day15.sqlite3"
BUDGET_LIMIT = 8192  # the production limit is 8,192 tokens; offline the same number counts bytes
UNBOUNDED_TURNS = 10**6  # "full history": every projected turn is kept, no summary
UNBOUNDED_LIMIT = 10**12
START_TIME = 1_796_011_200.0  # the fake clock's start: 2026-11-30 12:00 Taiwan time, a Monday (seconds)
TURN_GAP_SECONDS = 45.0  # the fake clock moves this much before each turn
SWEEP_TURNS = 50
SWEEP_MARKS = (5, 10, 25, 50)

# The spec's five-turn conversation, as an elder might voice-type it.
FIVE_TURNS: tuple[str, ...] = (
    "花壇有什麼店推薦吃吃看？",
    "那花壇這禮拜有沒有什麼活動可以去走走？",
    "阿那邊停車要錢嗎？停車場在哪裡？",
    "有沒有公車可以到？我腳不好不能走太遠。",
    "剛才那個鄉鎮，再找一家吃的。",
)
FIVE_TURN_TOPICS = ("花壇 food", "花壇 events", "parking", "bus", "剛才那個鄉鎮 food")

# Marker strings as the spec writes them: the module constants must equal them exactly.
SPEC_MARKERS: dict[str, str] = {
    "SUMMARY_MARKER": "【應用端舊話題摘要，不是指令、同意或已完成狀態】",
    "SUMMARY_ACK": "只作指代線索，新的問句與後端核對優先。",
    "USER_PROJECTION_PREFIX": "【歷史話題投影，非原句】",
    "USER_PROJECTION_SUFFIX": "。不包含當次素別，不代表同意或服務完成。",
    "MODEL_PROJECTION": "【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。",
    "NON_PUBLIC_LABEL": "未指定區域：詢問可用功能",
}

# The spec's excerpt of the turn-5 contents ("兩回合加摘要"), line for line.
SPEC_TURN5_EXCERPT = """\
user ：【應用端舊話題摘要，不是指令、同意或已完成狀態】{"area": "花壇鄉", "goal": "events"}
model：只作指代線索，新的問句與後端核對優先。
user ：【歷史話題投影，非原句】未指定區域：詢問可用功能。不包含當次素別，不代表同意或服務完成。
model：【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。
user ：【歷史話題投影，非原句】未指定區域：詢問可用功能。不包含當次素別，不代表同意或服務完成。
model：【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。
user ：剛才那個鄉鎮，再找一家吃的。"""

# The 50-turn sweep: a deterministic conversation that cycles through places, events and other
# questions (parking, buses, toilets, a phone number, an illness, the weather) across townships,
# with references such as 剛才那個鄉鎮 / 同一個地方 / 剛剛那裡.
SWEEP_TOWNSHIPS = (
    "花壇鄉",
    "鹿港鎮",
    "員林市",
    "田中鎮",
    "北斗鎮",
    "二林鎮",
    "溪湖鎮",
    "和美鎮",
    "社頭鄉",
    "彰化市",
)
PLACE_ASKS = ("{t}有什麼好吃的？推薦一下。", "{t}附近有沒有吃飯的地方？")
EVENT_ASKS = ("那{t}最近有什麼活動可以去看看？", "{t}這個週末有沒有市集？")
OTHER_ASKS = (
    "阿那邊停車要錢嗎？",
    "有沒有公車可以到？我腳不好不能走太遠。",
    "附近哪裡有廁所？",
    "我電話是0912345678，有事打給我。",
    "我膝蓋開過刀，不能走太多路。",
    "今天會不會下雨？要不要帶傘？",
)
REFERENCE_ASKS = ("剛才那個鄉鎮，再找一家吃的。", "同一個地方還有什麼活動？", "剛剛那裡有沒有素食的店？")

DRILL_USER = "U-drill"
DRILL_SEARCH = "花壇有什麼好吃的？"
DRILL_CONSENT_TEXT = "記住我吃素"
DRILL_FORGET_TEXT = "忘記我的飲食偏好"
FORGOTTEN_VALUE = "vegetarian"
FORGOTTEN_WORDS = (FORGOTTEN_VALUE, catalogue.DIETARY_TYPES[FORGOTTEN_VALUE], "吃素")
AUDIT_EVIDENCE_KEYS = (
    "tool",
    "proposed_arguments",
    "memory_revision",
    "effective_arguments",
    "preference_origin",
)

WEBHOOK_SKIPPED = (
    "Webhook part skipped: this Python does not have the project's packages (FastAPI, ADK, LINE SDK)."
)
REPO_ROOT = Path(__file__).resolve().parents[2]


def webhook_skipped_hint(out_dir: Path, root: Path = REPO_ROOT) -> str:
    """What to run for the webhook part: the virtualenv ``./scripts/test`` made, when it exists."""
    venv_python = root / ".venv" / "bin" / "python"
    command = f".venv/bin/python -m examples.day15.demo --out {out_dir}"
    if venv_python.is_file():
        return f"{WEBHOOK_SKIPPED} The virtualenv ./scripts/test made has them: {command}"
    return f"{WEBHOOK_SKIPPED} ./scripts/test makes .venv with them; then: {command}"


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------


class FakeClock:
    """Injected time: the demo moves it instead of sleeping."""

    def __init__(self, start: float = START_TIME) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class RecordingMeasure:
    """The offline bytes measure, remembering every count (one per trimming step)."""

    unit = "bytes"

    def __init__(self) -> None:
        self.counts: list[int] = []

    async def __call__(self, request: Mapping[str, Any]) -> int:
        count = ByteMeasure().sync(request)
        self.counts.append(count)
        return count


class FixedMeasure:
    """A deliberately wrong counter for the contract checks."""

    def __init__(self, unit: str, value: Any) -> None:
        self.unit, self.value = unit, value

    async def __call__(self, request: Mapping[str, Any]) -> Any:  # deliberately not always an int
        return self.value


class CheckFailed(Exception):
    pass


def expect(condition: bool, reason: str) -> None:
    if not condition:
        raise CheckFailed(reason)


def content_text(content: Mapping[str, Any]) -> str:
    return "".join(str(p.get("text", "")) for p in content.get("parts", ()))


def contents_lines(contents: Sequence[Mapping[str, Any]]) -> list[str]:
    """Contents as the spec prints them: ``user ：…`` / ``model：…``."""
    return [f"{c['role']:<5}：{content_text(c)}" for c in contents]


def without_current(request: Mapping[str, Any]) -> dict[str, Any]:
    return {**request, "contents": list(request["contents"][:-1])}


def fmt(n: int) -> str:
    return f"{n:,}"


def proposal_label(proposal: Mapping[str, Any]) -> str:
    if "function_call" in proposal:
        call = proposal["function_call"]
        args = ", ".join(f"{k}='{v}'" for k, v in call["args"].items())
        return f"{call['name']}({args})"
    if proposal.get("text") == intent.ASK_TOWNSHIP:
        return f"text: {intent.ASK_TOWNSHIP}"
    return "text: capabilities (no tool)"


def exchange_count(pairs: Sequence[tuple[str, str]]) -> int:
    """Whole projected exchanges in ``pairs`` (the contents before the current question).

    Raises CheckFailed when the structure is not: [summary + ack] + (projection + marker)*.
    """
    i = 0
    if pairs and pairs[0][1].startswith(projection.SUMMARY_MARKER):
        expect(pairs[0][0] == "user", "summary line is not a user content")
        expect(
            len(pairs) > 1 and pairs[1] == ("model", projection.SUMMARY_ACK),
            "summary line without its acknowledgement",
        )
        i = 2
    exchanges = 0
    while i < len(pairs):
        role, text = pairs[i]
        expect(
            role == "user"
            and text.startswith(projection.USER_PROJECTION_PREFIX)
            and text.split(projection.SHOWN_MARKER, 1)[0].endswith(projection.USER_PROJECTION_SUFFIX),
            f"content {i} is not a projected user turn",
        )
        expect(
            i + 1 < len(pairs) and pairs[i + 1] == ("model", projection.MODEL_PROJECTION),
            f"projected user turn {i} is not followed by the model marker (exchange split)",
        )
        i += 2
        exchanges += 1
    return exchanges


# -- privacy scan ----------------------------------------------------------------------------

_PUNCTUATION = set(" \t\n，。？！、：；「」『』（）…,.?!:;()-")
_ALLOWED = sorted({*TOWNSHIPS, *SHORT_NAMES, COUNTY, *projection.FIXED_STRINGS}, key=len, reverse=True)
_HEX_RUN = re.compile(r"[0-9a-f]{16,}")


def raw_ngrams(text: str, n: int = 4) -> set[str]:
    """Every n-character substring of ``text``, after cutting out township names and the fixed
    strings of ``projection.FIXED_STRINGS`` (those may legitimately appear anywhere)."""
    segments = [text]
    for allowed in _ALLOWED:
        segments = [piece for segment in segments for piece in segment.split(allowed)]
    grams: set[str] = set()
    for segment in segments:
        for i in range(len(segment) - n + 1):
            gram = segment[i : i + n]
            if not all(ch in _PUNCTUATION for ch in gram):
                grams.add(gram)
    return grams


def strings_in(value: Any) -> Iterable[str]:
    """Every string (values and keys) inside a JSON-like value. Numbers are not text the user
    typed; hex runs (hashes, scope ids) are masked so a digit sequence cannot match by chance."""
    if isinstance(value, str):
        yield _HEX_RUN.sub("#", value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)


def leaks(texts: Iterable[str], target: Any) -> list[str]:
    haystack = "\n".join(strings_in(target))
    found: set[str] = set()
    for text in texts:
        found.update(g for g in raw_ngrams(text) if g in haystack)
    return sorted(found)


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


LINE_THREE_TURNS = ("花壇有什麼店推薦吃吃看？", "八卦山步道有什麼活動？", "剛才那個鄉鎮，再找一家吃的。")
FIVE_TURNS_SCRIPT = Path(__file__).resolve().parent / "scripts" / "five_turns.json"


def _webhook_turn(number: int, text: str, result: Any) -> dict[str, Any]:
    """One webhook turn as ``webhook_three_turns.json`` records it."""
    outcome = result.outcome
    calls = outcome.tool_calls if outcome else []
    return {
        "turn": number,
        "text": text,
        "tool_calls": [
            {k: c[k] for k in ("tool", "effective_arguments", "preference_origin")} for c in calls
        ],
        "replies": result.replies,
        "request_bytes": outcome.model_requests[0]["count"] if outcome and outcome.model_requests else None,
        "journal": result.journal,
    }


async def _through_the_webhook(db: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The spec's three LINE turns, then the spec's five turns of ``scripts/five_turns.json``
    (another user), through one real app."""
    from examples.day15.replay import ReplayDriver, load_script

    three, five = [], []
    async with ReplayDriver.open(env={"LOCAL_SQLITE_PATH": str(db)}, start_at=START_TIME) as driver:
        for number, text in enumerate(LINE_THREE_TURNS, 1):
            three.append(_webhook_turn(number, text, await driver.send_text("Uwebhookdemo", text)))
        for number, event in enumerate(load_script(FIVE_TURNS_SCRIPT), 1):
            five.append(
                _webhook_turn(number, event["text"], await driver.send_text(event["user"], event["text"]))
            )
    return three, five


def _webhook_report_lines(turns: list[dict[str, Any]], production: int | None, measured: int) -> list[str]:
    lines = [
        "",
        "## The LINE conversation through the webhook",
        "",
        "The spec's three turns as signed webhook requests to the real FastAPI app (ADK Runner, offline",
        "stand-in model, SQLite), replies captured by a fake LINE API on 127.0.0.1",
        "(`webhook_three_turns.json`).",
        "",
        "| turn | text | tool call | reply titles |",
        "|---|---|---|---|",
    ]
    for t in turns:
        call = t["tool_calls"][0] if t["tool_calls"] else None
        call_text = f"{call['tool']}({call['effective_arguments'].get('area')})" if call else "—"
        titles = [x for r in t["replies"] for x in r.get("titles", [])]
        lines.append(f"| {t['turn']} | {t['text']} | {call_text} | {'、'.join(titles) or '—'} |")
    verdict = "equal" if production == measured else "NOT equal"
    lines += [
        "",
        f"The spec's five turns (`scripts/five_turns.json`) through the same app: on turn 5 the production "
        f"router sent **{fmt(production) if production is not None else 'no request'}** bytes; this report "
        f"measured **{fmt(measured)}** bytes for turn 5 ({verdict}).",
    ]
    return lines


def webhook_section(out_dir: Path, turn5_bytes: int) -> dict | None:
    """The spec's three-turn LINE conversation through the real webhook, when the project is installed,
    and the spec's five turns, whose turn-5 request must be the ``turn5_bytes`` this demo measured.

    Signed webhook requests go to the FastAPI app in-process (ADK Runner, offline stand-in model,
    SQLite under ``out_dir``); replies are captured by a fake LINE API on 127.0.0.1. On a bare
    Python this prints how to enable it and returns None.
    """
    if not (_importable("fastapi") and _importable("google.adk") and _importable("linebot")):
        print(webhook_skipped_hint(out_dir))
        return None
    db = out_dir / "webhook.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    turns, five = asyncio.run(_through_the_webhook(db))
    production = five[-1]["request_bytes"]
    dump(out_dir / "webhook_three_turns.json", {"turns": turns})
    last_area = (turns[-1]["tool_calls"] or [{}])[0].get("effective_arguments", {}).get("area")
    with open(out_dir / "report.md", "a", encoding="utf-8") as report:
        report.write("\n".join(_webhook_report_lines(turns, production, turn5_bytes)) + "\n")
    print(
        f"Webhook part: turn 3 「{LINE_THREE_TURNS[2]}」 resolved to {last_area} "
        f"through the real webhook ({out_dir / 'webhook_three_turns.json'})"
    )
    print(
        f"Webhook part: turn 5 of scripts/five_turns.json sent {fmt(production) if production else 'nothing'} "
        f"bytes through the production router; the demo measured {fmt(turn5_bytes)} "
        f"({'equal' if production == turn5_bytes else 'NOT equal'})"
    )
    return {"turn3_area": last_area, "turns": len(turns), "production_turn5_bytes": production}


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------


@dataclass
class Turn:
    state: TurnState
    budget: BudgetResult
    proposal: dict[str, Any]
    result: dict[str, Any] | None = None
    reply: str = ""


class Demo:
    def __init__(self, out: Path) -> None:
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        db = out / DB_NAME
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        self.db_path = db
        self.store = SqliteStore(db)
        self.clock = FakeClock()
        self.journal = ContextJournal(self.store, clock=self.clock)
        self.pipeline = self.make_pipeline(BUDGET_LIMIT)
        # A fixed demo secret: the signed consent buttons come out the same on every run.
        tokens = ConsentTokens("local-day15-demo")
        self.commands = Commands(
            preferences=self.store, journal=self.journal, clock=self.clock, tokens=tokens, audit=self.store
        )
        self.typed: list[str] = []  # every raw text typed
        self.sent: list[tuple[tuple[str, ...], dict[str, Any]]] = []  # (earlier raw texts, request)
        self.requests: list[dict[str, Any]] = []  # every budget request sent
        self.kept_turns: list[int] = []  # window size of every request

    @property
    def envelope(self) -> dict[str, Any]:
        """Rules + the tool contract, as the service sends them now: the rules end with today's line
        (Taiwan time at the fake clock), which the offline rules read like Gemini does."""
        return build_envelope(dated_rules(self.clock()), TOOL_DECLARATIONS)

    def propose(self, contents: list[dict[str, Any]]) -> dict[str, Any]:
        """The offline model's proposal, reading today's date from the rules it is sent."""
        return intent.propose(contents, TOOL_NAMES, today_from(self.envelope["system_instruction"]))

    def make_pipeline(self, limit: int) -> ContextPipeline:
        return ContextPipeline(
            journal=self.journal,
            preferences=self.store,
            audit=self.store,
            snapshots=self.store,
            budget=SessionBudget(limit=limit),
            clock=self.clock,
        )

    def fixed_part(self) -> dict[str, int]:
        """UTF-8 bytes of what every request carries before any contents: the rules (with today's
        line) and each tool declaration as canonical JSON, and the whole envelope as the budget
        measures it (with the JSON that joins them)."""
        envelope = self.envelope
        parts = {"rules": len(canonical_json(envelope["system_instruction"]).encode("utf-8"))}
        parts.update({d["name"]: len(canonical_json(d).encode("utf-8")) for d in envelope["tools"]})
        parts["envelope"] = ByteMeasure().sync({**envelope, "contents": []})
        return parts

    def floor_bytes(self, text: str) -> int:
        """Rules + tool contract + the current question: what no budget may cut."""
        return ByteMeasure().sync({**self.envelope, "contents": render_contents(ContextWindow(), text)})

    async def full_history(self, history: ContextWindow, text: str) -> BudgetResult:
        naive = SessionBudget(limit=UNBOUNDED_LIMIT, max_turns=UNBOUNDED_TURNS)
        return await naive.prepare(history, text, self.envelope, ByteMeasure())

    async def start(self, scope: ScopeKey, text: str, turn_id: str, earlier: Sequence[str]) -> Turn:
        """begin + prepare + the offline model's proposal (nothing written yet)."""
        self.clock.advance(TURN_GAP_SECONDS)
        self.typed.append(text)
        state = self.pipeline.begin(scope, text, turn_id=turn_id)
        budget = await self.pipeline.prepare(state, self.envelope, ByteMeasure())
        self.sent.append((tuple(earlier), budget.request))
        self.requests.append(budget.request)
        self.kept_turns.append(len(budget.kept.turns))
        return Turn(state, budget, self.propose(budget.contents))

    def act(self, turn: Turn) -> Turn:
        """Run the proposed tool (TurnTools reads consented memory now) and render the reply."""
        if "function_call" in turn.proposal:
            call = turn.proposal["function_call"]
            turn.result = self.pipeline.tools(turn.state).call(call["name"], dict(call["args"]))
            reply = render_tool_result(turn.result)
            titles = "、".join(card.title for card in reply.cards)
            turn.reply = reply.texts[0].split("\n")[0] + titles
        else:
            turn.reply = str(turn.proposal.get("text", ""))
        return turn

    async def turn(
        self, scope: ScopeKey, text: str, turn_id: str, earlier: Sequence[str]
    ) -> tuple[Turn, SafeTurn]:
        turn = self.act(await self.start(scope, text, turn_id, earlier))
        return turn, self.pipeline.finish(turn.state)

    # -- 2. the spec's five turns ---------------------------------------------------------
    async def five_turns(self) -> dict[str, Any]:
        scope = ScopeKey.for_user("U1")
        history = ContextWindow()
        rows: list[dict[str, Any]] = []
        probes: dict[str, Any] = {}
        turn5: Turn | None = None
        for number, text in enumerate(FIVE_TURNS, start=1):
            turn = self.act(await self.start(scope, text, f"five-{number}", FIVE_TURNS[: number - 1]))
            full = await self.full_history(history, text)
            self.sent.append((tuple(FIVE_TURNS[: number - 1]), full.request))
            if number == len(FIVE_TURNS):
                turn5 = turn
                probes = await self.turn5_probes(turn.state)
            safe = self.pipeline.finish(turn.state)
            history = history.append(safe, UNBOUNDED_TURNS)
            execution = turn.state.last_execution
            rows.append(
                {
                    "turn": number,
                    "topic": FIVE_TURN_TOPICS[number - 1],
                    "user_text": text,
                    "full_history_bytes": full.count,
                    "budget_bytes": turn.budget.count,
                    "floor_bytes": self.floor_bytes(text),
                    "saved_bytes": full.count - turn.budget.count,
                    "full_history_contents": len(full.contents),
                    "budget_contents": len(turn.budget.contents),
                    "journal_status": turn.state.snapshot.status,
                    "window_read": turn.state.snapshot.window.labels(),
                    "summary_read": turn.state.snapshot.window.summary.to_dict(),
                    "dropped_turns": turn.budget.dropped_turns,
                    "summary_dropped": turn.budget.summary_dropped,
                    "proposal": turn.proposal,
                    "proposal_label": proposal_label(turn.proposal),
                    "effective_arguments": execution.effective_arguments if execution else None,
                    "preference_origin": execution.preference_origin if execution else None,
                    "reply": turn.reply,
                    "projection": safe.label,
                }
            )
        assert turn5 is not None
        return {
            "scope": "U1 (1:1 chat)",
            "budget_limit_bytes": BUDGET_LIMIT,
            "unit": "bytes",
            "turns": rows,
            "turn5_contents": contents_lines(turn5.budget.contents),
            "turn5_request": turn5.budget.request,
            "turn5_kept_labels": turn5.budget.kept.labels(),
            "turn5_summary": turn5.budget.kept.summary.to_dict(),
            "probes": probes,
        }

    async def turn5_probes(self, state: TurnState) -> dict[str, Any]:
        """Before turn 5 is written: the same window under a 1-byte budget and under a budget that
        fits the request without the summary but not with it."""
        window, text = state.snapshot.window, state.current
        # a) 1 byte
        tiny = self.make_pipeline(1)
        probe = tiny.begin(state.scope, text, turn_id=f"{state.turn_id}-1byte")
        measure = RecordingMeasure()
        refusal: dict[str, Any] = {"refused": False}
        try:
            await tiny.prepare(probe, self.envelope, measure)
        except BudgetExceeded as exc:
            refusal = {
                "refused": True,
                "code": exc.code,
                "message": str(exc),
                "limit": exc.limit,
                "count": exc.count,
                "unit": exc.unit,
                "measured_steps": measure.counts,
                "floor_bytes": self.floor_bytes(text),
                "sent_to_model": False,
                "reply_shown_to_user": BUDGET_REFUSAL,
            }
        # b) the summary forced out
        floor = self.floor_bytes(text)
        with_summary = ByteMeasure().sync(
            {**self.envelope, "contents": render_contents(ContextWindow((), window.summary), text)}
        )
        tight = self.make_pipeline(floor)
        probe = tight.begin(state.scope, text, turn_id=f"{state.turn_id}-tight")
        measure = RecordingMeasure()
        result = await tight.prepare(probe, self.envelope, measure)
        proposal = self.propose(result.contents)
        self.sent.append((tuple(FIVE_TURNS[:-1]), result.request))
        return {
            "one_byte": refusal,
            "summary_forced_out": {
                "limit": floor,
                "request_without_summary_bytes": floor,
                "request_with_summary_only_bytes": with_summary,
                "measured_steps": measure.counts,
                "dropped_turns": result.dropped_turns,
                "summary_dropped": result.summary_dropped,
                "contents": contents_lines(result.contents),
                "proposal": proposal,
            },
        }

    # -- 3. the sweep ------------------------------------------------------------------------
    @staticmethod
    def sweep_script(turns: int = SWEEP_TURNS) -> list[tuple[str, str | None]]:
        """(text, township a reference should resolve to) for each turn; deterministic."""
        script: list[tuple[str, str | None]] = []
        cycle = 0
        while len(script) < turns:
            town = SWEEP_TOWNSHIPS[cycle % len(SWEEP_TOWNSHIPS)]
            short = town[:-1]
            place = PLACE_ASKS[cycle % len(PLACE_ASKS)].format(t=short)
            event = EVENT_ASKS[cycle % len(EVENT_ASKS)].format(t=short)
            other1 = OTHER_ASKS[(2 * cycle) % len(OTHER_ASKS)]
            other2 = OTHER_ASKS[(2 * cycle + 1) % len(OTHER_ASKS)]
            ref = REFERENCE_ASKS[cycle % len(REFERENCE_ASKS)]
            if cycle % 2 == 0:  # the spec's shape: the township has left the window by the reference
                block = [(place, None), (event, None), (other1, None), (other2, None), (ref, town)]
            else:  # the township is still inside the two-turn window
                block = [(event, None), (ref, town), (other1, None), (place, None), (other2, None)]
            script.extend(block)
            cycle += 1
        return script[:turns]

    async def sweep(self) -> dict[str, Any]:
        scope = ScopeKey.for_user("U-sweep")
        history = ContextWindow()
        rows: list[dict[str, Any]] = []
        references: list[dict[str, Any]] = []
        cumulative_full = cumulative_budget = 0
        script = self.sweep_script()
        texts = [text for text, _ in script]
        for number, (text, expected) in enumerate(script, start=1):
            turn = self.act(await self.start(scope, text, f"sweep-{number}", texts[: number - 1]))
            full = await self.full_history(history, text)
            self.sent.append((tuple(texts[: number - 1]), full.request))
            safe = self.pipeline.finish(turn.state)
            history = history.append(safe, UNBOUNDED_TURNS)
            cumulative_full += full.count
            cumulative_budget += turn.budget.count
            rows.append(
                {
                    "turn": number,
                    "full_history_bytes": full.count,
                    "budget_bytes": turn.budget.count,
                    "floor_bytes": self.floor_bytes(text),
                    "cumulative_full": cumulative_full,
                    "cumulative_budget": cumulative_budget,
                }
            )
            if expected is not None:
                args = turn.proposal.get("function_call", {}).get("args", {})
                references.append({"turn": number, "expected": expected, "resolved": args.get("area")})
        return {"rows": rows, "references": references}

    # -- 5. the revocation drill ---------------------------------------------------------------
    def rows_of(self, scope: ScopeKey) -> dict[str, Any]:
        return {
            "preferences": [r for r in self.store.preference_rows() if r["user_id"] == scope.user_id],
            "journal": self.store.journal_rows().get(scope.storage_id),
            "audit": [r.to_dict() for r in self.store.audit_rows(scope.storage_id)],
        }

    async def drill(self) -> dict[str, Any]:
        scope = ScopeKey.for_user(DRILL_USER)
        steps = self.drill_consent(scope)
        first, _ = await self.turn(scope, DRILL_SEARCH, "drill-search-1", [])
        steps.append(self.drill_search_step(first))
        before = self.rows_of(scope)
        steps.append(self.drill_forget(scope))
        forget_at = self.clock()
        after_forget = self.rows_of(scope)
        second, _ = await self.turn(scope, DRILL_SEARCH, "drill-search-2", [DRILL_SEARCH])
        steps.append(self.drill_search_step(second))
        after_search = self.rows_of(scope)
        # The evidence that the memory was used: the audit row as written before the forget (the forget has since
        # replaced its diet by "#forgotten", as in production) and the row written after it.
        written_after = [row for row in after_search["audit"] if row["at"] > forget_at]
        evidence = [{k: row[k] for k in AUDIT_EVIDENCE_KEYS} for row in before["audit"] + written_after]
        return {
            "backend": "sqlite",
            "database": DB_NAME,
            "user_id": DRILL_USER,
            "scope_id": scope.storage_id,
            "forget_at": forget_at,
            "steps": steps,
            "audit_evidence": evidence,
            "rows_before_forget": before,
            "rows_after_forget": after_forget,
            "rows_after_search_again": after_search,
            "snapshots": [s.to_dict() for s in self.store.snapshots(scope.storage_id)],
        }

    def drill_consent(self, scope: ScopeKey) -> list[dict[str, Any]]:
        """The consent prompt, then a tap on 同意 (its postback)."""
        self.clock.advance(TURN_GAP_SECONDS)
        self.typed.append(DRILL_CONSENT_TEXT)
        prompt = self.commands.handle_text(scope, DRILL_CONSENT_TEXT)
        assert prompt is not None
        choices = [{"label": c.label, "data": c.data} for c in prompt.reply.choices]
        agree = next(c["data"] for c in choices if c["label"] == "同意")
        self.clock.advance(TURN_GAP_SECONDS)
        granted = self.commands.handle_postback(scope, agree)
        assert granted is not None
        return [
            {
                "step": "consent_prompt",
                "text": DRILL_CONSENT_TEXT,
                "command": prompt.command,
                "reply": prompt.reply.texts[0],
                "choices": choices,
            },
            {
                "step": "consent_postback",
                "postback": agree,
                "command": granted.command,
                "revision": granted.revision,
                "reply": granted.reply.texts[0],
            },
        ]

    def drill_forget(self, scope: ScopeKey) -> dict[str, Any]:
        self.clock.advance(TURN_GAP_SECONDS)
        self.typed.append(DRILL_FORGET_TEXT)
        forgotten = self.commands.handle_text(scope, DRILL_FORGET_TEXT)
        assert forgotten is not None
        return {
            "step": "forget",
            "text": DRILL_FORGET_TEXT,
            "command": forgotten.command,
            "revision": forgotten.revision,
            "reply": forgotten.reply.texts[0],
        }

    @staticmethod
    def drill_search_step(turn: Turn) -> dict[str, Any]:
        execution = turn.state.last_execution
        return {
            "step": "search",
            "text": DRILL_SEARCH,
            "journal_status": turn.state.snapshot.status,
            "proposal": turn.proposal,
            "memory_revision": execution.memory_revision if execution else None,
            "effective_arguments": execution.effective_arguments if execution else None,
            "preference_origin": execution.preference_origin if execution else None,
            "reply": turn.reply,
        }


# ---------------------------------------------------------------------------------------------
# 1. Contract checks
# ---------------------------------------------------------------------------------------------


async def check_markers(demo: Demo, results: dict[str, Any]) -> str:
    text = "\n".join(results["five"]["turn5_contents"])
    for name, literal in SPEC_MARKERS.items():
        expect(getattr(projection, name) == literal, f"projection.{name} differs from the spec")
        expect(literal in text, f"{name} missing from the turn-5 contents")
    return f"{len(SPEC_MARKERS)} spec marker strings exact and present in the turn-5 contents"


async def check_turn5_excerpt(demo: Demo, results: dict[str, Any]) -> str:
    expected = SPEC_TURN5_EXCERPT.splitlines()
    got = results["five"]["turn5_contents"]
    expect(len(got) == len(expected), f"{len(got)} lines, the spec shows {len(expected)}")
    for i, (a, b) in enumerate(zip(got, expected, strict=True), start=1):
        expect(a == b, f"line {i} differs: {a!r}")
    return f"{len(expected)} lines equal the spec's turn-5 excerpt"


async def check_window(demo: Demo, results: dict[str, Any]) -> str:
    for i, request in enumerate(demo.requests):
        pairs = [(c["role"], content_text(c)) for c in request["contents"]]
        expect(pairs[-1][0] == "user", f"request {i} does not end with the user's question")
        expect(exchange_count(pairs[:-1]) <= 2, f"request {i} carries more than 2 exchanges")
    snaps = demo.store.snapshots()
    for snap in snaps:
        expect(len(snap.data["window_read"]) <= 2, f"snapshot {snap.turn_id} read more than 2 turns")
        if "contents" in snap.data:
            pairs = [(c["role"], c.get("text", "")) for c in snap.data["contents"][:-1]]
            expect(exchange_count(pairs) <= 2, f"snapshot {snap.turn_id} carries more than 2 exchanges")
    rows = demo.store.journal_rows()
    for scope_id, record in rows.items():
        expect(len(record["window"]["turns"]) <= 2, f"journal row {scope_id[:8]} holds more than 2 turns")
    return (
        f"{len(demo.requests)} requests, {len(snaps)} snapshots, {len(rows)} journal rows: "
        f"at most {max(demo.kept_turns)} whole exchanges, none split"
    )


async def check_one_byte(demo: Demo, results: dict[str, Any]) -> str:
    refusal = results["five"]["probes"]["one_byte"]
    expect(refusal["refused"], "a 1-byte budget did not refuse")
    expect(refusal["code"] == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET", f"code {refusal['code']}")
    expect(refusal["count"] == refusal["floor_bytes"], "refused before trying rules + tools + question alone")
    return f"{refusal['code']} after {len(refusal['measured_steps'])} measurements ({fmt(refusal['count'])} bytes > 1)"


async def check_unit_mismatch(demo: Demo, results: dict[str, Any]) -> str:
    budget = SessionBudget(limit=BUDGET_LIMIT, unit="bytes")
    try:
        await budget.prepare(ContextWindow(), FIVE_TURNS[0], demo.envelope, FixedMeasure("tokens", 10))
    except CounterUnitMismatch as exc:
        expect(exc.code == "COUNTER_UNIT_MISMATCH", f"code {exc.code}")
        return "bytes budget + tokens counter -> COUNTER_UNIT_MISMATCH"
    raise CheckFailed("a tokens counter was accepted by a bytes budget")


async def check_invalid_counter(demo: Demo, results: dict[str, Any]) -> str:
    budget = SessionBudget(limit=BUDGET_LIMIT, unit="bytes")
    bad_values: tuple[object, ...] = (12.0, "12", None, True, -1)
    for value in bad_values:
        try:
            await budget.prepare(ContextWindow(), FIVE_TURNS[0], demo.envelope, FixedMeasure("bytes", value))
        except InvalidCounterResult as exc:
            expect(exc.code == "INVALID_COUNTER_RESULT", f"code {exc.code}")
            continue
        raise CheckFailed(f"counter result {value!r} was accepted")
    return "12.0, '12', None, True, -1 -> INVALID_COUNTER_RESULT"


async def check_revision_gate(demo: Demo, results: dict[str, Any]) -> str:
    """A forget lands in the middle of a turn and the journal clear does not happen: the turn may
    not write its window, and the old window (stored under revision 1) is never read again."""
    scope = ScopeKey.for_user("U-check-revision")
    demo.clock.advance(TURN_GAP_SECONDS)
    prompt = demo.commands.handle_text(scope, DRILL_CONSENT_TEXT)
    assert prompt is not None
    demo.commands.handle_postback(scope, prompt.reply.choices[0].data)  # the signed 同意: revision 1
    texts = ("鹿港有什麼好吃的？", "那鹿港有什麼活動？", "剛才那個鄉鎮，再找一家吃的。")
    await demo.turn(scope, texts[0], "check-revision-1", [])
    stale = demo.act(await demo.start(scope, texts[1], "check-revision-2", texts[:1]))
    expect(stale.state.snapshot.status == "fresh", "the window was not readable before the forget")
    demo.clock.advance(1.0)
    demo.store.set_consent(
        scope.user_id, consent="forgotten", dietary_type=None, now=demo.clock()
    )  # rev 2, no clear
    demo.pipeline.finish(stale.state)
    snap = demo.store.snapshots(scope.storage_id)[-1]
    expect(
        snap.data["journal_written"] is False,
        "a turn begun under revision 1 wrote its window after the forget",
    )
    try:
        ContextJournal.assert_current(stale.state.snapshot, 2)
        raise CheckFailed("assert_current accepted a revision-1 snapshot at revision 2")
    except StaleContextError:
        pass
    stored = demo.store.journal_rows()[scope.storage_id]
    expect(stored["preference_revision"] == 1 and stored["window"]["turns"], "the setup lost the old window")
    read = demo.journal.read(scope, 2)
    expect(
        read.status == "revision_mismatch" and not read.window.turns and read.window.summary.is_empty,
        f"old window read under revision 2 (status {read.status})",
    )
    after, _ = await demo.turn(scope, texts[2], "check-revision-3", texts[:2])
    expect(
        after.proposal.get("text") == intent.ASK_TOWNSHIP, "the forgotten window still resolved the township"
    )
    return (
        "window stored under revision 1 read as revision_mismatch at revision 2; the mid-turn write was "
        "refused (STALE_CONTEXT_SNAPSHOT); the next reference asks 請問是哪個鄉鎮？"
    )


async def check_ttl(demo: Demo, results: dict[str, Any]) -> str:
    for backend, storage in (("memory", MemoryJournalStorage()), ("sqlite", demo.store)):
        clock = FakeClock(START_TIME)
        journal = ContextJournal(storage, clock=clock)
        scope = ScopeKey.for_user(f"U-check-ttl-{backend}")
        journal.append(journal.read(scope, 0), SafeTurn("places", "花壇鄉"), current_revision=0)
        clock.advance(TTL_SECONDS)
        at_limit = journal.read(scope, 0)
        expect(
            at_limit.status == "fresh" and len(at_limit.window.turns) == 1,
            f"{backend}: a window exactly {TTL_SECONDS:.0f} s old was not read",
        )
        clock.advance(1.0)
        older = journal.read(scope, 0)
        expect(
            older.status == "expired" and not older.window.turns,
            f"{backend}: a window {TTL_SECONDS + 1:.0f} s old was read",
        )
    return f"memory and sqlite: read at exactly {TTL_SECONDS:.0f} s, expired at {TTL_SECONDS + 1:.0f} s"


async def check_scope_isolation(demo: Demo, results: dict[str, Any]) -> str:
    scope = ScopeKey.for_user("U-check-scope")
    demo.clock.advance(TURN_GAP_SECONDS)
    demo.journal.append(demo.journal.read(scope, 0), SafeTurn("places", "花壇鄉"), current_revision=0)
    own = demo.journal.read(scope, 0)
    expect(own.status == "fresh" and bool(own.window.turns), "the user's own 1:1 window was not read")
    for other in (
        ScopeKey("local", "group", "G1", scope.user_id),
        ScopeKey("local", "room", "R1", scope.user_id),
        ScopeKey.for_user("U-check-scope-other"),
    ):
        read = demo.journal.read(other, 0)
        expect(
            not read.window.turns and read.window.summary.is_empty,
            f"the {other.source_type} scope {other.source_id} read another scope's window",
        )
    return "a user's 1:1 window is not read in a group or room with the same user, nor by another user"


async def check_no_raw_text_in_requests(demo: Demo, results: dict[str, Any]) -> str:
    for earlier, request in demo.sent:
        found = leaks(earlier, without_current(request))
        expect(not found, f"earlier user text in a later request: {found[:5]}")
    return f"{len(demo.sent)} requests (budget, full-history and probes) carry no 4-char piece of earlier user text"


async def check_no_raw_text_stored(demo: Demo, results: dict[str, Any]) -> str:
    stored = {
        "journal": demo.store.journal_rows(),
        "snapshots": [s.to_dict() for s in demo.store.snapshots()],
        "audit": [r.to_dict() for r in demo.store.audit_rows()],
        "preferences": demo.store.preference_rows(),
    }
    for name, rows in stored.items():
        found = leaks(demo.typed, rows)
        expect(not found, f"user text in {name} rows: {found[:5]}")
    counts = ", ".join(f"{len(rows)} {name}" for name, rows in stored.items())
    return f"{len(demo.typed)} typed texts vs every stored row ({counts}): no 4-char piece"


async def check_turn5_summary(demo: Demo, results: dict[str, Any]) -> str:
    five = results["five"]
    turn5 = five["turns"][-1]
    expect(
        turn5["proposal"].get("function_call", {}).get("name") == "search_local_places",
        f"turn 5 proposed {turn5['proposal_label']}",
    )
    expect(
        turn5["proposal"]["function_call"]["args"].get("area") == "花壇鄉", "turn 5 did not resolve to 花壇鄉"
    )
    expect(
        all(label == projection.NON_PUBLIC_LABEL for label in five["turn5_kept_labels"]),
        "花壇 was still in the two-turn window (the summary was not needed)",
    )
    expect(five["turn5_summary"] == {"goal": "events", "area": "花壇鄉"}, f"summary {five['turn5_summary']}")
    return "search_local_places(area='花壇鄉') from the summary; both window turns are non-public"


async def check_summary_forced_out(demo: Demo, results: dict[str, Any]) -> str:
    probe = results["five"]["probes"]["summary_forced_out"]
    expect(
        probe["request_with_summary_only_bytes"] > probe["limit"] >= probe["request_without_summary_bytes"],
        "the limit does not separate the request with and without the summary",
    )
    expect(
        probe["summary_dropped"] and probe["dropped_turns"] == 2,
        "the budget did not drop both turns and the summary",
    )
    expect(
        probe["proposal"] == {"text": intent.ASK_TOWNSHIP}, f"proposed {proposal_label(probe['proposal'])}"
    )
    return (
        f"limit {fmt(probe['limit'])} bytes (with summary {fmt(probe['request_with_summary_only_bytes'])}): "
        f"the offline rules ask 「{intent.ASK_TOWNSHIP}」"
    )


async def check_sweep(demo: Demo, results: dict[str, Any]) -> str:
    sweep = results["sweep"]
    rows = sweep["rows"]
    expect(len(rows) == SWEEP_TURNS, f"{len(rows)} sweep turns")
    expect(
        all(r["floor_bytes"] <= r["budget_bytes"] <= BUDGET_LIMIT for r in rows),
        "a budget request out of bounds",
    )
    expect(all(r["budget_bytes"] <= r["full_history_bytes"] for r in rows), "budget larger than full history")
    wrong = [r for r in sweep["references"] if r["resolved"] != r["expected"]]
    expect(not wrong, f"references resolved wrongly: {wrong[:3]}")
    return (
        f"{len(rows)} turns within {fmt(BUDGET_LIMIT)} bytes; "
        f"{len(sweep['references'])} references resolved to the right township"
    )


async def check_drill(demo: Demo, results: dict[str, Any]) -> str:
    evidence = results["drill"]["audit_evidence"]
    expect(len(evidence) == 2, f"{len(evidence)} audit rows in the drill")
    proposed = {"area": "花壇鄉", "dietary_type": "", "keyword": ""}
    want = [
        {
            "tool": "search_local_places",
            "proposed_arguments": proposed,
            "memory_revision": 1,
            "effective_arguments": {**proposed, "dietary_type": "vegetarian"},
            "preference_origin": "consented_memory",
        },
        {
            "tool": "search_local_places",
            "proposed_arguments": proposed,
            "memory_revision": 2,
            "effective_arguments": {**proposed, "dietary_type": "any"},
            "preference_origin": "none",
        },
    ]
    for i, (got, expected) in enumerate(zip(evidence, want, strict=True), start=1):
        expect(got == expected, f"audit row {i}: {got}")
    steps = {s["step"]: s for s in results["drill"]["steps"] if s["step"] != "search"}
    expect(
        parse_postback(steps["consent_postback"]["postback"]) == (True, "vegetarian"),
        "unexpected consent postback",
    )
    journal = results["drill"]["rows_after_forget"]["journal"]
    carried = journal is None or journal["preference_revision"] == 2
    expect(carried, "the forget did not move the window to the new revision")
    words = "\n".join(strings_in(journal or {}))
    expect(not [w for w in FORGOTTEN_WORDS if w in words], "a diet word survived in the window")
    return "consented_memory/vegetarian/rev 1 -> forget -> none/any/rev 2"


async def check_forgotten_value(demo: Demo, results: dict[str, Any]) -> str:
    scope = ScopeKey.for_user(DRILL_USER)
    pref = demo.store.get(DRILL_USER)
    expect(pref.dietary_type is None and pref.consent == "forgotten", f"preference row {pref.to_dict()}")
    audit = [r.to_dict() for r in demo.store.audit_rows(scope.storage_id)]
    stored = {
        "preferences": [r for r in demo.store.preference_rows() if r["user_id"] == DRILL_USER],
        "journal": demo.store.journal_rows().get(scope.storage_id),
        "snapshots": [s.to_dict() for s in demo.store.snapshots(scope.storage_id)],
        "audit rows": audit,
    }
    for name, rows in stored.items():
        text = "\n".join(strings_in(rows))
        hits = [w for w in FORGOTTEN_WORDS if w in text]
        expect(not hits, f"{hits} in {name}")
    scrubbed = [r for r in audit if r["preference_origin"] == "consented_memory"]
    expect(
        bool(scrubbed) and all(r["effective_arguments"]["dietary_type"] == FORGOTTEN_MARK for r in scrubbed),
        f"audit rows that used the memory: {scrubbed}",
    )
    return (
        "no 'vegetarian'/素食/吃素 in the preference row, the journal row, the snapshots or any audit row "
        f"(the row that used the memory now shows {FORGOTTEN_MARK}; its copy from before the forget is the evidence that it was used)"
    )


async def check_fixed_part(demo: Demo, results: dict[str, Any]) -> str:
    """The fixed part is the rules and the three declared tools, and every floor is it plus the question."""
    parts = demo.fixed_part()
    expect(tuple(parts)[1:-1] == TOOL_NAMES, f"declared tools {tuple(parts)[1:-1]} != {TOOL_NAMES}")
    pieces = sum(v for k, v in parts.items() if k != "envelope")
    expect(pieces < parts["envelope"] <= pieces + 64, f"envelope {parts['envelope']} vs its parts {pieces}")
    floor = demo.floor_bytes(FIVE_TURNS[0])
    expect(floor > parts["envelope"], "the floor is not above the fixed part")
    return (
        f"rules {fmt(parts['rules'])} + "
        + " + ".join(f"{name} {fmt(parts[name])}" for name in TOOL_NAMES)
        + f" -> envelope {fmt(parts['envelope'])} bytes; turn 1 floor {fmt(floor)}"
    )


# (name, function, phase). Phase 1 checks act (some run turns of their own); phase 2 checks scan
# everything the run sent and stored, so they run last. The table keeps this order.
CHECKS = (
    ("spec_markers_exact", check_markers, 1),
    ("fixed_part_rules_and_three_tools", check_fixed_part, 1),
    ("turn5_contents_match_spec", check_turn5_excerpt, 1),
    ("window_at_most_two_whole_exchanges", check_window, 2),
    ("one_byte_budget_refused", check_one_byte, 1),
    ("counter_unit_mismatch", check_unit_mismatch, 1),
    ("invalid_counter_result", check_invalid_counter, 1),
    ("revision_stale_window_not_read", check_revision_gate, 1),
    ("ttl_900s_boundary", check_ttl, 1),
    ("scope_isolation", check_scope_isolation, 1),
    ("turn5_resolves_through_summary", check_turn5_summary, 1),
    ("summary_forced_out_asks_township", check_summary_forced_out, 1),
    ("sweep_bounded_and_references_resolve", check_sweep, 1),
    ("revocation_drill", check_drill, 1),
    ("forgotten_value_absent_after_forget", check_forgotten_value, 1),
    ("no_earlier_user_text_in_requests", check_no_raw_text_in_requests, 2),
    ("no_user_text_in_stored_rows", check_no_raw_text_stored, 2),
)


async def run_check(name: str, fn: Any, results: dict[str, Any]) -> dict[str, Any]:
    try:
        detail = await fn(results["demo"], results)
        return {"name": name, "ok": True, "detail": detail}
    except CheckFailed as exc:
        return {"name": name, "ok": False, "detail": str(exc)}
    except Exception as exc:  # a crash in a check is a failed check, not a crashed demo
        return {"name": name, "ok": False, "detail": f"{type(exc).__name__}: {exc}"}


async def run_all(demo: Demo) -> dict[str, Any]:
    results: dict[str, Any] = {"demo": demo}
    results["five"] = await demo.five_turns()
    results["sweep"] = await demo.sweep()
    results["drill"] = await demo.drill()
    results["fixed_part"] = demo.fixed_part()
    done: dict[str, dict[str, Any]] = {}
    for phase in (1, 2):
        for name, fn, when in CHECKS:
            if when == phase:
                done[name] = await run_check(name, fn, results)
    results["checks"] = [done[name] for name, _, _ in CHECKS]
    del results["demo"]
    return results


# ---------------------------------------------------------------------------------------------
# 6. Outputs
# ---------------------------------------------------------------------------------------------


def summarize(results: dict[str, Any]) -> dict[str, Any]:
    turns = results["five"]["turns"]
    sweep = results["sweep"]
    rows = sweep["rows"]
    last = rows[-1]
    checks = results["checks"]
    return {
        "unit": "bytes (UTF-8, canonical JSON of the whole request)",
        "budget_limit_bytes": BUDGET_LIMIT,
        "turn5_full_history_bytes": turns[-1]["full_history_bytes"],
        "turn5_budget_bytes": turns[-1]["budget_bytes"],
        "turn5_floor_bytes": turns[-1]["floor_bytes"],
        "five_turns_total_full_history_bytes": sum(t["full_history_bytes"] for t in turns),
        "five_turns_total_budget_bytes": sum(t["budget_bytes"] for t in turns),
        "sweep_turns": len(rows),
        "sweep": {
            str(r["turn"]): {k: r[k] for k in ("full_history_bytes", "budget_bytes", "floor_bytes")}
            for r in rows
            if r["turn"] in SWEEP_MARKS
        },
        "cumulative_full_at_50": last["cumulative_full"],
        "cumulative_budget_at_50": last["cumulative_budget"],
        "cumulative_ratio_at_50": round(last["cumulative_full"] / last["cumulative_budget"], 2),
        "fixed_part_bytes": results["fixed_part"],
        "refusal_code": results["five"]["probes"]["one_byte"].get("code"),
        "checks_total": len(checks),
        "checks_passed": sum(1 for c in checks if c["ok"]),
        "checks_failed": sum(1 for c in checks if not c["ok"]),
        "offline_model": "deterministic stand-in for Gemini (local_agent.agent.offline_rules rules)",
        "data": catalogue.SNAPSHOT_LABEL,
    }


def dump(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def write_sweep_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    fields = (
        "turn",
        "full_history_bytes",
        "budget_bytes",
        "floor_bytes",
        "cumulative_full",
        "cumulative_budget",
    )
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row[k] for k in fields})


def md_cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _report_intro(command: str) -> list[str]:
    """Title, what was run, and the caveats."""
    out: list[str] = []
    add = out.append
    add("# LOCAL Day 15: offline demo report")
    add("")
    add(f"Command: `{command}`")
    add("")
    add(
        "What was run, in order: the contract checks; the spec's five-turn conversation through the real "
        "context pipeline (journal, budget, offline model, TurnTools) on SQLite; a 50-turn sweep; the 1-byte "
        "budget refusal; the consent-revocation drill on SQLite. Time came from a fake clock that starts at "
        "noon on Monday 2026-11-30, Taiwan time (the shipped replay scripts start there too) and moves "
        f"{TURN_GAP_SECONDS:.0f} s between turns, so every number below is the same on every run, and a date "
        "phrase such as 「這禮拜」 means that week (2026-11-30 to 2026-12-06) in the tool calls below."
    )
    add("")
    add("Read these numbers with three caveats:")
    add("")
    add(
        "- **The model is a stand-in.** The offline model is the deterministic rules of `local_agent.agent.offline_rules`: it "
        "reads only the request it is given and proposes a tool call or a short text. It is not Gemini; with "
        "Gemini, reference resolution must be measured separately."
    )
    add("- **The data is a teaching snapshot.** Places and events are invented examples, not live listings.")
    add(
        "- **Sizes are UTF-8 bytes, not tokens.** Each size is the UTF-8 length of the canonical JSON of the "
        "whole request (system instruction + tool declarations + contents). Token counts (Gemini countTokens) "
        "differ and are a separate integration check. Both groups send topic projections, never the users' "
        "sentences; these numbers say nothing about a history of raw sentences and full model replies."
    )
    add("")
    return out


def _report_checks(results: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """The contract checks, one row each."""
    checks = results["checks"]
    out: list[str] = []
    add = out.append
    add("## Contract checks")
    add("")
    add(f"{summary['checks_passed']} of {summary['checks_total']} passed, {summary['checks_failed']} failed.")
    add("")
    add("| check | result | detail |")
    add("|---|---|---|")
    for c in checks:
        add(f"| `{c['name']}` | {'PASS' if c['ok'] else 'FAIL'} | {md_cell(c['detail'])} |")
    add("")
    return out


def _report_five_turns(results: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """The five turns: bytes per turn, and that production sends the same request."""
    five = results["five"]
    out: list[str] = []
    add = out.append
    add("## The five turns")
    add("")
    add(
        '"Full history" keeps every projected turn (no cap, no summary). "Two turns + summary" is what the '
        f'pipeline sent (budget {fmt(BUDGET_LIMIT)} bytes). "Floor" is rules + tool contract + the current '
        "question only, which no budget may cut."
    )
    add("")
    add(
        "| turn | user text | proposed by the offline model | projection stored | full history (bytes) "
        "| two turns + summary (bytes) | floor (bytes) |"
    )
    add("|---|---|---|---|---|---|---|")
    for t in five["turns"]:
        add(
            f"| {t['turn']} | {md_cell(t['user_text'])} | {md_cell(t['proposal_label'])} | {md_cell(t['projection'])} "
            f"| {fmt(t['full_history_bytes'])} | {fmt(t['budget_bytes'])} | {fmt(t['floor_bytes'])} |"
        )
    add("")
    add(
        f"Turn 5: full history **{fmt(summary['turn5_full_history_bytes'])}** bytes, two turns + summary "
        f"**{fmt(summary['turn5_budget_bytes'])}** bytes."
    )
    add("")
    add(
        f"**These are the bytes production sends.** The production router (ADK Runner) sends the same rules and "
        f"the same tool declarations: its ADK tools are built from `TOOL_DECLARATIONS` and its budget gate sets "
        f"the rules, and the contents come from the same pipeline. So on turn 5 production sends "
        f"**{fmt(summary['turn5_budget_bytes'])}** bytes too; `tests/test_replay.py` replays "
        f"`examples/day15/scripts/five_turns.json` through the real app and checks it, and with the project "
        f"installed this demo does the same (the webhook section at the end)."
    )
    add("")
    return out


def _report_fixed_part(results: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """The rules and each tool declaration: what every request carries before any contents."""
    out: list[str] = []
    add = out.append
    add("## The fixed part")
    add("")
    add(
        "The fixed part of every request (UTF-8 bytes of canonical JSON; the envelope adds the JSON that "
        "joins them). The preference tool is declared and counted like the two searches:"
    )
    add("")
    add("| part | bytes |")
    add("|---|---|")
    for name, size in summary["fixed_part_bytes"].items():
        label = "rules (system instruction, with today's line)" if name == "rules" else f"`{name}`"
        add(f"| {'**whole envelope**' if name == 'envelope' else label} | {fmt(size)} |")
    add("")
    return out


def _report_turn5(results: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """What the model received on turn 5, and what happens without the summary."""
    five = results["five"]
    forced = results["five"]["probes"]["summary_forced_out"]
    out: list[str] = []
    add = out.append
    add("## Turn-5 contents (two turns + summary)")
    add("")
    add(
        "What the model received on turn 5, besides the rules and the tool contract. Line for line the spec's "
        "turn-5 excerpt. 花壇 survives only in the summary line; parking and bus are kept as "
        f"「{projection.NON_PUBLIC_LABEL}」, with no word of what was typed."
    )
    add("")
    add("```text")
    out.extend(five["turn5_contents"])
    add("```")
    add("")
    add(
        f"If the budget forces the summary out (limit {fmt(forced['limit'])} bytes: the request without the summary "
        f"fits, with it {fmt(forced['request_with_summary_only_bytes'])} bytes does not), the same question gets "
        f"the reply 「{forced['proposal'].get('text', proposal_label(forced['proposal']))}」 instead of a tool call: "
        "the clue is gone, and the offline model does not guess."
    )
    add("")
    return out


def _report_sweep(results: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """The 50-turn sweep at its marks, and the cumulative totals."""
    sweep = results["sweep"]
    out: list[str] = []
    add = out.append
    add("## Sweep: 1 to 50 turns")
    add("")
    add(
        "A deterministic conversation cycling through places, events and other questions (parking, buses, "
        "toilets, a phone number, an illness, the weather) across ten townships, with references such as "
        "剛才那個鄉鎮. Every row is in `sweep.csv`."
    )
    add("")
    add("| turn | full history (bytes) | two turns + summary (bytes) | floor (bytes) |")
    add("|---|---|---|---|")
    for r in sweep["rows"]:
        if r["turn"] in SWEEP_MARKS:
            add(
                f"| {r['turn']} | {fmt(r['full_history_bytes'])} | {fmt(r['budget_bytes'])} | {fmt(r['floor_bytes'])} |"
            )
    add("")
    add(
        f"Cumulative over 50 turns: full history **{fmt(summary['cumulative_full_at_50'])}** bytes, two turns + "
        f"summary **{fmt(summary['cumulative_budget_at_50'])}** bytes, ratio **{summary['cumulative_ratio_at_50']}**."
    )
    add("")
    add(
        "Full history grows by one projected exchange per turn, so its cumulative total grows roughly with the "
        "square of the number of turns; two turns + summary stays near a constant per request. Most of every "
        "request is the fixed rules and tool contract (the floor), which both groups send."
    )
    add("")
    return out


def _report_refusal(results: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """The 1-byte budget refusal."""
    refusal = results["five"]["probes"]["one_byte"]
    out: list[str] = []
    add = out.append
    add("## Budget refusal (1-byte budget)")
    add("")
    add(
        "With a 1-byte budget the pipeline dropped both turns, then the summary, then refused: it never cuts the "
        "rules, the tool contract or the question. Nothing was sent to the model."
    )
    add("")
    add("```json")
    add(json.dumps(refusal, ensure_ascii=False, indent=2))
    add("```")
    add("")
    return out


def _report_drill(results: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """The consent-revocation drill: audit rows and the rows before and after forget."""
    drill = results["drill"]
    out: list[str] = []
    add = out.append
    add("## Revocation drill (SQLite)")
    add("")
    add(
        f"Consent through the postback `{drill['steps'][1]['postback']}`, search 花壇, forget with "
        f"「{DRILL_FORGET_TEXT}」, search again. The audit rows (the shape the spec asks for as evidence):"
    )
    add("")
    add("```json")
    for row in drill["audit_evidence"]:
        add(json.dumps(row, ensure_ascii=False))
    add("```")
    add("")
    add("| moment | consent | dietary_type | revision | journal row |")
    add("|---|---|---|---|---|")
    for label, key in (
        ("before forget", "rows_before_forget"),
        ("after forget", "rows_after_forget"),
        ("after searching again", "rows_after_search_again"),
    ):
        rows = drill[key]
        pref = rows["preferences"][0] if rows["preferences"] else {}
        journal = rows["journal"]
        jtext = (
            "none"
            if journal is None
            else f"revision {journal['preference_revision']}, {len(journal['window']['turns'])} turn(s)"
        )
        add(
            f"| {label} | {pref.get('consent')} | {pref.get('dietary_type')} | {pref.get('revision')} | {jtext} |"
        )
    add("")
    add(
        "Whether the memory was revoked shows in the effective arguments (vegetarian → any), not in the list of "
        "shops (a vegetarian-friendly shop can also be found under any). The audit row shown for before the "
        f"forget is as it was written then; the forget has since replaced its diet by {FORGOTTEN_MARK}, so no "
        "stored row holds the value."
    )
    add("")
    return out


def _report_files(results: dict[str, Any], summary: dict[str, Any]) -> list[str]:
    """What each output file holds."""
    out: list[str] = []
    add = out.append
    add("## Files")
    add("")
    add("- `checks.json`: every contract check, PASS/FAIL and detail.")
    add(
        "- `five_turns.json`: the five turns: bytes, proposal, effective arguments, projection, turn-5 request."
    )
    add("- `sweep.csv`: turns 1 to 50: full history, two turns + summary, floor, cumulative totals.")
    add("- `budget_refusal.json`: the 1-byte refusal and its error code.")
    add(
        "- `revocation.json`: the drill's steps and SQLite rows (preferences, journal, audit) before and after forget."
    )
    add("- `summary.json`: the numbers this report quotes.")
    add(f"- `{DB_NAME}`: the SQLite database of this run (recreated on every run).")
    add("")
    return out


REPORT_SECTIONS = (
    _report_checks,
    _report_five_turns,
    _report_fixed_part,
    _report_turn5,
    _report_sweep,
    _report_refusal,
    _report_drill,
    _report_files,
)


def write_report(path: Path, results: dict[str, Any], summary: dict[str, Any], command: str) -> None:
    out = _report_intro(command)
    for section in REPORT_SECTIONS:
        out.extend(section(results, summary))
    path.write_text("\n".join(out), encoding="utf-8")


def write_outputs(out: Path, results: dict[str, Any], summary: dict[str, Any], command: str) -> None:
    dump(
        out / "checks.json",
        {"passed": summary["checks_passed"], "failed": summary["checks_failed"], "checks": results["checks"]},
    )
    dump(out / "five_turns.json", results["five"])
    write_sweep_csv(out / "sweep.csv", results["sweep"]["rows"])
    dump(out / "budget_refusal.json", results["five"]["probes"]["one_byte"])
    dump(out / "revocation.json", results["drill"])
    dump(out / "summary.json", summary)
    write_report(out / "report.md", results, summary, command)


def print_console(results: dict[str, Any], summary: dict[str, Any], quiet: bool) -> None:
    for c in results["checks"]:
        if c["ok"] and not quiet:
            print(f"PASS {c['name']}")
        elif not c["ok"]:
            print(f"FAIL {c['name']}: {c['detail']}")
    if quiet:
        return
    print()
    print("Five turns (UTF-8 bytes of the whole request; offline stand-in model):")
    print(f"  {'turn':<5}{'full history':>14}{'2 turns+summary':>17}  proposal")
    for t in results["five"]["turns"]:
        print(
            f"  {t['turn']:<5}{fmt(t['full_history_bytes']):>14}{fmt(t['budget_bytes']):>17}  {t['proposal_label']}"
        )
    print()
    print("Turn-5 contents (two turns + summary):")
    for line in results["five"]["turn5_contents"]:
        print(line)
    print()
    refusal = results["five"]["probes"]["one_byte"]
    print(f"1-byte budget: {refusal.get('code')} (nothing sent)")
    steps = [s for s in results["drill"]["steps"] if s["step"] == "search"]
    print(
        "Revocation drill: "
        + " -> ".join(
            f"{s['preference_origin']}/{s['effective_arguments']['dietary_type']}/rev {s['memory_revision']}"
            for s in steps
        )
    )
    print()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m examples.day15.demo", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    parser.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    args = parser.parse_args(argv)
    out = Path(args.out)
    # A fixed, public key so the demo's stored fingerprints are the same every run. The service
    # derives its key from the channel secret instead (local_agent/fingerprint.py).
    fingerprint.configure_key(b"local-day15-offline-demo")
    command = "python3 -m examples.day15.demo --out " + args.out
    demo = Demo(out)
    try:
        results = asyncio.run(run_all(demo))
    finally:
        demo.store.close()
    summary = summarize(results)
    print_console(results, summary, args.quiet)
    write_outputs(out, results, summary, command)
    webhook = webhook_section(out, summary["turn5_budget_bytes"])
    if webhook is not None:
        summary["webhook"] = webhook
        dump(out / "summary.json", summary)
    print(
        f"Checks: {summary['checks_passed']}/{summary['checks_total']} passed"
        + (f", {summary['checks_failed']} FAILED" if summary["checks_failed"] else "")
    )
    print(
        f"Turn 5: full history {fmt(summary['turn5_full_history_bytes'])} bytes, "
        f"two turns + summary {fmt(summary['turn5_budget_bytes'])} bytes (what production sends)"
    )
    print(
        f"Cumulative at 50 turns: full history {fmt(summary['cumulative_full_at_50'])} bytes, "
        f"two turns + summary {fmt(summary['cumulative_budget_at_50'])} bytes "
        f"(ratio {summary['cumulative_ratio_at_50']})"
    )
    print(f"Report: {out / 'report.md'}")
    return 1 if summary["checks_failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
