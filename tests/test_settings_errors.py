"""Settings errors in one screen: every problem on its own line (variable, what is wrong, where the
settings are documented), exit status 2, no traceback — through uvicorn's import path and every command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from local_agent.settings import DOCUMENTED_IN, SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[1]
ENV_PREFIXES = ("LINE_", "LOCAL_", "GOOGLE_", "FIRESTORE_")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith(ENV_PREFIXES):
            monkeypatch.delenv(name, raising=False)


def refused(**overrides: object) -> SettingsError:
    with pytest.raises(SettingsError) as info:
        load_settings(_env_file=None, **overrides)
    return info.value


def test_missing_secrets_are_one_line_each_naming_the_variable():
    err = refused()
    assert [str(p) for p in err.problems] == [
        "LINE_CHANNEL_SECRET: required, not set",
        "LINE_CHANNEL_ACCESS_TOKEN: required, not set",
    ]
    lines = err.lines("LOCAL")
    assert lines[0] == "LOCAL: cannot start, 2 settings are not valid"
    assert lines[-1] == f"Settings are documented in {DOCUMENTED_IN}."


def test_every_kind_of_problem_is_reported_at_once_without_its_value(monkeypatch):
    monkeypatch.setenv("LINE_CHANNEL_SECRET", "changeme")
    monkeypatch.setenv("LINE_CHANNEL_ACCESS_TOKEN", "token-0912345678")
    monkeypatch.setenv("LOCAL_STORE", "postgres")
    monkeypatch.setenv("LOCAL_MAX_CONCURRENT_TURNS", "many")
    monkeypatch.setenv("LOCAL_TURN_THREAD", "perhaps")
    err = refused()
    found = {p.variable: p.problem for p in err.problems}
    assert set(found) == {
        "LINE_CHANNEL_SECRET",
        "LOCAL_STORE",
        "LOCAL_MAX_CONCURRENT_TURNS",
        "LOCAL_TURN_THREAD",
    }
    assert "placeholder" in found["LINE_CHANNEL_SECRET"]
    assert found["LOCAL_STORE"] == "should be 'sqlite' or 'firestore'"
    assert "integer" in found["LOCAL_MAX_CONCURRENT_TURNS"] and "boolean" in found["LOCAL_TURN_THREAD"]
    text = "\n".join(err.lines())
    assert (
        "postgres" not in text and "many" not in text and "perhaps" not in text and "0912345678" not in text
    )


def test_a_rule_across_settings_names_its_variable(monkeypatch):
    monkeypatch.setenv("LINE_CHANNEL_SECRET", "0123456789abcdef-real-secret")
    monkeypatch.setenv("LINE_CHANNEL_ACCESS_TOKEN", "real-access-token-ABCDEFG")
    monkeypatch.setenv("LOCAL_STORE", "firestore")
    (problem,) = refused().problems
    assert problem.variable == "LOCAL_STORE" and "GOOGLE_CLOUD_PROJECT" in problem.problem


# -- as a person meets them: processes ----------------------------------------------------------


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIXES)}
    env.update(PYTHONIOENCODING="utf-8", **extra)
    return env


def _run(
    args: list[str], env: dict[str, str], tmp_path: Path, timeout: float = 120
) -> subprocess.CompletedProcess:
    # cwd is an empty folder (no .env there); PYTHONPATH finds the checkout
    env = {**env, "PYTHONPATH": str(ROOT)}
    return subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)


def _assert_one_screen(done: subprocess.CompletedProcess, *variables: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    for variable in variables:
        assert sum(line.strip().startswith(f"{variable}: ") for line in done.stderr.splitlines()) == 1
    assert f"Settings are documented in {DOCUMENTED_IN}." in done.stderr


@pytest.mark.slow
def test_uvicorn_on_the_import_path_exits_2_with_one_line_per_problem(tmp_path):
    done = _run(
        [sys.executable, "-m", "uvicorn", "examples.day15.main:app", "--port", "0"],
        _env(LOCAL_MAX_PENDING_TURNS="lots"),
        tmp_path,
    )
    _assert_one_screen(done, "LINE_CHANNEL_SECRET", "LINE_CHANNEL_ACCESS_TOKEN", "LOCAL_MAX_PENDING_TURNS")
    assert len(done.stderr.strip().splitlines()) <= 8, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["-m", "examples.day15.replay", str(ROOT / "examples/day15/scripts/five_turns.json")],
        ["-m", "examples.day15.chat"],
    ],
)
def test_the_commands_exit_2_with_one_line_per_problem(tmp_path, command):
    done = _run([sys.executable, *command], _env(LOCAL_MODEL="gpt", LOCAL_DRAIN_SECONDS="-1"), tmp_path)
    _assert_one_screen(done, "LOCAL_MODEL", "LOCAL_DRAIN_SECONDS")
    assert done.stdout == ""
