"""Helpers for tests that run the app as separate uvicorn worker processes.

``ServerProcess`` starts ``python -m uvicorn examples.day15.main:app --host 127.0.0.1 --port P`` with
an explicit environment (settings come from it, as in production) and its stdout/stderr captured
to files, waits for ``GET /healthz`` and stops it with SIGTERM (SIGKILL only as a last resort).

The rest drives conversations over real HTTP and checks what the stores hold afterwards:

* ``make_conversation`` builds a user's turns from templates whose offline-model outcome is known
  by construction (places/events in a named township, references such as 剛才那個鄉鎮, parking and
  bus questions), each text made unique and sensitive-looking (a phone-number-like fragment and an
  illness word) so a privacy scan for the raw text means something;
* ``expected_calls`` predicts, per turn, which tool runs and for which township (docs/design.md §8: a
  reference resolves to the latest public township still in the window or the summary);
* ``drive_users`` sends every user's events in order (each after the previous reply arrived at the
  fake LINE API), users concurrently, round-robin over the servers;
* ``check_store`` compares audit rows, snapshots and journal records per scope with the prediction
  and with a fold of the audit rows (no lost turn, no crossing between users);
* ``check_deliveries`` checks that every event got exactly one delivery, addressed to its user.

Bounded throughout: every wait has a timeout, every loop a count.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from local_agent.agent.offline_rules import ASK_TOWNSHIP, CAPABILITIES
from local_agent.context.townships import TOWNSHIPS
from local_agent.line.client import retry_key_for
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import FakeLineApi, RecordedRequest

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
APP = "examples.day15.main:app"
HOST = "127.0.0.1"

# Test clients open a fresh connection per request. Reusing a kept-alive one races uvicorn's
# keep-alive timer: a request written just as the server closes an idle connection is reset
# (httpx.ReadError). A client-side expiry shorter than the server's narrows that race but does not
# close it when the test process is descheduled between the server's response and the client's read.
FRESH_CONNECTIONS = httpx.Limits(max_keepalive_connections=0)

PLACES_TOOL = "search_local_places"
EVENTS_TOOL = "search_local_events"
GOAL_OF = {PLACES_TOOL: "places", EVENTS_TOOL: "events"}

ILLNESSES = ("糖尿病", "高血壓", "氣喘", "痛風", "心臟病")


# -- processes -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def base_env(**extra: str) -> dict[str, str]:
    """A minimal environment (no inherited GOOGLE_*/LOCAL_* settings) plus ``extra``."""
    env = {
        k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    }
    env.update({"PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"})
    env.update(extra)
    return env


class ServerProcess:
    """One uvicorn worker process serving the app on 127.0.0.1."""

    def __init__(self, name: str, env: Mapping[str, str], log_dir: Path, *, cwd: Path | None = None) -> None:
        self.name, self.env = name, dict(env)
        self.log_dir = Path(log_dir)
        self.cwd = Path(cwd) if cwd else self.log_dir  # no stray .env in the working directory
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.stdout_path = self.log_dir / f"{name}.stdout.log"
        self.stderr_path = self.log_dir / f"{name}.stderr.log"
        self.attempts = 0

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def command(self) -> list[str]:
        """The uvicorn command line this server runs."""
        return [PYTHON, "-m", "uvicorn", APP, "--host", HOST, "--port", str(self.port)]

    def start(self) -> ServerProcess:
        self.attempts += 1
        self.port = free_port()
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.stdout_path, "ab") as out, open(self.stderr_path, "ab") as err:
            self.proc = subprocess.Popen(
                self.command(),
                env=self.env,
                cwd=self.cwd,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
            )
        return self

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/healthz", timeout=1) as response:
                return json.loads(response.read()).get("status") == "ok"
        except (OSError, urllib.error.URLError, ValueError):
            return False

    def wait_ready(self, timeout: float = 90.0) -> ServerProcess:
        """Wait for /healthz; restart on another port (at most twice) if the port was taken."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                if "address already in use" in self.stderr().lower() and self.attempts < 3:
                    self.start()
                    continue
                raise RuntimeError(
                    f"{self.name} exited with {self.proc.returncode}:\n{self.stderr()[-3000:]}"
                )
            if self.healthy():
                return self
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready within {timeout:.0f} s:\n{self.stderr()[-3000:]}")

    def pending(self) -> int:
        with urllib.request.urlopen(f"{self.base_url}/healthz", timeout=5) as response:
            return int(json.loads(response.read())["pending"])

    def wait_idle(self, timeout: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.pending() == 0:
                return True
            time.sleep(0.05)
        return False

    def terminate(self, timeout: float = 40.0) -> tuple[int | None, float]:
        """SIGTERM and wait; (returncode or None if still running after ``timeout``, seconds)."""
        assert self.proc is not None
        started = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            rc = None
        return rc, time.monotonic() - started

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        rc, _ = self.terminate(timeout=30)
        if rc is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stdout(self) -> str:
        return self.stdout_bytes().decode("utf-8", "replace")

    def stderr(self) -> str:
        return self.stderr_bytes().decode("utf-8", "replace")

    def stdout_bytes(self) -> bytes:
        return self.stdout_path.read_bytes() if self.stdout_path.exists() else b""

    def stderr_bytes(self) -> bytes:
        return self.stderr_path.read_bytes() if self.stderr_path.exists() else b""


def start_servers(servers: Sequence[ServerProcess], timeout: float = 120.0) -> None:
    """Start all at once (they import in parallel), then wait for each; stop all on failure."""
    try:
        for server in servers:
            server.start()
        deadline = time.monotonic() + timeout
        for server in servers:
            server.wait_ready(max(1.0, deadline - time.monotonic()))
    except BaseException:
        for server in servers:
            server.stop()
        raise


# -- conversations -------------------------------------------------------------------------------


@dataclass
class Turn:
    user: str
    index: int
    text: str
    kind: str  # "places" | "events" | "ref_places" | "ref_events" | "parking" | "bus"
    named_area: str | None
    event: dict[str, Any]
    server: int = 0

    @property
    def event_id(self) -> str:
        return self.event["webhookEventId"]

    @property
    def reply_token(self) -> str:
        return self.event["replyToken"]


def _short(area: str) -> str:
    return area[:-1]


def turn_text(kind: str, area: str | None, phone: str, illness: str) -> str:
    """A message whose offline outcome is fixed by ``kind`` (and ``area`` where one is named)."""
    if kind == "places":
        return f"我有{illness}，電話{phone}，{_short(area)}有什麼好吃的店？"
    if kind == "events":
        return f"{_short(area)}這週有什麼活動？我有{illness}，電話{phone}"
    if kind == "ref_places":
        return f"剛才那個鄉鎮，再找一家吃的。我{illness}，電話{phone}"
    if kind == "ref_events":
        return f"剛剛那裡還有什麼活動？電話{phone}，我有{illness}"
    if kind == "parking":
        return f"{_short(area)}車站附近哪裡可以停車？電話{phone}，我{illness}"
    if kind == "bus":
        return f"要怎麼搭公車過去？我{illness}，電話{phone}"
    raise ValueError(kind)


KINDS = ("places", "events", "ref_places", "ref_events", "parking", "bus")
KIND_WEIGHTS = (4, 3, 3, 2, 2, 1)
AREA_KINDS = ("places", "events", "parking")


def make_conversation(
    user: str,
    user_no: int,
    turns: int,
    *,
    seed: int,
    phone_prefix: str = "0912",
    first: str | None = None,
    servers: int = 2,
) -> list[Turn]:
    """``turns`` varied turns of ``user``; event k goes to server ``(user_no + k) % servers``."""
    rng = random.Random(seed * 100_003 + user_no)
    out: list[Turn] = []
    for k in range(turns):
        kind = first if (k == 0 and first) else rng.choices(KINDS, KIND_WEIGHTS)[0]
        area = rng.choice(TOWNSHIPS) if kind in AREA_KINDS else None
        phone = f"{phone_prefix}-{user_no:03d}-{k:03d}"
        text = turn_text(kind, area, phone, ILLNESSES[(user_no + k) % len(ILLNESSES)])
        named = area if kind in ("places", "events") else None
        out.append(Turn(user, k, text, kind, named, W.text_event(user, text), (user_no + k) % servers))
    return out


def scope_id(user: str) -> str:
    return W.scope_of(user).storage_id


def expected_calls(turns: Sequence[Turn]) -> list[tuple[str, str] | None]:
    """(tool, township) per turn, or None when no tool runs — the offline rules, restated. A
    reference with nothing to resolve is ``(tool, "")``: asked with an AREA_REQUIRED search."""
    last_area: str | None = None
    out: list[tuple[str, str] | None] = []
    for turn in turns:
        call: tuple[str, str] | None = None
        if turn.kind in ("places", "events"):
            call = (PLACES_TOOL if turn.kind == "places" else EVENTS_TOOL, turn.named_area)
        elif turn.kind in ("ref_places", "ref_events"):
            # Unresolved: the stand-in asks by calling the tool with no area (a pending turn).
            call = (PLACES_TOOL if turn.kind == "ref_places" else EVENTS_TOOL, last_area or "")
        if call is not None and call[1]:
            last_area = call[1]
        out.append(call)
    return out


def fold_journal(calls: Iterable[tuple[str, str] | None], max_turns: int = 2) -> dict[str, Any]:
    """The journal window a sequence of turns leaves: last ``max_turns`` projections + summary
    (the latest public evicted topic; a non-public evicted turn keeps the previous summary)."""
    turns: list[dict[str, str]] = []
    summary = {"goal": "", "area": ""}
    for call in calls:
        turns.append({"goal": GOAL_OF[call[0]], "area": call[1]} if call else {"goal": "", "area": ""})
        while len(turns) > max_turns:
            evicted = turns.pop(0)
            if evicted["goal"] and (evicted["area"] or not summary["area"]):
                summary = dict(evicted)  # a pending turn never erases a known area
    return {"turns": turns, "summary": summary}


# -- driving ---------------------------------------------------------------------------------------


@dataclass
class DeliveryWatch:
    """Maps accepted replies/pushes recorded by the fake to the events they answer."""

    line: FakeLineApi
    by_token: dict[str, Turn] = field(default_factory=dict)
    by_retry_key: dict[str, Turn] = field(default_factory=dict)
    delivered: dict[str, list[RecordedRequest]] = field(default_factory=dict)
    strays: list[RecordedRequest] = field(default_factory=list)
    _seen: int = 0
    _waiters: dict[str, asyncio.Future] = field(default_factory=dict)

    @classmethod
    def from_now(cls, line: FakeLineApi) -> DeliveryWatch:
        """A watch that ignores what the fake recorded before it was made."""
        return cls(line, _seen=len(line.requests))

    def expect(self, turn: Turn) -> None:
        self.by_token[turn.reply_token] = turn
        self.by_retry_key[retry_key_for(turn.event_id)] = turn

    def poll(self) -> None:
        requests = self.line.requests
        for request in requests[self._seen :]:
            if request.kind not in ("reply", "push") or not request.accepted:
                continue
            if request.kind == "reply":
                turn = self.by_token.get(request.body.get("replyToken", ""))
            else:
                turn = self.by_retry_key.get(request.headers.get("x-line-retry-key", ""))
            if turn is None:
                self.strays.append(request)
                continue
            self.delivered.setdefault(turn.event_id, []).append(request)
            waiter = self._waiters.pop(turn.event_id, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(request)
        self._seen = len(requests)

    async def wait(self, turn: Turn, timeout: float) -> RecordedRequest:
        if turn.event_id in self.delivered:
            return self.delivered[turn.event_id][0]
        future = asyncio.get_running_loop().create_future()
        self._waiters[turn.event_id] = future
        return await asyncio.wait_for(future, timeout)

    async def run(self, stop: asyncio.Event, interval: float = 0.01) -> None:
        while not stop.is_set():
            self.poll()
            await asyncio.sleep(interval)
        self.poll()


async def drive_users(
    conversations: Sequence[Sequence[Turn]],
    urls: Sequence[str],
    line: FakeLineApi,
    secret: str,
    *,
    turn_timeout: float = 60.0,
    deadline_s: float = 240.0,
) -> DeliveryWatch:
    """Send each user's turns in order (next one after the reply arrived), users concurrently."""
    watch = DeliveryWatch.from_now(line)
    for conversation in conversations:
        for turn in conversation:
            watch.expect(turn)
    stop = asyncio.Event()
    poller = asyncio.create_task(watch.run(stop))

    async def user(client: httpx.AsyncClient, conversation: Sequence[Turn]) -> None:
        for turn in conversation:
            body, headers = W.signed(secret, turn.event)
            response = await client.post(f"{urls[turn.server]}/callback", content=body, headers=headers)
            assert response.status_code == 200 and response.json()["accepted"] == 1, response.text
            await watch.wait(turn, turn_timeout)

    try:
        async with httpx.AsyncClient(timeout=30, limits=FRESH_CONNECTIONS) as client:
            await asyncio.wait_for(asyncio.gather(*(user(client, c) for c in conversations)), deadline_s)
    finally:
        stop.set()
        await poller
    return watch


# -- checks ----------------------------------------------------------------------------------------


def check_deliveries(conversations: Sequence[Sequence[Turn]], watch: DeliveryWatch) -> list[str]:
    """Exactly one delivery per event, to that event's user, with that user's own answer."""
    problems: list[str] = []
    calls_by_event: dict[str, tuple[str, str] | None] = {}
    for conversation in conversations:
        for turn, call in zip(conversation, expected_calls(conversation), strict=True):
            calls_by_event[turn.event_id] = call
    if watch.strays:
        problems.append(f"{len(watch.strays)} deliveries answer no event we sent")
    for conversation in conversations:
        for turn in conversation:
            got = watch.delivered.get(turn.event_id, [])
            if len(got) != 1:
                problems.append(f"{turn.user} turn {turn.index}: {len(got)} deliveries")
                continue
            request = got[0]
            if request.kind == "push" and request.body.get("to") != turn.user:
                problems.append(f"{turn.user} turn {turn.index}: pushed to another chat")
            if request.kind == "reply" and request.body.get("replyToken") != turn.reply_token:
                problems.append(f"{turn.user} turn {turn.index}: reply token of another event")
            texts = [m.get("text", "") for m in request.body.get("messages", []) if m.get("type") == "text"]
            first = texts[0] if texts else ""
            call = calls_by_event[turn.event_id]
            if call is None or not call[1]:
                # A reference with nothing to resolve asks, possibly saying why (「再找一家」 with no list).
                wanted = ASK_TOWNSHIP if turn.kind.startswith("ref_") else CAPABILITIES
                if not (first == wanted or (wanted == ASK_TOWNSHIP and first.startswith(wanted))):
                    problems.append(
                        f"{turn.user} turn {turn.index}: expected {wanted[:12]}…, got {first[:30]!r}"
                    )
            elif not first.startswith(call[1]):
                problems.append(
                    f"{turn.user} turn {turn.index}: answer for {call[1]} expected, got {first[:30]!r}"
                )
    return problems


def check_store(store: Any, conversations: Sequence[Sequence[Turn]], *, exclusive: bool = True) -> list[str]:
    """No lost turn, no crossing: per scope, compare audit rows, snapshots and the journal record
    with the prediction and with a fold of that scope's own audit rows. ``exclusive``: the store
    holds nothing but these conversations (so any other audited scope is a crossing)."""
    problems: list[str] = []
    audit_by_scope: dict[str, list[Any]] = {}
    for row in store.audit_rows():
        audit_by_scope.setdefault(row.scope_id, []).append(row)
    snaps_by_scope: dict[str, list[Any]] = {}
    for snap in store.snapshots():
        snaps_by_scope.setdefault(snap.scope_id, []).append(snap)
    journals = store.journal_rows()
    known = {scope_id(c[0].user) for c in conversations if c}
    for conversation in conversations:
        if not conversation:
            continue
        user = conversation[0].user
        sid = scope_id(user)
        predicted = expected_calls(conversation)
        ids = [t.event_id for t in conversation]
        tool_ids = [t.event_id for t, c in zip(conversation, predicted, strict=True) if c is not None]
        audit = audit_by_scope.get(sid, [])
        snaps = snaps_by_scope.get(sid, [])
        # audit rows: one per tool turn, of this user's turns only, in order, with the predicted call
        if [r.turn_id for r in audit] != tool_ids:
            problems.append(
                f"{user}: audit turn ids {len(audit)} rows != {len(tool_ids)} tool turns (or order)"
            )
        got_calls = [(r.tool, r.effective_arguments.get("area", "")) for r in audit]
        want_calls = [c for c in predicted if c is not None]
        if got_calls != want_calls:
            problems.append(f"{user}: audit calls {got_calls} != predicted {want_calls}")
        if [r.status for r in audit] != ["ok" if c[1] else "error" for c in want_calls]:
            problems.append(f"{user}: a tool call failed (other than asking for the township)")
        # snapshots: one per turn, each turn id once
        if sorted(s.turn_id for s in snaps) != sorted(ids):
            problems.append(f"{user}: {len(snaps)} snapshots for {len(ids)} turns (or foreign turn ids)")
        # journal: last two projections + summary, folded from THIS scope's audit rows
        audit_by_turn = {r.turn_id: (r.tool, r.effective_arguments.get("area", "")) for r in audit}
        from_audit = fold_journal(audit_by_turn.get(i) for i in ids)
        record = journals.get(sid)
        if record is None:
            problems.append(f"{user}: no journal record")
            continue
        window = record["window"]
        stored = {
            "turns": [{"goal": t["goal"], "area": t["area"]} for t in window["turns"]],
            "summary": {"goal": window["summary"].get("goal", ""), "area": window["summary"].get("area", "")},
        }
        if stored != from_audit:
            problems.append(f"{user}: journal {stored} != fold of its audit rows {from_audit}")
        if stored != fold_journal(predicted):
            problems.append(f"{user}: journal {stored} != predicted {fold_journal(predicted)}")
        if record.get("version") != len(conversation):
            problems.append(f"{user}: journal version {record.get('version')} != {len(conversation)} appends")
    foreign = {s for s in audit_by_scope if s not in known}
    if exclusive and foreign:
        problems.append(f"{len(foreign)} audit scopes belong to no user of this run")
    return problems


def scan(blobs: Mapping[str, bytes], needles: Iterable[str]) -> list[tuple[str, str]]:
    """(blob name, needle) for every raw text found (as UTF-8 bytes) in any blob."""
    encoded = [(n, n.encode("utf-8")) for n in set(needles)]
    return [(name, n) for name, blob in blobs.items() for n, raw in encoded if raw in blob]


def rss_kib() -> int:
    """This process's resident set size in KiB (Linux /proc)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1
