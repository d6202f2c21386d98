"""A TCP relay on 127.0.0.1 that the tests can cut and restore: a store outage at the network
edge (the app and the Firestore emulator stay real and untouched).

``cut()`` closes every relayed connection and refuses new ones (accepted and closed at once);
``restore()`` relays again. Bounded: daemon threads, a 64 KiB buffer per direction.
"""

from __future__ import annotations

import socket
import threading


class TcpRelay:
    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self.up = True
        self._stopped = False
        threading.Thread(target=self._accept, name="tcp-relay", daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=2)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                self._close(sock)

    def _close(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

    def cut(self) -> None:
        self.up = False
        with self._lock:
            victims = list(self._open)
        for sock in victims:
            self._close(sock)

    def restore(self) -> None:
        self.up = True

    def stop(self) -> None:
        self._stopped = True
        self.cut()
        self._listener.close()
