"""ShutdownClock: SIGTERM is known at once (admission closes), the previous handler still runs."""

from __future__ import annotations

import os
import signal
import time
from types import FrameType

from local_agent.line.shutdown import ShutdownClock


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
