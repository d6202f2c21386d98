"""Settings read from the environment under the spec's names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from local_agent.settings import Settings, SettingsError, load_settings

SECRET = "0123456789abcdef-real-channel-secret"
TOKEN = "real-access-token-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ENV_PREFIXES = ("LINE_", "LOCAL_", "GOOGLE_", "FIRESTORE_", "K_SERVICE")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith(ENV_PREFIXES):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LINE_CHANNEL_SECRET", SECRET)
    monkeypatch.setenv("LINE_CHANNEL_ACCESS_TOKEN", TOKEN)


def load() -> Settings:
    return Settings(_env_file=None)  # the environment only; a developer's .env must not leak in


def refused(match: str) -> ValidationError:
    with pytest.raises(ValidationError, match=match) as info:
        load()
    return info.value


def test_defaults_are_offline_sqlite_and_a_byte_budget():
    s = load()
    assert (s.local_store, s.local_model, s.local_sqlite_path) == ("sqlite", "offline", "var/local.sqlite3")
    assert (s.budget_unit, s.input_budget, s.counts_tokens) == ("bytes", 16384, False)
    assert s.line_api_host is None and s.google_api_key is None and s.firestore_emulator_host is None


def test_every_spec_variable_is_read_from_the_environment(monkeypatch):
    env = {
        "LINE_API_HOST": "http://127.0.0.1:8123",
        "LOCAL_STORE": "firestore",
        "LOCAL_SQLITE_PATH": "/tmp/elsewhere.sqlite3",
        "LOCAL_MODEL": "gemini-3.8-flash",
        "LOCAL_APPROVE_COUNT_TOKENS": "yes",
        "LOCAL_INPUT_BUDGET": "4096",
        "GOOGLE_API_KEY": "AIza-test-key",
        "GOOGLE_GENAI_USE_VERTEXAI": "yes",
        "GOOGLE_CLOUD_PROJECT": "local-demo",
        "FIRESTORE_EMULATOR_HOST": "127.0.0.1:8681",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    s = load()
    assert (s.line_channel_secret, s.line_channel_access_token) == (SECRET, TOKEN)
    assert s.line_api_host == "http://127.0.0.1:8123"
    assert (s.local_store, s.local_sqlite_path, s.local_model) == (
        "firestore",
        "/tmp/elsewhere.sqlite3",
        "gemini-3.8-flash",
    )
    assert s.local_approve_count_tokens is True and s.local_input_budget == 4096
    assert (s.google_api_key, s.google_genai_use_vertexai, s.google_cloud_project) == (
        "AIza-test-key",
        True,
        "local-demo",
    )
    assert s.firestore_emulator_host == "127.0.0.1:8681"


@pytest.mark.parametrize("name", ["LINE_CHANNEL_SECRET", "LINE_CHANNEL_ACCESS_TOKEN"])
@pytest.mark.parametrize("how", ["unset", "empty"])
def test_line_credentials_are_required(monkeypatch, name, how):
    if how == "unset":
        monkeypatch.delenv(name)
    else:
        monkeypatch.setenv(name, "")
    refused(name)


@pytest.mark.parametrize(
    "value",
    ["   ", "changeme", "change-me", "your-channel-secret", "your-channel-access-token", "xxx", "TODO"]
    + ["Changeme", "todo", "XXX", "Your-Channel-Secret"],
)
@pytest.mark.parametrize("name", ["LINE_CHANNEL_SECRET", "LINE_CHANNEL_ACCESS_TOKEN"])
def test_placeholder_credentials_are_refused_with_a_clear_error(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    error = refused("placeholder")
    assert name in str(error)


def test_gemini_without_an_api_key_or_vertex_is_refused(monkeypatch):
    monkeypatch.setenv("LOCAL_MODEL", "gemini-3.8-flash")
    error = refused("GOOGLE_API_KEY")
    assert SECRET not in str(error) and TOKEN not in str(error)  # the error never echoes credentials


def test_gemini_on_vertex_without_a_project_is_refused(monkeypatch):
    monkeypatch.setenv("LOCAL_MODEL", "gemini-3.8-flash")
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "yes")
    refused("GOOGLE_CLOUD_PROJECT")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "local-demo")
    assert load().google_genai_use_vertexai is True


def test_gemini_with_an_api_key_is_accepted(monkeypatch):
    monkeypatch.setenv("LOCAL_MODEL", "gemini-3.8-flash")
    monkeypatch.setenv("GOOGLE_API_KEY", "AIza-test-key")
    assert load().local_model == "gemini-3.8-flash"


@pytest.mark.parametrize("value", ["postgres", "SQLite", "memory", "firestore "])
def test_an_unknown_store_is_refused(monkeypatch, value):
    monkeypatch.setenv("LOCAL_STORE", value)
    refused("LOCAL_STORE")


def test_firestore_without_a_project_is_refused(monkeypatch):
    monkeypatch.setenv("LOCAL_STORE", "firestore")
    refused("GOOGLE_CLOUD_PROJECT")


def test_a_refusal_never_echoes_any_part_of_a_credential(monkeypatch):
    api_key = "AIzaSyD-very-secret-key-1234567890"
    monkeypatch.setenv("GOOGLE_API_KEY", api_key)
    monkeypatch.setenv("LOCAL_STORE", "firestore")  # refused: no GOOGLE_CLOUD_PROJECT
    message = str(refused("GOOGLE_CLOUD_PROJECT"))
    for credential in (api_key, SECRET, TOKEN):
        for i in range(len(credential) - 8):
            assert credential[i : i + 8] not in message, credential[i : i + 8]


@pytest.mark.parametrize("value", ["gpt-4", "gemini-pro", "Gemini-3.8-Flash"])
def test_an_unknown_model_is_refused(monkeypatch, value):
    monkeypatch.setenv("LOCAL_MODEL", value)
    refused("LOCAL_MODEL")


@pytest.mark.parametrize(
    "model,approve,unit,budget",
    [
        ("offline", "no", "bytes", 16384),
        ("offline", "yes", "bytes", 16384),  # the stand-in has no tokenizer: bytes even if approved
        ("gemini-3.8-flash", "no", "bytes", 16384),
        ("gemini-3.8-flash", "yes", "tokens", 8192),
    ],
)
def test_the_budget_counts_tokens_only_for_gemini_with_approval(monkeypatch, model, approve, unit, budget):
    monkeypatch.setenv("LOCAL_MODEL", model)
    monkeypatch.setenv("GOOGLE_API_KEY", "AIza-test-key")
    monkeypatch.setenv("LOCAL_APPROVE_COUNT_TOKENS", approve)
    s = load()
    assert (s.budget_unit, s.input_budget, s.counts_tokens) == (unit, budget, unit == "tokens")


def test_an_explicit_input_budget_overrides_the_default(monkeypatch):
    monkeypatch.setenv("LOCAL_INPUT_BUDGET", "2048")
    assert load().input_budget == 2048


def test_an_empty_input_budget_means_the_default(monkeypatch):
    monkeypatch.setenv("LOCAL_INPUT_BUDGET", "")
    assert load().input_budget == 16384


@pytest.mark.parametrize("value", ["0", "-5", "lots"])
def test_a_non_positive_or_non_numeric_input_budget_is_refused(monkeypatch, value):
    monkeypatch.setenv("LOCAL_INPUT_BUDGET", value)
    refused("LOCAL_INPUT_BUDGET")


YES_NO_SETTINGS = {
    "LOCAL_APPROVE_COUNT_TOKENS": "local_approve_count_tokens",
    "GOOGLE_GENAI_USE_VERTEXAI": "google_genai_use_vertexai",
    "LOCAL_TURN_THREAD": "local_turn_thread",
}


@pytest.mark.parametrize("name", sorted(YES_NO_SETTINGS))
@pytest.mark.parametrize(
    "value,expected",
    [
        ("yes", True),
        ("no", False),
        ("on", True),
        ("off", False),
        ("true", True),
        ("false", False),
        ("1", True),
        ("0", False),
        ("YES", True),
        ("Off", False),
    ],
)
def test_yes_no_settings_accept_yes_no_on_off_true_false_1_0(monkeypatch, name, value, expected):
    monkeypatch.setenv(name, value)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "local-demo")  # GOOGLE_GENAI_USE_VERTEXAI=yes is fine offline
    assert getattr(load(), YES_NO_SETTINGS[name]) is expected


@pytest.mark.parametrize("name", sorted(YES_NO_SETTINGS))
def test_an_empty_yes_no_setting_means_its_default(monkeypatch, name):
    monkeypatch.setenv(name, "")
    assert getattr(load(), YES_NO_SETTINGS[name]) is Settings.model_fields[YES_NO_SETTINGS[name]].default


@pytest.mark.parametrize("name", sorted(YES_NO_SETTINGS))
@pytest.mark.parametrize("value", ["maybe", "2", "approved", "yes please", " yes"])
def test_a_yes_no_setting_refuses_anything_else_naming_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    message = str(refused(name))
    assert "valid boolean" in message
    assert "input_value" not in message and repr(value) not in message  # the value is not echoed


def test_the_bytes_bound_factor_defaults_to_the_proven_bound(monkeypatch):
    assert load().local_count_tokens_bytes_factor == 1.0
    monkeypatch.setenv("LOCAL_COUNT_TOKENS_BYTES_FACTOR", "0")
    assert load().local_count_tokens_bytes_factor == 0.0  # count every request
    monkeypatch.setenv("LOCAL_COUNT_TOKENS_BYTES_FACTOR", "0.5")
    assert load().local_count_tokens_bytes_factor == 0.5


@pytest.mark.parametrize(
    "value,reason",
    [
        ("1.01", "no longer proves a request fits"),
        ("2", "no longer proves a request fits"),
        ("-0.1", "greater than or equal to 0"),
        ("nan", "finite number"),
        ("inf", "finite number"),
        ("half", "valid number"),
    ],
)
def test_a_bytes_bound_factor_above_one_or_not_a_number_is_refused(monkeypatch, value, reason):
    monkeypatch.setenv("LOCAL_COUNT_TOKENS_BYTES_FACTOR", value)
    message = str(refused("LOCAL_COUNT_TOKENS_BYTES_FACTOR"))
    assert reason in message and "input_value" not in message  # names the variable, says why


def test_settings_are_not_read_at_import(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIXES)}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", "import local_agent.settings"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("host", ["http://api.example.com", "ftp://127.0.0.1", "http://10.0.0.5:8080"])
def test_the_token_never_goes_to_a_plain_http_host_off_loopback(host):
    with pytest.raises(ValueError, match="LINE_API_HOST"):
        Settings(
            _env_file=None,
            LINE_CHANNEL_SECRET="s-real",
            LINE_CHANNEL_ACCESS_TOKEN="t-real",
            LINE_API_HOST=host,
        )


@pytest.mark.parametrize("host", ["https://api.line.me", "http://127.0.0.1:8123", "http://localhost:9000/"])
def test_https_or_a_loopback_fake_is_accepted(host):
    s = Settings(
        _env_file=None, LINE_CHANNEL_SECRET="s-real", LINE_CHANNEL_ACCESS_TOKEN="t-real", LINE_API_HOST=host
    )
    assert s.line_api_host == host.rstrip("/")


def test_env_example_and_readme_list_every_setting():
    root = Path(__file__).resolve().parents[1]
    example = (root / ".env.example").read_text(encoding="utf-8")
    readme = "".join(
        p.read_text(encoding="utf-8") for p in [root / "README.md", *(root / "docs").glob("*.md")]
    )
    names = {field.alias for field in Settings.model_fields.values()}
    assert {n for n in names if f"\n{n}=" not in example} == set()
    assert {n for n in names if n not in readme and n != "GOOGLE_CLOUD_LOCATION"} == set()


@pytest.mark.parametrize(
    "value", ["http://gemini.example", "ftp://127.0.0.1", "http://127.0.0.1.evil.example"]
)
def test_a_gemini_base_url_that_would_carry_the_key_in_clear_is_refused(monkeypatch, value):
    monkeypatch.setenv("LOCAL_GEMINI_BASE_URL", value)
    error = refused("LOCAL_GEMINI_BASE_URL must be https")
    assert "evil" not in str(error) and "gemini.example" not in str(error)  # the value is not echoed


@pytest.mark.parametrize(
    "value, expected",
    [
        ("https://proxy.example/", "https://proxy.example"),
        ("http://127.0.0.1:8123/", "http://127.0.0.1:8123"),
    ],
)
def test_a_gemini_base_url_on_https_or_loopback_is_accepted(monkeypatch, value, expected):
    monkeypatch.setenv("LOCAL_GEMINI_BASE_URL", value)
    assert load().local_gemini_base_url == expected


@pytest.mark.parametrize(
    "value, expected", [("debug", "DEBUG"), (" Warning ", "WARNING"), ("ERROR", "ERROR")]
)
def test_the_log_level_is_one_of_the_standard_names_in_any_case(monkeypatch, value, expected):
    monkeypatch.setenv("LOCAL_LOG_LEVEL", value)
    assert load().local_log_level == expected


@pytest.mark.parametrize("value", ["VERBOSE", "5", "trace"])
def test_an_unknown_log_level_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("LOCAL_LOG_LEVEL", value)
    assert "LOCAL_LOG_LEVEL" in str(refused("DEBUG"))


def test_an_unusable_sqlite_path_stops_the_start_naming_the_setting(monkeypatch, tmp_path):
    from local_agent.context.errors import StoreError
    from local_agent.wiring import open_store

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("LOCAL_SQLITE_PATH", str(blocker / "local.sqlite3"))
    with pytest.raises(StoreError, match="LOCAL_SQLITE_PATH"):
        open_store(load())


def test_a_printed_settings_object_shows_no_credential(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "AIza-not-a-real-key-0000")
    text = repr(load()) + str(load())
    assert SECRET not in text and TOKEN not in text and "AIza-not-a-real-key-0000" not in text
    assert "local_store='sqlite'" in text  # the rest is still shown


@pytest.mark.parametrize(
    "name, value",
    [
        ("LOCAL_TURN_ESTIMATE_SECONDS", "inf"),
        ("LOCAL_TURN_ESTIMATE_SECONDS", "nan"),
        ("LOCAL_STORE_DEADLINE_SECONDS", "0.0001"),
    ],
)
def test_durations_that_would_disable_a_bound_are_refused(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    assert name in str(refused(name))


def test_on_cloud_run_an_inbox_on_sqlite_is_refused_unless_on_purpose(monkeypatch):
    monkeypatch.setenv("K_SERVICE", "local-day15")
    error = refused("on Cloud Run")
    assert "LOCAL_STORE=firestore" in str(error) and "LOCAL_SQLITE_ON_CLOUD_RUN=yes" in str(error)
    monkeypatch.setenv("LOCAL_SQLITE_ON_CLOUD_RUN", "yes")
    assert load().local_store == "sqlite"  # said on purpose
    monkeypatch.delenv("LOCAL_SQLITE_ON_CLOUD_RUN")
    monkeypatch.setenv("LOCAL_INBOX", "no")
    assert load().local_inbox is False  # no inbox: nothing to lose with the instance's disk
    monkeypatch.delenv("LOCAL_INBOX")
    monkeypatch.setenv("LOCAL_STORE", "firestore")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "local-test")
    assert load().local_store == "firestore"


def test_the_cloud_run_refusal_is_one_line_at_start(monkeypatch):
    monkeypatch.setenv("K_SERVICE", "local-day15")
    with pytest.raises(SettingsError) as info:
        load_settings(_env_file=None)
    (line,) = [p for p in str(info.value).splitlines() if "Cloud Run" in p]
    assert "LOCAL_STORE=firestore" in line
