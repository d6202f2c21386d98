"""SqliteStore: WAL, no lost updates across processes, StoreError on an unusable file, dedupe
expiry, and bound parameters everywhere."""

from __future__ import annotations

import ast
import inspect
import multiprocessing
import re
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from local_agent.context.errors import StoreError
from local_agent.context.journal import ContextJournal, JournalRecord, ScopeKey
from local_agent.context.projection import SafeTurn
from local_agent.context.window import ContextWindow
from local_agent.stores import sqlite as sqlite_store
from local_agent.stores.ports import AuditRow, TurnSnapshot
from local_agent.stores.sqlite import SqliteStore

SCOPE = ScopeKey.for_user("U1")
APPENDS_PER_PROCESS = 50


def _append_many(path: str, start, n: int) -> None:
    """Worker (spawned process): append ``n`` turns to one scope through the journal."""
    store = SqliteStore(path)
    journal = ContextJournal(store, clock=time.time)
    start.wait(30)
    turns = (SafeTurn("places", "花壇鄉"), SafeTurn("events", "鹿港鎮"), SafeTurn())
    for i in range(n):
        journal.append(journal.read(SCOPE, 0), turns[i % 3], current_revision=0)
    store.close()


@pytest.fixture
def store(tmp_path):
    s = SqliteStore(tmp_path / "s.db")
    yield s
    s.close()


def test_the_database_is_in_wal_mode(store, tmp_path):
    store.claim_event("e1", now=0.0)  # make sure something was written
    with sqlite3.connect(tmp_path / "s.db") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.slow
def test_two_processes_appending_to_one_scope_lose_no_update(tmp_path):
    path = str(tmp_path / "shared.db")
    SqliteStore(path).close()  # create the schema once
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    workers = [ctx.Process(target=_append_many, args=(path, start, APPENDS_PER_PROCESS)) for _ in range(2)]
    for w in workers:
        w.start()
    start.set()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    store = SqliteStore(path)
    record = store.load(SCOPE.storage_id)
    assert record.version == 2 * APPENDS_PER_PROCESS == 100
    assert len(record.window.turns) == 2  # still capped at two exchanges
    store.close()


def test_threads_sharing_one_store_lose_no_update(store):
    journal = ContextJournal(store, clock=time.time)

    def work():
        for _ in range(25):
            journal.append(journal.read(SCOPE, 0), SafeTurn("places", "花壇鄉"), current_revision=0)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.load(SCOPE.storage_id).version == 100


def test_a_directory_path_raises_store_error(tmp_path):
    with pytest.raises(StoreError) as info:
        SqliteStore(tmp_path)
    assert info.value.code == "STORE_UNAVAILABLE"


def test_a_file_that_is_not_a_database_raises_store_error(tmp_path):
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not an sqlite database at all" * 100)
    with pytest.raises(StoreError):
        SqliteStore(path)


def test_a_path_under_a_regular_file_raises_store_error(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    with pytest.raises(StoreError):
        SqliteStore(blocker / "x.db")


def test_a_store_whose_database_went_away_raises_store_error_not_sqlite_errors(store):
    store.claim_event("e1", now=0.0)
    store._conn().execute("DROP TABLE webhook_events")
    with pytest.raises(StoreError) as info:
        store.claim_event("e2", now=0.0)
    assert info.value.operation == "dedupe.claim"


def test_dedupe_claims_once_until_the_ttl_expires(store):
    assert store.claim_event("evt-1", now=100.0, ttl=10.0) is True
    assert store.claim_event("evt-1", now=105.0, ttl=10.0) is False
    assert store.claim_event("evt-1", now=109.999, ttl=10.0) is False
    assert store.claim_event("evt-1", now=110.0, ttl=10.0) is True  # expired: a new claim
    assert store.claim_event("evt-1", now=111.0, ttl=10.0) is False


def test_dedupe_prunes_other_expired_events(store, tmp_path):
    store.claim_event("old", now=0.0, ttl=1.0)
    store.claim_event("young", now=0.0, ttl=100.0)
    store.claim_event("new", now=50.0, ttl=1.0)
    with sqlite3.connect(tmp_path / "s.db") as raw:
        ids = sorted(r[0] for r in raw.execute("SELECT event_id FROM webhook_events"))
    assert ids == ["new", "young"]


def test_values_with_sql_metacharacters_round_trip_as_data(store):
    nasty = "U1'); DROP TABLE preferences;--"
    store.set_consent(nasty, consent="granted", dietary_type="vegan", now=1.0)
    assert store.get(nasty).dietary_type == "vegan"
    store.append_audit(
        AuditRow(
            scope_id=nasty,
            tool="search_local_places",
            proposed_arguments={"area": "' OR 1=1"},
            effective_arguments={},
            memory_revision=1,
            preference_origin="none",
            status="error",
            at=1.0,
        )
    )
    store.append_snapshot(TurnSnapshot(nasty, "t'1", 1.0, {"k": '"; --'}))
    assert store.audit_rows(nasty)[0].proposed_arguments == {"area": "' OR 1=1"}
    assert store.audit_rows("other") == []
    assert store.snapshots(nasty)[0].data == {"k": '"; --'}
    assert store.claim_event("x' OR '1'='1", now=0.0) is True
    assert store.claim_event("x' OR '1'='1", now=1.0) is False
    assert [r["user_id"] for r in store.preference_rows()] == [nasty]


def test_preference_revision_only_grows_and_forget_stores_no_dietary_type(store):
    revisions = [
        store.set_consent("U1", consent=c, dietary_type=d, now=float(i)).revision
        for i, (c, d) in enumerate([("granted", "vegan"), ("forgotten", "vegan"), ("refused", None)])
    ]
    assert revisions == [1, 2, 3]
    assert store.get("U1").dietary_type is None and store.get("nobody").revision == 0


def test_every_sql_statement_uses_bound_parameters():
    """Only the PRAGMA busy_timeout int is formatted into SQL; every value goes through ``?``."""
    source = inspect.getsource(sqlite_store)
    tree = ast.parse(source)
    sql_words = re.compile(
        r"\b(SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|DROP|ALTER|WHERE|BEGIN|VALUES)\b", re.I
    )

    def literal_text(node: ast.JoinedStr) -> str:
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))

    formatted = [
        ast.get_source_segment(source, n)
        for n in ast.walk(tree)
        if isinstance(n, ast.JoinedStr) and sql_words.search(literal_text(n))
    ]
    assert formatted == ['f"PRAGMA busy_timeout = {int(self._busy)}"']
    percent = [n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)]
    dot_format = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "format"
    ]
    assert percent == [] and dot_format == []
    allowed_fstring = formatted[0]

    def literal_sql(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return literal_sql(node.left) and literal_sql(node.right)
        if isinstance(node, ast.IfExp):
            return literal_sql(node.body) and literal_sql(node.orelse)
        if isinstance(node, ast.JoinedStr):
            return ast.get_source_segment(source, node) == allowed_fstring
        return isinstance(node, ast.Name) and node.id in {"sql", "SCHEMA"}  # both checked below

    executes = [
        c
        for c in ast.walk(tree)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and c.func.attr in ("execute", "executemany", "executescript")
    ]
    assert len(executes) >= 15
    for call in executes:
        assert literal_sql(call.args[0]), ast.get_source_segment(source, call)
        if len(call.args) > 1:  # values always travel as parameters
            assert isinstance(call.args[1], (ast.Tuple, ast.Name)), ast.get_source_segment(source, call)
    assigned = [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.Assign, ast.AugAssign))
        and any(
            isinstance(t, ast.Name) and t.id in {"sql", "SCHEMA"}
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        )
    ]
    assert assigned
    for node in assigned:
        assert literal_sql(node.value) and not isinstance(node.value, ast.Name), ast.get_source_segment(
            source, node
        )


# -- close while other threads still use the store ---------------------------------------------
_CLOSE_RACE = """
import sys, threading, time
from local_agent.stores.sqlite import SqliteStore

store = SqliteStore(sys.argv[1])
stop = threading.Event()
done = [0, 0, 0]
errors = []

def worker(n):
    i = 0
    while not stop.is_set():
        i += 1
        try:
            assert store.claim_event(f"e{n}-{i}", now=time.time()) is True
            store.get("U1")
            store.purge_expired(time.time())
        except BaseException as exc:  # every call must succeed, across the closes
            errors.append(repr(exc))
            return
        done[n] += 1

threads = [threading.Thread(target=worker, args=(n,)) for n in range(3)]
for t in threads:
    t.start()
def closer():
    try:
        for _ in range(50):
            store.close()
    except BaseException as exc:
        errors.append(repr(exc))

closers = [threading.Thread(target=closer) for _ in range(2)]
for _ in range(100):
    time.sleep(0.002)
    store.close()
for t in closers:  # closes that overlap one another, too
    t.start()
for t in closers:
    t.join()
stop.set()
for t in threads:
    t.join()
store.close()
if errors or not all(done):
    sys.exit(f"errors={errors[:3]} done={done}")
print("closed 201 times under load")
"""


def test_closing_while_other_threads_run_statements_never_crashes_the_process(tmp_path) -> None:
    """CPython's sqlite3 crashes the process (SIGSEGV) when a connection is closed while another
    thread runs a statement on it: the app's exit closes the store while a startup purge or
    probe it stopped waiting for may still run on the store's threads. In a child process, so
    a crash fails this test instead of ending the run."""
    done = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", _CLOSE_RACE, str(tmp_path / "race.db")],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "closed 201 times under load"


class _HeldTransaction:
    """A journal update on another thread, held open inside its transaction until ``release()``;
    ``errors`` collects what the update raised."""

    def __init__(self, store: SqliteStore) -> None:
        self.inside, self._release = threading.Event(), threading.Event()
        self.errors: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, args=(store,))
        self.thread.start()
        assert self.inside.wait(10)

    def _run(self, store: SqliteStore) -> None:
        def slow_mutation(record):
            self.inside.set()
            self._release.wait(10)
            return JournalRecord(ContextWindow(), preference_revision=7, updated_at=time.time())

        try:
            store.update("scope", slow_mutation)
        except BaseException as exc:
            self.errors.append(exc)

    def release(self) -> None:
        self._release.set()
        self.thread.join(10)
        assert not self.thread.is_alive()


def test_close_waits_for_a_running_statement_then_the_store_opens_afresh(store) -> None:
    store.claim_event("warm", now=time.time())
    held = _HeldTransaction(store)
    closer = threading.Thread(target=store.close)
    closer.start()
    closer.join(0.3)
    assert closer.is_alive(), "close() must wait for the statement running on another thread"
    held.release()
    closer.join(2)  # it ends once the statement does, well before its 5 s bound
    assert not closer.is_alive()
    assert held.errors == [] and store.load("scope").preference_revision == 7  # committed
    assert store._all.keys() <= {id(store._conn())}  # every connection of before was closed
    assert store.claim_event("after", now=time.time()) is True  # a later call opens a fresh connection


def test_close_gives_up_waiting_after_its_bound_and_leaves_that_connection_open(store) -> None:
    held = _HeldTransaction(store)
    started = time.monotonic()
    store.close_wait = 0.2
    store.close()
    assert 0.15 <= time.monotonic() - started < 5
    held.release()
    assert held.errors == []  # its transaction committed: the connection was not closed under it
    assert store.load("scope").preference_revision == 7
    store.close()


def test_close_waits_no_longer_than_a_statement_can_wait_for_locks(tmp_path) -> None:
    assert SqliteStore(tmp_path / "a.db", busy_timeout_ms=500).close_wait == 1.5
    assert SqliteStore(tmp_path / "b.db").close_wait == sqlite_store.CLOSE_WAIT_SECONDS == 5.0


def test_the_usage_statements_name_the_row_s_columns_in_order():
    from local_agent.stores.usage import USAGE_COLUMNS

    source = " ".join(inspect.getsource(sqlite_store).split())
    columns = ", ".join(USAGE_COLUMNS).replace("date_from, date_to", 'date_from," " date_to')
    assert f"INSERT INTO usage ({columns}) VALUES" in source
    assert (
        'SELECT at, event, person, source, outcome, kind, township, date_from, date_to, found," " delivery'
        in source
    )
    assert USAGE_COLUMNS[-2:] == ("found", "delivery")
