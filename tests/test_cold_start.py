"""Cold start without the cold: the first turns' work is done before the process reports ready (on
a throwaway service: nothing lands in the real store or at LINE), and the LINE client's connection
pool is sized from the turn concurrency, not from the CPU count."""

from __future__ import annotations

import io
import json
from pathlib import Path

from helpers_app import AppHarness

from local_agent.line.client import POOL_HEADROOM, pool_size_for
from local_agent.testing import webhooks as W


def test_start_up_warms_the_first_turn_and_writes_nothing_real(tmp_path: Path) -> None:
    logs = io.StringIO()
    with AppHarness(tmp_path / "local.db", log_stream=logs, log_level="INFO") as app:
        started = [json.loads(line) for line in logs.getvalue().splitlines() if '"service started"' in line]
        assert len(started) == 1 and started[0]["warm_up_ms"] > 0
        assert app.line.requests == []
        assert app.store.journal_rows() == {} and app.store.audit_rows() == [] and app.store.snapshots() == []
        app.turn(W.text_event("Ucold00000000000000000000000000001", "花壇有什麼店推薦吃吃看？"))
        assert len(app.line.replies()) == 1 and len(app.store.journal_rows()) == 1


def test_the_line_pool_follows_the_turn_concurrency(tmp_path: Path) -> None:
    assert pool_size_for(32) == 32 + POOL_HEADROOM
    with AppHarness(tmp_path / "local.db", settings={"LOCAL_MAX_CONCURRENT_TURNS": "40"}) as app:
        gateway = app.gateway
        assert gateway.pool_size == 40 + POOL_HEADROOM
        assert gateway._client.rest_client.pool_manager.connector.limit == 40 + POOL_HEADROOM
