"""Firestore adapters for every store port: journal, preferences, audit, per-turn snapshots and
webhook dedupe. Behaves like ``SqliteStore``; the conformance suite runs both.

``google-cloud-firestore`` is an optional extra (``pip install 'local-agent[firestore]'``) and is
imported here only, when a store is built, never at module import.

Layout (``<p>`` is ``collection_prefix``, default ``local``)::

    <p>_journal/<scope>          {scope_id, record: JournalRecord.to_dict(), expire_at}
    <p>_preferences/<user>       PreferenceState.to_dict()
    <p>_audit/<seq>-<rand>       AuditRow columns, arguments as canonical JSON text, seq, expire_at
    <p>_snapshots/<seq>-<rand>   {scope_id, turn_id, at, data: canonical JSON text, seq, expire_at}
    <p>_usage/<seq>-<rand>       UsageRow.to_dict() (codes and validated values only), seq, expire_at
    <p>_webhook_events/<event>   {event_id, expire_at, expire_at_epoch}
    <p>_inbox/<event>            {event_id, chat, received_at, seq, sealed, reply, holder,
                                  lease_until, attempts, expire_at, expire_at_epoch}

* Every read-modify-write (journal ``update``, ``set_consent``, taking over an expired dedupe
  claim) is one Firestore transaction (``@firestore.transactional``). Firestore may run the
  body more than once on contention; the journal mutation is pure, so that is harmless.
  Exceptions raised by the mutation (e.g. ``StaleContextError``) propagate unchanged.
* ``expire_at`` is a timezone-aware datetime for a Firestore TTL policy (journal: updated_at +
  900 s; dedupe: claim time + ttl; audit rows, snapshots and usage rows: ``at`` + 30 days). TTL deletion is lazy (up to a day late), so readers check
  expiry themselves: ``ContextJournal`` checks ``updated_at``; ``claim_event`` checks
  ``expire_at_epoch``. Configure the policies with e.g.
  ``gcloud firestore fields ttls update expire_at --collection-group=local_journal --enable-ttl``
  (and the same for ``local_webhook_events``, ``local_inbox``, ``local_audit``, ``local_snapshots`` and ``local_usage``).
* Audit and snapshot rows are ordered by ``seq``: a per-process strictly increasing microsecond
  counter (``max(time.time_ns() // 1000, last + 1)``), so reads return insertion order like SQLite's
  ``ORDER BY id``. Across processes the order is by wall clock. Reads filter by ``scope_id``
  with an equality filter only and sort client-side, so no composite index is needed.
* Document ids: keys made of ``[A-Za-z0-9_-]`` (at most 256 characters) are used as they are;
  any other key is stored under ``~`` + its SHA-256, and the key itself is a field.
* Every RPC carries ``timeout=call_timeout`` and a bounded ``retry=`` (transient errors retried
  with backoff for at most ``call_timeout`` seconds in all), so an unreachable Firestore fails in
  seconds instead of minutes. Transactions' begin/commit RPCs take no such arguments in the client
  library; the ``GuardedStore`` deadline bounds them for the caller.
* Failures from ``google.api_core`` / ``google.auth`` (ServiceUnavailable, DeadlineExceeded,
  RetryError, transactions aborted more than ``max_attempts`` times, ...) become
  ``StoreError(operation=..., backend="firestore")``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

from local_agent.context.canonical import canonical_json  # dicts stored as JSON text (arrays cannot nest)
from local_agent.context.errors import StoreError
from local_agent.context.journal import TTL_SECONDS, JournalRecord, Mutation
from local_agent.stores.ports import (
    DEDUPE_TTL_SECONDS,
    INBOX_TTL_SECONDS,
    RECORD_RETENTION_SECONDS,
    AuditRow,
    ConsentDecision,
    EventLease,
    InboxEntry,
    InboxRow,
    LeaseOutcome,
    PreferenceState,
    TurnSnapshot,
    finished_lease,
    forgotten_arguments,
    next_lease,
    next_preference,
    releasable,
)
from local_agent.stores.usage import UsageRow

T = TypeVar("T")

JOURNAL_TTL_SECONDS = TTL_SECONDS
DEFAULT_DATABASE = "(default)"
DEFAULT_MAX_ATTEMPTS = 10
DEFAULT_CALL_TIMEOUT = 3.0  # seconds per RPC, and for all retries of one RPC together

_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,256}")
_SAFE_PREFIX = re.compile(r"[A-Za-z0-9_-]{1,100}")

_seq_lock = threading.Lock()
_last_seq = 0


def _next_seq() -> int:
    """Strictly increasing within this process, close to wall-clock microseconds.

    Microseconds keep the value below 2**53, so it survives any JSON/JavaScript hop exactly."""
    global _last_seq
    with _seq_lock:
        _last_seq = max(time.time_ns() // 1000, _last_seq + 1)
        return _last_seq


def _doc_id(key: str) -> str:
    if _SAFE_ID.fullmatch(key) and not (key.startswith("__") and key.endswith("__")):
        return key
    return "~" + hashlib.sha256(key.encode("utf-8")).hexdigest()


def _utc(epoch_seconds: float) -> datetime:
    return datetime.fromtimestamp(epoch_seconds, tz=UTC)


def _import_firestore() -> tuple[Any, Any, Any]:
    try:
        from google.api_core import exceptions as api_exceptions
        from google.auth import exceptions as auth_exceptions
        from google.cloud import firestore
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ImportError(
            "FirestoreStore needs google-cloud-firestore: pip install 'local-agent[firestore]'"
        ) from exc
    return firestore, api_exceptions, auth_exceptions


INBOX_BATCH = 400  # writes per commit (Firestore allows 500)


def _inbox_row(data: dict[str, Any]) -> InboxRow:
    entry = InboxEntry(
        data["event_id"], data["chat"], float(data["received_at"]), int(data["seq"]), bytes(data["sealed"])
    )
    return InboxRow(
        entry, data["holder"], float(data["lease_until"]), int(data["attempts"]), bytes(data["reply"])
    )


class _FirestoreInbox:
    """The durable inbox on Firestore (mixed into ``FirestoreStore``). A body's rows and dedupe
    claims are one batch of creates, or, when a claim exists, one transaction (one commit); a claim
    reads its candidates again inside a transaction, so two processes never take the same row."""

    _firestore: Any
    _api_exc: Any
    _auth_exc: Any
    _deadline: dict[str, Any]
    _col: Callable[[str], Any]
    _guard: Callable[[str], Any]
    _transaction: Callable[..., Any]
    _db: Callable[[], Any]

    def inbox_accept(
        self,
        entries: Sequence[InboxEntry],
        *,
        holder: str,
        now: float,
        lease: float,
        ttl: float = INBOX_TTL_SECONDS,
    ) -> list[bool]:
        claims = [self._col("webhook_events").document(_doc_id(e.event_id)) for e in entries]
        rows = [self._col("inbox").document(_doc_id(e.event_id)) for e in entries]
        if entries and self._create_all(entries, claims, rows, holder=holder, now=now, lease=lease, ttl=ttl):
            return [True] * len(entries)  # every claim new: one batch, no read locks to wait on

        def body(tx: Any) -> list[bool]:
            found = {snap.reference.path: snap for snap in tx.get_all(claims, **self._deadline)}
            fresh: list[bool] = []
            seen: set[str] = set()
            for entry, claim, row in zip(entries, claims, rows, strict=True):
                snap = found.get(claim.path)
                live = claim.path in seen or (
                    snap is not None and snap.exists and float(snap.get("expire_at_epoch")) > now
                )
                seen.add(claim.path)
                fresh.append(not live)
                if live:
                    continue
                expire = now + DEDUPE_TTL_SECONDS
                tx.set(
                    claim, {"event_id": entry.event_id, "expire_at": _utc(expire), "expire_at_epoch": expire}
                )
                tx.set(row, self._inbox_doc(entry, holder=holder, lease_until=now + lease, expire=now + ttl))
            return fresh

        result: list[bool] = self._transaction("inbox.accept", body)
        return result

    def _create_all(
        self,
        entries: Sequence[InboxEntry],
        claims: Sequence[Any],
        rows: Sequence[Any],
        *,
        holder: str,
        now: float,
        lease: float,
        ttl: float,
    ) -> bool:
        """Create every claim and write every row in one batch, which fails whole if a claim exists
        (``False``: a redelivery, or another instance claimed first; the transaction then reads
        them). Two instances receiving one event at once no longer both take a read lock in a
        transaction and then wait on each other to write."""
        batch = self._db().batch()
        expire = now + DEDUPE_TTL_SECONDS
        for entry, claim, row in zip(entries, claims, rows, strict=True):
            batch.create(
                claim, {"event_id": entry.event_id, "expire_at": _utc(expire), "expire_at_epoch": expire}
            )
            batch.set(row, self._inbox_doc(entry, holder=holder, lease_until=now + lease, expire=now + ttl))
        try:
            batch.commit(**self._deadline)
        except (self._api_exc.GoogleAPIError, self._auth_exc.GoogleAuthError):
            return False  # a claim exists (AlreadyExists), or the store failed: the transaction reports
        return True

    @staticmethod
    def _inbox_doc(entry: InboxEntry, *, holder: str, lease_until: float, expire: float) -> dict[str, Any]:
        return {
            "event_id": entry.event_id,
            "chat": entry.chat,
            "received_at": entry.received_at,
            "seq": entry.seq,
            "sealed": entry.sealed,
            "reply": b"",
            "holder": holder,
            "lease_until": lease_until,
            "attempts": 0,
            "expire_at": _utc(expire),
            "expire_at_epoch": expire,
        }

    def inbox_claim(self, *, holder: str, now: float, lease: float, limit: int) -> list[InboxRow]:
        if limit <= 0:
            return []
        field = self._firestore.FieldFilter
        query = (
            self._col("inbox")
            .where(filter=field("lease_until", "<=", now))
            .order_by("received_at")
            .order_by("seq")
            .limit(limit)
        )
        with self._guard("inbox.claim"):
            refs = [doc.reference for doc in query.stream(**self._deadline)]
        if not refs:
            return []

        def body(tx: Any) -> list[InboxRow]:
            taken: list[InboxRow] = []
            for snap in tx.get_all(refs, **self._deadline):
                data = snap.to_dict() if snap.exists else None
                if data is None or float(data["lease_until"]) > now or float(data["expire_at_epoch"]) <= now:
                    continue
                data.update(holder=holder, lease_until=now + lease, attempts=int(data["attempts"]) + 1)
                tx.update(snap.reference, {k: data[k] for k in ("holder", "lease_until", "attempts")})
                taken.append(_inbox_row(data))
            return taken

        claimed: list[InboxRow] = self._transaction("inbox.claim", body)
        return sorted(claimed, key=lambda r: (r.entry.received_at, r.entry.seq))

    def _update_where(
        self, operation: str, query: Any, change: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> int:
        """Apply ``change`` (the fields to set, None: skip; ``{}``: delete) to every document of
        ``query``, in batched writes."""
        changed = 0
        with self._guard(operation):
            batch, size = self._db().batch(), 0
            for doc in query.stream(**self._deadline):
                fields = change(doc.to_dict())
                if fields is None:
                    continue
                if fields:
                    batch.update(doc.reference, fields)
                else:
                    batch.delete(doc.reference)
                changed, size = changed + 1, size + 1
                if size >= INBOX_BATCH:
                    batch.commit(**self._deadline)
                    batch, size = self._db().batch(), 0
            if size:
                batch.commit(**self._deadline)
        return changed

    def inbox_renew(self, *, holder: str, now: float, lease: float) -> int:
        query = self._col("inbox").where(filter=self._firestore.FieldFilter("holder", "==", holder))
        return self._update_where(
            "inbox.renew",
            query,
            lambda d: {"lease_until": now + lease} if not d["reply"] and d["lease_until"] > 0 else None,
        )

    def inbox_park(self, event_id: str, *, holder: str, reply: bytes, retry_at: float) -> bool:
        ref = self._col("inbox").document(_doc_id(event_id))

        def body(tx: Any) -> bool:
            snap = ref.get(transaction=tx, **self._deadline)
            if not snap.exists or snap.get("holder") != holder:
                return False
            tx.update(ref, {"reply": reply, "lease_until": retry_at})
            return True

        parked: bool = self._transaction("inbox.park", body)
        return parked

    def inbox_done(self, event_id: str, *, holder: str) -> bool:
        ref = self._col("inbox").document(_doc_id(event_id))

        def body(tx: Any) -> bool:
            snap = ref.get(transaction=tx, **self._deadline)
            if not snap.exists or snap.get("holder") != holder:
                return False
            tx.delete(ref)
            return True

        deleted: bool = self._transaction("inbox.done", body)
        return deleted

    def inbox_hand_back(self, event_id: str, *, holder: str, retry_at: float) -> bool:
        ref = self._col("inbox").document(_doc_id(event_id))

        def body(tx: Any) -> bool:
            snap = ref.get(transaction=tx, **self._deadline)
            if not snap.exists or snap.get("holder") != holder:
                return False
            tx.update(ref, {"holder": "", "lease_until": retry_at})
            return True

        handed: bool = self._transaction("inbox.hand_back", body)
        return handed

    def inbox_release(self, *, holder: str) -> int:
        query = self._col("inbox").where(filter=self._firestore.FieldFilter("holder", "==", holder))
        return self._update_where(
            "inbox.release", query, lambda d: None if d["reply"] else {"lease_until": 0.0}
        )

    def inbox_drop_chat(self, chat: str, *, before: float) -> int:
        query = self._col("inbox").where(filter=self._firestore.FieldFilter("chat", "==", chat))
        return self._update_where(
            "inbox.drop_chat", query, lambda d: {} if d["received_at"] < before else None
        )

    def inbox_pending(self) -> int:
        with self._guard("inbox.pending"):
            result = self._col("inbox").count().get(**self._deadline)
        return int(result[0][0].value)


class FirestoreStore(_FirestoreInbox):
    """All LOCAL stores in one Firestore database. Safe to share between threads."""

    backend = "firestore"

    def __init__(
        self,
        *,
        project: str | None,
        database: str = DEFAULT_DATABASE,
        client: Any = None,
        collection_prefix: str = "local",
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
    ) -> None:
        if not _SAFE_PREFIX.fullmatch(collection_prefix):
            raise ValueError("collection_prefix must be 1-100 characters of [A-Za-z0-9_-]")
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        if call_timeout <= 0:
            raise ValueError("call_timeout must be > 0")
        self._firestore, self._api_exc, self._auth_exc = _import_firestore()
        self.database = database or DEFAULT_DATABASE
        self.collection_prefix = collection_prefix
        self.max_attempts = max_attempts
        self.call_timeout = call_timeout
        from google.api_core import retry as api_retry

        # Each RPC: at most call_timeout seconds, transient errors retried within that time.
        self._deadline: dict[str, Any] = {
            "timeout": call_timeout,
            "retry": api_retry.Retry(
                predicate=api_retry.if_transient_error,
                initial=0.1,
                maximum=1.0,
                multiplier=2.0,
                timeout=call_timeout,
            ),
        }
        self._lock = threading.Lock()
        self._owns_client = client is None
        self._client = client
        self.project = project
        if client is None:
            self._client = self._new_client()
        self.project = getattr(self._client, "project", project)

    # -- plumbing -------------------------------------------------------------------------
    def _new_client(self) -> Any:
        with self._guard("init"):
            return self._firestore.Client(project=self.project, database=self.database)

    def _db(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = self._new_client()
            return self._client

    def _col(self, name: str) -> Any:
        return self._db().collection(f"{self.collection_prefix}_{name}")

    @contextmanager
    def _guard(self, operation: str) -> Iterator[None]:
        api, auth = self._api_exc, self._auth_exc
        try:
            yield
        except (api.GoogleAPIError, auth.GoogleAuthError) as exc:
            # GoogleAPICallError (ServiceUnavailable, DeadlineExceeded, Aborted, ...) and
            # RetryError both derive from GoogleAPIError.
            raise StoreError(operation=operation, backend=self.backend) from exc
        except ValueError as exc:
            # ``@transactional`` reports "Failed to commit transaction in N attempts." as a
            # ValueError caused by the last Aborted; a ValueError of our own has no such cause.
            if isinstance(exc.__cause__, api.GoogleAPIError):
                raise StoreError(operation=operation, backend=self.backend) from exc
            raise

    def _transaction(self, operation: str, body: Callable[[Any], T]) -> T:
        """Run ``body(transaction)`` in a Firestore transaction, retried on contention."""
        with self._guard(operation):
            client = self._db()
            run = self._firestore.transactional(body)
            result: T = run(client.transaction(max_attempts=self.max_attempts))
            return result

    def close(self) -> None:
        """Close the gRPC channel of a client this store created. Later calls reconnect."""
        with self._lock:
            if not self._owns_client or self._client is None:
                return
            client, self._client = self._client, None
        api = getattr(client, "_firestore_api_internal", None)
        if api is not None:
            api.transport.close()

    # -- journal (JournalStorage) ---------------------------------------------------------
    def _journal_doc(self, scope_id: str, record: JournalRecord) -> dict[str, Any]:
        return {
            "scope_id": scope_id,
            "record": record.to_dict(),
            "expire_at": _utc(record.updated_at + JOURNAL_TTL_SECONDS),
        }

    def load(self, scope_id: str) -> JournalRecord | None:
        with self._guard("journal.load"):
            snap = self._col("journal").document(_doc_id(scope_id)).get(**self._deadline)
        return JournalRecord.from_dict(snap.get("record")) if snap.exists else None

    def update(self, scope_id: str, mutate: Mutation) -> JournalRecord | None:
        ref = self._col("journal").document(_doc_id(scope_id))

        def body(tx: Any) -> JournalRecord | None:
            snap = ref.get(transaction=tx, **self._deadline)
            new = mutate(JournalRecord.from_dict(snap.get("record")) if snap.exists else None)
            if new is None:
                if snap.exists:
                    tx.delete(ref)
            else:
                tx.set(ref, self._journal_doc(scope_id, new))
            return new

        return self._transaction("journal.update", body)

    def delete(self, scope_id: str) -> None:
        with self._guard("journal.delete"):
            self._col("journal").document(_doc_id(scope_id)).delete(**self._deadline)

    def journal_rows(self) -> dict[str, dict[str, Any]]:
        with self._guard("journal.dump"):
            docs = [d.to_dict() for d in self._col("journal").stream(**self._deadline)]
        return {d["scope_id"]: d["record"] for d in sorted(docs, key=lambda d: d["scope_id"])}

    # -- preferences (PreferenceStore) ----------------------------------------------------
    @staticmethod
    def _pref(user_id: str, data: dict[str, Any] | None) -> PreferenceState:
        if data is None:
            return PreferenceState(user_id)
        return PreferenceState(
            user_id,
            data.get("dietary_type"),
            data["consent"],
            int(data["revision"]),
            float(data["updated_at"]),
        )

    def get(self, user_id: str) -> PreferenceState:
        with self._guard("preferences.get"):
            snap = self._col("preferences").document(_doc_id(user_id)).get(**self._deadline)
        return self._pref(user_id, snap.to_dict() if snap.exists else None)

    def set_consent(
        self,
        user_id: str,
        *,
        consent: ConsentDecision,
        dietary_type: str | None,
        now: float,
        expected_revision: int | None = None,
    ) -> PreferenceState:
        ref = self._col("preferences").document(_doc_id(user_id))

        def body(tx: Any) -> PreferenceState:
            snap = ref.get(transaction=tx, **self._deadline)
            current = self._pref(user_id, snap.to_dict() if snap.exists else None)
            new = next_preference(
                current,
                consent=consent,
                dietary_type=dietary_type,
                now=now,
                expected_revision=expected_revision,
            )
            tx.set(ref, new.to_dict())
            return new

        return self._transaction("preferences.set_consent", body)

    def preference_rows(self) -> list[dict[str, Any]]:
        with self._guard("preferences.dump"):
            docs = [d.to_dict() for d in self._col("preferences").stream(**self._deadline)]
        docs.sort(key=lambda d: d["user_id"])
        return [self._pref(d["user_id"], d).to_dict() for d in docs]

    # -- ordered rows (audit, snapshots) --------------------------------------------------
    def _append_row(self, name: str, operation: str, data: dict[str, Any]) -> None:
        seq = _next_seq()
        data = {**data, "seq": seq}
        with self._guard(operation):
            self._col(name).document(f"{seq:017d}-{uuid.uuid4().hex[:12]}").create(data, **self._deadline)

    def _rows(self, name: str, operation: str, scope_id: str | None) -> list[dict[str, Any]]:
        query = self._col(name)
        if scope_id is not None:
            query = query.where(filter=self._firestore.FieldFilter("scope_id", "==", scope_id))
        with self._guard(operation):
            docs = [(d.id, d.to_dict()) for d in query.stream(**self._deadline)]
        docs.sort(key=lambda item: (int(item[1]["seq"]), item[0]))
        return [data for _, data in docs]

    # -- audit (AuditStore) ---------------------------------------------------------------
    def append_audit(self, row: AuditRow) -> None:
        self._append_row(
            "audit",
            "audit.append",
            {
                "scope_id": row.scope_id,
                "turn_id": row.turn_id,
                "tool": row.tool,
                "proposed_arguments": canonical_json(row.proposed_arguments),
                "memory_revision": int(row.memory_revision),
                "effective_arguments": canonical_json(row.effective_arguments),
                "preference_origin": row.preference_origin,
                "status": row.status,
                "at": float(row.at),
                "expire_at": _utc(row.at + RECORD_RETENTION_SECONDS),
            },
        )

    def forget_audited_memory(self, scope_id: str) -> int:
        field = self._firestore.FieldFilter
        query = (
            self._col("audit")
            .where(filter=field("scope_id", "==", scope_id))
            .where(filter=field("preference_origin", "==", "consented_memory"))
        )
        changed = 0
        with self._guard("audit.forget"):
            for doc in query.stream(**self._deadline):
                scrubbed = forgotten_arguments(doc.to_dict()["effective_arguments"])
                if scrubbed is not None:
                    doc.reference.update({"effective_arguments": scrubbed}, **self._deadline)
                    changed += 1
        return changed

    def audit_rows(self, scope_id: str | None = None) -> list[AuditRow]:
        return [
            AuditRow(
                scope_id=r["scope_id"],
                turn_id=r["turn_id"],
                tool=r["tool"],
                proposed_arguments=json.loads(r["proposed_arguments"]),
                memory_revision=int(r["memory_revision"]),
                effective_arguments=json.loads(r["effective_arguments"]),
                preference_origin=r["preference_origin"],
                status=r["status"],
                at=float(r["at"]),
            )
            for r in self._rows("audit", "audit.read", scope_id)
        ]

    # -- snapshots (SnapshotStore) --------------------------------------------------------
    def append_snapshot(self, snap: TurnSnapshot) -> None:
        self._append_row(
            "snapshots",
            "snapshots.append",
            {
                "scope_id": snap.scope_id,
                "turn_id": snap.turn_id,
                "at": float(snap.at),
                "data": canonical_json(snap.data),
                "expire_at": _utc(snap.at + RECORD_RETENTION_SECONDS),
            },
        )

    def snapshots(self, scope_id: str | None = None) -> list[TurnSnapshot]:
        return [
            TurnSnapshot(r["scope_id"], r["turn_id"], float(r["at"]), json.loads(r["data"]))
            for r in self._rows("snapshots", "snapshots.read", scope_id)
        ]

    # -- usage (UsageStore) ---------------------------------------------------------------
    def append_usage(self, row: UsageRow) -> None:
        data = {**row.to_dict(), "at": float(row.at), "expire_at": _utc(row.at + RECORD_RETENTION_SECONDS)}
        self._append_row("usage", "usage.append", data)

    def usage_rows(self, since: float, until: float) -> list[UsageRow]:
        field = self._firestore.FieldFilter
        query = self._col("usage").where(filter=field("at", ">=", float(since)))
        query = query.where(filter=field("at", "<", float(until)))
        with self._guard("usage.read"):
            docs = [d.to_dict() for d in query.stream(**self._deadline)]
        docs.sort(key=lambda d: (float(d["at"]), int(d["seq"])))
        return [UsageRow.from_dict(d) for d in docs]

    # -- retention ------------------------------------------------------------------------
    def purge_expired(self, now: float, *, retention: float = RECORD_RETENTION_SECONDS) -> dict[str, int]:
        """Nothing to do here: Firestore's TTL policies on ``expire_at`` delete expired documents
        (journal after 900 s, dedupe, event leases and inbox rows after a day, audit and snapshots after
        ``retention``)."""
        return {}

    # -- webhook dedupe (DedupeStore) -----------------------------------------------------
    def claim_event(self, event_id: str, *, now: float, ttl: float = DEDUPE_TTL_SECONDS) -> bool:
        expire = float(now + ttl)
        data = {"event_id": event_id, "expire_at": _utc(expire), "expire_at_epoch": expire}
        ref = self._col("webhook_events").document(_doc_id(event_id))
        with self._guard("dedupe.claim"):
            try:
                ref.create(data, **self._deadline)
                return True
            except self._api_exc.AlreadyExists:
                pass

        # A record exists: it blocks the claim unless it has expired (TTL deletion lags).
        def body(tx: Any) -> bool:
            snap = ref.get(transaction=tx, **self._deadline)
            if snap.exists and float(snap.get("expire_at_epoch")) > now:
                return False
            tx.set(ref, data)
            return True

        return self._transaction("dedupe.claim", body)

    # -- event leases (LeaseStore) --------------------------------------------------------
    @staticmethod
    def _lease(snap: Any) -> EventLease | None:
        if not snap.exists:
            return None
        data = snap.to_dict()
        return EventLease(
            data["holder"], float(data["lease_until"]), bool(data["done"]), float(data["expire_at_epoch"])
        )

    def _lease_doc(self, event_id: str, lease: EventLease) -> dict[str, Any]:
        return {
            "event_id": event_id,
            "holder": lease.holder,
            "lease_until": lease.lease_until,
            "done": lease.done,
            "expire_at": _utc(lease.expire_at),
            "expire_at_epoch": lease.expire_at,
        }

    def lease_event(
        self, event_id: str, *, holder: str, now: float, lease: float, ttl: float = DEDUPE_TTL_SECONDS
    ) -> LeaseOutcome:
        ref = self._col("event_leases").document(_doc_id(event_id))

        def body(tx: Any) -> LeaseOutcome:
            current = self._lease(ref.get(transaction=tx, **self._deadline))
            outcome, new = next_lease(current, holder=holder, now=now, lease=lease, ttl=ttl)
            if new is not None:
                tx.set(ref, self._lease_doc(event_id, new))
            return outcome

        return self._transaction("lease.claim", body)

    def finish_event(
        self, event_id: str, *, holder: str, now: float, ttl: float = DEDUPE_TTL_SECONDS
    ) -> bool:
        ref = self._col("event_leases").document(_doc_id(event_id))

        def body(tx: Any) -> bool:
            current = self._lease(ref.get(transaction=tx, **self._deadline))
            new = finished_lease(current, holder=holder, now=now, ttl=ttl)
            if new is not None:
                tx.set(ref, self._lease_doc(event_id, new))
            return new is not None

        return self._transaction("lease.finish", body)

    def release_event(self, event_id: str, *, holder: str) -> bool:
        ref = self._col("event_leases").document(_doc_id(event_id))

        def body(tx: Any) -> bool:
            mine = releasable(self._lease(ref.get(transaction=tx, **self._deadline)), holder=holder)
            if mine:
                tx.delete(ref)
            return mine

        return self._transaction("lease.release", body)


def open_firestore_store(
    project: str | None = None, database: str | None = None, *, call_timeout: float = DEFAULT_CALL_TIMEOUT
) -> FirestoreStore:
    """A ``FirestoreStore`` for ``project`` (default: ``$GOOGLE_CLOUD_PROJECT``, else whatever
    project the client library infers from the credentials) and ``database`` (default
    ``(default)``)."""
    project = project or os.environ.get("GOOGLE_CLOUD_PROJECT") or None
    return FirestoreStore(project=project, database=database or DEFAULT_DATABASE, call_timeout=call_timeout)
