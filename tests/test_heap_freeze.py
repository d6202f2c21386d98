"""The app freezes its startup heap for the cyclic collector while it serves, and lets go at exit."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

from helpers_app import AppHarness

from local_agent.server.lifespan import freeze_startup_heap
from local_agent.testing import webhooks as W


class Node:
    me: Any = None


def test_freezing_collects_first_and_counts_what_it_froze() -> None:
    gc.unfreeze()
    cycle = Node()
    cycle.me = cycle  # a cycle nothing refers to: collected, never frozen
    gone = weakref.ref(cycle)
    del cycle
    try:
        frozen = freeze_startup_heap()
        assert frozen == gc.get_freeze_count() > 10_000  # the modules, ADK, pydantic and the rest
        assert gone() is None
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0


def test_the_app_serves_with_its_startup_heap_frozen_and_unfreezes_it_on_exit(tmp_path: Path) -> None:
    gc.unfreeze()
    with AppHarness(tmp_path / "local.sqlite3") as app:
        assert gc.get_freeze_count() > 10_000
        assert app.turn(W.text_event("U1", "花壇有什麼店推薦吃吃看？")).status_code == 200
        assert app.outcomes[-1].error_code is None and app.line.replies()
    assert gc.get_freeze_count() == 0
