"""The async LINE Messaging API gateway: reply, push (idempotent), loading animation, delivery.

``linebot.v3``'s ``AsyncApiClient`` opens an ``aiohttp.ClientSession`` when it is built, so the
gateway must be created inside the running event loop that will use it::

    async with await LineGateway.open(token) as line:        # or: line = await LineGateway.open(...)
        await line.show_loading(user_id)
        await line.deliver(reply_token, user_id, to_line_messages(reply),
                           retry_key=retry_key_for(event.webhook_event_id),
                           token_received_at=received_at)

Delivery policy (``deliver``):

* reply while the reply token is younger than ``reply_token_max_age`` (default 50 s; LINE's
  tokens expire), else push directly;
* a reply answered 400 "Invalid reply token" (used or expired) falls back to push;
* a push carries ``X-Line-Retry-Key`` (a UUID); a 409 "retry key already accepted" means the
  message was delivered before, so it counts as success;
* 429 (except the monthly-quota 429), 5xx, timeouts and connection errors are retried at most
  ``max_retries`` times with a short, capped exponential backoff; anything else raises at once.

Errors are :class:`LineDeliveryError` with the HTTP status and whether a later retry may help;
their text never contains message text, tokens or user ids.

A reply that times out or answers 5xx may still have been delivered; its retry then finds the
token used, which says exactly that: it counts as delivered (``"already"``), never pushed again.
During a stop (``wire.py``) no call or retry starts after the stop's last moment, and each attempt
gets at most ``CALL_SECONDS``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, TypeVar

import aiohttp
from linebot.v3.messaging import (
    ApiException,
    AsyncApiClient,
    AsyncMessagingApi,
    Configuration,
    Message,
    PushMessageRequest,
    ReplyMessageRequest,
    ShowLoadingAnimationRequest,
)

from local_agent.context.errors import LocalError
from local_agent.line.wire import Wire

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10.0  # seconds per HTTP request
DEFAULT_MAX_RETRIES = 2
DEFAULT_BACKOFF = 0.5  # first retry delay; doubles, capped at DEFAULT_MAX_BACKOFF
DEFAULT_MAX_BACKOFF = 2.0
POOL_HEADROOM = 8  # LINE connections beyond one per concurrent turn
DEFAULT_REPLY_TOKEN_MAX_AGE = 50.0  # seconds; LINE reply tokens expire shortly after the webhook

_RETRY_KEY_NAMESPACE = uuid.UUID("7a1f3c52-9a51-4b8e-8f0e-6c0a2d1e4b37")

T = TypeVar("T")

# Why a LINE call failed (a fixed machine word, logged and tested).
FailureReason = Literal["http", "invalid_reply_token", "monthly_limit", "timeout", "connection", "stopped"]
# How delivered messages went out; ``already``: the reply token was found used by an earlier
# attempt of the same answer (this process's retry, or a resumed event's killed holder), so LINE
# showed it already and nothing more is sent.
Delivery = Literal["reply", "push", "already"]


class LineDeliveryError(LocalError):
    """A LINE API call failed. ``status`` is the HTTP status, or ``None`` when no answer came
    (timeout, connection error). ``retryable``: a later attempt may succeed. ``reason`` says why."""

    code = "LINE_DELIVERY_FAILED"

    def __init__(
        self, status: int | None, retryable: bool, *, operation: str = "", reason: FailureReason = "http"
    ) -> None:
        self.status, self.retryable, self.operation, self.reason = status, retryable, operation, reason
        self.after_retry = False  # raised by a retry: an earlier attempt may have reached LINE
        super().__init__(
            f"{operation or 'call'} failed: status={status} reason={reason} retryable={retryable}"
        )


def pool_size_for(concurrent_turns: int) -> int:
    """Connections to the LINE API for ``concurrent_turns`` turns: each turn makes its calls one
    after another (loading, then reply or push), so one each, plus ``POOL_HEADROOM`` for retried
    pushes and the loading calls of turns just starting."""
    return concurrent_turns + POOL_HEADROOM


def new_retry_key() -> str:
    """A fresh ``X-Line-Retry-Key`` (LINE requires a UUID)."""
    return str(uuid.uuid4())


def retry_key_for(event_id: str) -> str:
    """A stable retry key for one webhook event, so a redelivered webhook cannot push twice."""
    return str(uuid.uuid5(_RETRY_KEY_NAMESPACE, event_id))


def _error_message(exc: ApiException) -> str:
    body = exc.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    try:
        parsed = json.loads(body) if body else {}
    except ValueError:
        return ""
    return str(parsed.get("message", "")) if isinstance(parsed, dict) else ""


def _classify(exc: ApiException, operation: str) -> LineDeliveryError:
    status = exc.status or None
    message = _error_message(exc).lower()
    if status == 400 and "reply token" in message:
        return LineDeliveryError(400, False, operation=operation, reason="invalid_reply_token")
    if status == 429 and "monthly limit" in message:
        return LineDeliveryError(429, False, operation=operation, reason="monthly_limit")
    # status None here = the SDK refused to build the request: a bug, not a transient failure
    retryable = status is not None and (status == 429 or status >= 500)
    return LineDeliveryError(status, retryable, operation=operation, reason="http")


class LineGateway:
    """Async wrapper around ``AsyncMessagingApi``. Build it with :meth:`open` inside the running
    loop (the constructor works too, but only when called inside the loop); ``close()`` it there."""

    def __init__(
        self,
        access_token: str,
        host: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        max_backoff: float = DEFAULT_MAX_BACKOFF,
        reply_token_max_age: float = DEFAULT_REPLY_TOKEN_MAX_AGE,
        pool_size: int | None = None,
        wire: Wire | None = None,
    ) -> None:
        asyncio.get_running_loop()  # raises RuntimeError outside a loop, before aiohttp warns
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.reply_token_max_age = reply_token_max_age
        self.wire = wire or Wire()
        # host=None keeps the SDK's default (https://api.line.me)
        configuration = Configuration(access_token=access_token, host=host)
        if pool_size is not None:  # the SDK's default is CPU count x 5: 5 on a 1-vCPU instance
            configuration.connection_pool_maxsize = pool_size
        self.pool_size: int = configuration.connection_pool_maxsize
        self._client = AsyncApiClient(configuration)
        self._api = AsyncMessagingApi(self._client)
        self._closed = False

    @classmethod
    async def open(cls, access_token: str, host: str | None = None, **options: Any) -> LineGateway:
        """Build the gateway inside the running loop (same options as the constructor)."""
        return cls(access_token, host, **options)

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            await self._client.close()

    async def __aenter__(self) -> LineGateway:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- plumbing ------------------------------------------------------------------------

    async def _call(self, operation: str, send: Callable[[], Awaitable[T]], retries: int | None = None) -> T:
        retries = self.max_retries if retries is None else retries
        attempt = 0
        while True:
            if not self.wire.may_start():  # a stop: no call starts after its last moment
                error = LineDeliveryError(None, True, operation=operation, reason="stopped")
                error.after_retry = attempt > 0
                raise error
            try:
                return await send()
            except ApiException as exc:
                error = _classify(exc, operation)
            except TimeoutError:
                error = LineDeliveryError(None, True, operation=operation, reason="timeout")
            except aiohttp.ClientError:
                error = LineDeliveryError(None, True, operation=operation, reason="connection")
            error.after_retry = attempt > 0
            if not error.retryable:
                log.info("LINE %s failed: %s", operation, error)
                raise error
            if attempt >= retries:
                log.warning("LINE %s gave up after %d attempt(s): %s", operation, attempt + 1, error)
                raise error
            delay = min(self.max_backoff, self.backoff * (2**attempt))
            attempt += 1
            log.info(
                "LINE %s retry %d in %.2fs: status=%s reason=%s",
                operation,
                attempt,
                delay,
                error.status,
                error.reason,
            )
            await asyncio.sleep(delay)

    def _timeout(self) -> float:
        return self.wire.timeout(self.timeout)

    # -- API -------------------------------------------------------------------------------

    async def reply(self, reply_token: str, messages: Sequence[Message]) -> None:
        request = ReplyMessageRequest(replyToken=reply_token, messages=list(messages))
        await self._call("reply", lambda: self._api.reply_message(request, _request_timeout=self._timeout()))

    async def push(self, to: str, messages: Sequence[Message], retry_key: str) -> None:
        """Push with ``X-Line-Retry-Key``; retries reuse the key, and a 409 (key already accepted)
        counts as delivered."""
        try:
            uuid.UUID(retry_key)
        except (TypeError, ValueError, AttributeError):
            raise ValueError("retry_key must be a UUID string") from None
        request = PushMessageRequest(to=to, messages=list(messages))
        try:
            await self._call(
                "push",
                lambda: self._api.push_message(
                    request, x_line_retry_key=retry_key, _request_timeout=self._timeout()
                ),
            )
        except LineDeliveryError as error:
            if error.status != 409:
                raise
            log.info("LINE push: retry key already accepted; treating as delivered")

    async def show_loading(self, chat_id: str, seconds: int = 20) -> None:
        """Show the loading animation in a one-on-one chat. ``seconds`` is rounded up to a
        multiple of 5 within 5..60. Not retried: a late animation is worse than none."""
        seconds = min(60, max(5, -(-int(seconds) // 5) * 5))
        request = ShowLoadingAnimationRequest(chatId=chat_id, loadingSeconds=seconds)
        await self._call(
            "loading",
            lambda: self._api.show_loading_animation(request, _request_timeout=self.timeout),
            retries=0,
        )

    async def deliver(
        self,
        reply_token: str | None,
        to: str,
        messages: Sequence[Message],
        retry_key: str,
        token_received_at: float,
        now: float | None = None,
        *,
        resumed: bool = False,
    ) -> Delivery:
        """Reply if the token is fresh, else (or if LINE rejects the token) push with ``retry_key``.

        ``token_received_at`` and ``now`` are seconds on the same clock (``now`` defaults to
        ``time.time()``). Returns ``"reply"`` or ``"push"``: the way the messages went out, or
        ``"already"`` when a fresh token is refused as used by an earlier attempt of this answer:
        this call's own retry (the first attempt timed out or failed after LINE may have taken
        it), or, with ``resumed`` (an event another process held and may have answered before it
        died), any refusal of a fresh token. A push then would show the answer twice; a fresh
        token refused for another reason (LINE expiring it early) costs that answer instead.
        """
        now = time.time() if now is None else now
        if reply_token and now - token_received_at < self.reply_token_max_age:
            try:
                await self.reply(reply_token, messages)
                return "reply"
            except LineDeliveryError as error:
                if error.reason != "invalid_reply_token":
                    raise
                if error.after_retry or resumed:
                    log.info("LINE reply token already used by an earlier attempt; not sent again")
                    return "already"
                log.info("LINE reply token rejected; falling back to push")
        await self.push(to, messages, retry_key)
        return "push"
