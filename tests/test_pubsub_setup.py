"""``python -m examples.day15.pubsub setup``: what it asks Pub/Sub for, the gcloud commands it
prints, and (slow) a real run against the emulator, twice (the second finds everything there)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
import uuid
from pathlib import Path

import pytest

from examples.day15.pubsub import Plan, gcloud_commands, parse, subscription_request

ROOT = Path(__file__).resolve().parents[1]
ENDPOINT = "https://local.example.run.app/pubsub/push"
ACCOUNT = "local-push@p.iam.gserviceaccount.com"


def plan(emulator: bool) -> Plan:
    return Plan("p", "local-events", "local-events-push", ENDPOINT, ACCOUNT, None, 120, 10, 3600, emulator)


def test_production_gets_ordering_oidc_retry_and_dead_letter() -> None:
    request = subscription_request(plan(emulator=False))
    assert request["enable_message_ordering"] is True
    assert request["push_config"] == {
        "push_endpoint": ENDPOINT,
        "oidc_token": {"service_account_email": ACCOUNT, "audience": ENDPOINT},
    }
    assert request["dead_letter_policy"] == {
        "dead_letter_topic": "projects/p/topics/local-events-dead-letter",
        "max_delivery_attempts": 10,
    }
    assert (
        request["message_retention_duration"] == {"seconds": 3600} and request["ack_deadline_seconds"] == 120
    )
    assert "dead_letter_policy" not in subscription_request(plan(emulator=True))  # the emulator's is broken
    commands = "\n".join(gcloud_commands(plan(emulator=False)))
    for flag in (
        "--enable-message-ordering",
        f"--push-auth-service-account {ACCOUNT}",
        f"--push-auth-token-audience {ENDPOINT}",
        "--dead-letter-topic local-events-dead-letter --max-delivery-attempts 10",
        "--role roles/pubsub.publisher",
        "--role roles/pubsub.subscriber",
        f"add-iam-policy-binding {ACCOUNT} --project p --member user:$YOUR_ACCOUNT --role roles/iam.serviceAccountUser",
        "--role roles/iam.serviceAccountTokenCreator",
    ):
        assert flag in commands


def test_the_printed_commands_never_show_the_emulator_token() -> None:
    secret = "emulator-push-token-0123456789"
    emulated = Plan(
        "p",
        "t-1",
        "s-1",
        f"http://127.0.0.1:8080/pubsub/push?a=1&token={secret}",
        None,
        None,
        120,
        10,
        3600,
        True,
    )
    commands = "\n".join(gcloud_commands(emulated))
    assert secret not in commands
    assert "--push-endpoint http://127.0.0.1:8080/pubsub/push?a=1&token=$LOCAL_PUBSUB_PUSH_TOKEN" in commands
    assert subscription_request(emulated)["push_config"]["push_endpoint"].endswith(secret)  # the real one


def test_names_come_from_the_environment_and_bad_values_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PUBSUB_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    monkeypatch.setenv("LOCAL_PUBSUB_TOPIC", "my-topic")
    got = parse(["setup", "--push-endpoint", ENDPOINT, "--push-service-account", ACCOUNT])
    assert (got.project, got.topic, got.subscription, got.emulator) == (
        "proj",
        "my-topic",
        "local-events-push",
        False,
    )
    with pytest.raises(SystemExit):
        parse(["setup", "--push-endpoint", ENDPOINT, "--max-attempts", "3"])
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT")
    with pytest.raises(SystemExit):
        parse(["setup", "--push-endpoint", ENDPOINT])


@pytest.mark.parametrize(
    "argv",
    [
        ["--push-endpoint", ENDPOINT],  # no service account: every push would be refused
        ["--push-endpoint", "http://local.example/pubsub/push", "--push-service-account", ACCOUNT],
    ],
)
def test_on_google_cloud_pushes_must_be_signed_and_https(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    monkeypatch.delenv("PUBSUB_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    with pytest.raises(SystemExit) as exited:
        parse(["setup", *argv])
    assert exited.value.code == 2
    assert "--push-service-account" in capsys.readouterr().err
    monkeypatch.setenv("PUBSUB_EMULATOR_HOST", "127.0.0.1:9")  # the emulator signs nothing: allowed there
    assert parse(["setup", "--push-endpoint", "http://127.0.0.1:9/pubsub/push?token=t"]).emulator is True


@pytest.mark.slow
def test_setup_on_the_emulator_is_idempotent(pubsub_emulator) -> None:
    project = "setup-" + uuid.uuid4().hex[:12]
    env = {
        "PATH": "/usr/bin:/bin",
        "PUBSUB_EMULATOR_HOST": pubsub_emulator.endpoint,
        "GOOGLE_CLOUD_PROJECT": project,
    }
    command = [
        sys.executable,
        "-m",
        "examples.day15.pubsub",
        "setup",
        "--push-endpoint",
        "http://127.0.0.1:9/pubsub/push?token=t",
    ]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout.count(": created") == 4 and "gcloud pubsub subscriptions create" in first.stdout
    second = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0 and second.stdout.count(": exists") == 4
    url = f"http://{pubsub_emulator.endpoint}/v1/projects/{project}/subscriptions/local-events-push"
    with urllib.request.urlopen(url, timeout=10) as response:
        sub = json.loads(response.read())
    assert sub["enableMessageOrdering"] is True
    assert sub["pushConfig"]["pushEndpoint"].endswith("/pubsub/push?token=t")
    assert sub["topic"] == f"projects/{project}/topics/local-events"
