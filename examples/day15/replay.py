"""Replay a scripted conversation through the real LOCAL app, offline, one JSON line per event.

    python -m examples.day15.replay examples/day15/scripts/five_turns.json [--now ISO] [--budget-bytes N]

No LINE channel and no key are needed. The replay starts a fake LINE Messaging API on 127.0.0.1
(``local_agent.testing.fake_line_api``), builds the real FastAPI app with ``create_app`` and posts
**signed** webhook bodies to ``/callback`` in-process (httpx ``ASGITransport``). It waits for the
background turn, then prints what the user would have seen (the reply/push bodies the fake
recorded), what the model was sent (captured live from the ``TurnOutcome``, not read back from
the store), the tool calls, and the scope's journal after the event.

The service clock is an explicit parameter of the app (``create_app(clock=...)``): with ``--now`` or the
script's ``"now"`` it starts at that instant and moves only when the script moves it, so the same
script prints the same lines on any day. The script format, the output and the exit codes are in
:data:`SCRIPT_FORMAT` (``--help`` prints it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import secrets
import sys
import tempfile
import time
import warnings
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the app is imported when a driver starts, not when this module loads
    from local_agent.agent.adk_router import TurnOutcome
    from local_agent.context.journal import ScopeKey
    from local_agent.settings import Settings

SCRIPT_FORMAT = """\
Script format: a JSON object {"now": "...", "description": "...", "events": [...]}.
  "now"          optional: the instant the service clock starts at, ISO-8601 with its UTC offset
                 ("2026-11-30T12:00:00+08:00"); --now overrides it; without either the machine's
                 clock runs (and date questions answer differently from day to day)
  "description"  optional text, ignored
  "events"       the events, in order; each one of these shapes, no other keys:
  {"user": "U1", "text": "花壇有什麼好吃的？"}
        a text in U1's 1:1 chat
  {"user": "U2", "group": "G1", "text": "..."}
        group chatter: it does not mention the bot, so the bot stays silent
  {"user": "U2", "group": "G1", "text": "...", "mention": true}
        sent as "@LOCAL ..." with a self mention
  {"group": "G1", "text": "...", "mention": true}
        the same from a member without userId
  {"user": "U1", "event": "follow"}
        follow (greeting); "unfollow" forgets the person
  {"group": "G1", "event": "join"}
        the bot is added to group G1
  {"user": "U1", "tap": "同意"}
        tap the quick-reply item labelled 同意 in the last reply of U1's 1:1 chat: a postback item
        sends its data; an item that sends text (是 / 不是 after 「您是說員林市嗎？」) sends that text
        as U1's message (in a group without a mention, as LINE does, so the bot stays silent there)
  {"user": "U1", "group": "G1", "tap": "同意"}
        ... in the last reply of that group chat
  {"user": "U3", "tap": "同意", "from_reply_of": "U1"}
        U3 sends (in its 1:1 chat, or in the group given) the data of the most recent 同意 button
        the bot showed U1: a foreign tap, or with U3 = U1 a stale one
  {"advance_seconds": 901}
        move the service clock forward (seconds, >= 0)
  {"now": "2026-12-05T09:00:00+08:00"}
        move the service clock to this instant (never backwards)

Output: one JSON object per event, with the keys index, user, input, replies (text, quick
replies, card titles), model_requests (the exact contents sent, count, unit, measured_by,
dropped_turns, summary_dropped), tool_calls (tool, proposed_arguments, effective_arguments,
memory_revision, preference_origin), journal (turns, summary, preference_revision) and
error_code. An advance_seconds or now event has the same keys, empty, plus advanced_seconds
(for advance_seconds) and clock (the service clock after it, when the clock is fixed).

Settings come from the environment, then .env in the current folder, like the app's
(LOCAL_MODEL, LOCAL_INPUT_BUDGET, LOCAL_LISTINGS_DIR, ...; the first line on stderr says which
was read); the replay supplies its own LINE channel and fake LINE API, and a temporary SQLite
file unless LOCAL_SQLITE_PATH is set in the environment itself (a .env's LOCAL_SQLITE_PATH is the
service's database, which a replay never uses).

Exit status: 0 done; 2 a malformed script (the message names the event index; lines for the
events before it are printed already), a bad --now, a setting that is not valid or a listings
folder the service would refuse (one line per problem); 1 the app could not start otherwise.
"""
CONTRACT_TOOL_KEYS = (
    "tool",
    "proposed_arguments",
    "effective_arguments",
    "memory_revision",
    "preference_origin",
)
EVENT_KEYS = {
    "text": ({"text"}, {"user", "group", "mention"}),
    "tap": ({"user", "tap"}, {"group", "from_reply_of"}),
    "event": ({"event"}, {"user", "group"}),
    "advance_seconds": ({"advance_seconds"}, set()),
    "now": ({"now"}, set()),
}
LIFECYCLE = {"follow": "user", "unfollow": "user", "join": "group"}
MAX_TEXT_CHARS = 5000
TURN_TIMEOUT = 30.0
TAIPEI = timezone(timedelta(hours=8), "Asia/Taipei")


class ScriptError(ValueError):
    """A malformed script. ``index`` is the bad event's index (None: the script as a whole)."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index

    def __str__(self) -> str:
        base = super().__str__()
        return base if self.index is None else f"event {self.index}: {base}"


# -- script ------------------------------------------------------------------------------------


def _check_id(event: dict, key: str, index: int) -> None:
    value = event[key]
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise ScriptError(f"{key!r} must be a non-empty string of at most 200 characters", index)


def _validate_advance(event: dict, index: int) -> dict:
    seconds = event["advance_seconds"]
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not math.isfinite(seconds)
        or seconds < 0
    ):
        raise ScriptError('"advance_seconds" must be a non-negative number', index)
    return event


def _validate_now(event: dict, index: int) -> dict:
    _script_now(event["now"], index)
    return event


CLOCK_EVENTS: dict[str, Callable[[dict, int], dict]] = {
    "advance_seconds": _validate_advance,
    "now": _validate_now,
}


def _validate_lifecycle(event: dict, index: int) -> dict:
    needs = LIFECYCLE.get(event["event"]) if isinstance(event["event"], str) else None
    if needs is None:
        raise ScriptError('"event" must be "follow", "unfollow" or "join"', index)
    if set(event) - {"event"} != {needs}:
        raise ScriptError(f'a {event["event"]} event takes "{needs}" and nothing else', index)
    return event


def _check_text_sender(event: dict, index: int) -> None:
    if "mention" in event and not isinstance(event["mention"], bool):
        raise ScriptError('"mention" must be true or false', index)
    if "user" not in event and not ("group" in event and event.get("mention") is True):
        raise ScriptError('a text needs "user" (only a group text with "mention": true may omit it)', index)


def validate_event(event: Any, index: int) -> dict:
    if not isinstance(event, dict):
        raise ScriptError("an event must be a JSON object", index)
    kinds = [k for k in EVENT_KEYS if k in event]
    if len(kinds) != 1:
        raise ScriptError(
            'an event needs exactly one of "text", "tap", "event", "advance_seconds" or "now"', index
        )
    kind = kinds[0]
    required, optional = EVENT_KEYS[kind]
    missing = sorted(required - event.keys())
    if missing:
        raise ScriptError(f"{kind} event is missing {', '.join(map(repr, missing))}", index)
    unknown = sorted(event.keys() - required - optional)
    if unknown:
        raise ScriptError(f"unknown key(s) {', '.join(map(repr, unknown))}", index)
    if kind in CLOCK_EVENTS:
        return CLOCK_EVENTS[kind](event, index)
    for key in ("user", "group", "from_reply_of"):
        if key in event:
            _check_id(event, key, index)
    if kind == "event":
        return _validate_lifecycle(event, index)
    if kind == "text":
        _check_text_sender(event, index)
    value = event[kind]
    if not isinstance(value, str) or not value.strip():
        raise ScriptError(f'"{kind}" must be a non-empty string', index)
    if len(value) > MAX_TEXT_CHARS:
        raise ScriptError(f'"{kind}" is longer than {MAX_TEXT_CHARS} characters', index)
    return event


def _script_now(value: Any, index: int | None) -> float:
    try:
        if not isinstance(value, str):
            raise ValueError('must be a string such as "2026-11-30T12:00:00+08:00"')
        return parse_now(value)
    except ValueError as exc:
        raise ScriptError(f'"now" {exc}', index) from None


@dataclass
class Script:
    """A validated script: its events, and the instant its service clock starts at (None: wall time)."""

    events: list[dict]
    now: float | None = None

    def check_clock(self, start: float | None) -> None:
        """A ``now`` event must not move the clock back (from ``start``, after every advance before it);
        without a start the replay checks against the wall clock as it runs."""
        if start is None:
            return
        at = start
        for index, event in enumerate(self.events):
            if "advance_seconds" in event:
                at += event["advance_seconds"]
            elif "now" in event:
                moment = parse_now(event["now"])
                if moment < at:
                    raise ScriptError(
                        f'"now" goes backwards ({event["now"]} is before the service clock\'s {_iso(at)})',
                        index,
                    )
                at = moment


def _check_taps(events: list[dict]) -> None:
    spoken: set[tuple[Any, Any]] = set()  # (user, group) as the script names them
    speakers: set[str] = set()
    for i, event in enumerate(events):
        conversation = (event.get("user"), event.get("group"))
        if "text" in event:
            spoken.add(conversation)
            speakers.add(event.get("user") or "")
        elif "tap" in event and "from_reply_of" in event:
            if event["from_reply_of"] not in speakers:
                raise ScriptError(f"tap from_reply_of {event['from_reply_of']!r} before that user spoke", i)
        elif "tap" in event and conversation not in spoken:
            where = f"group {event.get('group')}" if event.get("group") else f"the chat with {event['user']}"
            raise ScriptError(f"tap {event['tap']!r} comes before any message in {where}", i)


def parse_script_with_clock(raw: str) -> Script:
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ScriptError(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        raise ScriptError('the script must be an object with an "events" list')
    unknown = sorted(set(data) - {"events", "description", "now"})
    if unknown:
        raise ScriptError(f"unknown top-level key(s) {', '.join(map(repr, unknown))}")
    if "description" in data and not isinstance(data["description"], str):
        raise ScriptError('"description" must be a string')
    now = _script_now(data["now"], None) if "now" in data else None
    events = [validate_event(e, i) for i, e in enumerate(data["events"])]
    _check_taps(events)
    script = Script(events, now)
    script.check_clock(now)
    return script


def parse_script(raw: str) -> list[dict]:
    return parse_script_with_clock(raw).events


def read_script(path: str | Path) -> Script:
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"cannot read {path}: {exc}") from None
    return parse_script_with_clock(raw)


def load_script(path: str | Path) -> list[dict]:
    return read_script(path).events


# -- the driver ----------------------------------------------------------------------------------


class ShiftableClock:
    """The service clock: wall time plus an offset the script can move forward, or — with ``start``
    (epoch seconds) — a fixed instant that moves only when the script moves it, so the same script
    gives the same output on any day."""

    def __init__(self, base: Callable[[], float] = time.time, *, start: float | None = None) -> None:
        self._base = base if start is None else (lambda: start)
        self.offset = 0.0
        self.fixed = start is not None

    def __call__(self) -> float:
        return self._base() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds

    def move_to(self, epoch_seconds: float) -> None:
        """Set the clock to ``epoch_seconds``; ValueError when that is earlier than now."""
        now = self()
        if epoch_seconds < now:
            raise ValueError(
                f"goes backwards ({_iso(epoch_seconds)} is before the service clock's {_iso(now)})"
            )
        self.offset += epoch_seconds - now


def _iso(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, TAIPEI).isoformat()


def parse_now(value: str) -> float:
    """An ISO-8601 date and time with its UTC offset (``2026-11-30T12:00:00+08:00``) as epoch seconds;
    ValueError naming what is missing."""
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"{value!r} is not an ISO-8601 date and time (write e.g. 2026-11-30T12:00:00+08:00)"
        ) from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{value!r} has no UTC offset (add one, e.g. +08:00 for Taiwan time)")
    return moment.timestamp()


@dataclass
class EventResult:
    """What one inbound event produced."""

    scope: ScopeKey
    messages: list[dict] = field(default_factory=list)  # wire message objects delivered (reply or push)
    outcome: TurnOutcome | None = None  # None: nothing observed, e.g. a postback that is not ours
    journal: dict | None = None
    display_text: str | None = None  # for a tap: what LINE shows as the user's bubble

    @property
    def replies(self) -> list[dict]:
        from local_agent.line.messages import summarize_wire_messages

        return summarize_wire_messages(self.messages)

    @property
    def model_requests(self) -> list[dict]:
        return list(self.outcome.model_requests) if self.outcome is not None else []

    @property
    def tool_calls(self) -> list[dict]:
        if self.outcome is None:
            return []
        return [{k: call.get(k) for k in CONTRACT_TOOL_KEYS} for call in self.outcome.tool_calls]

    @property
    def error_code(self) -> str | None:
        return self.outcome.error_code if self.outcome is not None else None

    @property
    def quick_replies(self) -> list[dict]:
        """The postback actions of the quick replies in these messages (LINE shows the last one's)."""
        actions: list[dict] = []
        for message in self.messages:
            for item in (message.get("quickReply") or {}).get("items") or []:
                action = item.get("action") if isinstance(item, dict) else None
                if isinstance(action, dict):
                    actions.append(action)
        return actions


class NoSuchQuickReply(LookupError):
    pass


class StartupError(RuntimeError):
    """The app could not be started (bad settings)."""


class ReplayDriver:
    """The real app, in-process, behind a fake LINE API. Used by the replay and the terminal chat.

    async with ReplayDriver.open(budget_bytes=None, start_at=None) as driver:
        result = await driver.send_text("U1", "花壇有什麼好吃的？")
        result = await driver.tap("U1", "同意")
        driver.advance(901)
    """

    def __init__(self, start_at: float | None = None) -> None:
        self._stack = AsyncExitStack()
        # ``start_at``: a fixed service clock (epoch seconds) that moves only when the script moves it,
        # so a script's dates (「明天」, 「這週末」) mean the same days on every run; default wall time.
        self.clock = ShiftableClock(start=start_at)
        self.app: Any = None
        self.line: Any = None
        self.client: Any = None
        self.secret = secrets.token_hex(16)
        self.token = secrets.token_urlsafe(32)
        self._observed: list[tuple[Any, Any]] = []
        self._last: dict[tuple[str | None, str | None], EventResult] = {}
        self._buttons: dict[str, list[dict]] = {}  # every postback action shown in replies to a user

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        *,
        budget_bytes: int | None = None,
        env: dict[str, str] | None = None,
        start_at: float | None = None,
    ) -> AsyncIterator[ReplayDriver]:
        """``async with ReplayDriver.open(...) as driver``: starts, and always closes once started.
        ``start_at`` (epoch seconds) fixes the service clock at that instant (see :class:`ShiftableClock`)."""
        driver = await cls(start_at).start(budget_bytes, env)
        try:
            yield driver
        finally:
            await driver.close()

    def settings(self, budget_bytes: int | None, env: Mapping[str, str] | None) -> Settings:
        """The app's settings from the environment, with the replay's own LINE channel and fake API
        (``SettingsError`` lists every setting that does not validate)."""
        from local_agent.settings import load_settings, read_environment

        overrides: dict[str, Any] = {
            "LINE_CHANNEL_SECRET": self.secret,
            "LINE_CHANNEL_ACCESS_TOKEN": self.token,
            "LINE_API_HOST": self.line.base_url,
        }
        # The database only from the process environment: a .env's LOCAL_SQLITE_PATH is the
        # service's own (.env.example names var/local.sqlite3), and a replay starts from nothing.
        process = os.environ if env is None else env
        env = read_environment().values if env is None else env  # the rest as load_settings reads it
        if process.get("LOCAL_SQLITE_PATH"):
            overrides["LOCAL_SQLITE_PATH"] = process["LOCAL_SQLITE_PATH"]
        else:
            tmp = self._stack.enter_context(tempfile.TemporaryDirectory(prefix="local-replay-"))
            overrides["LOCAL_SQLITE_PATH"] = str(Path(tmp) / "replay.sqlite3")
        if env.get("LOCAL_LISTINGS_DIR"):
            overrides["LOCAL_LISTINGS_DIR"] = env["LOCAL_LISTINGS_DIR"]
        if budget_bytes is not None:
            overrides["LOCAL_INPUT_BUDGET"] = budget_bytes
        return load_settings(**overrides)

    async def start(self, budget_bytes: int | None = None, env: dict[str, str] | None = None) -> ReplayDriver:
        import httpx

        from local_agent.listings.loader import listings_from
        from local_agent.server.app import create_app
        from local_agent.testing.fake_line_api import FakeLineApi

        warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]")
        try:
            self.line = self._stack.enter_context(FakeLineApi(access_token=self.token).start())
            settings = self.settings(budget_bytes, env)
            if budget_bytes is not None and settings.budget_unit != "bytes":
                raise StartupError("--budget-bytes needs a byte budget (this configuration counts tokens)")
            # A bad listings folder raises ListingsError (every problem) before the app is made;
            # main() prints them and exits 2, as the service does (local_agent/app.py).
            listings_from(settings.local_listings_dir)
            self.app = create_app(settings, clock=self.clock, configure_logs=False)
            await self._stack.enter_async_context(self.app.router.lifespan_context(self.app))
            self.app.state.observers.append(lambda event, outcome: self._observed.append((event, outcome)))
            transport = httpx.ASGITransport(app=self.app)
            self.client = await self._stack.enter_async_context(
                httpx.AsyncClient(transport=transport, base_url="http://replay.local")
            )
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def close(self) -> None:
        await self._stack.aclose()

    # -- events --------------------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)

    def last_result(self, user: str, group: str | None = None) -> EventResult | None:
        return self._last.get((user, group))

    def find_quick_reply(self, user: str, label: str, group: str | None = None) -> dict:
        last = self._last.get((user, group))
        where = f"group {group}" if group else f"the chat with {user}"
        if last is None or not last.messages:
            raise NoSuchQuickReply(f"no reply in {where} yet to tap {label!r} in")
        for action in last.quick_replies:
            if action.get("label") == label and action.get("type") in ("postback", "message"):
                return action
        labels = [a.get("label") for a in last.quick_replies]
        raise NoSuchQuickReply(f"the last reply in {where} has no quick reply {label!r} (has {labels})")

    async def send_text(
        self, user: str | None, text: str, group: str | None = None, *, mention: bool = False
    ) -> EventResult:
        """A text message; ``mention`` sends ``@LOCAL <text>`` with a self mention (in a group the
        bot answers nothing else). ``user=None``: a group member without userId."""
        from local_agent.testing import webhooks as W

        return await self._post(W.text_event(user, text, group=group, mention=mention), user, group)

    async def lifecycle(self, kind: str, *, user: str | None = None, group: str | None = None) -> EventResult:
        """``follow`` / ``unfollow`` of ``user``, or ``join`` of ``group``."""
        from local_agent.testing import webhooks as W

        if kind == "join":
            return await self._post(W.join_event(group=group), None, group)
        assert user is not None
        event = W.follow_event(user) if kind == "follow" else W.unfollow_event(user)
        return await self._post(event, user, None)

    def find_shown_button(self, owner: str, label: str) -> dict:
        """The most recent postback action labelled ``label`` that any reply to ``owner`` showed."""
        for action in reversed(self._buttons.get(owner, [])):
            if action.get("label") == label:
                return action
        raise NoSuchQuickReply(f"no reply to {owner} has shown a button {label!r}")

    async def tap_from(self, user: str, label: str, owner: str, group: str | None = None) -> EventResult:
        """``user`` sends the data of the latest ``label`` button shown to ``owner`` (foreign or stale)."""
        from local_agent.testing import webhooks as W

        action = self.find_shown_button(owner, label)
        result = await self._post(
            W.postback_event(user, str(action.get("data", "")), group=group), user, group
        )
        result.display_text = action.get("displayText") or label
        return result

    async def postback(
        self, user: str, data: str, group: str | None = None, *, display_text: str | None = None
    ) -> EventResult:
        """A postback with ``data`` as it stands (a rich-menu area, or a forged or outdated button)."""
        from local_agent.testing import webhooks as W

        result = await self._post(W.postback_event(user, data, group=group), user, group)
        result.display_text = display_text
        return result

    async def tap(self, user: str, label: str, group: str | None = None) -> EventResult:
        """Tap the quick-reply item ``label`` of the last reply in this conversation."""
        from local_agent.testing import webhooks as W

        action = self.find_quick_reply(user, label, group)
        if action.get("type") == "message":  # the tap sends its text as the user's own message
            result = await self.send_text(user, str(action.get("text", "")), group)
            result.display_text = str(action.get("text", ""))
            return result
        result = await self._post(
            W.postback_event(user, str(action.get("data", "")), group=group), user, group
        )
        result.display_text = action.get("displayText") or label
        return result

    async def _post(self, event: dict, user: str | None, group: str | None) -> EventResult:
        from local_agent.testing import webhooks as W

        before = len(self.line.requests)
        self._observed.clear()
        body, headers = W.signed(self.secret, event)
        response = await self.client.post("/callback", content=body, headers=headers)
        if response.status_code != 200:
            raise RuntimeError(f"/callback answered {response.status_code}: {response.text[:200]}")
        if not await self.app.state.dispatcher.wait_idle(TURN_TIMEOUT):
            raise RuntimeError(f"the turn did not finish within {TURN_TIMEOUT:.0f} s")
        scope = W.scope_of(user, group)
        result = EventResult(scope=scope)
        for req in self.line.requests[before:]:
            if req.kind in ("reply", "push") and req.accepted:
                result.messages.extend(m for m in req.body.get("messages") or [] if isinstance(m, dict))
        wanted = event.get("webhookEventId")
        for inbound, outcome in self._observed:
            if inbound.event_id == wanted:
                result.outcome = outcome
        self._observed.clear()
        service = self.app.state.wiring.service
        journal = await asyncio.to_thread(service.journal_state, scope)
        result.journal = {
            "turns": list(journal.get("turns") or []),
            "summary": journal.get("summary"),
            "preference_revision": journal.get("preference_revision"),
        }
        if result.messages:
            self._last[(user, group)] = result
            if user is not None:
                self._buttons.setdefault(user, []).extend(
                    a for a in result.quick_replies if a.get("type") == "postback"
                )
        return result


# -- the replay ------------------------------------------------------------------------------------


def record_for(index: int, event: dict, result: EventResult) -> dict:
    return {
        "index": index,
        "user": event.get("user"),
        "input": event,
        "replies": result.replies,
        "model_requests": result.model_requests,
        "tool_calls": result.tool_calls,
        "journal": result.journal,
        "error_code": result.error_code,
    }


def advance_record(index: int, event: dict, clock: ShiftableClock) -> dict:
    """The record of an ``advance_seconds`` or ``now`` event: the keys of every record, empty, and
    where the service clock stands now."""
    record: dict[str, Any] = {
        "index": index,
        "user": None,
        "input": event,
        "replies": [],
        "model_requests": [],
        "tool_calls": [],
        "journal": None,
        "error_code": None,
    }
    if "advance_seconds" in event:
        record["advanced_seconds"] = event["advance_seconds"]
    if clock.fixed:  # on the wall clock the instant would differ from run to run
        record["clock"] = _iso(clock())
    return record


def emit(record: dict) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)


async def _run_event(driver: ReplayDriver, index: int, event: dict) -> EventResult:
    group = event.get("group")
    if "event" in event:
        return await driver.lifecycle(event["event"], user=event.get("user"), group=group)
    if "tap" in event:
        try:
            if "from_reply_of" in event:
                return await driver.tap_from(event["user"], event["tap"], event["from_reply_of"], group)
            return await driver.tap(event["user"], event["tap"], group)
        except NoSuchQuickReply as exc:
            raise ScriptError(str(exc), index) from None
    mention = bool(event.get("mention"))
    return await driver.send_text(event.get("user"), event["text"], group, mention=mention)


async def replay(
    events: list[dict],
    *,
    budget_bytes: int | None = None,
    out: Callable[[dict], None] = emit,
    now: float | None = None,
) -> None:
    """Run ``events`` through the app; ``now`` (epoch seconds) fixes the service clock's start."""
    async with ReplayDriver.open(budget_bytes=budget_bytes, start_at=now) as driver:
        for index, event in enumerate(events):
            if "advance_seconds" in event:
                driver.advance(event["advance_seconds"])
                out(advance_record(index, event, driver.clock))
            elif "now" in event:
                try:
                    driver.clock.move_to(parse_now(event["now"]))
                except ValueError as exc:
                    raise ScriptError(f'"now" {exc}', index) from None
                out(advance_record(index, event, driver.clock))
            else:
                out(record_for(index, event, await _run_event(driver, index, event)))


def positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a whole number of bytes") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def iso_instant(value: str) -> float:
    try:
        return parse_now(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.replay",
        description="Replay a scripted conversation through the LOCAL app, offline: one JSON line per event.",
        epilog=SCRIPT_FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("script", help='a JSON file: {"now": "...", "events": [...]} (format below)')
    parser.add_argument(
        "--budget-bytes",
        type=positive_int,
        default=None,
        metavar="N",
        help="override the input budget (UTF-8 bytes of the whole model request)",
    )
    parser.add_argument(
        "--now",
        type=iso_instant,
        default=None,
        metavar="ISO",
        help="start the service clock at this instant, e.g. 2026-11-30T12:00:00+08:00 (the offset is "
        "required); overrides the script's \"now\"; without either, the machine's clock",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    from local_agent.listings.problems import ListingsError
    from local_agent.settings import SettingsError, read_environment

    args = _parser().parse_args(argv)
    print(read_environment().source(), file=sys.stderr)
    try:
        script = read_script(args.script)
        start = args.now if args.now is not None else script.now
        script.check_clock(start)
        asyncio.run(replay(script.events, budget_bytes=args.budget_bytes, now=start))
    except ScriptError as exc:
        print(f"replay: malformed script: {exc}", file=sys.stderr)
        return 2
    except SettingsError as exc:
        print("\n".join(exc.lines("replay")), file=sys.stderr)
        return 2
    except ListingsError as exc:
        print("\n".join(exc.lines("replay")), file=sys.stderr)
        return 2
    except StartupError as exc:
        print(f"replay: cannot start the app: {exc}", file=sys.stderr)
        return 1
    return 0


def quiet_broken_pipe() -> int:
    # The reader went away (e.g. piped into `head`): stop without a traceback.
    try:
        sys.stdout = open(os.devnull, "w")  # replaced for the rest of the process
    except OSError:
        pass
    return 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(quiet_broken_pipe())
