"""A listings folder the service refuses, as a person meets it: one line per problem on stderr (at most
20, then a count of the rest), exit status 2, no traceback — the shape of a settings error — through
uvicorn's import paths and every command that starts the app."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from local_agent.listings.loader import SHIPPED_DIR, load_listings
from local_agent.listings.problems import MAX_REPORTED, ListingsError, exit_on_listings_error

ROOT = Path(__file__).resolve().parents[1]
ENV_PREFIXES = ("LINE_", "LOCAL_", "GOOGLE_", "FIRESTORE_", "PUBSUB_")
CHANNEL = {
    "LINE_CHANNEL_SECRET": "0123456789abcdef-real-secret",
    "LINE_CHANNEL_ACCESS_TOKEN": "real-token-A1",
}


def bad_folder(tmp_path: Path, townships: int) -> Path:
    """The shipped snapshot with ``townships`` places moved to 台北市, and one impossible event date."""
    folder = tmp_path / "listings"
    folder.mkdir()
    for name in ("places.csv", "events.csv"):
        shutil.copy(SHIPPED_DIR / name, folder / name)
    places = (folder / "places.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    for i in range(1, townships + 1):
        cells = places[i].split(",", 3)  # id, name, township, the rest
        places[i] = ",".join([*cells[:2], "台北市", cells[3]])
    (folder / "places.csv").write_text("".join(places), encoding="utf-8")
    events = folder / "events.csv"
    events.write_text(events.read_text(encoding="utf-8").replace(",2026-12-05,", ",2026-02-30,"), "utf-8")
    return folder


def test_the_report_is_bounded_and_names_the_folder_and_the_check_command(tmp_path):
    folder = bad_folder(tmp_path, 24)
    with pytest.raises(ListingsError) as info:
        load_listings(folder)
    stream = io.StringIO()
    with pytest.raises(SystemExit) as done:
        exit_on_listings_error(info.value, "LOCAL", stream)
    assert done.value.code == 2
    lines = stream.getvalue().splitlines()
    assert lines[0] == f"LOCAL: cannot start, 25 listings problems in {folder}"
    assert len(lines) == 1 + MAX_REPORTED + 2
    assert all(line.startswith("  places.csv row ") for line in lines[1 : 1 + MAX_REPORTED])
    assert lines[-2].startswith("  ... and 5 more (") and "--max-problems 0" in lines[-2]
    assert lines[-1] == f"Check the folder with: python -m examples.day15.listings check {folder}"


# -- processes ----------------------------------------------------------------------------------


def _run(args: list[str], folder: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIXES)}
    env.update(CHANNEL, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8", LOCAL_LISTINGS_DIR=str(folder))
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["-m", "uvicorn", "examples.day15.main:app", "--port", "0"],
        ["-m", "uvicorn", "local_agent.app:app", "--port", "0"],
        ["-m", "examples.day15.replay", str(ROOT / "examples/day15/scripts/five_turns.json")],
        ["-m", "examples.day15.chat"],
    ],
    ids=["uvicorn-examples", "uvicorn-package", "replay", "chat"],
)
def test_a_bad_folder_stops_every_start_with_exit_2_and_one_line_per_problem(tmp_path, command):
    folder = bad_folder(tmp_path, 2)
    cwd = tmp_path / "empty"
    cwd.mkdir()
    done = _run(command, folder, cwd)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    name = "LOCAL" if "uvicorn" in command else command[1].rsplit(".", 1)[1]
    lines = done.stderr.strip().splitlines()
    if "uvicorn" not in command:  # a command says first which settings it read
        assert lines.pop(0) == "settings: the environment only (no .env in this folder)"
    assert lines == [
        f"{name}: cannot start, 3 listings problems in {folder}",
        *(
            f"  places.csv row {row} column township: '台北市' is not one of Changhua County's 26 townships; "
            "allowed: a township's full or short name, e.g. 花壇鄉 or 花壇"
            for row in (2, 3)
        ),
        "  events.csv row 28 column start_date: '2026-02-30' is not a date that exists (write YYYY-MM-DD); "
        "allowed: YYYY-MM-DD, a day that exists, or empty",
        f"Check the folder with: python -m examples.day15.listings check {folder}",
    ]


# -- ADK's own tools ----------------------------------------------------------------------------

ADK = Path(sys.executable).with_name("adk")
AGENTS = ROOT / "examples/day15/agents"


def _report_lines(folder: Path) -> list[str]:
    return [
        f"adk: cannot start, 3 listings problems in {folder}",
        *(
            f"  places.csv row {row} column township: '台北市' is not one of Changhua County's 26 townships; "
            "allowed: a township's full or short name, e.g. 花壇鄉 or 花壇"
            for row in (2, 3)
        ),
        "  events.csv row 28 column start_date: '2026-02-30' is not a date that exists (write YYYY-MM-DD); "
        "allowed: YYYY-MM-DD, a day that exists, or empty",
        f"Check the folder with: python -m examples.day15.listings check {folder}",
    ]


def _adk_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIXES)}
    env.update(PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8", LOCAL_LISTINGS_DIR=str(folder))
    return env


@pytest.mark.slow
def test_adk_run_with_a_bad_folder_exits_2_with_one_line_per_problem(tmp_path):
    folder = bad_folder(tmp_path, 2)
    done = subprocess.run(
        [str(ADK), "run", str(AGENTS / "local_day15")],
        cwd=tmp_path,
        env=_adk_env(folder),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.splitlines()
    start = lines.index(_report_lines(folder)[0])
    assert lines[start : start + 5] == _report_lines(folder)


@pytest.mark.slow
def test_adk_web_with_a_bad_folder_ends_at_the_first_run_with_exit_2_and_the_report(tmp_path):
    """ADK web loads the agent when a chat first runs: the server then ends, as uvicorn would."""
    import socket

    import httpx

    folder = bad_folder(tmp_path, 2)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    web = subprocess.Popen(
        [str(ADK), "web", "--port", str(port), str(AGENTS)],
        cwd=tmp_path,
        env=_adk_env(folder),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(240):
            try:
                httpx.get(f"{base}/list-apps", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.25)
        session = httpx.post(f"{base}/apps/local_day15/users/u/sessions", json={}, timeout=30).json()
        message = {"role": "user", "parts": [{"text": "花壇有什麼好吃的？"}]}
        run = {"appName": "local_day15", "userId": "u", "sessionId": session["id"], "newMessage": message}
        with pytest.raises(httpx.TransportError):
            httpx.post(f"{base}/run", json=run, timeout=60)
        out, err = web.communicate(timeout=30)
    finally:
        if web.poll() is None:
            web.kill()
            web.communicate()
    assert web.returncode == 2, err
    assert "Traceback" not in err + out
    lines = err.splitlines()
    start = lines.index(_report_lines(folder)[0])
    assert lines[start : start + 5] == _report_lines(folder)
