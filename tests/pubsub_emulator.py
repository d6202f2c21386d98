"""Pytest plugin: the official Pub/Sub emulator for the session (star-imported by ``conftest.py``).

``pubsub_emulator`` (session) starts the Cloud SDK's ``platform/pubsub-emulator`` once on a free
loopback port and stops it at the end; it skips, with the reason, where java, the Cloud SDK or the
emulator component is missing. Modules that use it mark their tests ``slow`` (a server process).
What the emulator can and cannot show: docs/design.md §11.
"""

from __future__ import annotations

import atexit
import tempfile
from collections.abc import Iterator

import pytest

from local_agent.testing.pubsub import PubsubEmulator, find_emulator

__all__ = ["pubsub_emulator"]


@pytest.fixture(scope="session")
def pubsub_emulator() -> Iterator[PubsubEmulator]:
    script = find_emulator()
    if isinstance(script, str):
        pytest.skip(f"no Pub/Sub emulator: {script}")
    started = PubsubEmulator.start(script, tempfile.mkdtemp(prefix="local-pubsub-emulator-"))
    if isinstance(started, str):
        pytest.skip(f"no Pub/Sub emulator: {started}")
    atexit.register(started.stop)  # if the session dies before teardown
    try:
        yield started
    finally:
        started.stop()
