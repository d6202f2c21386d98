"""The durable inbox's phases of ``bench.webhook_load`` (``--targets inbox``).

* **Cold-start burst**: a fresh process (spawned, then ready on ``/healthz``), then N text events
  from P people within one second, each its own webhook body: accepted (200), refused (503),
  answered once, answered twice, lost (accepted, never answered), the first answer's time after
  the first send (the first turn of a fresh process) and the last one's. N/P = 100/20 and 500/100,
  with the inbox and, for comparison, without it (``LOCAL_INBOX=no``: admission bounded by the
  drain, its cold-start estimate from the turn concurrency).
* **kill -9**: N events accepted and held unanswered (the fake LINE API holds every loading call),
  then SIGKILL. In-process: a restart on the same SQLite file. Pub/Sub: two instances on the
  Firestore and Pub/Sub emulators behind a round-robin front, one of them killed and restarted on
  its port. Accepted, answered once, twice, lost, seconds from the restart to the last answer.
* **Inbox cost per turn**: one body's write (sealing included) and the row's deletion, on SQLite
  and on the Firestore emulator, beside one offline turn's time in the same process.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import queue_modes as qm
from bench._common import SECRET, format_table

LEASE = "2"
HOLD_SECONDS = 30.0


@dataclass
class Outcome:
    phase: str
    mode: str
    sent: int
    accepted: int = 0
    refused: int = 0
    answered: int = 0
    twice: int = 0
    lost: int = 0
    ready_s: float = float("nan")
    first_ms: float = float("nan")
    last_ms: float = float("nan")
    restart_to_last_s: float = float("nan")

    def cells(self) -> list[Any]:
        return [
            self.phase,
            self.mode,
            self.sent,
            self.accepted,
            self.refused,
            self.answered,
            self.twice,
            self.lost,
            round(self.ready_s, 2),
            round(self.first_ms, 0),
            round(self.last_ms, 0),
            round(self.restart_to_last_s, 2),
        ]


HEADERS = [
    "phase",
    "mode",
    "sent",
    "accepted",
    "refused",
    "answered once",
    "twice",
    "lost",
    "ready s",
    "first answer ms",
    "last answer ms",
    "restart->last s",
]


def _chats(tag: str, count: int, people: int) -> list[dict[str, Any]]:
    """``count`` events from ``people`` people, interleaved (person 0, 1, ..., then 0 again)."""
    from local_agent.testing import webhooks as W

    questions = ("花壇有什麼店推薦吃吃看？", "鹿港最近有什麼活動？", "員林有什麼好吃的？")
    return [
        W.text_event(f"U{tag}{i % people:06d}".ljust(33, "0"), questions[(i // people) % 3])
        for i in range(count)
    ]


async def _send(url: str, events: list[dict[str, Any]], within: float) -> tuple[list[int], float]:
    """Each event its own body, spread evenly over ``within`` seconds: (statuses, epoch of the first)."""
    import httpx

    from local_agent.testing import webhooks as W

    statuses: list[int] = [0] * len(events)
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, timeout=60.0, limits=limits) as client:
        start, epoch = time.perf_counter(), time.time()

        async def one(i: int, event: dict[str, Any]) -> None:
            body, headers = W.signed(SECRET, event)
            try:
                statuses[i] = (await client.post("/callback", content=body, headers=headers)).status_code
            except httpx.HTTPError:
                statuses[i] = 0

        tasks = []
        for i, event in enumerate(events):
            delay = start + i * within / len(events) - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(i, event)))
        await asyncio.gather(*tasks)
    return statuses, epoch


def _answers(fake: Any, events: list[dict[str, Any]]) -> dict[int, list[float]]:
    from local_agent.line.client import retry_key_for

    keys = {e["replyToken"]: i for i, e in enumerate(events)}
    keys.update({retry_key_for(e["webhookEventId"]): i for i, e in enumerate(events)})
    got: dict[int, list[float]] = defaultdict(list)
    with fake._cond:
        timeline = list(fake.timeline)
    for at, kind, key in timeline:
        if kind in ("reply", "push") and key in keys:
            got[keys[key]].append(at)
    return got


def _settle(
    fake: Any, out: Outcome, events: list[dict[str, Any]], accepted: set[int], drain: float
) -> dict[int, list[float]]:
    deadline = time.monotonic() + drain
    while time.monotonic() < deadline and not accepted <= set(_answers(fake, events)):
        time.sleep(0.2)
    time.sleep(2 * float(LEASE) + 1)  # a second answer, if any, would show now
    got = _answers(fake, events)
    out.answered = sum(1 for i in accepted if len(got.get(i, [])) == 1)
    out.twice = sum(1 for v in got.values() if len(v) > 1)
    out.lost = sum(1 for i in accepted if i not in got)
    return got


def cold_burst(fake: Any, work: Path, count: int, people: int, *, inbox: bool, drain: float) -> Outcome:
    mode = "inprocess" if inbox else "inprocess, LOCAL_INBOX=no"
    out = Outcome(f"cold burst {count}/{people}", mode, count)
    env = qm._service_env(
        fake,
        LOCAL_STORE="sqlite",
        LOCAL_SQLITE_PATH=str(work / f"cold-{count}-{inbox}.sqlite3"),
        LOCAL_INBOX="yes" if inbox else "no",
    )
    log = work / "cold.log"
    spawned = time.monotonic()
    server = qm._serve(env, log)
    try:
        qm._wait_healthy([server], log)
        out.ready_s = time.monotonic() - spawned
        events = _chats(f"c{count}{int(inbox)}", count, people)
        statuses, epoch = asyncio.run(_send(server.url, events, 1.0))
        accepted = {i for i, s in enumerate(statuses) if s == 200}
        out.accepted, out.refused = len(accepted), count - len(accepted)
        got = _settle(fake, out, events, accepted, drain)
        firsts = [min(v) for v in got.values()]
        if firsts:
            out.first_ms, out.last_ms = (min(firsts) - epoch) * 1000, (max(firsts) - epoch) * 1000
    finally:
        qm._stop([server])
    return out


def _hold_and_kill(fake: Any, url: str, victim: qm.Server, events: list[dict[str, Any]]) -> set[int]:
    """Send ``events`` while every loading call is held, then SIGKILL ``victim``: the accepted ones."""
    from local_agent.testing.fake_line_api import LOADING_PATH

    fake.delay_next(LOADING_PATH, HOLD_SECONDS, times=len(events))
    statuses, _ = asyncio.run(_send(url, events, 0.5))
    time.sleep(1.0)
    victim.proc.kill()
    victim.proc.wait(timeout=10)
    fake.clear()  # the held calls stay held; new ones pass
    return {i for i, s in enumerate(statuses) if s == 200}


def kill_inprocess(fake: Any, work: Path, n: int, drain: float) -> Outcome:
    out = Outcome(f"kill -9 with {n}", "inprocess", n)
    env = qm._service_env(
        fake,
        LOCAL_STORE="sqlite",
        LOCAL_SQLITE_PATH=str(work / "kill.sqlite3"),
        LOCAL_EVENT_LEASE_SECONDS=LEASE,
    )
    log = work / "kill.log"
    first = qm._serve(env, log)
    second = None
    try:
        qm._wait_healthy([first], log)
        events = _chats("kill", n, max(1, n // 4))
        accepted = _hold_and_kill(fake, first.url, first, events)
        out.accepted, out.refused = len(accepted), n - len(accepted)
        restarted = time.time()
        second = qm._serve(env, log)
        qm._wait_healthy([second], log)
        got = _settle(fake, out, events, accepted, drain)
        if got:
            out.restart_to_last_s = max(min(v) for v in got.values()) - restarted
    finally:
        qm._stop([s for s in (first, second) if s is not None])
    return out


def _serve_on(env: dict[str, str], log: Path, port: int) -> qm.Server:
    import subprocess
    import sys

    with log.open("ab") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", qm.APP, "--host", "127.0.0.1", "--port", str(port)],
            cwd=log.parent,
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    return qm.Server(proc, port)


def kill_pubsub(fake: Any, work: Path, n: int, drain: float) -> Outcome:
    from local_agent.testing.pubsub import RoundRobinFront, setup_rest

    out = Outcome(f"kill -9 with {n}", "pubsub (1 of 2 killed)", n)
    pubsub, firestore = qm._emulators(work)
    project = "bench-" + uuid.uuid4().hex[:12]
    env = qm._pubsub_env(fake, pubsub, firestore, project, LOCAL_EVENT_LEASE_SECONDS=LEASE)
    log = work / "pubsub-kill.log"
    servers = [qm._serve(env, log), qm._serve(env, log)]
    front = None
    try:
        qm._wait_healthy(servers, log)
        front = RoundRobinFront([s.port for s in servers]).start()
        push = f"{front.base_url}/pubsub/push?token={qm.PUSH_TOKEN}"
        setup_rest(pubsub.endpoint, project, "local-events", "local-events-push", push)
        events = _chats("pkill", n, max(1, n // 4))
        accepted = _hold_and_kill(fake, front.base_url, servers[0], events)
        out.accepted, out.refused = len(accepted), n - len(accepted)
        restarted = time.time()
        servers[0] = _serve_on(env, log, servers[0].port)
        qm._wait_healthy([servers[0]], log)
        got = _settle(fake, out, events, accepted, drain)
        if got:
            out.restart_to_last_s = max(min(v) for v in got.values()) - restarted
    finally:
        qm._stop(servers)
        if front is not None:
            front.stop()
        pubsub.stop()
        firestore.process.terminate()
        firestore.process.wait(timeout=20)
    return out


def inbox_cost(work: Path, rounds: int = 200) -> list[list[Any]]:
    """Median milliseconds of one body's inbox write and one row's deletion (SQLite, and the
    Firestore emulator when it starts), beside one offline turn in this process."""
    from local_agent.line.inbound import InboundEvent
    from local_agent.server.inbox import DurableInbox, InboxSeal
    from local_agent.stores.sqlite import SqliteStore
    from local_agent.testing import webhooks as W

    def timed(store: Any, n: int) -> tuple[float, float]:
        inbox = DurableInbox(store=store, seal=InboxSeal(SECRET), lease=15.0)
        writes, deletes = [], []
        for i in range(n):
            user = "Ucost" + "0" * 28
            event_id = f"cost{i:08d}{uuid.uuid4().hex}"
            event = InboundEvent(
                "text", W.scope_of(user), user, event_id, "t", time.time(), "花壇有什麼好吃的？"
            )
            t0 = time.perf_counter()
            asyncio.run(inbox.accept([event]))
            t1 = time.perf_counter()
            asyncio.run(inbox.done(event))
            writes.append((t1 - t0) * 1000)
            deletes.append((time.perf_counter() - t1) * 1000)
        return statistics.median(writes), statistics.median(deletes)

    rows: list[list[Any]] = []
    sqlite = SqliteStore(work / "cost.sqlite3")
    write, delete = timed(sqlite, rounds)
    rows.append(["sqlite", round(write, 3), round(delete, 3)])
    sqlite.close()
    try:
        import sys

        from bench._common import ROOT

        sys.path.insert(0, str(ROOT / "tests"))
        from firestore_emulator import _launch

        emulator = _launch(str(work))
        if not isinstance(emulator, str):
            import os

            os.environ["FIRESTORE_EMULATOR_HOST"] = emulator.endpoint
            from local_agent.stores.firestore import FirestoreStore

            store = FirestoreStore(project="bench-cost")
            write, delete = timed(store, max(20, rounds // 5))
            rows.append(["firestore emulator", round(write, 3), round(delete, 3)])
            store.close()
            emulator.process.terminate()
            emulator.process.wait(timeout=20)
    except Exception as exc:  # the emulator is optional here
        rows.append([f"firestore emulator: not run ({type(exc).__name__})", float("nan"), float("nan")])
    rows.append(["one offline turn (in process)", round(_turn_ms(work), 3), ""])
    return rows


def _turn_ms(work: Path, turns: int = 50) -> float:
    from bench._common import bench_settings
    from local_agent.context.journal import ScopeKey
    from local_agent.wiring import build_service

    wiring = build_service(bench_settings("http://127.0.0.1:9", work / "turns.sqlite3"))
    times = []
    for i in range(turns):
        scope = ScopeKey.for_user(f"Uturn{i:028d}")
        t0 = time.perf_counter()
        asyncio.run(wiring.service.handle_text(scope, "花壇有什麼好吃的？"))
        times.append((time.perf_counter() - t0) * 1000)
    wiring.store.close()
    return statistics.median(times[5:])


def run(*, quick: bool, drain: float) -> tuple[list[Outcome], list[list[Any]]]:
    rows: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="bench-inbox-") as tmp:
        work = Path(tmp)
        fake = qm._timed_fake()
        try:
            bursts = [(100, 20)] if quick else [(100, 20), (500, 100)]
            for count, people in bursts:
                for inbox in (True, False):
                    rows.append(cold_burst(fake, work, count, people, inbox=inbox, drain=drain))
            n = 20 if quick else 40
            rows.append(kill_inprocess(fake, work, n, drain))
            try:
                rows.append(kill_pubsub(fake, work, n, drain))
            except RuntimeError as exc:  # no emulators here
                print(f"  pubsub kill -9 phase not run: {exc}")
            cost = inbox_cost(work, 50 if quick else 200)
        finally:
            fake.stop()
    return rows, cost


def section(quick: bool, drain: float) -> dict[str, Any]:
    rows, cost = run(quick=quick, drain=max(drain, 60.0))
    print(
        "Inbox phases: cold-start bursts on a fresh process (each event its own body, all within 1 s), "
        "kill -9 with events accepted and held unanswered; lost = accepted, never answered."
    )
    print(format_table(HEADERS, [r.cells() for r in rows]))
    print("Inbox cost per turn (median ms): a body's write (sealed) and the row's deletion")
    print(format_table(["store", "write ms", "delete ms"], cost))
    key: dict[str, Any] = {}
    for row in rows:
        tag = row.phase.replace(" ", "_").replace("/", "_") + ("_" + row.mode.split()[0].rstrip(","))
        if "LOCAL_INBOX=no" in row.mode:
            tag += "_noinbox"
        key[f"{tag}_accepted"] = f"{row.accepted}/{row.sent}"
        key[f"{tag}_lost"] = str(row.lost)
        key[f"{tag}_twice"] = str(row.twice)
    return key


__all__ = ["HEADERS", "Outcome", "run", "section"]
