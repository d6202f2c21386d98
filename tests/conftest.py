"""Shared fixtures. The emulator plugins live in firestore_emulator.py and pubsub_emulator.py."""

from __future__ import annotations

import pytest
from firestore_emulator import *  # noqa: F401,F403  (fixtures: firestore_emulator, firestore_project)
from hypothesis import HealthCheck, settings
from pubsub_emulator import pubsub_emulator  # noqa: F401  (the Pub/Sub emulator, session fixture)

# Property tests check behaviour, not speed: no per-example deadline (Hypothesis's default 200 ms
# fails a correct test when a shared 2-core CI machine stalls), and no "too slow" health check.
# A test's own @settings still sets the number of examples.
settings.register_profile("local", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("local")


class FakeClock:
    """A settable clock: tests move time instead of sleeping."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
