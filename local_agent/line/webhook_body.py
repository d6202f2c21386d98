"""What LINE's webhook sends, read and checked before anything of it is accepted.

A body over 256 KiB is refused without reading it all (413); one not received within the body
deadline is refused (408); then ``X-Line-Signature`` is verified over the raw body (missing or bad
→ 400, nothing processed), the JSON shape checked (malformed → 400, never 500) and the SDK parses
it. ``Refused`` is the one refusal of the HTTP edge: a status and a short error, answered as JSON
(the Pub/Sub push endpoint refuses with it too).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from linebot.v3 import WebhookParser
from linebot.v3.exceptions import InvalidSignatureError
from linebot.v3.webhook import SignatureValidator
from starlette.requests import ClientDisconnect

MAX_BODY_BYTES = 256 * 1024


class Refused(Exception):
    """A request answered with an error status (``status``, ``error``); nothing of it is processed."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status, self.error = status, error

    def response(self) -> JSONResponse:
        return JSONResponse({"error": self.error}, status_code=self.status)


class BodyTooLarge(Exception):
    pass


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The raw body, refusing (``BodyTooLarge``) as soon as it passes ``limit`` bytes."""
    try:
        declared = int(request.headers.get("content-length", ""))
    except ValueError:
        declared = None  # absent or garbled: count while reading instead
    if declared is not None and declared > limit:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def well_shaped(body: str) -> bool:
    """A webhook body is an object whose ``events`` is a list of objects each with a string
    ``type``, and whose ``destination`` (if present) is a string. The SDK assumes as much."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return False
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        return False
    if "destination" in data and not isinstance(data["destination"], str):
        return False
    return all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in data["events"])


class WebhookBody:
    """Reads, verifies and parses one ``POST /callback`` body (``Refused`` on any problem)."""

    def __init__(self, channel_secret: str, body_timeout: float) -> None:
        self.parser = WebhookParser(channel_secret)
        self.validator = SignatureValidator(channel_secret)
        self.body_timeout = body_timeout

    async def payload(self, request: Request) -> Any:
        """The SDK's parsed payload of a body whose signature and shape are good."""
        return self._parse(*await self._verified_body(request))

    async def _verified_body(self, request: Request) -> tuple[str, str]:
        """The UTF-8 body and its signature, once the signature is checked."""
        try:
            async with asyncio.timeout(self.body_timeout):
                raw = await read_body(request)
        except TimeoutError:
            raise Refused(408, "body not received in time") from None
        except BodyTooLarge:
            raise Refused(413, "body too large") from None
        except ClientDisconnect:
            raise Refused(400, "client disconnected") from None
        signature = request.headers.get("x-line-signature")
        if not signature:
            raise Refused(400, "missing signature")
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(400, "body is not UTF-8") from None
        try:
            valid = self.validator.validate(body, signature)
        except Exception:
            valid = False
        if not valid:
            raise Refused(400, "invalid signature")
        return body, signature

    def _parse(self, body: str, signature: str) -> Any:
        if not well_shaped(body):
            raise Refused(400, "malformed webhook body")
        try:
            return self.parser.parse(body, signature, as_payload=True)
        except InvalidSignatureError:
            raise Refused(400, "invalid signature") from None
        except Exception:
            raise Refused(400, "malformed webhook body") from None
