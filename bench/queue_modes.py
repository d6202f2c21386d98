"""The queue modes side by side (the ``pubsub`` target of ``bench.webhook_load``).

``LOCAL_QUEUE=inprocess``: one uvicorn instance on SQLite, as today. ``LOCAL_QUEUE=pubsub``: two
uvicorn instances on the Firestore emulator behind a loopback round-robin front (LINE's posts and
Pub/Sub's pushes both go through it, as through Cloud Run's front end), with the Pub/Sub emulator
pushing to ``/pubsub/push``. The same open-loop load goes to each at every offered rate: one text
message per new person (so each answer and loading call maps to its message), each scheduled at
``i / rate``. Measured per message from the scheduled send time: the acknowledgement (HTTP 200 of
``/callback``), the loading-animation call and the answer (reply or push) recorded by a fake LINE
API in this process. Then: answered, lost (acknowledged but never answered within the drain
timeout) and answered twice. The emulator pushes at most two messages at once per subscription,
so the pubsub figures are the emulator's throughput, not Cloud Run's.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._common import ROOT, SECRET, TOKEN, free_port, median, percentile

PUSH_TOKEN = "bench-push-token-" + uuid.uuid4().hex
APP = "examples.day15.main:app"
STARTUP_TIMEOUT = 90.0


def _timed_fake() -> Any:
    from local_agent.testing.fake_line_api import FakeLineApi

    class TimedFake(FakeLineApi):
        """Keeps (time, kind, key) of every accepted reply, push and loading call."""

        def __init__(self) -> None:
            super().__init__(access_token=TOKEN)
            self.timeline: list[tuple[float, str, str]] = []

        def _record(
            self, method, path, headers, body, status, payload, content=b""
        ) -> None:  # caller holds the lock
            super()._record(method, path, headers, body, status, payload, content)
            recorded = self._requests.pop()  # keep memory flat; the timeline is all we need
            if not recorded.accepted:
                return
            key = {
                "reply": body.get("replyToken", ""),
                "push": headers.get("x-line-retry-key", ""),
                "loading": body.get("chatId", ""),
            }.get(recorded.kind or "", "")
            self.timeline.append((time.time(), recorded.kind or "", key))

    return TimedFake().start()


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _env(**extra: str) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update({"PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "LOCAL_LOG_LEVEL": "WARNING"})
    env.update(extra)
    return env


def _service_env(fake: Any, **extra: str) -> dict[str, str]:
    """A worker's environment: the fake LINE API, the offline model, then ``extra``."""
    return _env(
        LINE_CHANNEL_SECRET=SECRET,
        LINE_CHANNEL_ACCESS_TOKEN=TOKEN,
        LINE_API_HOST=fake.base_url,
        LOCAL_MODEL="offline",
        **extra,
    )


def _pubsub_env(fake: Any, pubsub: Any, firestore: Any, project: str, **extra: str) -> dict[str, str]:
    """A Pub/Sub-mode worker's environment on the two emulators."""
    return _service_env(
        fake,
        LOCAL_STORE="firestore",
        LOCAL_QUEUE="pubsub",
        GOOGLE_CLOUD_PROJECT=project,
        FIRESTORE_EMULATOR_HOST=firestore.endpoint,
        PUBSUB_EMULATOR_HOST=pubsub.endpoint,
        LOCAL_PUBSUB_PUSH_TOKEN=PUSH_TOKEN,
        **extra,
    )


def _serve(env: dict[str, str], log: Path) -> Server:
    port = free_port()
    with log.open("ab") as fh:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                APP,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--timeout-graceful-shutdown",
                "6",
            ],
            cwd=log.parent,
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    return Server(proc, port)


def _wait_healthy(servers: list[Server], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    for server in servers:
        while True:
            if server.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server on {server.port} did not start; see {log}")
            try:
                with urllib.request.urlopen(f"{server.url}/healthz", timeout=1) as response:
                    if json.loads(response.read()).get("status") == "ok":
                        break
            except OSError:
                pass
            time.sleep(0.1)


def _stop(servers: list[Server]) -> None:
    for server in servers:
        if server.proc.poll() is None:
            server.proc.terminate()
    for server in servers:
        try:
            server.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.proc.kill()


@dataclass
class Row:
    mode: str
    rate: float
    sent: int = 0
    acked: int = 0
    refused: int = 0
    ack_ms: list[float] = field(default_factory=list)
    loading_ms: list[float] = field(default_factory=list)
    reply_ms: list[float] = field(default_factory=list)
    answered: int = 0
    lost: int = 0
    twice: int = 0

    def cells(self) -> list[Any]:
        def p(values: list[float], q: float) -> float:
            return round(percentile(values, q), 1) if values else float("nan")

        return [
            self.mode,
            f"{self.rate:g}/s",
            self.sent,
            self.acked,
            round(median(self.ack_ms), 1) if self.ack_ms else float("nan"),
            p(self.ack_ms, 99),
            round(median(self.loading_ms), 1) if self.loading_ms else float("nan"),
            p(self.loading_ms, 99),
            round(median(self.reply_ms), 1) if self.reply_ms else float("nan"),
            p(self.reply_ms, 99),
            f"{self.answered}/{self.acked}",
            self.lost,
            self.twice,
        ]


HEADERS = [
    "mode",
    "offered",
    "sent",
    "acked",
    "ack p50 ms",
    "ack p99 ms",
    "POST->loading p50 ms",
    "POST->loading p99 ms",
    "POST->reply p50 ms",
    "POST->reply p99 ms",
    "answered",
    "lost",
    "twice",
]


async def _load(
    url: str, rate: float, count: int, tag: str
) -> list[tuple[dict[str, Any], float, int, float]]:
    """(event, scheduled epoch, status, ack ms) per message, sent open-loop at ``rate``."""
    import httpx

    from local_agent.testing import webhooks as W

    events = [W.text_event(f"U{tag}{i:06d}".ljust(33, "0"), "花壇有什麼好吃的店？") for i in range(count)]
    out: list[tuple[dict[str, Any], float, int, float]] = []
    async with httpx.AsyncClient(base_url=url, timeout=30.0) as client:
        start_perf, start_epoch = time.perf_counter(), time.time()

        async def one(i: int, event: dict[str, Any]) -> None:
            body, headers = W.signed(SECRET, event)
            try:
                status = (await client.post("/callback", content=body, headers=headers)).status_code
            except httpx.HTTPError:
                status = 0
            out.append(
                (event, start_epoch + i / rate, status, (time.perf_counter() - start_perf - i / rate) * 1000)
            )

        tasks = []
        for i, event in enumerate(events):
            delay = start_perf + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(i, event)))
        await asyncio.gather(*tasks)
    return out


def _measure(fake: Any, row: Row, sent: list[tuple[dict[str, Any], float, int, float]], drain: float) -> None:
    from local_agent.line.client import retry_key_for

    acked = [(e, t0, ms) for e, t0, status, ms in sent if status == 200]
    row.sent, row.acked, row.refused = len(sent), len(acked), len(sent) - len(acked)
    row.ack_ms = [ms for _, _, ms in acked]
    keys = {e["replyToken"]: i for i, (e, _, _) in enumerate(acked)}
    keys.update({retry_key_for(e["webhookEventId"]): i for i, (e, _, _) in enumerate(acked)})
    users = {e["source"]["userId"]: i for i, (e, _, _) in enumerate(acked)}
    deadline = time.monotonic() + drain
    answers: dict[int, list[float]] = defaultdict(list)
    while True:
        answers.clear()
        loads: dict[int, float] = {}
        with fake._cond:
            timeline = list(fake.timeline)
        for at, kind, key in timeline:
            if kind == "loading" and key in users:
                loads.setdefault(users[key], at)
            elif kind in ("reply", "push") and key in keys:
                answers[keys[key]].append(at)
        if len(answers) >= len(acked) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    time.sleep(1.5)  # a second answer, if any, would come now
    with fake._cond:
        late = [
            (k, at)
            for at, kind, k in fake.timeline[len(timeline) :]
            if kind in ("reply", "push") and k in keys
        ]
    for key, at in late:
        answers[keys[key]].append(at)
    row.answered, row.lost = len(answers), len(acked) - len(answers)
    row.twice = sum(1 for v in answers.values() if len(v) > 1)
    row.loading_ms = [(loads[i] - acked[i][1]) * 1000 for i in loads]
    row.reply_ms = [(min(v) - acked[i][1]) * 1000 for i, v in answers.items()]


def _emulators(work: Path) -> tuple[Any, Any]:
    from local_agent.testing.pubsub import PubsubEmulator, find_emulator

    script = find_emulator()
    if isinstance(script, str):
        raise RuntimeError(f"no Pub/Sub emulator: {script}")
    pubsub = PubsubEmulator.start(script, str(work))
    if isinstance(pubsub, str):
        raise RuntimeError(pubsub)
    sys.path.insert(0, str(ROOT / "tests"))
    from firestore_emulator import _launch  # the tests' launcher: the official emulator, else npm

    firestore = _launch(str(work))
    if isinstance(firestore, str):
        pubsub.stop()
        raise RuntimeError(f"no Firestore emulator: {firestore}")
    return pubsub, firestore


def _start_pubsub(fake: Any, work: Path, pubsub: Any, firestore: Any) -> tuple[list[Server], Any]:
    from local_agent.testing.pubsub import RoundRobinFront, setup_rest

    project = "bench-" + uuid.uuid4().hex[:12]
    env = _pubsub_env(fake, pubsub, firestore, project)
    log = work / "pubsub.log"
    servers = [_serve(env, log), _serve(env, log)]
    _wait_healthy(servers, log)
    front = RoundRobinFront([s.port for s in servers]).start()
    setup_rest(
        pubsub.endpoint,
        project,
        "local-events",
        "local-events-push",
        f"{front.base_url}/pubsub/push?token={PUSH_TOKEN}",
    )
    return servers, front


def run(rates: list[float], seconds: float, drain: float) -> list[Row]:
    """Every rate on inprocess, then on pubsub; the emulators start once."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-queues-") as tmp:
        work = Path(tmp)
        fake = _timed_fake()
        pubsub, firestore = _emulators(work)
        servers: list[Server] = []
        front = None
        try:
            env = _service_env(
                fake,
                LOCAL_STORE="sqlite",
                LOCAL_SQLITE_PATH=str(work / "in.sqlite3"),
            )
            servers = [_serve(env, work / "inprocess.log")]
            _wait_healthy(servers, work / "inprocess.log")
            rows += _rates("inprocess", servers[0].url, fake, rates, seconds, drain)
            _stop(servers)
            servers, front = _start_pubsub(fake, work, pubsub, firestore)
            rows += _rates("pubsub", front.base_url, fake, rates, seconds, drain)
        finally:
            _stop(servers)
            if front is not None:
                front.stop()
            fake.stop()
            pubsub.stop()
            firestore.process.terminate()
            firestore.process.wait(timeout=20)
    return rows


def _rates(mode: str, url: str, fake: Any, rates: list[float], seconds: float, drain: float) -> list[Row]:
    asyncio.run(_load(url, 5.0, 5, f"{mode[:2]}warm"))  # first turns import lazily: not reported
    time.sleep(2.0)
    rows = []
    for rate in rates:
        row = Row(mode, rate)
        sent = asyncio.run(_load(url, rate, max(1, int(rate * seconds)), f"{mode[:2]}{int(rate)}"))
        _measure(fake, row, sent, drain)
        rows.append(row)
    return rows


__all__ = ["HEADERS", "Row", "run"]
