"""Every command reads ``.env`` as the app does (the environment first, empty values count as unset) and
says which file it read: the shared reader, and the commands as a person runs them."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from examples.day15 import pubsub
from local_agent.listings.loader import SHIPPED_DIR
from local_agent.settings import SettingsError, load_settings, read_environment
from local_agent.testing.fake_line_api import FakeLineApi

ROOT = Path(__file__).resolve().parents[1]
ENV_PREFIXES = ("LINE_", "LOCAL_", "GOOGLE_", "FIRESTORE_", "PUBSUB_")
TOKEN = "dotenv-token-1234567890"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith(ENV_PREFIXES):
            monkeypatch.delenv(name, raising=False)


def dotenv(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".env").write_text(text, encoding="utf-8")
    return folder


# -- the reader ---------------------------------------------------------------------------------


def test_the_environment_comes_first_and_an_empty_value_is_unset(tmp_path):
    folder = dotenv(
        tmp_path,
        "# a comment\nLOCAL_MODEL=offline\nLOCAL_LISTINGS_DIR=from-file\nLOCAL_INPUT_BUDGET=\n"
        'export LOCAL_STORE="sqlite"\n',
    )
    env = read_environment({"LOCAL_LISTINGS_DIR": "from-env", "LOCAL_MODEL": ""}, folder)
    assert env.file == folder / ".env"
    assert env.get("LOCAL_LISTINGS_DIR") == "from-env"  # the environment wins
    assert env.get("LOCAL_MODEL") == "offline"  # an empty environment value does not hide the file's
    assert env.get("LOCAL_STORE") == "sqlite" and "LOCAL_INPUT_BUDGET" not in env.values
    assert env.source() == "settings: the environment, then ./.env"


def test_without_a_dotenv_it_says_so(tmp_path):
    env = read_environment({"LOCAL_MODEL": "offline"}, tmp_path)
    assert env.file is None and env.values == {"LOCAL_MODEL": "offline"}
    assert env.source() == "settings: the environment only (no .env in this folder)"


def test_the_reader_and_the_apps_settings_agree(tmp_path, monkeypatch):
    dotenv(
        tmp_path,
        "LINE_CHANNEL_SECRET=0123456789abcdef-from-file\nLINE_CHANNEL_ACCESS_TOKEN=token-from-file-1\n"
        "LOCAL_LISTINGS_DIR=file-folder\nLOCAL_SQLITE_PATH=file.sqlite3\nLOCAL_INPUT_BUDGET=\n",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOCAL_SQLITE_PATH", "env.sqlite3")
    env, settings = read_environment(), load_settings()
    assert (settings.local_listings_dir, settings.local_sqlite_path) == ("file-folder", "env.sqlite3")
    assert (env.get("LOCAL_LISTINGS_DIR"), env.get("LOCAL_SQLITE_PATH")) == ("file-folder", "env.sqlite3")
    assert settings.local_input_budget is None and "LOCAL_INPUT_BUDGET" not in env.values


def test_a_bad_value_in_dotenv_is_one_line_naming_the_variable_not_the_value(tmp_path, monkeypatch):
    dotenv(tmp_path, "LINE_CHANNEL_SECRET=changeme\nLOCAL_MAX_PENDING_TURNS=lots-of-them\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert [p.variable for p in info.value.problems] == [
        "LINE_CHANNEL_SECRET",
        "LINE_CHANNEL_ACCESS_TOKEN",
        "LOCAL_MAX_PENDING_TURNS",
    ]
    assert "lots-of-them" not in "\n".join(info.value.lines())


def test_pubsub_setup_takes_its_defaults_from_dotenv(tmp_path, monkeypatch):
    dotenv(tmp_path, "GOOGLE_CLOUD_PROJECT=proj-from-file\nPUBSUB_EMULATOR_HOST=127.0.0.1:8085\n")
    monkeypatch.chdir(tmp_path)
    plan = pubsub.parse(["setup", "--push-endpoint", "http://127.0.0.1:8080/pubsub/push?token=t"])
    assert (plan.project, plan.emulator) == ("proj-from-file", True)
    env = read_environment()
    env.export("PUBSUB_EMULATOR_HOST")
    assert os.environ["PUBSUB_EMULATOR_HOST"] == "127.0.0.1:8085"


# -- the commands, as processes -------------------------------------------------------------------


def _run(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIXES)}
    env.update(PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_richmenu_show_reads_the_token_and_host_from_dotenv(tmp_path):
    with FakeLineApi(access_token=TOKEN).start() as line:
        dotenv(tmp_path, f"LINE_CHANNEL_ACCESS_TOKEN={TOKEN}\nLINE_API_HOST={line.base_url}\n")
        done = _run(["-m", "examples.day15.richmenu", "show"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "settings: the environment, then ./.env"
    assert done.stdout.splitlines()[0] == "default rich menu: none"
    assert TOKEN not in done.stdout + done.stderr


@pytest.mark.slow
def test_richmenu_without_a_token_anywhere_names_both_places(tmp_path):
    done = _run(["-m", "examples.day15.richmenu", "show"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "settings: the environment only (no .env in this folder)",
        "richmenu show: LINE_CHANNEL_ACCESS_TOKEN is not set (in the environment or ./.env): "
        "the channel's long-lived access token is needed",
    ]


@pytest.mark.slow
def test_listings_check_without_a_folder_checks_the_one_dotenv_names(tmp_path):
    folder = tmp_path / "office"
    folder.mkdir()
    shutil.copy(SHIPPED_DIR / "places.csv", folder / "places.csv")
    (folder / "events.csv").write_text("id,name\n", encoding="utf-8")
    dotenv(tmp_path, f"LOCAL_LISTINGS_DIR={folder}\n")
    done = _run(["-m", "examples.day15.listings", "check"], tmp_path)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "settings: the environment, then ./.env"
    assert lines[1].startswith("listings check failed: ") and "events.csv row 1 column" in lines[2]


def test_the_replay_takes_settings_from_dotenv_but_never_the_services_database(tmp_path, monkeypatch):
    from examples.day15.replay import ReplayDriver

    dotenv(tmp_path, "LOCAL_SQLITE_PATH=var/local.sqlite3\nLOCAL_INPUT_BUDGET=9000\n")
    monkeypatch.chdir(tmp_path)
    driver = ReplayDriver()
    with FakeLineApi().start() as line:
        driver.line = line
        settings = driver.settings(None, None)
        assert settings.local_input_budget == 9000  # from .env
        assert settings.local_sqlite_path.endswith("replay.sqlite3")  # a temporary file of its own
        monkeypatch.setenv("LOCAL_SQLITE_PATH", str(tmp_path / "chosen.sqlite3"))
        assert driver.settings(None, None).local_sqlite_path == str(tmp_path / "chosen.sqlite3")
    asyncio.run(driver.close())  # removes its temporary folder


@pytest.mark.slow
def test_replay_reads_the_listings_folder_from_dotenv(tmp_path):
    dotenv(tmp_path, f"LOCAL_LISTINGS_DIR={tmp_path / 'missing'}\n")
    done = _run(
        ["-m", "examples.day15.replay", str(ROOT / "examples/day15/scripts/five_turns.json")], tmp_path
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "settings: the environment, then ./.env"
    assert lines[1] == f"replay: cannot start, 1 listings problem in {tmp_path / 'missing'}"
