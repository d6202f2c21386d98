"""Harnesses that run the real webhook app for tests: in-process (ASGI) and under real uvicorn.

``AppHarness`` drives the app in-process with Starlette's ``TestClient``: its portal (an event loop
in a background thread) runs the app's lifespan and every request, so plain sync tests and
hypothesis can drive it::

    with AppHarness(tmp_path / "local.sqlite3") as app:
        app.send(W.text_event("U1", "花壇有什麼店推薦吃吃看？"))
        app.wait_idle()
        app.outcomes[-1].tool_calls, app.line.replies(), app.store.journal_rows()

``UvicornHarness`` serves the same app with ``uvicorn.Server`` on 127.0.0.1 (a free port, in a
thread) and talks to it over real HTTP with ``httpx.Client``.

Both use a :class:`FakeLineApi` (their own, or one passed in so it can outlive an app restart),
sign bodies with :data:`SECRET`, and record every ``(InboundEvent, TurnOutcome)`` the app
reports to ``app.state.observers``.
"""

from __future__ import annotations

import asyncio
import io
import logging
import socket
import threading
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Self, TypeVar

import httpx
import uvicorn
from anyio.from_thread import BlockingPortal
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from multiproc import FRESH_CONNECTIONS
from starlette.exceptions import StarletteDeprecationWarning

from local_agent.agent.adk_router import TurnOutcome
from local_agent.line.inbound import InboundEvent
from local_agent.logs import configure_logging
from local_agent.server.app import create_app
from local_agent.settings import Settings
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import FakeLineApi, RecordedRequest

with warnings.catch_warnings():
    # Starlette asks for the ``httpx2`` package when only ``httpx`` is installed; the client works the same.
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

SECRET = "test-channel-secret-0123456789"
TOKEN = "test-channel-access-token"

T = TypeVar("T")


class HangingModel(BaseLlm):
    """A model whose call never returns."""

    model: str = "hanging-test-model"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        await asyncio.sleep(3600)
        yield  # pragma: no cover


def make_settings(line_base_url: str, sqlite_path: str | Path, **overrides: Any) -> Settings:
    """Settings for a test app: offline model, SQLite at ``sqlite_path``, LINE at the fake.
    ``overrides`` use the environment names (``LOCAL_INPUT_BUDGET=...``)."""
    values: dict[str, Any] = {
        "LINE_CHANNEL_SECRET": SECRET,
        "LINE_CHANNEL_ACCESS_TOKEN": TOKEN,
        "LINE_API_HOST": line_base_url,
        "LOCAL_SQLITE_PATH": str(sqlite_path),
        "LOCAL_STORE": "sqlite",
        "LOCAL_MODEL": "offline",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


def texts_of(request: RecordedRequest) -> list[str]:
    """The text messages of one recorded reply/push, in order."""
    return [m["text"] for m in request.body.get("messages", []) if m.get("type") == "text"]


def first_text(request: RecordedRequest) -> str:
    texts = texts_of(request)
    return texts[0] if texts else ""


class _Base(ABC):
    """What both harnesses share: the fake LINE API, settings, the app, recorded outcomes."""

    def __init__(
        self,
        sqlite_path: str | Path,
        *,
        line: FakeLineApi | None = None,
        settings: dict[str, Any] | None = None,
        store: Any = None,
        model: Any = None,
        measure: Any = None,
        clock: Callable[[], float] | None = None,
        gateway: dict[str, float] | None = None,
    ) -> None:
        self.sqlite_path = Path(sqlite_path)
        self._line = line
        self._owns_line = line is None
        self._settings_overrides = dict(settings or {})
        self._store, self._model, self._measure, self._clock = store, model, measure, clock
        # Fast, bounded LINE client behaviour for tests (attributes of LineGateway).
        self._gateway_tweaks = {"timeout": 5.0, "backoff": 0.01, "max_backoff": 0.02, **(gateway or {})}
        self.outcomes: list[TurnOutcome] = []
        self.events: list[InboundEvent] = []
        self.sent_texts: list[str] = []
        self._lock = threading.Lock()
        self.app = None
        self.settings: Settings | None = None

    @property
    def line(self) -> FakeLineApi:
        assert self._line is not None, "harness not started"
        return self._line

    def _build_app(self, configure_logs: bool = False):
        if self._line is None:
            self._line = FakeLineApi(access_token=TOKEN).start()
        self.settings = make_settings(self._line.base_url, self.sqlite_path, **self._settings_overrides)
        self.app = create_app(
            self.settings,
            clock=self._clock,
            store=self._store,
            model=self._model,
            measure=self._measure,
            configure_logs=configure_logs,
        )
        self.app.state.observers.append(self._observe)
        return self.app

    def _observe(self, event: InboundEvent, outcome: TurnOutcome) -> None:
        with self._lock:
            self.events.append(event)
            self.outcomes.append(outcome)

    def _tweak_gateway(self) -> None:
        gateway = self.app.state.gateway
        for name, value in self._gateway_tweaks.items():
            setattr(gateway, name, value)

    def _remember(self, events: Iterable[dict[str, Any]]) -> None:
        for event in events:
            message = event.get("message")
            if isinstance(message, dict) and isinstance(message.get("text"), str):
                self.sent_texts.append(message["text"])

    def outcomes_for(self, user: str, group: str | None = None) -> list[TurnOutcome]:
        scope = W.scope_of(user, group)
        with self._lock:
            return [o for e, o in zip(self.events, self.outcomes, strict=True) if e.scope == scope]

    @property
    def store(self) -> Any:
        return self.app.state.wiring.store

    @property
    def service(self) -> Any:
        return self.app.state.wiring.service

    def journal(self, user: str, group: str | None = None) -> dict[str, Any]:
        """The scope's usable journal, as the replay prints it (turn labels, summary, revision)."""
        return self.service.journal_state(W.scope_of(user, group))

    def _stop_line(self) -> None:
        if self._owns_line and self._line is not None:
            self._line.stop()

    # -- what each harness provides -------------------------------------------------------------
    @abstractmethod
    def start(self) -> Self:
        """Start the fake LINE API (if owned) and the app; return the harness."""

    @abstractmethod
    def stop(self, timeout: float = 60.0) -> None:
        """Drain and stop the app, then close what the harness owns."""

    @abstractmethod
    def post(self, body: bytes | str, headers: dict[str, str] | None = None) -> httpx.Response:
        """POST ``body`` to ``/callback`` as given (no signing)."""

    @abstractmethod
    def wait_idle(self, timeout: float = 30.0) -> bool:
        """True once no accepted turn is pending."""

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def send(self, *events: dict[str, Any]) -> httpx.Response:
        """POST one signed body with ``events``."""
        self._remember(events)
        content, headers = W.signed(SECRET, *events)
        return self.post(content, headers)

    def turn(self, *events: dict[str, Any], timeout: float = 30.0) -> httpx.Response:
        """``send`` then ``wait_idle``: one complete exchange."""
        response = self.send(*events)
        assert self.wait_idle(timeout), "turn did not finish"
        return response


class AppHarness(_Base):
    """The app in-process: Starlette's ``TestClient`` runs the lifespan and the requests on its portal
    (an event loop in a background thread), so plain sync tests and hypothesis can drive it.

    ``log_stream``: if given, the app's JSON logging (``configure_logging``) writes there at
    ``log_level``; ``stop()`` removes that handler again.
    """

    def __init__(
        self,
        sqlite_path: str | Path,
        *,
        log_stream: io.StringIO | None = None,
        log_level: str = "DEBUG",
        **kwargs: Any,
    ) -> None:
        super().__init__(sqlite_path, **kwargs)
        self.log_stream = log_stream
        self.log_level = log_level
        self.client: TestClient | None = None
        self._log_handler: logging.Handler | None = None
        self._root_level = logging.getLogger().level

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> AppHarness:
        app = self._build_app(configure_logs=False)
        if self.log_stream is not None:
            self._log_handler = configure_logging(self.log_level, self.log_stream)
        client = TestClient(app, base_url="http://local.test")
        try:
            client.__enter__()  # starts the portal and runs the lifespan's startup
        except BaseException:
            self._release()
            raise
        self.client = client
        self._tweak_gateway()
        return self

    def stop(self, timeout: float = 60.0) -> None:
        """Leave the lifespan (which drains accepted turns), then stop the portal and the fake."""
        try:
            if self.client is not None:
                client, self.client = self.client, None
                client.__exit__(None, None, None)
        finally:
            self._release()

    def _release(self) -> None:
        if self._log_handler is not None:
            logging.getLogger().removeHandler(self._log_handler)
            logging.getLogger().setLevel(self._root_level)
            self._log_handler = None
        if self._store is not None and hasattr(self._store, "close"):
            self._store.close()
        self._stop_line()

    @property
    def portal(self) -> BlockingPortal:
        assert self.client is not None and self.client.portal is not None, "harness not started"
        return self.client.portal

    # -- driving -----------------------------------------------------------------------------
    def run(self, coro: Awaitable[T], timeout: float = 60.0) -> T:
        """Run a coroutine on the app's loop (the client's portal) and wait for its result."""

        async def bounded() -> T:
            return await asyncio.wait_for(coro, timeout)

        return self.portal.call(bounded)

    def post(self, body: bytes | str, headers: dict[str, str] | None = None) -> httpx.Response:
        assert self.client is not None, "harness not started"
        content = body.encode("utf-8") if isinstance(body, str) else body
        return self.client.post("/callback", content=content, headers=headers or {})

    def send_concurrently(self, batches: Sequence[Sequence[dict[str, Any]]]) -> list[httpx.Response]:
        """POST one signed body per batch, all at once."""
        for batch in batches:
            self._remember(batch)
        return self.post_concurrently([W.signed(SECRET, *batch) for batch in batches])

    def post_concurrently(self, bodies: Sequence[tuple[bytes, dict[str, str]]]) -> list[httpx.Response]:
        """POST each ``(body, headers)`` as given, all at once: one request per thread, each through
        the client's portal, so the app sees them concurrently. Responses in the order given."""
        if not bodies:
            return []
        with ThreadPoolExecutor(max_workers=min(len(bodies), 32)) as pool:
            return list(pool.map(lambda body_headers: self.post(*body_headers), bodies))

    def wait_idle(self, timeout: float = 30.0) -> bool:
        return self.run(self.app.state.dispatcher.wait_idle(timeout), timeout + 5)

    @property
    def dispatcher(self) -> Any:
        return self.app.state.dispatcher

    @property
    def gateway(self) -> Any:
        return self.app.state.gateway


def _free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


class UvicornHarness(_Base):
    """The app under a real ``uvicorn.Server`` on 127.0.0.1 (free port, server in a thread)."""

    def __init__(self, sqlite_path: str | Path, **kwargs: Any) -> None:
        super().__init__(sqlite_path, **kwargs)
        self.server: uvicorn.Server | None = None
        self.http: httpx.Client | None = None
        self.port = 0
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> UvicornHarness:
        app = self._build_app(configure_logs=False)
        self._sock = _free_socket()
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(app, lifespan="on", log_config=None, log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self._sock]}, name="uvicorn-harness", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        self._tweak_gateway()
        self.http = httpx.Client(base_url=self.base_url, timeout=30, limits=FRESH_CONNECTIONS)
        return self

    def stop(self, timeout: float = 60.0) -> None:
        try:
            if self.http is not None:
                self.http.close()
            if self.server is not None and self._thread is not None:
                self.server.should_exit = True
                self._thread.join(timeout)
                if self._thread.is_alive():
                    raise RuntimeError("uvicorn did not stop in time")
        finally:
            if self._sock is not None:
                self._sock.close()
            if self._store is not None and hasattr(self._store, "close"):
                self._store.close()
            self._stop_line()

    def post(self, body: bytes | str, headers: dict[str, str] | None = None) -> httpx.Response:
        content = body.encode("utf-8") if isinstance(body, str) else body
        return self.http.post("/callback", content=content, headers=headers or {})

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Poll ``GET /healthz`` (over HTTP) until no accepted turn is pending."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.http.get("/healthz").json()["pending"] == 0:
                return True
            time.sleep(0.02)
        return False
