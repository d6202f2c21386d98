"""``Store`` is the one storage seam: both adapters offer every one of its members, with the same
parameters. mypy checks it statically (``wiring.open_store`` returns either adapter as a ``Store``);
this checks the same at run time, so a renamed or re-ordered parameter fails here too."""

from __future__ import annotations

import inspect
from typing import Any, Protocol, get_args

import pytest

from local_agent.context.journal import JournalStorage
from local_agent.stores.guarded import GuardedStore
from local_agent.stores.ports import (
    CONSENT_DECISIONS,
    CONSENT_STATES,
    ConsentDecision,
    PreferenceState,
    Store,
    next_preference,
)
from local_agent.stores.sqlite import SqliteStore


def _members(protocol: type) -> dict[str, Any]:
    """The protocol's own members (methods and annotated attributes) across its protocol bases."""
    members: dict[str, Any] = {}
    for base in reversed(protocol.__mro__):
        if base in (object, Protocol) or not getattr(base, "_is_protocol", False):
            continue
        members.update({k: v for k, v in vars(base).items() if not k.startswith("_")})
        members.update(dict.fromkeys(getattr(base, "__annotations__", {})))
    return members


def _firestore_store_class() -> type:
    pytest.importorskip("google.cloud.firestore")
    from local_agent.stores.firestore import FirestoreStore

    return FirestoreStore


def _adapter(name: str) -> type:
    if name == "guarded":
        return GuardedStore
    return SqliteStore if name == "sqlite" else _firestore_store_class()


def test_store_includes_the_journal_port_and_the_lifecycle():
    members = set(_members(Store))
    assert set(_members(JournalStorage)) <= members
    assert {
        "get",
        "set_consent",
        "append_audit",
        "snapshots",
        "claim_event",
        "purge_expired",
        "close",
    } <= members
    assert "backend" in members


@pytest.mark.parametrize("adapter", ["sqlite", "firestore", "guarded"])
def test_each_adapter_has_every_store_member_with_the_same_parameters(adapter):
    """The deadline wrapper (``GuardedStore``) is held to the same: every member written out."""
    cls = _adapter(adapter)
    mismatched = {}
    for name, member in _members(Store).items():
        declared = hasattr(cls, name) or name in getattr(cls, "__annotations__", {})
        assert declared, f"{cls.__name__} lacks {name}"
        if not callable(member):
            continue
        want = [(p.name, p.kind, p.default) for p in inspect.signature(member).parameters.values()]
        got = [(p.name, p.kind, p.default) for p in inspect.signature(getattr(cls, name)).parameters.values()]
        if got != want:
            mismatched[name] = (want, got)
    assert mismatched == {}


def test_the_sqlite_store_is_a_store_at_run_time(tmp_path):
    store = SqliteStore(tmp_path / "local.db")
    try:
        assert store.backend == "sqlite"
        assert all(hasattr(store, name) for name in _members(Store))
    finally:
        store.close()


def test_the_literal_vocabularies_are_the_runtime_tuples():
    assert CONSENT_STATES == ("none", "granted", "refused", "forgotten")
    assert CONSENT_DECISIONS == get_args(ConsentDecision) == ("granted", "refused", "forgotten")


@pytest.mark.parametrize("consent", ["none", "GRANTED", "", "maybe"])
def test_a_consent_outside_the_decisions_is_refused_at_run_time(consent):
    with pytest.raises(ValueError, match="consent must be"):
        next_preference(PreferenceState("U1"), consent=consent, dietary_type="vegan", now=1.0)
