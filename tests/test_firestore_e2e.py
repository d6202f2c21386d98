"""The app on Firestore (the emulator started by the session fixture ``firestore_emulator``).

* The replay of the shipped scripts gives the same tool calls and journal states on Firestore as
  on SQLite (the ReplayDriver in-process, settings from the environment).
* Two uvicorn worker processes share one emulator project (two Cloud Run instances of one
  service): interleaved turns of one user lose nothing, a webhook redelivered to both runs once,
  and a small concurrent run loses and crosses nothing.
* Every document the run left in the emulator is read back and searched for the raw messages.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path

import httpx
import pytest
from helpers_app import SECRET, TOKEN
from multiproc import (
    FRESH_CONNECTIONS,
    DeliveryWatch,
    ServerProcess,
    Turn,
    base_env,
    check_deliveries,
    check_store,
    drive_users,
    make_conversation,
    scan,
    scope_id,
    start_servers,
)

from examples.day15.replay import load_script, replay
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import FakeLineApi

pytestmark = [pytest.mark.firestore, pytest.mark.slow]

SCRIPTS = Path(__file__).resolve().parents[1] / "examples" / "day15" / "scripts"
COMPARED = ("tool_calls", "journal", "error_code", "replies")


def _emulator_line(emulator) -> str:
    return (
        f"[firestore-e2e] Firestore server: {emulator.kind} — {emulator.description} at {emulator.endpoint} "
        f"(transactions {'isolated' if emulator.isolates_transactions else 'NOT isolated'})"
    )


# -- replay: SQLite vs Firestore -----------------------------------------------------------------------


def _replay(events: list[dict]) -> list[dict]:
    lines: list[dict] = []
    asyncio.run(asyncio.wait_for(replay(events, out=lines.append), 120))
    return lines


@pytest.mark.parametrize("script", ["five_turns.json", "consent_forget.json"])
def test_replay_on_firestore_matches_sqlite(
    script: str,
    firestore_emulator,
    firestore_project: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    with capsys.disabled():
        print("\n" + _emulator_line(firestore_emulator))
    events = load_script(SCRIPTS / script)
    for key in (
        "LOCAL_SQLITE_PATH",
        "LOCAL_INPUT_BUDGET",
        "LOCAL_APPROVE_COUNT_TOKENS",
        "LOCAL_MODEL",
        "GOOGLE_CLOUD_PROJECT",
        "LOCAL_FIRESTORE_DATABASE",
    ):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(Path(__file__).resolve().parent)  # no stray .env

    monkeypatch.setenv("LOCAL_STORE", "sqlite")
    on_sqlite = _replay(events)

    monkeypatch.setenv("LOCAL_STORE", "firestore")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", firestore_project)
    on_firestore = _replay(events)

    assert len(on_sqlite) == len(on_firestore) == len(events)
    for a, b in zip(on_sqlite, on_firestore, strict=True):
        for key in COMPARED:
            assert a[key] == b[key], (a["index"], key)
    # the Firestore run really wrote to the emulator project
    from local_agent.stores.firestore import FirestoreStore

    store = FirestoreStore(project=firestore_project)
    try:
        journals = store.journal_rows()
        assert len(journals) == 1
        assert len(store.snapshots()) == sum(1 for line in on_firestore if line["model_requests"])
    finally:
        store.close()


# -- two worker processes sharing one emulator project ----------------------------------------------------


class FsCluster:
    def __init__(self, root: Path, line: FakeLineApi, emulator, project: str) -> None:
        self.line, self.emulator, self.project = line, emulator, project
        env = base_env(
            LINE_CHANNEL_SECRET=SECRET,
            LINE_CHANNEL_ACCESS_TOKEN=TOKEN,
            LINE_API_HOST=line.base_url,
            LOCAL_STORE="firestore",
            GOOGLE_CLOUD_PROJECT=project,
            LOCAL_MODEL="offline",
            FIRESTORE_EMULATOR_HOST=emulator.endpoint,
            LOCAL_LOG_LEVEL="INFO",
        )
        self.servers = [ServerProcess("F1", env, root), ServerProcess("F2", env, root)]
        self.sent_texts: list[str] = []
        self.startup_s = 0.0

    @property
    def urls(self) -> list[str]:
        return [s.base_url for s in self.servers]

    def store(self):
        from local_agent.stores.firestore import FirestoreStore

        return FirestoreStore(project=self.project)

    def wait_idle(self, timeout: float = 30.0) -> None:
        for server in self.servers:
            assert server.wait_idle(timeout), f"{server.name} still busy"

    def drive(self, conversations: list[list[Turn]]) -> DeliveryWatch:
        for conversation in conversations:
            self.sent_texts.extend(t.text for t in conversation)
        watch = asyncio.run(
            drive_users(conversations, self.urls, self.line, SECRET, turn_timeout=60, deadline_s=120)
        )
        self.wait_idle()
        return watch


@pytest.fixture(scope="module")
def fs_cluster(firestore_emulator, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("firestore-e2e")
    project = "e2e-" + uuid.uuid4().hex[:16]
    line = FakeLineApi(access_token=TOKEN).start()
    cluster = FsCluster(root, line, firestore_emulator, project)
    started = time.monotonic()
    try:
        start_servers(cluster.servers)
        cluster.startup_s = time.monotonic() - started
        yield cluster
    finally:
        for server in cluster.servers:
            server.stop()
        line.stop()
        try:
            firestore_emulator.wipe(project)
        except OSError as exc:
            print(f"wiping {project} failed: {exc}")


def test_interleaved_turns_of_one_user_across_two_instances_lose_nothing(
    fs_cluster: FsCluster, capsys: pytest.CaptureFixture
) -> None:
    conversation = make_conversation(
        "Ufsinterleave0000000000000000001", 1, 10, seed=7, phone_prefix="0933", first="places", servers=2
    )
    assert [t.server for t in conversation] == [1, 0] * 5  # alternating instances
    started = time.monotonic()
    watch = fs_cluster.drive([conversation])
    seconds = time.monotonic() - started
    with capsys.disabled():
        print(
            f"\n{_emulator_line(fs_cluster.emulator)}\n[firestore-e2e] 2 workers ready in "
            f"{fs_cluster.startup_s:.1f} s; 10 interleaved turns in {seconds:.1f} s"
        )
    assert check_deliveries([conversation], watch) == []
    store = fs_cluster.store()
    try:
        assert check_store(store, [conversation], exclusive=False) == []
        tool_turns = sum(1 for t in conversation if t.kind in ("places", "events")) + sum(
            1 for t in conversation if t.kind.startswith("ref_")
        )  # every ref resolves: turn 0 names one
        assert len(store.audit_rows(scope_id(conversation[0].user))) == tool_turns
    finally:
        store.close()


def test_redelivered_event_to_both_instances_runs_once(fs_cluster: FsCluster) -> None:
    events = [
        W.text_event(f"Ufsredeliver{i:020d}", f"我有痛風，電話0944-{i:03d}-321，員林有什麼好吃的店？")
        for i in range(3)
    ]
    fs_cluster.sent_texts.extend(e["message"]["text"] for e in events)
    turns = [Turn(e["source"]["userId"], 0, e["message"]["text"], "places", "員林市", e) for e in events]
    watch = DeliveryWatch.from_now(fs_cluster.line)
    for turn in turns:
        watch.expect(turn)

    async def both() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=30, limits=FRESH_CONNECTIONS) as client:
            posts = []
            for event in events:
                body, headers = W.signed(SECRET, event)
                posts += [
                    client.post(f"{url}/callback", content=body, headers=headers) for url in fs_cluster.urls
                ]
            return list(await asyncio.gather(*posts))

    assert [r.status_code for r in asyncio.run(both())] == [200] * 6
    fs_cluster.wait_idle()
    time.sleep(0.3)
    fs_cluster.wait_idle()
    watch.poll()
    store = fs_cluster.store()
    try:
        for turn in turns:
            assert len(watch.delivered.get(turn.event_id, [])) == 1
            assert [r.turn_id for r in store.audit_rows(scope_id(turn.user))] == [turn.event_id]
            assert [s.turn_id for s in store.snapshots(scope_id(turn.user))] == [turn.event_id]
    finally:
        store.close()
    dupes = sum(s.stdout().count("duplicate event dropped") for s in fs_cluster.servers)
    assert dupes == len(events)


@pytest.fixture(scope="module")
def fs_concurrency(fs_cluster: FsCluster):
    conversations = [
        make_conversation(f"Ufsconc{u:025d}", u, 4, seed=11, phone_prefix="0922") for u in range(5)
    ]
    started = time.monotonic()
    watch = fs_cluster.drive(conversations)
    return conversations, watch, time.monotonic() - started


def test_small_concurrent_run_on_firestore_loses_and_crosses_nothing(
    fs_cluster: FsCluster, fs_concurrency, capsys: pytest.CaptureFixture
) -> None:
    conversations, watch, seconds = fs_concurrency
    with capsys.disabled():
        print(f"\n[firestore-e2e] 5x4 concurrent turns over 2 instances in {seconds:.1f} s")
    assert sum(len(v) for v in watch.delivered.values()) == 20
    assert watch.strays == []
    assert check_deliveries(conversations, watch) == []
    store = fs_cluster.store()
    try:
        assert check_store(store, conversations, exclusive=False) == []
    finally:
        store.close()


def _documents(client, collections, depth: int = 0):
    """Every document under ``collections`` (and their subcollections, 3 levels at most)."""
    for collection in collections:
        for doc in collection.stream():
            yield doc
            if depth < 3:
                yield from _documents(client, doc.reference.collections(), depth + 1)


def test_privacy_scan_of_every_firestore_document(
    fs_cluster: FsCluster, fs_concurrency, capsys: pytest.CaptureFixture
) -> None:
    from google.cloud import firestore

    needles = set(fs_cluster.sent_texts)
    assert len(needles) >= 20 and all(len(t) >= 8 for t in needles)
    phones = {t.split("電話")[1][:12] for t in needles}
    assert len(phones) == len(needles)
    client = firestore.Client(project=fs_cluster.project)
    try:
        names = sorted(c.id for c in client.collections())
        docs = list(_documents(client, client.collections()))
        blob = "\n".join(
            json.dumps({"path": d.reference.path, "data": d.to_dict()}, default=str, ensure_ascii=False)
            for d in docs
        ).encode("utf-8")
    finally:
        client.close()
    assert {"local_journal", "local_audit", "local_snapshots", "local_webhook_events"} <= set(names)
    hits = scan({"firestore": blob}, needles | phones)
    with capsys.disabled():
        print(
            f"\n[firestore-e2e] privacy scan: {len(docs)} documents in {names} ({len(blob) // 1024} KiB), "
            f"{len(needles)} messages + {len(phones)} phone fragments: {len(hits)} hits"
        )
    assert hits == []
