"""ShutdownClock: SIGTERM is known at once (admission closes), the previous handler still runs."""

from __future__ import annotations

import os
import signal
import time
from types import FrameType

from local_agent.server.shutdown import ShutdownClock


def test_sigterm_runs_our_hook_then_the_previous_handler_and_uninstall_restores_it() -> None:
    seen: list[str] = []

    def previous(sig: int, frame: FrameType | None) -> None:
        seen.append("previous")

    original = signal.signal(signal.SIGTERM, previous)
    try:
        clock = ShutdownClock(lambda: seen.append("closed"))
        clock.install()
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)  # the handler runs between bytecodes of the main thread
        assert seen == ["closed", "previous"]
        assert clock.signalled_at is not None
        clock.uninstall()
        assert signal.getsignal(signal.SIGTERM) is previous
    finally:
        signal.signal(signal.SIGTERM, original)


def test_begin_is_idempotent_and_remaining_counts_from_the_signal() -> None:
    now = [10.0]
    calls: list[int] = []
    clock = ShutdownClock(lambda: calls.append(1), clock=lambda: now[0])
    assert clock.remaining(7.0) == 7.0
    clock.begin()
    now[0] = 13.0
    clock.begin()
    assert calls == [1]
    assert clock.remaining(7.0) == 4.0
    now[0] = 30.0
    assert clock.remaining(7.0) == 0.0


# -- the exit's time against Cloud Run's grace --------------------------------------------------
def test_startup_warns_when_drain_plus_store_deadline_cannot_fit_cloud_runs_grace(tmp_path) -> None:
    import io
    import json

    from helpers_app import AppHarness, make_settings

    from local_agent.server.lifespan import warn_if_exit_outlasts_grace

    def settings(**env: str):
        return make_settings("http://127.0.0.1:9", tmp_path / "s.sqlite3", **env)

    assert warn_if_exit_outlasts_grace(settings()) is False  # the defaults: 6 + 3 s
    assert warn_if_exit_outlasts_grace(settings(LOCAL_DRAIN_SECONDS="6.9")) is False
    assert warn_if_exit_outlasts_grace(settings(LOCAL_DRAIN_SECONDS="7")) is True
    assert warn_if_exit_outlasts_grace(settings(LOCAL_STORE_DEADLINE_SECONDS="5")) is True

    for drain, warned in (("6", False), ("8", True)):
        stream = io.StringIO()
        with AppHarness(
            tmp_path / f"app{drain}.sqlite3",
            log_stream=stream,
            log_level="INFO",
            settings={"LOCAL_DRAIN_SECONDS": drain},
        ):
            pass
        lines = [json.loads(line) for line in stream.getvalue().splitlines()]
        grace = [e for e in lines if "Cloud Run's 10 s grace" in e["message"]]
        assert len(grace) == int(warned), lines
        if warned:
            assert grace[0]["severity"] == "WARNING" and grace[0]["exit_ms"] == 11_000
