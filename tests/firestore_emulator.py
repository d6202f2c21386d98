"""Pytest plugin: a Firestore emulator for the session (star-imported by ``conftest.py``).

Fixtures
    ``firestore_emulator``  (session) starts a server once, sets ``FIRESTORE_EMULATOR_HOST``
                            for the session and stops the server (SIGTERM, then SIGKILL) at the end.
    ``firestore_project``   (function) a fresh project id per test, wiped afterwards.
    ``firestore_store``     (function) ``FirestoreStore(project=firestore_project)``.

Which server
    1. The official emulator: ``platform/cloud-firestore-emulator/cloud-firestore-emulator.jar``
       under the Cloud SDK root (next to ``bin/gcloud``, else as printed by
       ``gcloud info --format='value(installation.sdk_root)'``), run
       directly with ``java`` so the PID we stop is the server's. Ready when ``GET /`` says ``Ok``.
    2. Else the npm package ``@firestore-emulator/server`` (installed once into a cache dir with
       ``npm install``), bound to 127.0.0.1. It does not isolate transactions
       (``isolates_transactions = False``): contention tests skip on it.
    3. Else every test that needs Firestore skips, with the reason.

    ``LOCAL_FIRESTORE_EMULATOR=auto|java|npm|off`` forces a choice (default ``auto``).
    ``LOCAL_FIRESTORE_NPM_CACHE`` overrides the npm cache dir
    (default ``~/.cache/local-agent/firestore-emulator-npm``).

Tests that use these fixtures get the ``firestore`` marker (``-m "not firestore"`` deselects
them; marks cannot be put on fixtures), and every ``firestore`` test is also ``slow``: it needs
the emulator, a server process, so the quick path (``-m "not slow"``) never starts one. The
terminal summary says which server ran.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

__all__ = [
    "FirestoreEmulator",
    "firestore_emulator",
    "firestore_project",
    "firestore_store",
    "pytest_collection_modifyitems",
    "pytest_report_header",
    "pytest_terminal_summary",
]

HOST = "127.0.0.1"
READY_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0
JAR_RELATIVE = Path("platform/cloud-firestore-emulator/cloud-firestore-emulator.jar")
JAVA_MAIN = "com.google.cloud.datastore.emulator.firestore.CloudFirestore"
# English messages (as the SDK's wrapper script sets); C1-only JIT and serial GC start faster.
JAVA_FLAGS = ("-Duser.language=en", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
NPM_PACKAGE = "@firestore-emulator/server@0.3.15"
FIRESTORE_FIXTURES = ("firestore_emulator", "firestore_project", "firestore_store")

# What the session did, for the terminal summary.
_STATE: dict[str, object] = {"ran": None, "skipped": None, "stopped": None}

_NODE_SERVER = r"""
// Serve @firestore-emulator/server on 127.0.0.1 only (its own start() binds 0.0.0.0).
const { FirestoreServer } = require("@firestore-emulator/server");
const { ServerCredentials } = require("@grpc/grpc-js");
const port = Number(process.argv[2]);
const emulator = new FirestoreServer();
const server = emulator.server;
server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (err, bound) => {
  if (err) { console.error(String(err)); process.exit(1); }
  console.log(`READY 127.0.0.1:${bound}`);
});
const stop = () => { server.forceShutdown(); process.exit(0); };
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
"""


@dataclass
class FirestoreEmulator:
    """A running emulator. ``endpoint`` is what ``FIRESTORE_EMULATOR_HOST`` holds."""

    kind: str  # "java" (the official emulator) or "npm" (@firestore-emulator/server)
    description: str
    port: int
    pid: int
    log_path: str
    isolates_transactions: bool
    supports_wipe: bool
    startup_seconds: float
    process: subprocess.Popen = field(repr=False)

    @property
    def endpoint(self) -> str:
        return f"{HOST}:{self.port}"

    def wipe(self, project: str, database: str = "(default)") -> None:
        """Delete every document of ``project`` (official emulator only)."""
        if not self.supports_wipe:
            return
        path = f"/emulator/v1/projects/{project}/databases/{urllib.parse.quote(database)}/documents"
        request = urllib.request.Request(f"http://{self.endpoint}{path}", method="DELETE")
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = Path(self.log_path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


# -- discovery -----------------------------------------------------------------------------
def _sdk_root(gcloud: str) -> Path | None:
    try:
        out = subprocess.run(
            [gcloud, "info", "--format=value(installation.sdk_root)"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out) if out else None


def _find_java_emulator() -> tuple[str, Path] | str:
    """(java, jar), or the reason it is unavailable."""
    java, gcloud = shutil.which("java"), shutil.which("gcloud")
    if java is None:
        return "java is not on PATH"
    if gcloud is None:
        return "gcloud is not on PATH (no Cloud SDK root)"
    # <root>/bin/gcloud is the usual layout; checking it first saves `gcloud info` (~3 s).
    jar = Path(os.path.realpath(gcloud)).parent.parent / JAR_RELATIVE
    if jar.is_file():
        return java, jar
    root = _sdk_root(gcloud)
    if root is None:
        return "`gcloud info` printed no installation.sdk_root"
    jar = root / JAR_RELATIVE
    if not jar.is_file():
        return f"{jar} is missing (gcloud components install cloud-firestore-emulator)"
    return java, jar


def _npm_cache_dir() -> Path:
    default = Path.home() / ".cache" / "local-agent" / "firestore-emulator-npm"
    return Path(os.environ.get("LOCAL_FIRESTORE_NPM_CACHE", default))


def _find_npm_emulator() -> tuple[str, Path] | str:
    """(node, script), installing the package into the cache dir if needed; or the reason."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "node/npm are not on PATH"
    cache = _npm_cache_dir()
    installed = cache / "node_modules" / "@firestore-emulator" / "server" / "package.json"
    if not installed.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(cache),
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--loglevel=error",
                    NPM_PACKAGE,
                ],
                capture_output=True,
                text=True,
                timeout=300,
                check=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", "") or str(exc)
            return f"npm install {NPM_PACKAGE} failed: {detail.strip()[-300:]}"
        if not installed.is_file():
            return f"npm install {NPM_PACKAGE} left no package in {cache}"
    script = cache / "serve-local.cjs"
    if not script.is_file() or script.read_text(encoding="utf-8") != _NODE_SERVER:
        script.write_text(_NODE_SERVER, encoding="utf-8")
    return node, script


# -- process control -----------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _stop(proc: subprocess.Popen) -> str:
    if proc.poll() is not None:
        return f"already exited ({proc.returncode})"
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_TIMEOUT_S)
        return "stopped (SIGTERM)"
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=STOP_TIMEOUT_S)
        return "killed (SIGKILL after SIGTERM timed out)"


def _http_ok(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/", timeout=1) as response:
            return response.read().decode("utf-8", "replace").strip() == "Ok"
    except (OSError, urllib.error.URLError):
        return False


def _log_says_ready(log_path: str) -> bool:
    try:
        return "READY " in Path(log_path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _start(kind: str, argv_for_port, ready, description: str, log_dir: str) -> FirestoreEmulator | str:
    """Start a server on a free port and wait until ``ready(port, log_path)``; retry a taken port."""
    reason = ""
    for attempt in range(3):
        port = _free_port()
        log_path = os.path.join(log_dir, f"firestore-{kind}-{port}.log")
        started = time.monotonic()
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                argv_for_port(port), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        deadline = started + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            if ready(port, log_path):
                return FirestoreEmulator(
                    kind=kind,
                    description=description,
                    port=port,
                    pid=proc.pid,
                    log_path=log_path,
                    isolates_transactions=(kind == "java"),
                    supports_wipe=(kind == "java"),
                    startup_seconds=time.monotonic() - started,
                    process=proc,
                )
            time.sleep(0.2)
        status = _stop(proc)
        tail = Path(log_path).read_text(encoding="utf-8", errors="replace")[-1500:]
        reason = (
            f"{kind} emulator on port {port} not ready within {READY_TIMEOUT_S:.0f} s "
            f"(attempt {attempt + 1}, {status}); log {log_path}:\n{tail}"
        )
    return reason


def _launch(log_dir: str) -> FirestoreEmulator | str:
    choice = os.environ.get("LOCAL_FIRESTORE_EMULATOR", "auto").strip().lower() or "auto"
    if choice not in ("auto", "java", "npm", "off"):
        return f"LOCAL_FIRESTORE_EMULATOR={choice!r} is not one of auto, java, npm, off"
    if choice == "off":
        return "LOCAL_FIRESTORE_EMULATOR=off"
    reasons: list[str] = []
    if choice in ("auto", "java"):
        found = _find_java_emulator()
        if isinstance(found, str):
            reasons.append(f"official emulator unavailable: {found}")
        else:
            java, jar = found
            started = _start(
                "java",
                lambda port: [
                    java,
                    *JAVA_FLAGS,
                    "-cp",
                    str(jar),
                    JAVA_MAIN,
                    "start",
                    f"--host={HOST}",
                    f"--port={port}",
                ],
                lambda port, _log: _http_ok(port),
                f"official Cloud Firestore emulator ({jar})",
                log_dir,
            )
            if isinstance(started, FirestoreEmulator):
                return started
            reasons.append(started)
    if choice in ("auto", "npm"):
        found = _find_npm_emulator()
        if isinstance(found, str):
            reasons.append(f"npm emulator unavailable: {found}")
        else:
            node, script = found
            started = _start(
                "npm",
                lambda port: [node, str(script), str(port)],
                lambda _port, log_path: _log_says_ready(log_path),
                f"npm {NPM_PACKAGE} (no transaction isolation; {script.parent})",
                log_dir,
            )
            if isinstance(started, FirestoreEmulator):
                return started
            reasons.append(started)
    return "; ".join(reasons)


# -- fixtures ------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def firestore_emulator() -> Iterator[FirestoreEmulator]:
    log_dir = tempfile.mkdtemp(prefix="local-firestore-emulator-")
    started = _launch(log_dir)
    if isinstance(started, str):
        _STATE["skipped"] = started
        pytest.skip(f"no Firestore emulator: {started}")
    emulator = started
    _STATE["ran"] = emulator
    atexit.register(_stop, emulator.process)  # safety net if the session dies before teardown
    previous = os.environ.get("FIRESTORE_EMULATOR_HOST")
    os.environ["FIRESTORE_EMULATOR_HOST"] = emulator.endpoint
    try:
        yield emulator
    finally:
        if previous is None:
            os.environ.pop("FIRESTORE_EMULATOR_HOST", None)
        else:
            os.environ["FIRESTORE_EMULATOR_HOST"] = previous
        _STATE["stopped"] = _stop(emulator.process)


@pytest.fixture
def firestore_project(firestore_emulator: FirestoreEmulator) -> Iterator[str]:
    project = "test-" + uuid.uuid4().hex[:20]
    yield project
    try:
        firestore_emulator.wipe(project)
    except OSError as exc:  # a failed wipe must not fail the test; projects never collide
        print(f"firestore emulator: wiping {project} failed: {exc}")


@pytest.fixture
def firestore_store(firestore_project: str):
    from local_agent.stores.firestore import FirestoreStore

    store = FirestoreStore(project=firestore_project)
    yield store
    store.close()


# -- hooks (picked up because conftest.py star-imports this module) ------------------------
def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if any(name in getattr(item, "fixturenames", ()) for name in FIRESTORE_FIXTURES):
            item.add_marker(pytest.mark.firestore)
        if item.get_closest_marker("firestore") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)  # the emulator is a server process


def pytest_report_header(config) -> str:
    choice = os.environ.get("LOCAL_FIRESTORE_EMULATOR", "auto")
    return (
        f"firestore emulator: started on first use (LOCAL_FIRESTORE_EMULATOR={choice}); "
        "the summary says which server ran"
    )


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    ran, skipped = _STATE["ran"], _STATE["skipped"]
    if ran is None and skipped is None:
        return
    terminalreporter.write_sep("=", "firestore emulator", bold=True)
    if isinstance(ran, FirestoreEmulator):
        isolation = (
            "isolates transactions"
            if ran.isolates_transactions
            else "does NOT isolate transactions (contention tests skipped)"
        )
        terminalreporter.write_line(
            f"FIRESTORE EMULATOR RAN: {ran.kind}: {ran.description}",
            bold=True,
            yellow=not ran.isolates_transactions,
            green=ran.isolates_transactions,
        )
        terminalreporter.write_line(
            f"  endpoint {ran.endpoint}, pid {ran.pid}, ready in {ran.startup_seconds:.1f} s, "
            f"{isolation}; {_STATE['stopped'] or 'still running'}; log {ran.log_path}"
        )
    else:
        terminalreporter.write_line(f"FIRESTORE EMULATOR DID NOT RUN: {skipped}", bold=True, red=True)
