"""A deadline on request headers for uvicorn's h11 server (uvicorn itself has none).

Start uvicorn with ``--http local_agent.server.http_deadlines:DeadlineH11Protocol`` (the Dockerfile
does). A connection that has not delivered a complete request head within
``HEADER_TIMEOUT_SECONDS`` — after it opened, or after the previous response on a kept-alive
connection — gets ``408 Request Timeout`` and is closed, so a slow or silent client cannot hold a
connection (and with it the graceful shutdown) open. The body has its own deadline in the webhook
(``LOCAL_BODY_TIMEOUT_SECONDS`` → 408). On SIGTERM uvicorn closes connections that are between
requests at once; one in the middle of a request ends by these deadlines, within
``--timeout-graceful-shutdown``.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_SECONDS = 5.0
TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\n"
    b"content-length: 29\r\n"
    b"\r\n"
    b"request headers not received\n"
)


class DeadlineH11Protocol(H11Protocol):
    header_timeout = HEADER_TIMEOUT_SECONDS

    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._header_deadline)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _waiting_for_head(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _header_deadline(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or not self._waiting_for_head():
            return  # a request is in progress: its body has the webhook's deadline
        self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()
