"""``POST /pubsub/push`` (``LOCAL_QUEUE=pubsub``): Pub/Sub delivers one accepted event; the turn
runs while the push waits, and the answer is the acknowledgement.

Order of work on a push: shutdown begun → 503; no valid credentials → 401 (missing) or 403
(invalid); a body that is not a push envelope → 400; a message that is not one of ours → 200 and
dropped (redelivering it cannot help); too many turns in flight here → 503; then ``LeasedTurn``:

1. lease the event by ``webhookEventId`` (``LeaseStore``): answered before → 200 (a duplicate);
   another holder's live lease → 503 (Pub/Sub redelivers it later, and on an ordered subscription
   holds back that chat's later messages meanwhile); the store unreachable → 503;
2. run the turn (the loading animation shows as it starts), renewing the lease every third of
   ``LOCAL_EVENT_LEASE_SECONDS`` so a slow turn keeps it and a dead instance's lapses;
3. renew once more (a holder that lost its lease delivers nothing: 503), deliver the reply (or the
   push fallback once the reply token expired) and mark the event answered → 200. LINE refused
   the delivery → the lease is given back and 503, so the same message comes again, in order.

Pushes are authenticated, always. In production Pub/Sub signs each push with an OIDC token for
``LOCAL_PUBSUB_PUSH_AUDIENCE`` from ``LOCAL_PUBSUB_PUSH_SERVICE_ACCOUNT``, checked with
google-auth against Google's certificates (``PushAuth``). The emulator signs nothing: while
``PUBSUB_EMULATOR_HOST`` is set, and only then, ``?token=`` equal to ``LOCAL_PUBSUB_PUSH_TOKEN``
is accepted instead.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import json
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import Request
from fastapi.responses import JSONResponse

from local_agent.agent.adk_router import TurnOutcome
from local_agent.context.errors import StoreError
from local_agent.line.inbound import InboundEvent
from local_agent.line.webhook_body import Refused
from local_agent.replies.render import POLITE_FAILURE
from local_agent.replies.reply import Reply
from local_agent.server.processor import INTERNAL_ERROR, EventProcessor
from local_agent.server.queue import QueueStats, decode_event
from local_agent.settings import Settings
from local_agent.stores.guarded import GuardedStore

log = logging.getLogger("local_agent.push")

GOOGLE_CERTS_URL = "https://www.googleapis.com/oauth2/v1/certs"
GOOGLE_ISSUERS = ("accounts.google.com", "https://accounts.google.com")
CERTS_TTL_SECONDS = 300.0
CLOCK_SKEW_SECONDS = 10
MAX_PUSH_BYTES = 512 * 1024  # a message holds one event: far below this
FINISH_ATTEMPTS = 3

# What became of one push (its HTTP answer in ``STATUS``).
PushResult = Literal["answered", "duplicate", "held", "lost", "failed", "unavailable"]
STATUS: dict[PushResult, int] = {
    "answered": 200,
    "duplicate": 200,
    "held": 503,
    "lost": 503,
    "failed": 503,
    "unavailable": 503,
}


# -- authentication ------------------------------------------------------------------------------


class _Certs:
    """Google's signing certificates (``{kid: PEM}``), fetched at most every ``CERTS_TTL_SECONDS``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._lock = threading.Lock()
        self._certs: dict[str, str] = {}
        self._fetched = -CERTS_TTL_SECONDS

    def get(self) -> dict[str, str]:
        """The certificates; ``Refused(503)`` when they cannot be had (Pub/Sub retries)."""
        with self._lock:
            if time.monotonic() - self._fetched >= CERTS_TTL_SECONDS:
                self._certs = self._fetch()
                self._fetched = time.monotonic()
            return self._certs

    def _fetch(self) -> dict[str, str]:
        from google.auth import exceptions as auth_exceptions
        from google.auth.transport.requests import Request as AuthRequest

        try:
            response = AuthRequest()(self.url, method="GET", timeout=5)
            certs = json.loads(response.data.decode("utf-8")) if response.status == 200 else None
        except (auth_exceptions.TransportError, UnicodeDecodeError, ValueError):
            certs = None
        if not isinstance(certs, dict) or not all(isinstance(v, str) for v in certs.values()):
            log.warning("signing certificates unavailable", extra={"code": "OIDC_CERTS_UNAVAILABLE"})
            raise Refused(503, "signing certificates unavailable")
        return certs


class PushAuth:
    """Whether a push came from our subscription: an OIDC token signed by Google for our audience
    and push service account, or (emulator only) the shared token in the query string."""

    def __init__(self, settings: Settings) -> None:
        self.audience = settings.local_pubsub_push_audience
        self.email = settings.local_pubsub_push_service_account
        self.certs = _Certs(settings.local_pubsub_certs_url or GOOGLE_CERTS_URL)
        token = settings.local_pubsub_push_token
        # Read once, at start: the token is accepted only while the service talks to an emulator.
        self.emulator_token = token if settings.pubsub_emulator_host and token else None

    async def check(self, request: Request) -> None:
        """Returns when the push is authentic; raises ``Refused`` (401/403) otherwise."""
        header = request.headers.get("authorization", "")
        if header.startswith("Bearer ") and self.audience and self.email:
            await asyncio.to_thread(self.verify_oidc, header[len("Bearer ") :].strip())
            return
        given = request.query_params.get("token")
        if self.emulator_token is not None and given is not None:
            if hmac.compare_digest(given.encode("utf-8"), self.emulator_token.encode("utf-8")):
                return
            raise Refused(403, "invalid push token")
        raise Refused(401, "push not authenticated")

    def verify_oidc(self, token: str) -> dict[str, Any]:
        """The token's claims, once signature, expiry, audience, issuer and signer are checked."""
        from google.auth import exceptions as auth_exceptions
        from google.auth import jwt

        certs = self.certs.get()
        try:
            claims: dict[str, Any] = dict(
                jwt.decode(
                    token,
                    certs=certs,
                    audience=self.audience,
                    clock_skew_in_seconds=CLOCK_SKEW_SECONDS,
                )
            )
        except (ValueError, auth_exceptions.GoogleAuthError):
            raise Refused(403, "invalid push token") from None
        if claims.get("iss") not in GOOGLE_ISSUERS:
            raise Refused(403, "invalid push token")
        if claims.get("email") != self.email or claims.get("email_verified") is not True:
            raise Refused(403, "push from another service account")
        return claims


# -- the envelope --------------------------------------------------------------------------------


async def read_envelope(request: Request) -> tuple[str, bytes]:
    """(message id, message data) of a push envelope; ``Refused(400)`` when it is not one."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_PUSH_BYTES:
        raise Refused(413, "body too large")
    raw = await request.body()
    if len(raw) > MAX_PUSH_BYTES:
        raise Refused(413, "body too large")
    try:
        envelope = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Refused(400, "not a push envelope") from None
    message = envelope.get("message") if isinstance(envelope, dict) else None
    if not isinstance(message, dict):
        raise Refused(400, "not a push envelope")
    message_id = message.get("messageId") or message.get("message_id")
    data = message.get("data", "")
    if not isinstance(message_id, str) or not message_id or not isinstance(data, str):
        raise Refused(400, "not a push envelope")
    try:
        return message_id[:200], base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return message_id[:200], b""  # not ours: decode_event refuses it


# -- the leased turn -----------------------------------------------------------------------------


@dataclass
class _Claim:
    """This worker's lease on one event: when it was last renewed (monotonic), whether lost."""

    event_id: str
    holder: str
    renewed_at: float = 0.0
    lost: bool = False


@dataclass
class LeasedTurn:
    """One pushed event, from its lease to its answer (runs where the turns run)."""

    processor: EventProcessor
    store: GuardedStore
    lease: float
    instance: str
    clock: Callable[[], float]
    holding: dict[str, str] = field(default_factory=dict)  # event id -> holder, in flight here

    async def run(self, event: InboundEvent) -> PushResult:
        if not event.event_id:  # LINE always sends one; without it there is nothing to lease
            return "answered" if await self._answer(event) else "failed"
        claim = _Claim(event.event_id, f"{self.instance}/{uuid.uuid4().hex[:12]}")
        try:
            found = await self._lease(claim)
        except StoreError as exc:
            log.warning("lease unavailable", extra={"code": exc.code})
            return "unavailable"
        if found != "claimed":
            return "duplicate" if found == "done" else "held"
        self.holding[claim.event_id] = claim.holder
        keeper = asyncio.create_task(self._keep(claim))
        try:
            return await self._work(event, claim)
        except asyncio.CancelledError:  # the push was cut (shutdown): no 2xx, so give it back
            self._give_back(claim)
            raise
        finally:
            keeper.cancel()
            self.holding.pop(claim.event_id, None)

    def _give_back(self, claim: _Claim) -> None:
        """Release the lease now (blocking, bounded by the store's deadline): the next delivery
        need not wait for it to lapse."""
        try:
            self.store.release_event(claim.event_id, holder=claim.holder)
        except StoreError:
            pass  # it lapses on its own

    async def _lease(self, claim: _Claim) -> str:
        asked = time.monotonic()
        found = await asyncio.to_thread(
            self.store.lease_event, claim.event_id, holder=claim.holder, now=self.clock(), lease=self.lease
        )
        if found == "claimed":
            claim.renewed_at = asked  # the lease runs until at least ``asked + lease``
        else:
            claim.lost = True
        return found

    async def _keep(self, claim: _Claim) -> None:
        """Renew the lease every third of it while the turn runs; a renewal that finds it taken
        over marks the claim lost. A failed renewal is tried again at the next tick."""
        while not claim.lost:
            await asyncio.sleep(self.lease / 3)
            try:
                await self._lease(claim)
            except StoreError:
                continue

    async def _work(self, event: InboundEvent, claim: _Claim) -> PushResult:
        if event.kind == "unfollow":  # no answer; forgetting must happen, so a failure is retried
            done = await self.processor.service.unfollow(event.scope) is not None
        else:
            outcome = await self._turn(event)
            if not await self._still_held(claim):
                log.warning(
                    "lease lost before delivery; the new holder answers", extra={"event_kind": event.kind}
                )
                return "lost"
            done = await self._deliver(event, outcome)
        if not done:
            await self._release(claim.event_id, claim.holder)
            return "failed"
        await self._finish(claim.event_id, claim.holder)
        return "answered"

    async def _turn(self, event: InboundEvent) -> TurnOutcome | None:
        try:
            return await asyncio.wait_for(self.processor.turn(event), self.processor.turn_timeout)
        except Exception as exc:  # a bug or a hung turn: the person still hears from us
            log.warning("turn failed, apologising", extra={"code": type(exc).__name__})
            return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=INTERNAL_ERROR)

    async def _still_held(self, claim: _Claim) -> bool:
        """Before delivering: the lease is provably ours when renewed less than half a lease ago
        (no one can take it before it lapses); otherwise renew it now (the fence)."""
        if claim.lost:
            return False
        if time.monotonic() - claim.renewed_at < self.lease / 2:
            return True
        try:
            return await self._lease(claim) == "claimed"
        except StoreError:  # unknown: ours while the last renewal has not lapsed
            return time.monotonic() - claim.renewed_at < self.lease

    async def _deliver(self, event: InboundEvent, outcome: TurnOutcome | None) -> bool:
        if outcome is None:
            return True  # e.g. a postback that is not ours: nothing to say
        self.processor.notify(event, outcome)
        return await self.processor.deliver(event, outcome, time.perf_counter())

    async def _answer(self, event: InboundEvent) -> bool:
        return await self._deliver(event, await self._turn(event))

    async def _finish(self, event_id: str, holder: str) -> None:
        for _ in range(FINISH_ATTEMPTS):
            try:
                await asyncio.to_thread(self.store.finish_event, event_id, holder=holder, now=self.clock())
                return
            except StoreError as exc:
                log.warning("finish not recorded yet", extra={"code": exc.code})
        # Answered and acknowledged: a redelivery after the lease lapses would answer again.
        log.error("answered event not marked done", extra={"code": "LEASE_FINISH_FAILED"})

    async def _release(self, event_id: str, holder: str) -> None:
        try:
            await asyncio.to_thread(self.store.release_event, event_id, holder=holder)
        except StoreError:
            pass  # the lease lapses on its own

    def release_all(self) -> int:
        """At shutdown: give back every lease still held here (their pushes get no 2xx, so
        Pub/Sub redelivers them, and the next instance need not wait for the leases to lapse)."""
        released = 0
        for event_id, holder in list(self.holding.items()):
            try:
                released += int(self.store.release_event(event_id, holder=holder))
            except StoreError:
                pass  # it lapses on its own
        return released


# -- the endpoint --------------------------------------------------------------------------------

RunOnTurnLoop = Callable[[Awaitable[PushResult]], Awaitable[PushResult]]


class PushEndpoint:
    """``POST /pubsub/push``; at most ``max_in_flight`` turns at once on this instance."""

    def __init__(self, auth: PushAuth, stats: QueueStats, max_in_flight: int) -> None:
        self.auth, self.stats, self.max_in_flight = auth, stats, max_in_flight
        self.in_flight = 0
        self.closed = False
        self.worker: LeasedTurn | None = None
        self.run_on_turns: RunOnTurnLoop | None = None

    def start(self, worker: LeasedTurn, run_on_turns: RunOnTurnLoop) -> None:
        self.worker, self.run_on_turns = worker, run_on_turns

    def close(self) -> None:
        self.closed = True  # from a signal handler: no lock

    async def push(self, request: Request) -> JSONResponse:
        try:
            if self.closed or self.worker is None or self.run_on_turns is None:
                raise Refused(503, "not serving")
            await self.auth.check(request)
            message_id, data = await read_envelope(request)
            self.stats.saw(message_id)
            event = decode_event(data)
            if event is None:
                self.stats.add("refused")
                log.error("pushed message is not an event; dropped", extra={"code": "MESSAGE_DROPPED"})
                return JSONResponse({"status": "dropped"})
            if self.in_flight >= self.max_in_flight:
                raise Refused(503, "busy")
            return await self._run(event)
        except Refused as refusal:
            return refusal.response()

    async def _run(self, event: InboundEvent) -> JSONResponse:
        assert self.worker is not None and self.run_on_turns is not None
        self.in_flight += 1
        try:
            result = await self.run_on_turns(self.worker.run(event))
        finally:
            self.in_flight -= 1
        self.stats.add(
            {"answered": "answered", "duplicate": "duplicates", "held": "held_elsewhere"}.get(
                result, "failed"
            )
        )
        return JSONResponse({"status": result}, status_code=STATUS[result])


__all__ = ["LeasedTurn", "PushAuth", "PushEndpoint", "Refused", "PushResult", "read_envelope"]
