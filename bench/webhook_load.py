"""Webhook load: the real LOCAL app vs a minimal echo bot, side by side, on loopback.

Each server runs under uvicorn in its own subprocess, each with its own fake LINE API in a
third process (so the load generator's CPU is its own). The generator is bounded (a fixed
message count AND a time limit per phase; it stops by itself) and runs, against each server:

  closed loop  C = 1, 10, 100 concurrent senders (each sender its own httpx client), each
               sending the next message as soon as the previous one was acknowledged;
  open loop    a fixed offered rate (default 200 req/s for 2 s); latency counted from the
               scheduled send time, so a stalled server cannot hide queueing.

Then two fault phases per server (their own table):

  overload     an offered rate above capacity (default 400 req/s for 3 s): accepted (200),
               rejected (503: LOCAL's admission asks LINE to redeliver), answered;
  SIGTERM      the same kind of load, with SIGTERM to the server half-way: accepted, rejected,
               refused connections, answered, and lost = accepted but never answered, plus the
               seconds from SIGTERM to exit (Cloud Run allows 10).

After every phase it waits (bounded) until the fake LINE API has recorded an answer (reply or
push) for every acknowledged message. Reported per phase: ack latency p50/p99, acks per second,
completed turns per second (answers recorded at the fake / time from phase start to the last
answer), answered/sent, the generator's own CPU time and the server's CPU per message.

    python -m bench.webhook_load [--quick] [--out-dir out/bench] [--rate 200] [--open-seconds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench._common import (
    ROOT,
    SECRET,
    TOKEN,
    conversation,
    format_table,
    free_port,
    key_line,
    load_note,
    median,
    out_path,
    percentile,
    proc_cpu_seconds,
    pyplot,
    write_csv,
)

NAME = "webhook_load"
ACK_P99_TARGET_MS = 25.0
STARTUP_TIMEOUT = 60.0


# -- subprocess roles -------------------------------------------------------------------------


def serve_fake(port_file: Path) -> int:
    """The fake LINE API (TCP_NODELAY), plus a tiny /stats endpoint for the generator."""
    from bench._common import start_fake_line_api
    from local_agent.testing.fake_line_api import FakeLineApi

    class CountingFake(FakeLineApi):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.counts: Counter[str] = Counter()
            self.last_answer_at = 0.0

        def _record(self, *args: Any, **kwargs: Any) -> None:  # caller holds the lock
            super()._record(*args, **kwargs)
            recorded = self._requests[-1]
            kind, ok = recorded.kind or "other", recorded.accepted
            self.counts[f"{kind}_{'ok' if ok else 'rejected'}"] += 1
            if ok and kind in ("reply", "push"):
                self.counts["answers"] += 1
                self.last_answer_at = time.time()
            self._requests.clear()  # keep memory flat under load; counts are all we need

    fake = start_fake_line_api(TOKEN, nodelay=True, cls=CountingFake)

    class Stats(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            with fake._cond:
                data = json.dumps({**fake.counts, "last_answer_at": fake.last_answer_at}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    stats = ThreadingHTTPServer(("127.0.0.1", 0), Stats)
    threading.Thread(target=stats.serve_forever, daemon=True).start()
    tmp = port_file.with_suffix(".tmp")
    tmp.write_text(
        json.dumps({"line_url": fake.base_url, "stats_url": f"http://127.0.0.1:{stats.server_port}"})
    )
    tmp.replace(port_file)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait(timeout=600)  # bounded even if the parent vanished
    stats.shutdown()
    fake.stop()
    return 0


def serve_app(port: int, line_url: str, db_path: str) -> int:
    import uvicorn

    from bench._common import bench_settings
    from local_agent.server.app import create_app
    from local_agent.server.http_deadlines import DeadlineH11Protocol

    app = create_app(bench_settings(line_url, db_path), configure_logs=False)
    uvicorn.run(  # the production server settings (Dockerfile CMD)
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        http=DeadlineH11Protocol,
        timeout_graceful_shutdown=6,
    )
    return 0


# -- process management -----------------------------------------------------------------------


@dataclass
class Target:
    name: str
    url: str
    stats_url: str
    server: subprocess.Popen
    fake: subprocess.Popen


def _spawn(args: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with log.open("ab") as fh:
        return subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT
        )


def start_target(name: str, workdir: Path) -> Target:
    port_file = workdir / f"{name}-fake.json"
    log = workdir / f"{name}.log"
    fake = _spawn(["-m", "bench.webhook_load", "--role", "fake", "--port-file", str(port_file)], log)
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not port_file.exists():
        if fake.poll() is not None or time.monotonic() > deadline:
            fake.kill()
            raise RuntimeError(f"fake LINE API for {name} did not start; see {log}")
        time.sleep(0.05)
    info = json.loads(port_file.read_text())
    port = free_port()
    if name == "echo":
        server = _spawn(["-m", "bench.echo_bot", "--port", str(port), "--line-url", info["line_url"]], log)
    else:
        server = _spawn(
            [
                "-m",
                "bench.webhook_load",
                "--role",
                "app",
                "--port",
                str(port),
                "--line-url",
                info["line_url"],
                "--db",
                str(workdir / f"{name}.sqlite3"),
            ],
            log,
        )
    return Target(name, f"http://127.0.0.1:{port}", info["stats_url"], server, fake)


def wait_healthy(target: Target, log: Path) -> None:
    import httpx

    deadline = time.monotonic() + STARTUP_TIMEOUT
    while True:
        if target.server.poll() is not None:
            raise RuntimeError(f"{target.name} server exited; see {log}")
        try:
            if httpx.get(f"{target.url}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{target.name} server did not become healthy; see {log}")
        time.sleep(0.1)


def stop_target(target: Target) -> None:
    for proc in (target.server, target.fake):
        if proc.poll() is None:
            proc.terminate()
    for proc in (target.server, target.fake):
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def fake_stats(target: Target) -> dict[str, Any]:
    import httpx

    return httpx.get(f"{target.stats_url}/stats", timeout=5.0).json()


# -- load generation --------------------------------------------------------------------------


@dataclass
class Phase:
    target: str
    phase: str
    offered: int
    sent: int = 0
    acked: int = 0
    errors: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    from_actual_ms: list[float] = field(default_factory=list)  # open loop: from the actual send time
    send_span_s: float = float("nan")
    ack_span_s: float = float("nan")
    answered: int = 0
    turn_span_s: float = float("nan")
    drained: bool = False
    gen_cpu_s: float = float("nan")
    server_cpu_s: float = float("nan")
    fake_cpu_s: float = float("nan")
    late_sends: int = 0
    wall_start: float = 0.0
    exit_s: float = float("nan")  # SIGTERM phase: seconds from SIGTERM to the server's exit

    @property
    def acks_per_s(self) -> float:
        return self.acked / self.ack_span_s if self.ack_span_s > 0 else float("nan")

    @property
    def turns_per_s(self) -> float:
        return self.answered / self.turn_span_s if self.turn_span_s > 0 else float("nan")


def make_bodies(tag: str, senders: int, per_sender: int) -> list[list[tuple[bytes, dict[str, str]]]]:
    """Signed single-message webhook bodies: per sender, its own four users, cycling the script."""
    from local_agent.testing.webhooks import signed, text_event

    out = []
    for k in range(senders):
        texts = conversation(per_sender, offset=k)
        users = ["U" + hashlib.md5(f"{tag}-{k}-{u}".encode()).hexdigest() for u in range(4)]
        out.append([signed(SECRET, text_event(users[j % 4], text)) for j, text in enumerate(texts)])
    return out


async def _post(client, phase: Phase, body: bytes, headers: dict[str, str], since: float) -> float | None:
    import httpx

    phase.sent += 1
    try:
        response = await client.post("/callback", content=body, headers=headers)
    except httpx.HTTPError as exc:
        phase.errors[type(exc).__name__] += 1
        return None
    done = time.perf_counter()
    if response.status_code == 200:
        phase.acked += 1
        phase.latencies_ms.append((done - since) * 1000)
    else:
        phase.errors[f"http_{response.status_code}"] += 1
    return done


async def closed_loop(
    url: str, phase: Phase, bodies: list[list[tuple[bytes, dict[str, str]]]], max_seconds: float
) -> None:
    import httpx

    clients = [httpx.AsyncClient(base_url=url, timeout=10.0, verify=False) for _ in bodies]  # plain http
    try:
        phase.wall_start, start = time.time(), time.perf_counter()
        deadline = start + max_seconds
        last = [start]

        async def sender(client, mine) -> None:
            for body, headers in mine:
                if time.perf_counter() >= deadline:
                    return
                done = await _post(client, phase, body, headers, time.perf_counter())
                if done:
                    last.append(done)

        cpu0 = time.process_time()
        await asyncio.gather(*(sender(c, mine) for c, mine in zip(clients, bodies, strict=True)))
        phase.gen_cpu_s = time.process_time() - cpu0
        phase.send_span_s = phase.ack_span_s = max(last) - start
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


async def open_loop(
    url: str, phase: Phase, bodies: list[tuple[bytes, dict[str, str]]], rate: float, pool: int
) -> None:
    import httpx

    clients = [httpx.AsyncClient(base_url=url, timeout=10.0, verify=False) for _ in range(pool)]
    try:
        tasks = []
        last = []
        cpu0 = time.process_time()
        phase.wall_start, start = time.time(), time.perf_counter()

        async def one(client, body, headers, scheduled) -> None:
            actual = time.perf_counter()
            done = await _post(client, phase, body, headers, scheduled)
            if done:
                last.append(done)
                phase.from_actual_ms.append((done - actual) * 1000)

        for i, (body, headers) in enumerate(bodies):
            scheduled = start + i / rate
            delay = scheduled - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -0.005:
                phase.late_sends += 1
            tasks.append(asyncio.create_task(one(clients[i % pool], body, headers, scheduled)))
        phase.send_span_s = time.perf_counter() - start
        await asyncio.gather(*tasks)
        phase.gen_cpu_s = time.process_time() - cpu0
        phase.ack_span_s = (max(last) - start) if last else float("nan")
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


def run_phase(target: Target, phase: Phase, runner, drain_timeout: float, answered_before: int) -> int:
    """Run one phase, then wait (bounded) for every acked message to be answered at the fake."""
    cpu0, fake0 = proc_cpu_seconds(target.server.pid), proc_cpu_seconds(target.fake.pid)
    asyncio.run(runner)
    wall0 = phase.wall_start
    expected = answered_before + phase.acked
    stats = wait_for_answers(target, expected, drain_timeout)
    answers = int(stats.get("answers", 0))
    phase.drained = answers >= expected
    phase.answered = answers - answered_before
    last_at = float(stats.get("last_answer_at") or 0.0)
    phase.turn_span_s = last_at - wall0 if last_at > wall0 else float("nan")
    phase.server_cpu_s = proc_cpu_seconds(target.server.pid) - cpu0
    phase.fake_cpu_s = proc_cpu_seconds(target.fake.pid) - fake0
    return answers


def wait_for_answers(target: Target, expected: int, timeout: float) -> dict[str, Any]:
    """The fake's stats once ``expected`` answers arrived, or when the bounded wait ended."""
    deadline = time.monotonic() + timeout
    while True:
        stats = fake_stats(target)
        if int(stats.get("answers", 0)) >= expected or time.monotonic() > deadline:
            return stats
        time.sleep(0.05)


def open_bodies(tag: str, count: int, pool: int) -> list[tuple[bytes, dict[str, str]]]:
    return [b for chunk in make_bodies(tag, pool, math.ceil(count / pool)) for b in chunk][:count]


def sigterm_phase(
    target: Target, phase: Phase, rate: float, seconds: float, pool: int, timeout: float
) -> None:
    """Open-loop load with SIGTERM to the server half-way; then count what was answered."""
    answered_before = int(fake_stats(target).get("answers", 0))
    signalled: list[float] = []

    def terminate() -> None:
        signalled.append(time.perf_counter())
        target.server.send_signal(signal.SIGTERM)

    timer = threading.Timer(seconds / 2, terminate)
    bodies = open_bodies(f"{target.name}-term", phase.offered, pool)
    timer.start()
    try:
        asyncio.run(open_loop(target.url, phase, bodies, rate, pool))
    finally:
        timer.cancel()
    try:
        target.server.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    exited = time.perf_counter()
    if signalled and target.server.poll() is not None:
        phase.exit_s = exited - signalled[0]
    stats = wait_for_answers(target, answered_before + phase.acked, 2.0)  # the server is gone
    phase.answered = int(stats.get("answers", 0)) - answered_before
    phase.drained = phase.answered >= phase.acked


def final_drain(target: Target, expected: int, timeout: float) -> int:
    """Answers recorded at the fake once all ``expected`` arrived (or the bounded wait ended)."""
    return int(wait_for_answers(target, expected, timeout).get("answers", 0))


# -- the queue modes (target "pubsub") --------------------------------------------------------


def queue_section(args: argparse.Namespace) -> dict[str, Any]:
    """LOCAL_QUEUE=inprocess (one instance, SQLite) beside LOCAL_QUEUE=pubsub (two instances,
    Pub/Sub and Firestore emulators, a round-robin front): see ``bench/queue_modes.py``."""
    from bench import queue_modes

    rates = [float(x) for x in args.queue_rates.split(",") if x]
    rows = queue_modes.run(rates, args.queue_seconds, max(args.drain_timeout, 60.0))
    print(
        "Queue modes: inprocess = one instance on SQLite; pubsub = two instances on the Firestore emulator "
        "behind a round-robin front, the Pub/Sub emulator pushing to /pubsub/push (at most two pushes at "
        "once: the emulator's limit, not Cloud Run's). One message per new person, open loop; times from "
        "the scheduled send; lost = acknowledged, never answered; twice = answered more than once."
    )
    table = [row.cells() for row in rows]
    print(format_table(queue_modes.HEADERS, table))
    csv_file = write_csv(out_path(f"{NAME}_queues.csv", args.out_dir), queue_modes.HEADERS, table)
    print(f"  wrote {csv_file}")
    key: dict[str, Any] = {}
    for row in rows:
        tag = f"{row.mode}{row.rate:g}"
        key[f"{tag}_ack_p99_ms"] = f"{percentile(row.ack_ms, 99):.1f}"
        key[f"{tag}_reply_p99_ms"] = f"{percentile(row.reply_ms, 99):.0f}"
        key[f"{tag}_lost"] = str(row.lost)
        key[f"{tag}_twice"] = str(row.twice)
    return key


# -- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role", choices=("bench", "fake", "app"), default="bench", help=argparse.SUPPRESS)
    parser.add_argument("--port-file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--line-url", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument(
        "--concurrency", default="1,10,100", help="closed-loop sender counts (default 1,10,100)"
    )
    parser.add_argument(
        "--messages",
        default="100,200,300",
        help="max messages per closed-loop phase, one per concurrency (default 100,200,300)",
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="time limit of each closed-loop phase")
    parser.add_argument(
        "--rate", type=float, default=200.0, help="open-loop offered rate, req/s (default 200)"
    )
    parser.add_argument("--open-seconds", type=float, default=2.0, help="open-loop duration (default 2 s)")
    parser.add_argument("--pool", type=int, default=32, help="open-loop httpx clients (default 32)")
    parser.add_argument("--drain-timeout", type=float, default=30.0, help="max wait for answers per phase")
    parser.add_argument("--warmup", type=int, default=10, help="unreported warm-up messages per server")
    parser.add_argument(
        "--overload-rate", type=float, default=400.0, help="fault phases' offered rate, req/s"
    )
    parser.add_argument("--overload-seconds", type=float, default=3.0, help="fault phases' duration (s)")
    parser.add_argument(
        "--targets",
        default="local,echo",
        help="which servers (default local,echo); add pubsub for the queue modes side by side on the emulators, "
        "inbox for the durable inbox's cold-start burst and kill -9 phases",
    )
    parser.add_argument("--queue-rates", default="25,50", help="pubsub target: offered rates, req/s")
    parser.add_argument("--queue-seconds", type=float, default=4.0, help="pubsub target: seconds per rate")
    parser.add_argument("--quick", action="store_true", help="smoke-test size")
    parser.add_argument("--out-dir", default=None, help="where CSV/PNG go (default out/bench)")
    args = parser.parse_args(argv)
    if args.role == "fake":
        return serve_fake(args.port_file)
    if args.role == "app":
        return serve_app(args.port, args.line_url, args.db)
    if args.quick:
        args.concurrency, args.messages, args.seconds = "1,10", "10,40", 2.0
        args.rate, args.open_seconds, args.pool, args.drain_timeout, args.warmup = 50.0, 1.0, 8, 20.0, 3
        args.overload_rate, args.overload_seconds = 100.0, 1.0
    levels = [int(x) for x in args.concurrency.split(",") if x]
    caps = [int(x) for x in args.messages.split(",") if x]
    if len(caps) != len(levels) or min(levels + caps) < 1:
        parser.error("--messages needs one positive count per --concurrency level")
    names = [n for n in args.targets.split(",") if n]
    if not set(names) <= {"local", "echo", "pubsub", "inbox"} or not names:
        parser.error("--targets is a subset of local,echo,pubsub,inbox")
    queues = "pubsub" in names
    if "inbox" in names:  # the durable inbox's phases: cold-start bursts, kill -9 (see bench/inbox_phases.py)
        from bench import inbox_phases

        print(key_line(f"{NAME}_inbox", inbox_phases.section(args.quick, args.drain_timeout)))
    names = [n for n in names if n not in ("pubsub", "inbox")]
    if not names:  # the queue modes (or the inbox phases) alone
        if queues:
            print(key_line(NAME, queue_section(args)))
        return 0

    started = time.perf_counter()
    phases: list[Phase] = []
    fault_phases: list[Phase] = []
    totals: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        work = Path(tmp)
        targets: list[Target] = []
        try:
            for name in names:  # start all servers first: their start-up overlaps
                targets.append(start_target(name, work))
            for target in targets:
                wait_healthy(target, work / f"{target.name}.log")
            for target in targets:
                warm = Phase(target.name, "warm-up", args.warmup)  # not reported: first turns import lazily
                answered = run_phase(
                    target,
                    warm,
                    closed_loop(target.url, warm, make_bodies(f"{target.name}-warm", 1, args.warmup), 30.0),
                    args.drain_timeout,
                    int(fake_stats(target).get("answers", 0)),
                )
                for level, cap in zip(levels, caps, strict=True):
                    per_sender = max(1, math.ceil(cap / level))
                    phase = Phase(target.name, f"closed C={level}", level * per_sender)
                    bodies = make_bodies(f"{target.name}-c{level}", level, per_sender)
                    answered = run_phase(
                        target,
                        phase,
                        closed_loop(target.url, phase, bodies, args.seconds),
                        args.drain_timeout,
                        answered,
                    )
                    phases.append(phase)
                count = max(1, int(args.rate * args.open_seconds))
                phase = Phase(target.name, f"open {args.rate:g}/s", count)
                flat = [
                    b
                    for chunk in make_bodies(f"{target.name}-open", args.pool, math.ceil(count / args.pool))
                    for b in chunk
                ][:count]
                answered = run_phase(
                    target,
                    phase,
                    open_loop(target.url, phase, flat, args.rate, args.pool),
                    args.drain_timeout,
                    answered,
                )
                phases.append(phase)
                totals[target.name] = (
                    final_drain(
                        target,
                        warm.acked + sum(p.acked for p in phases if p.target == target.name),
                        args.drain_timeout,
                    )
                    - warm.answered
                )
                count = max(1, int(args.overload_rate * args.overload_seconds))
                over = Phase(target.name, f"overload {args.overload_rate:g}/s", count)
                run_phase(
                    target,
                    over,
                    open_loop(
                        target.url,
                        over,
                        open_bodies(f"{target.name}-over", count, args.pool),
                        args.overload_rate,
                        args.pool,
                    ),
                    args.drain_timeout,
                    int(fake_stats(target).get("answers", 0)),
                )
                fault_phases.append(over)
                term = Phase(target.name, f"SIGTERM at {args.overload_seconds / 2:g} s", count)
                sigterm_phase(target, term, args.overload_rate, args.overload_seconds, args.pool, 30.0)
                fault_phases.append(term)
        finally:
            for target in targets:
                stop_target(target)
    elapsed = time.perf_counter() - started

    headers = [
        "target",
        "phase",
        "offered",
        "sent",
        "acked",
        "errors",
        "ack_p50_ms",
        "ack_p99_ms",
        "acks_per_s",
        "answered",
        "answered_all",
        "turns_per_s",
        "gen_cpu_s",
        "gen_cpu_pct",
        "server_cpu_ms_per_msg",
        "fake_line_cpu_ms_per_msg",
        "late_sends",
        "drained",
    ]
    rows = []
    for p in phases:
        gen_pct = 100 * p.gen_cpu_s / p.ack_span_s if p.ack_span_s > 0 else float("nan")
        rows.append(
            [
                p.target,
                p.phase,
                p.offered,
                p.sent,
                p.acked,
                sum(p.errors.values()),
                round(median(p.latencies_ms), 3),
                round(percentile(p.latencies_ms, 99), 3),
                round(p.acks_per_s, 1),
                p.answered,
                p.answered == p.sent and p.drained,
                round(p.turns_per_s, 1),
                round(p.gen_cpu_s, 3),
                round(gen_pct, 1),
                round(1000 * p.server_cpu_s / max(1, p.sent), 3),
                round(1000 * p.fake_cpu_s / max(1, p.sent), 3),
                p.late_sends,
                p.drained,
            ]
        )
    csv_file = write_csv(out_path(f"{NAME}.csv", args.out_dir), headers, rows)
    fault_headers = [
        "target",
        "phase",
        "offered",
        "accepted",
        "rejected_503",
        "refused_or_failed",
        "answered",
        "lost",
        "exit_s_after_sigterm",
        "failures",
    ]
    fault_rows = [
        [
            p.target,
            p.phase,
            p.sent,
            p.acked,
            p.errors.get("http_503", 0),
            sum(v for k, v in p.errors.items() if k != "http_503"),
            p.answered,
            max(0, p.acked - p.answered),
            round(p.exit_s, 2),
            " ".join(f"{k}:{v}" for k, v in sorted(p.errors.items()) if k != "http_503") or "-",
        ]
        for p in fault_phases
    ]
    faults_csv = write_csv(out_path(f"{NAME}_faults.csv", args.out_dir), fault_headers, fault_rows)

    print(
        "webhook_load: real LOCAL app (offline stand-in model, SQLite) vs minimal echo bot, each under uvicorn "
        "in its own subprocess with its own fake LINE API process, loopback only."
    )
    print(
        f"machine: {load_note()} — generator, servers and fakes share these cores; compare within this run."
    )
    print(
        "closed loop: C senders, each its own httpx client, bounded by count and "
        f"{args.seconds:g} s; open loop: {args.rate:g} req/s for {args.open_seconds:g} s over {args.pool} "
        "clients, latency from the scheduled send time."
    )
    print(
        "ack = HTTP 200 from POST /callback; answered = reply/push recorded at the fake LINE API; "
        "turns/s = answered / (phase start -> last answer)."
    )
    print()
    print(
        format_table(
            [
                "target",
                "phase",
                "sent",
                "acked",
                "ack p50 ms",
                "ack p99 ms",
                "acks/s",
                "answered",
                "turns/s",
                "gen CPU s",
                "gen CPU %",
                "server CPU ms/msg",
                "fake LINE CPU ms/msg",
            ],
            [
                [
                    r[0],
                    r[1],
                    r[3],
                    r[4],
                    r[6],
                    r[7],
                    r[8],
                    f"{r[9]}/{r[3]}",
                    r[11],
                    r[12],
                    r[13],
                    r[14],
                    r[15],
                ]
                for r in rows
            ],
        )
    )
    key: dict[str, Any] = {}
    errors = [(p.target, p.phase, dict(p.errors)) for p in phases if p.errors]
    if errors:
        print(f"errors: {errors}")
    print()

    print(
        f"Fault phases: offered {args.overload_rate:g} req/s for {args.overload_seconds:g} s (above capacity); "
        "accepted = 200, lost = accepted but never answered at the fake LINE API."
    )
    print(format_table(fault_headers, fault_rows))
    for p in fault_phases:
        if p.phase.startswith("SIGTERM"):
            key[f"sigterm_lost_{p.target}"] = str(max(0, p.acked - p.answered))
            key[f"sigterm_exit_s_{p.target}"] = f"{p.exit_s:.1f}"
        else:
            key[f"overload_accepted_{p.target}"] = f"{p.acked}/{p.sent}"
    print(f"  wrote {faults_csv}")
    print()

    by = {(p.target, p.phase): p for p in phases}
    print("Targets (reported, not asserted):")
    if "local" in names and "echo" in names:
        for level in levels:
            mine, base = by[("local", f"closed C={level}")], by[("echo", f"closed C={level}")]
            ratio = mine.acks_per_s / base.acks_per_s
            verdict = "MET" if ratio >= 1.0 else "NOT MET"
            print(
                f"  ack throughput >= 1.0 x echo bot, C={level}: {mine.acks_per_s:,.0f} vs {base.acks_per_s:,.0f} "
                f"acks/s -> x{ratio:.2f} {verdict}   (completed turns/s: {mine.turns_per_s:,.0f} vs "
                f"{base.turns_per_s:,.0f})"
            )
            key[f"ack_ratio_c{level}"] = f"{ratio:.2f}"
    open_label = f"open {args.rate:g}/s"
    for name in names:
        p = by[(name, open_label)]
        p99 = percentile(p.latencies_ms, 99)
        verdict = "MET" if p99 <= ACK_P99_TARGET_MS else "NOT MET"
        suffix = f" {verdict}" if name == "local" else " (baseline)"
        print(
            f"  ack p99 <= {ACK_P99_TARGET_MS:g} ms at offered {args.rate:g} req/s, {name}: p99 {p99:.1f} ms, "
            f"p50 {median(p.latencies_ms):.1f} ms from the scheduled time (from the actual send: p99 "
            f"{percentile(p.from_actual_ms, 99):.1f}, p50 {median(p.from_actual_ms):.1f} ms); achieved send rate "
            f"{p.sent / p.send_span_s:,.0f}/s, {p.late_sends} sends > 5 ms late{suffix}"
        )
        key[f"open{args.rate:g}_ack_p99_ms_{name}"] = f"{p99:.1f}"
    for name in names:
        mine = [p for p in phases if p.target == name]
        sent, acked, answered = sum(p.sent for p in mine), sum(p.acked for p in mine), totals.get(name, 0)
        verdict = "MET" if acked == answered else "NOT MET"
        print(
            f"  every acknowledged message answered, {name}: {answered:,}/{acked:,} {verdict}"
            f" ({sent - acked:,} of {sent:,} sent were answered 503 or failed: LINE redelivers those)"
        )
        key[f"answered_{name}"] = f"{answered}/{acked}"
        key[f"acked_{name}"] = f"{acked}/{sent}"
    cpu = {
        name: 1000
        * sum(p.server_cpu_s for p in phases if p.target == name)
        / max(1, sum(p.sent for p in phases if p.target == name))
        for name in names
    }
    print(
        "  server CPU per message over all phases: "
        + ", ".join(f"{n} {v:.1f} ms" for n, v in cpu.items())
        + " (LOCAL acks first and runs the turn on a second thread that shares the interpreter, so under overload its acks compete with turn work; "
        "the echo bot's ack includes its inline LINE reply)"
    )
    gen = sum(p.gen_cpu_s for p in phases)
    print(f"  generator CPU over all phases: {gen:.2f} s (time.process_time, this process only)")
    key["gen_cpu_s"] = f"{gen:.2f}"
    if ("local", f"closed C={levels[-1]}") in by:
        key[f"local_turns_per_s_c{levels[-1]}"] = f"{by[('local', f'closed C={levels[-1]}')].turns_per_s:.0f}"
    print(f"  wrote {csv_file}")

    png = out_path(f"{NAME}.png", args.out_dir)
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [p.phase for p in phases if p.target == names[0]]
    width = 0.8 / len(names)
    for n, name in enumerate(names):
        mine = [by[(name, label)] for label in labels]
        xs = [i + n * width for i in range(len(labels))]
        ax1.bar(xs, [p.acks_per_s for p in mine], width, label=f"{name} acks/s")
        ax1.plot(xs, [p.turns_per_s for p in mine], "k.", markersize=8)
        ax2.bar(xs, [percentile(p.latencies_ms, 99) for p in mine], width, label=f"{name} ack p99")
    for ax in (ax1, ax2):
        ax.set_xticks([i + width * (len(names) - 1) / 2 for i in range(len(labels))], labels, fontsize=8)
        ax.legend(fontsize=8)
    ax1.set_ylabel("acks per second (dots: completed turns/s)")
    ax2.set_ylabel("ack p99 ms (log)")
    ax2.set_yscale("log")
    ax2.axhline(ACK_P99_TARGET_MS, linestyle="--", linewidth=1)
    fig.suptitle("LOCAL webhook vs echo bot under load (loopback, shared 2-core machine)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    print(f"  wrote {png}  ({elapsed:.1f} s)")
    if queues:
        print()
        key.update(queue_section(args))
    print(key_line(NAME, key))
    return 0


if __name__ == "__main__":
    sys.exit(main())
