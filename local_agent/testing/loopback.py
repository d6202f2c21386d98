"""A tiny stdlib HTTP server on 127.0.0.1 in a daemon thread: the base of the shipped fakes
(fake LINE API, fake Gemini endpoint)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LoopbackServer:
    """Start/stop plumbing; subclasses define ``start()`` and call ``_serve``."""

    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _host: str = "127.0.0.1"
    _port: int = 0  # 0 = any free port; a fixed one raises OSError (EADDRINUSE) when taken

    def _serve(self, handler: type[BaseHTTPRequestHandler], *, name: str) -> ThreadingHTTPServer:
        server = ThreadingHTTPServer((self._host, self._port), handler)
        server.daemon_threads = True
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True
        )
        self._server, self._thread = server, thread
        thread.start()
        return server

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def start(self) -> Self:
        """Bind and serve (each fake passes its own handler to ``_serve``); returns the fake."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not running")
        return self._server.server_address[1]
