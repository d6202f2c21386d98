"""/healthz tells the store's state and /livez only that the process serves HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_app import UvicornHarness

from local_agent.context.errors import StoreError
from local_agent.server.admission import Admission
from local_agent.server.health import health_report
from local_agent.stores.guarded import UNAVAILABLE_AFTER, GuardedStore, StoreHealth, StorePool


class Failing:
    backend = "failing"

    def get(self, user_id: str) -> None:
        raise StoreError(operation="preferences.get", backend=self.backend)


def _admission() -> Admission:
    return Admission(concurrency=2, drain_seconds=6, ceiling=100, per_scope_ceiling=5, turn_estimate=1)


def test_the_report_follows_the_store_and_the_shutdown() -> None:
    store = GuardedStore(Failing(), deadline=1.0, pool=StorePool(1), health=StoreHealth())
    assert health_report(store, _admission(), stopping=False)[0] == 200
    for n in range(UNAVAILABLE_AFTER):
        with pytest.raises(StoreError):
            store.probe()
        code, body = health_report(store, _admission(), stopping=False)
        assert (code, body["status"]) == (
            (503, "unavailable") if n == UNAVAILABLE_AFTER - 1 else (200, "degraded")
        )
    assert health_report(store, _admission(), stopping=True)[1]["status"] == "stopping"
    assert health_report(None, None, stopping=False) == (503, {"status": "starting"})


def test_healthz_and_livez_over_http(tmp_path: Path) -> None:
    app = UvicornHarness(tmp_path / "local.sqlite3").start()
    try:
        assert app.http is not None
        response = app.http.get("/healthz")
        body = response.json()
        assert response.status_code == 200 and body["status"] == "ok"
        assert body["store"]["state"] == "ok" and body["pending"] == 0
        assert {"limit", "per_scope_limit", "accepted", "rejected"} <= set(body["turns"])
        assert app.http.get("/livez").json() == {"status": "alive"}
    finally:
        app.stop()
