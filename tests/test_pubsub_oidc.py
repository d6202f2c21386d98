"""Push authentication in production: the OIDC token Pub/Sub attaches, checked with google-auth
against certificates served by a local endpoint (``LOCAL_PUBSUB_CERTS_URL``) with RSA keys made
here. A valid token runs the turn; forged, expired, wrong-audience, wrong-signer, wrong-issuer
and missing tokens are refused and run nothing; the emulator's ``?token=`` is not accepted
while no emulator is configured."""

from __future__ import annotations

import datetime
import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from google.auth import crypt, jwt
from helpers_app import AppHarness

from local_agent.line.inbound import InboundEvent
from local_agent.server.queue import encode_event
from local_agent.testing import webhooks as W
from local_agent.testing.loopback import LoopbackServer
from local_agent.testing.pubsub import push_envelope

AUDIENCE = "https://local.example.run.app/pubsub/push"
ACCOUNT = "local-push@test-project.iam.gserviceaccount.com"
EMULATOR_TOKEN = "emulator-push-token-0123456789"


class Key:
    """An RSA key, its self-signed certificate (PEM) and a signer for ``kid``."""

    def __init__(self, kid: str) -> None:
        self.kid = kid
        self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test")])
        now = datetime.datetime.now(datetime.UTC)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self.private.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .sign(self.private, hashes.SHA256())
        )
        self.cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode("ascii")
        pem = self.private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        self.signer = crypt.RSASigner.from_string(pem, key_id=kid)

    def token(self, **overrides: Any) -> str:
        now = int(time.time())
        claims = {
            "iss": "https://accounts.google.com",
            "aud": AUDIENCE,
            "email": ACCOUNT,
            "email_verified": True,
            "sub": "1234567890",
            "iat": now,
            "exp": now + 3600,
        }
        claims.update(overrides)
        return jwt.encode(self.signer, {k: v for k, v in claims.items() if v is not None}).decode("ascii")


class CertsServer(LoopbackServer):
    """Google's certificate endpoint as google-auth reads it: ``{kid: PEM}`` at ``/``."""

    def __init__(self, certs: dict[str, str]) -> None:
        self.certs = certs
        self.fetches = 0

    def start(self) -> CertsServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                owner.fetches += 1
                body = json.dumps(owner.certs).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._serve(Handler, name="certs")
        return self


KEY = Key("key-1")
OTHER = Key("key-1")  # same key id, another key: a forgery


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[AppHarness, CertsServer]]:
    monkeypatch.delenv("PUBSUB_EMULATOR_HOST", raising=False)
    with CertsServer({KEY.kid: KEY.cert_pem}) as certs:
        settings = {
            "LOCAL_QUEUE": "pubsub",
            "GOOGLE_CLOUD_PROJECT": "test-project",
            "LOCAL_PUBSUB_PUSH_AUDIENCE": AUDIENCE,
            "LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT": ACCOUNT,
            "LOCAL_PUBSUB_CERTS_URL": f"http://127.0.0.1:{certs.port}",
            "LOCAL_PUBSUB_PUSH_TOKEN": EMULATOR_TOKEN,  # set, but no emulator: never accepted
            "PUBSUB_EMULATOR_HOST": None,
        }
        with AppHarness(tmp_path / "local.sqlite3", settings=settings) as harness:
            yield harness, certs


def event(user: str) -> InboundEvent:
    sent = W.text_event(user, "花壇有什麼好吃的店？")
    return InboundEvent(
        "text",
        W.scope_of(user),
        user,
        sent["webhookEventId"],
        sent["replyToken"],
        time.time(),
        "花壇有什麼好吃的店？",
    )


def push(harness: AppHarness, headers: dict[str, str], query: str = "", user: str = "U" + "a" * 32) -> Any:
    assert harness.client is not None
    body = push_envelope(encode_event(event(user)))
    return harness.client.post(
        "/pubsub/push" + query, content=body, headers={"content-type": "application/json", **headers}
    )


def test_a_push_signed_by_google_for_our_audience_and_account_runs_the_turn(app) -> None:
    harness, certs = app
    response = push(harness, {"authorization": f"Bearer {KEY.token()}"})
    assert (response.status_code, response.json()) == (200, {"status": "answered"})
    assert len(harness.line.replies()) == 1
    again = push(harness, {"authorization": f"Bearer {KEY.token()}"}, user="U" + "b" * 32)
    assert again.status_code == 200 and certs.fetches == 1  # certificates are cached


@pytest.mark.parametrize(
    ("case", "token"),
    [
        ("forged", OTHER.token()),
        ("expired", KEY.token(iat=int(time.time()) - 7200, exp=int(time.time()) - 3600)),
        ("wrong audience", KEY.token(aud="https://someone-else.example/push")),
        ("wrong service account", KEY.token(email="intruder@evil.iam.gserviceaccount.com")),
        ("email not verified", KEY.token(email_verified=False)),
        ("no email", KEY.token(email=None)),
        ("wrong issuer", KEY.token(iss="https://evil.example")),
        ("unknown key id", Key("key-2").token()),
        ("not a token", "abc.def.ghi"),
    ],
)
def test_an_invalid_token_is_refused_and_runs_nothing(app, case: str, token: str) -> None:
    harness, _ = app
    response = push(harness, {"authorization": f"Bearer {token}"})
    assert response.status_code == 403, case
    assert harness.line.requests == [] and harness.store.audit_rows() == []


@pytest.mark.parametrize(
    ("headers", "query"),
    [
        ({}, ""),
        ({}, f"?token={EMULATOR_TOKEN}"),  # the emulator's token, with no emulator configured
        ({"authorization": "Basic dXNlcjpwYXNz"}, ""),
        ({"authorization": "Bearer"}, ""),
    ],
)
def test_a_push_without_a_token_is_refused_and_runs_nothing(app, headers: dict[str, str], query: str) -> None:
    harness, _ = app
    response = push(harness, headers, query)
    assert (response.status_code, response.json()) == (401, {"error": "push not authenticated"})
    assert harness.line.requests == [] and harness.store.audit_rows() == []


def test_without_the_signing_certificates_a_push_waits_for_a_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from local_agent.testing.pubsub import free_port

    monkeypatch.delenv("PUBSUB_EMULATOR_HOST", raising=False)
    settings = {
        "LOCAL_QUEUE": "pubsub",
        "GOOGLE_CLOUD_PROJECT": "test-project",
        "LOCAL_PUBSUB_PUSH_AUDIENCE": AUDIENCE,
        "LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT": ACCOUNT,
        "LOCAL_PUBSUB_CERTS_URL": f"http://127.0.0.1:{free_port()}",  # nothing answers there
        "PUBSUB_EMULATOR_HOST": None,
    }
    with AppHarness(tmp_path / "local.sqlite3", settings=settings) as harness:
        response = push(harness, {"authorization": f"Bearer {KEY.token()}"})
        assert (response.status_code, response.json()) == (503, {"error": "signing certificates unavailable"})
        assert harness.line.requests == [] and harness.store.audit_rows() == []
