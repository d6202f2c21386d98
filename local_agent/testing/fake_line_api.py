"""A fake LINE Messaging API on 127.0.0.1, for tests, the replay tool and the terminal chat.

Standard library only (``http.server.ThreadingHTTPServer`` in a daemon thread), so it runs on a
bare Python. It answers the three endpoints LOCAL uses, with the real API's paths, status codes
and error bodies:

    POST /v2/bot/message/reply       {replyToken, messages, notificationDisabled?}  -> 200 {sentMessages}
    POST /v2/bot/message/push        {to, messages}  (+ X-Line-Retry-Key)           -> 200 {sentMessages}
                                     same retry key again                          -> 409, not a new delivery
    POST /v2/bot/chat/loading/start  {chatId, loadingSeconds}                       -> 202 {}

and the rich-menu endpoints the ``richmenu`` command uses (one in-memory channel; images are kept):

    POST   /v2/bot/richmenu/validate, /v2/bot/richmenu   {size, selected, name, chatBarText, areas}
                                                 -> 200 {} / {richMenuId}; 400 with details when invalid
    GET    /v2/bot/richmenu/list                 -> {richmenus: [...]}
    GET    /v2/bot/richmenu/{id}                 -> the menu;  DELETE -> 200 {} (404 unknown)
    POST   /v2/bot/richmenu/{id}/content         image/png or image/jpeg of the menu's size, <= 1 MB
                                                 -> 200 {}; 400 wrong type/size or already uploaded;
                                                    413 over 1 MB
    GET    /v2/bot/richmenu/{id}/content         -> the image bytes
    POST   /v2/bot/user/all/richmenu/{id}        set default (400 before an image is uploaded)
    GET    /v2/bot/user/all/richmenu             -> {richMenuId} or 404;  DELETE -> 200 {}

Every request is recorded (``requests``), whatever its answer; ``replies()``, ``pushes()`` and
``loadings()`` list only the accepted ones, i.e. what a user would have seen.

    with FakeLineApi() as api:
        ... point the SDK at api.base_url ...
        api.fail_next("/message/reply", 500)          # next reply answers 500
        api.delay_next("/message/push", 1.0)          # next push waits 1 s (client timeout)
        api.expire_reply_token("tok-1")
        api.garble_next("/message/reply", {"sentMessages": "?"})  # acts, then answers unreadably
        api.answer_delay = 1.0                        # every reply/push acts at once, answers 1 s later
        assert api.wait_for_count(1, "push", timeout=2)

As a command, for a local LINE beside a running service (``LINE_API_HOST=http://127.0.0.1:P``)::

    python -m local_agent.testing.fake_line_api --port P

serves it on that port until Ctrl-C and prints one line per request it receives: the method, path and
status it answered, and what a user would see (the texts, the cards' titles, whether a text quotes the
user's message, as a late answer does); never a header, so never the channel token, and never the
quote token. A port in use: a clear message and exit 1.
"""

from __future__ import annotations

import argparse
import errno
import itertools
import json
import re
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler

from local_agent.line.richmenu import MAX_IMAGE_BYTES, ImageError, image_type_and_size
from local_agent.testing.loopback import LoopbackServer

REPLY_PATH = "/v2/bot/message/reply"
PUSH_PATH = "/v2/bot/message/push"
LOADING_PATH = "/v2/bot/chat/loading/start"
_KINDS = {REPLY_PATH: "reply", PUSH_PATH: "push", LOADING_PATH: "loading"}
RICHMENU_PREFIXES = ("/v2/bot/richmenu", "/v2/bot/user/all/richmenu")
_MENU_PATH = re.compile(r"^/v2/bot/richmenu/([A-Za-z0-9_-]+)(/content)?$")
_DEFAULT_PATH = re.compile(r"^/v2/bot/user/all/richmenu(?:/([A-Za-z0-9_-]+))?$")
NOT_FOUND = {"message": "Not found"}


def _kind_of(path: str) -> str | None:
    """reply, push, loading, richmenu, or None for a path the fake does not serve."""
    if path in _KINDS:
        return _KINDS[path]
    return "richmenu" if path.startswith(RICHMENU_PREFIXES) else None


MAX_MESSAGES = 5
MAX_TEXT_UTF16 = 5000
MAX_QUICK_REPLY_ITEMS = 13
MAX_QUICK_REPLY_LABEL = 20
MAX_CAROUSEL_BUBBLES = 12
MAX_ALT_TEXT = 400

AUTH_FAILED = "Authentication failed. Confirm that the access token in the authorization header is valid."
INVALID_REPLY_TOKEN = "Invalid reply token"
RETRY_KEY_ACCEPTED = "The retry key is already accepted"
INVALID_RETRY_KEY = "The value for the 'X-Line-Retry-Key' header is invalid"

_DEFAULT_FAULT_MESSAGES = {
    400: "Bad request",
    401: AUTH_FAILED,
    403: "Access to this API is not available for your account",
    429: "The API rate limit has been exceeded. Try again later.",
    500: "Internal server error",
    502: "Bad gateway",
    503: "Service unavailable",
}


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received. ``headers`` keys are lower-case; ``body`` is the parsed JSON
    (``{}`` when absent or unparsable). ``status`` and ``response`` are what the fake answered."""

    path: str
    headers: dict[str, str]
    body: dict
    status: int = 0
    response: dict = field(default_factory=dict)
    method: str = "POST"
    content: bytes = b""  # a request body that is not JSON (a rich-menu image)

    @property
    def kind(self) -> str | None:
        """``"reply"``, ``"push"``, ``"loading"``, ``"richmenu"`` or ``None`` for an unknown path."""
        return _kind_of(self.path)

    @property
    def accepted(self) -> bool:
        return 200 <= self.status < 300


@dataclass
class _Fault:
    suffix: str
    remaining: int
    status: int = 0
    body: dict | None = None
    seconds: float = 0.0


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _detail(prop: str, message: str) -> dict:
    return {"message": message, "property": prop}


def _validate_quick_reply(qr: object, prop: str) -> list[dict]:
    if not isinstance(qr, dict):
        return [_detail(prop, "must be an object")]
    items = qr.get("items")
    if not isinstance(items, list) or not items:
        return [_detail(f"{prop}.items", "Size must be between 1 and 13")]
    errors: list[dict] = []
    if len(items) > MAX_QUICK_REPLY_ITEMS:
        errors.append(_detail(f"{prop}.items", "Size must be between 1 and 13"))
    for j, item in enumerate(items):
        iprop = f"{prop}.items[{j}]"
        action = item.get("action") if isinstance(item, dict) else None
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            errors.append(_detail(f"{iprop}.action", "must be specified"))
            continue
        label = action.get("label")
        if label is not None and (not isinstance(label, str) or len(label) > MAX_QUICK_REPLY_LABEL):
            errors.append(_detail(f"{iprop}.action.label", "Length must be between 0 and 20"))
    return errors


def _validate_flex(message: dict, prop: str) -> list[dict]:
    errors: list[dict] = []
    alt = message.get("altText")
    if not isinstance(alt, str) or not alt:
        errors.append(_detail(f"{prop}.altText", "must be specified"))
    elif len(alt) > MAX_ALT_TEXT:
        errors.append(_detail(f"{prop}.altText", "Length must be between 0 and 400"))
    contents = message.get("contents")
    if not isinstance(contents, dict):
        errors.append(_detail(f"{prop}.contents", "must be specified"))
    elif contents.get("type") == "carousel":
        bubbles = contents.get("contents")
        if not isinstance(bubbles, list) or not bubbles or len(bubbles) > MAX_CAROUSEL_BUBBLES:
            errors.append(_detail(f"{prop}.contents.contents", "Size must be between 1 and 12"))
        else:
            for k, bubble in enumerate(bubbles):
                if not isinstance(bubble, dict) or bubble.get("type") != "bubble":
                    errors.append(_detail(f"{prop}.contents.contents[{k}].type", "must be bubble"))
    elif contents.get("type") != "bubble":
        errors.append(_detail(f"{prop}.contents.type", "must be one of [bubble, carousel]"))
    return errors


def _validate_messages(messages: object) -> list[dict]:
    if not isinstance(messages, list) or not messages:
        return [_detail("messages", "Size must be between 1 and 5")]
    errors: list[dict] = []
    if len(messages) > MAX_MESSAGES:
        errors.append(_detail("messages", "Size must be between 1 and 5"))
    for i, message in enumerate(messages):
        prop = f"messages[{i}]"
        if not isinstance(message, dict) or not isinstance(message.get("type"), str) or not message["type"]:
            errors.append(_detail(f"{prop}.type", "must be specified"))
            continue
        if message["type"] == "text":
            text = message.get("text")
            if not isinstance(text, str) or not text:
                errors.append(_detail(f"{prop}.text", "must be specified"))
            elif _utf16_len(text) > MAX_TEXT_UTF16:
                errors.append(_detail(f"{prop}.text", "Length must be between 0 and 5000"))
        elif message["type"] == "flex":
            errors.extend(_validate_flex(message, prop))
        if "quickReply" in message:
            errors.extend(_validate_quick_reply(message["quickReply"], f"{prop}.quickReply"))
    return errors


def _validate_body(kind: str, body: dict) -> list[dict]:
    errors: list[dict] = []
    if kind == "loading":
        chat_id = body.get("chatId")
        if not isinstance(chat_id, str) or not chat_id:
            errors.append(_detail("chatId", "must be specified"))
        seconds = body.get("loadingSeconds", 20)
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 5 <= seconds <= 60 or seconds % 5:
            errors.append(_detail("loadingSeconds", "must be a multiple of 5 between 5 and 60"))
        return errors
    if kind == "reply":
        token = body.get("replyToken")
        if not isinstance(token, str) or not token:
            errors.append(_detail("replyToken", "must be specified"))
    else:
        to = body.get("to")
        if not isinstance(to, str) or not to:
            errors.append(_detail("to", "must be specified"))
    if "notificationDisabled" in body and not isinstance(body["notificationDisabled"], bool):
        errors.append(_detail("notificationDisabled", "must be a boolean"))
    errors.extend(_validate_messages(body.get("messages")))
    return errors


def _validate_richmenu(body: dict) -> list[dict]:
    """The rich menu object's rules as LINE states them: size 800-2500 wide, at least 250 high, a
    width/height ratio of at least 1.45; name (≤ 300) and chatBarText (≤ 14); 1-20 areas inside it."""
    errors: list[dict] = []
    size = body.get("size")
    width, height = (size.get("width"), size.get("height")) if isinstance(size, dict) else (None, None)
    if not (isinstance(width, int) and isinstance(height, int) and 800 <= width <= 2500 and height >= 250):
        return [_detail("size", "must be 800-2500 wide and at least 250 high")]
    if width / height < 1.45:
        errors.append(_detail("size", "width / height must be at least 1.45"))
    if not isinstance(body.get("selected"), bool):
        errors.append(_detail("selected", "must be specified"))
    for prop, limit in (("name", 300), ("chatBarText", 14)):
        value = body.get(prop)
        if not isinstance(value, str) or not value or len(value) > limit:
            errors.append(_detail(prop, f"Length must be between 1 and {limit}"))
    areas = body.get("areas")
    if not isinstance(areas, list) or not 1 <= len(areas) <= 20:
        return [*errors, _detail("areas", "Size must be between 1 and 20")]
    for i, area in enumerate(areas):
        bounds = area.get("bounds") if isinstance(area, dict) else None
        action = area.get("action") if isinstance(area, dict) else None
        if not isinstance(bounds, dict) or not all(
            isinstance(bounds.get(k), int) for k in ("x", "y", "width", "height")
        ):
            errors.append(_detail(f"areas[{i}].bounds", "must be specified"))
        elif bounds["x"] + bounds["width"] > width or bounds["y"] + bounds["height"] > height:
            errors.append(_detail(f"areas[{i}].bounds", "must be inside the rich menu"))
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            errors.append(_detail(f"areas[{i}].action", "must be specified"))
    return errors


def _bad_request(details: list[dict]) -> dict:
    return {"message": f"The request body has {len(details)} error(s)", "details": details}


@dataclass(frozen=True)
class _Incoming:
    """One request as the fake reads it: the path without its query, lower-case headers, the JSON
    as parsed (``None`` when unparsable) and the body (``{}`` unless it is an object)."""

    method: str
    path: str
    headers: dict[str, str]
    parsed: object
    body: dict
    raw: bytes = b""

    @classmethod
    def of(cls, method: str, raw_path: str, raw_headers: Message[str, str], raw: bytes) -> _Incoming:
        try:
            parsed = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, ValueError):
            parsed = None
        headers = {k.lower(): v for k, v in raw_headers.items()}
        body = parsed if isinstance(parsed, dict) else {}
        return cls(method, raw_path.split("?", 1)[0], headers, parsed, body, raw)

    @property
    def kind(self) -> str | None:
        return _kind_of(self.path)


class _Handler(BaseHTTPRequestHandler):
    # Answer in one segment: with Nagle on, aiohttp keep-alive waits ~40 ms per call.
    disable_nagle_algorithm = True
    server_version = "FakeLineApi/1.0"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return  # keep test output quiet

    def _dispatch(self) -> None:
        fake: FakeLineApi = self.server.fake  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        status, payload, extra = fake._handle(self.command, self.path, self.headers, raw)
        if isinstance(payload, bytes):  # a rich-menu image
            data, content_type = payload, extra.pop("Content-Type", "application/octet-stream")
        else:
            data, content_type = (
                json.dumps(payload, ensure_ascii=False).encode("utf-8"),
                "application/json; charset=utf-8",
            )
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("x-line-request-id", str(uuid.uuid4()))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. a simulated timeout): nothing to answer

    do_POST = _dispatch
    do_GET = _dispatch
    do_PUT = _dispatch
    do_DELETE = _dispatch


class FakeLineApi(LoopbackServer):
    """A fake LINE Messaging API server. ``access_token=None`` accepts any non-empty bearer token."""

    def __init__(
        self,
        access_token: str | None = None,
        *,
        port: int = 0,
        on_request: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        self.access_token = access_token
        self._port = port
        self.on_request = on_request  # called with each request as it is recorded (the command prints it)
        self._cond = threading.Condition()
        self._requests: list[RecordedRequest] = []
        self._faults: list[_Fault] = []
        self._delays: list[_Fault] = []
        self._garbles: list[_Fault] = []
        self.answer_delay = 0.0  # seconds a reply or push waits, after it took effect, for its answer
        self._used_tokens: set[str] = set()
        self._expired_tokens: set[str] = set()
        self._retry_keys: dict[str, tuple[str, list[dict]]] = {}
        self._ids = itertools.count(500000000000000001)
        self._menus: dict[str, dict] = {}  # rich menus by id, as created
        self._images: dict[str, tuple[str, bytes]] = {}  # rich-menu id -> (content type, image)
        self._default_menu: str | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeLineApi:
        if self._server is not None:
            return self
        server = self._serve(_Handler, name="fake-line-api")
        server.fake = self  # type: ignore[attr-defined]
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- records ---------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received, in arrival order of their answers."""
        with self._cond:
            return list(self._requests)

    def _accepted(self, kind: str) -> list[RecordedRequest]:
        with self._cond:
            return [r for r in self._requests if r.kind == kind and r.accepted]

    def replies(self) -> list[RecordedRequest]:
        return self._accepted("reply")

    def pushes(self) -> list[RecordedRequest]:
        return self._accepted("push")

    def loadings(self) -> list[RecordedRequest]:
        return self._accepted("loading")

    def attempts(self, kind: str) -> list[RecordedRequest]:
        """Every request to ``kind``'s endpoint, whatever it was answered."""
        with self._cond:
            return [r for r in self._requests if r.kind == kind]

    def wait_for(self, predicate: Callable[[list[RecordedRequest]], bool], timeout: float = 2.0) -> bool:
        """Block until ``predicate(requests)`` is true; False if ``timeout`` seconds pass first."""
        with self._cond:
            return self._cond.wait_for(lambda: predicate(list(self._requests)), timeout=timeout)

    def wait_for_count(self, n: int, kind: str | None = None, timeout: float = 2.0) -> bool:
        """Block until at least ``n`` accepted requests (of ``kind`` if given) were recorded."""
        return self.wait_for(
            lambda reqs: sum(1 for r in reqs if r.accepted and (kind is None or r.kind == kind)) >= n,
            timeout=timeout,
        )

    def clear(self) -> None:
        """Forget recorded requests and pending faults (used tokens and retry keys are kept)."""
        with self._cond:
            self._requests.clear()
            self._faults.clear()
            self._delays.clear()

    def reset(self) -> None:
        """``clear()`` and also forget used/expired reply tokens and accepted retry keys."""
        with self._cond:
            self.clear()
            self._used_tokens.clear()
            self._expired_tokens.clear()
            self._retry_keys.clear()
            self._menus.clear()
            self._images.clear()
            self._default_menu = None

    # -- fault injection -------------------------------------------------------------------

    def fail_next(self, path_suffix: str, status: int, times: int = 1, body: dict | None = None) -> None:
        """Answer the next ``times`` requests whose path ends with ``path_suffix`` with ``status``."""
        if body is None:
            body = {"message": _DEFAULT_FAULT_MESSAGES.get(status, f"HTTP {status}")}
        with self._cond:
            self._faults.append(_Fault(path_suffix, times, status=status, body=body))

    def delay_next(self, path_suffix: str, seconds: float, times: int = 1) -> None:
        """Hold the next ``times`` matching requests for ``seconds`` before handling them normally
        (a client with a shorter timeout gives up, but the request may still take effect)."""
        with self._cond:
            self._delays.append(_Fault(path_suffix, times, seconds=seconds))

    def garble_next(self, path_suffix: str, body: dict, times: int = 1) -> None:
        """Act on the next ``times`` matching requests as usual, then answer 200 with ``body``
        instead of the real answer (a success the client cannot read)."""
        with self._cond:
            self._garbles.append(_Fault(path_suffix, times, status=200, body=body))

    def expire_reply_token(self, token: str) -> None:
        with self._cond:
            self._expired_tokens.add(token)

    @staticmethod
    def new_reply_token() -> str:
        """A fresh reply token (any unused, unexpired string is accepted)."""
        return uuid.uuid4().hex

    # -- request handling (server threads) -------------------------------------------------

    @staticmethod
    def _take(faults: list[_Fault], path: str) -> _Fault | None:
        for fault in faults:
            if path.endswith(fault.suffix):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    faults.remove(fault)
                return fault
        return None

    def _sent_messages(self, messages: list) -> list[dict]:
        return [{"id": str(next(self._ids)), "quotaConsumed": 1} for _ in messages]

    def _record(
        self,
        method: str,
        path: str,
        headers: dict,
        body: dict,
        status: int,
        payload: dict | bytes,
        content: bytes = b"",
    ) -> None:
        # caller holds self._cond
        response = payload if isinstance(payload, dict) else {"bytes": len(payload)}
        recorded = RecordedRequest(path, headers, body, status, response, method, content)
        self._requests.append(recorded)
        self._cond.notify_all()
        if self.on_request is not None:
            self.on_request(recorded)

    def _handle(
        self, method: str, raw_path: str, raw_headers: Message[str, str], raw: bytes
    ) -> tuple[int, dict | bytes, dict]:
        request = _Incoming.of(method, raw_path, raw_headers, raw)
        refused = self._refusal(request)
        if refused is not None:
            return self._answer(request, *refused)
        if request.kind == "loading":
            return self._answer(request, 202, {})
        if request.kind == "richmenu":
            with self._cond:
                return self._answer(request, *self._richmenu(request))
        with self._cond:  # the token or retry-key check, its state change and its record are one step
            status, payload, *extra = self._reply(request) if request.kind == "reply" else self._push(request)
            garble = self._take(self._garbles, request.path) if status == 200 else None
            answer = self._answer(request, status, payload, *extra)
        if self.answer_delay:  # as LINE: the request took effect on arrival; its answer comes later
            time.sleep(self.answer_delay)
        if garble is not None:
            return 200, dict(garble.body or {}), {}
        return answer

    def _answer(
        self, request: _Incoming, status: int, payload: dict | bytes, extra: dict | None = None
    ) -> tuple[int, dict | bytes, dict]:
        content = request.raw if request.parsed is None else b""
        with self._cond:  # re-entrant: also called with it held
            self._record(
                request.method, request.path, request.headers, request.body, status, payload, content
            )
        return status, payload, extra or {}

    def _refusal(self, request: _Incoming) -> tuple[int, dict] | None:
        """What a request is answered before it can take effect: unknown route, bad token, an
        injected fault (after an injected delay), or a body the real API rejects."""
        if request.kind is None or (request.method != "POST" and request.kind != "richmenu"):
            return 404, dict(NOT_FOUND)
        auth = request.headers.get("authorization", "")
        token = auth[len("Bearer ") :].strip() if auth.startswith("Bearer ") else ""
        if not token or (self.access_token is not None and token != self.access_token):
            return 401, {"message": AUTH_FAILED}
        with self._cond:
            delay = self._take(self._delays, request.path)
        if delay is not None:
            time.sleep(delay.seconds)
        with self._cond:
            fault = self._take(self._faults, request.path)
        if fault is not None:
            return fault.status, dict(fault.body or {})
        if request.kind == "richmenu":
            return None  # its own checks (``_richmenu``): an image body is not JSON
        if not isinstance(request.parsed, dict):
            return 400, {"message": "The request body could not be parsed as JSON"}
        details = _validate_body(request.kind, request.body)
        return (400, _bad_request(details)) if details else None

    def _richmenu(self, request: _Incoming) -> tuple[int, dict | bytes, dict]:
        # caller holds self._cond
        path, method = request.path, request.method
        if path in ("/v2/bot/richmenu/validate", "/v2/bot/richmenu") and method == "POST":
            details = (
                _validate_richmenu(request.body)
                if isinstance(request.parsed, dict)
                else [_detail("", "JSON")]
            )
            if details:
                return 400, _bad_request(details), {}
            if path.endswith("/validate"):
                return 200, {}, {}
            menu_id = f"richmenu-{uuid.uuid4().hex}"
            self._menus[menu_id] = dict(request.body)
            return 200, {"richMenuId": menu_id}, {}
        if path == "/v2/bot/richmenu/list" and method == "GET":
            return 200, {"richmenus": [{**m, "richMenuId": i} for i, m in self._menus.items()]}, {}
        menu = _MENU_PATH.match(path)
        if menu is not None:
            return self._one_menu(request, menu.group(1), bool(menu.group(2)))
        default = _DEFAULT_PATH.match(path)
        if default is not None:
            return self._default(method, default.group(1))
        return 404, dict(NOT_FOUND), {}

    def _one_menu(self, request: _Incoming, menu_id: str, content: bool) -> tuple[int, dict | bytes, dict]:
        method = request.method
        if menu_id not in self._menus:
            return 404, {"message": "Not found"}, {}
        if content and method == "POST":
            return self._upload(request, menu_id)
        if content and method == "GET":
            if menu_id not in self._images:
                return 404, dict(NOT_FOUND), {}
            kind, data = self._images[menu_id]
            return 200, data, {"Content-Type": kind}
        if not content and method == "GET":
            return 200, {**self._menus[menu_id], "richMenuId": menu_id}, {}
        if not content and method == "DELETE":
            del self._menus[menu_id]
            self._images.pop(menu_id, None)
            if self._default_menu == menu_id:
                self._default_menu = None
            return 200, {}, {}
        return 404, dict(NOT_FOUND), {}

    def _upload(self, request: _Incoming, menu_id: str) -> tuple[int, dict, dict]:
        declared = request.headers.get("content-type", "").split(";")[0].strip()
        if declared not in ("image/png", "image/jpeg"):
            return 415, {"message": "Unsupported Media Type: use image/jpeg or image/png"}, {}
        if len(request.raw) > MAX_IMAGE_BYTES:
            return 413, {"message": "Request Entity Too Large"}, {}
        if menu_id in self._images:
            return 400, {"message": "An image has already been uploaded to the richmenu"}, {}
        size = self._menus[menu_id].get("size") or {}
        try:
            kind, width, height = image_type_and_size(request.raw)
        except ImageError:
            return 400, {"message": "The image could not be read as JPEG or PNG"}, {}
        if kind != declared or (width, height) != (size.get("width"), size.get("height")):
            return 400, {"message": "The image does not match the rich menu's size or declared type"}, {}
        self._images[menu_id] = (kind, request.raw)
        return 200, {}, {}

    def _default(self, method: str, menu_id: str | None) -> tuple[int, dict, dict]:
        if menu_id is not None and method == "POST":
            if menu_id not in self._menus:
                return 404, dict(NOT_FOUND), {}
            if menu_id not in self._images:
                return 400, {"message": "must upload a rich menu image before applying it to user"}, {}
            self._default_menu = menu_id
            return 200, {}, {}
        if menu_id is None and method == "GET":
            if self._default_menu is None:
                return 404, {"message": "no default richmenu"}, {}
            return 200, {"richMenuId": self._default_menu}, {}
        if menu_id is None and method == "DELETE":
            self._default_menu = None
            return 200, {}, {}
        return 404, dict(NOT_FOUND), {}

    # -- the rich-menu state, as a test reads it ---------------------------------------------

    def rich_menus(self) -> dict[str, dict]:
        """The rich menus on the fake channel, by id (as created)."""
        with self._cond:
            return {i: dict(m) for i, m in self._menus.items()}

    def rich_menu_image(self, menu_id: str) -> bytes | None:
        with self._cond:
            found = self._images.get(menu_id)
            return found[1] if found else None

    @property
    def default_rich_menu(self) -> str | None:
        with self._cond:
            return self._default_menu

    def _reply(self, request: _Incoming) -> tuple[int, dict]:
        # caller holds self._cond
        reply_token = request.body["replyToken"]
        if reply_token in self._used_tokens or reply_token in self._expired_tokens:
            return 400, {"message": INVALID_REPLY_TOKEN}
        self._used_tokens.add(reply_token)
        return 200, {"sentMessages": self._sent_messages(request.body["messages"])}

    def _push(self, request: _Incoming) -> tuple[int, dict, dict]:
        # caller holds self._cond
        retry_key = request.headers.get("x-line-retry-key")
        if retry_key is not None:
            try:
                uuid.UUID(retry_key)
            except ValueError:
                return 400, {"message": INVALID_RETRY_KEY}, {}
            if retry_key in self._retry_keys:
                request_id, sent = self._retry_keys[retry_key]
                accepted = {"message": RETRY_KEY_ACCEPTED, "sentMessages": sent}
                return 409, accepted, {"x-line-accepted-request-id": request_id}
        sent = self._sent_messages(request.body["messages"])
        if retry_key is not None:
            self._retry_keys[retry_key] = (str(uuid.uuid4()), sent)
        return 200, {"sentMessages": sent}, {}


# -- the command ------------------------------------------------------------------------------------

_SHOWN_CHARS = 60


def _shown(text: str) -> str:
    one_line = " ".join(str(text).split())
    return one_line if len(one_line) <= _SHOWN_CHARS else one_line[: _SHOWN_CHARS - 1] + "…"


def _message_line(message: object) -> str:
    """One message as a user would meet it: a text, or a card carousel's titles."""
    if not isinstance(message, dict):
        return "?"
    if message.get("type") == "text":
        quoted = " quoting the user's message" if message.get("quoteToken") else ""
        return f"text「{_shown(message.get('text', ''))}」{quoted}"
    if message.get("type") == "flex":
        contents = message.get("contents") or {}
        bubbles = contents.get("contents") if contents.get("type") == "carousel" else [contents]
        return f"flex「{_shown(message.get('altText', ''))}」({len(bubbles or [])} cards)"
    return str(message.get("type", "?"))


def request_line(request: RecordedRequest) -> str:
    """What the command prints for one request: never a header (the token), never an image."""
    head = f"{request.method} {request.path} -> {request.status}"
    body = request.body
    if request.status >= 400:
        return f"{head} {_shown(str(request.response.get('message', '')))}"
    if request.kind in ("reply", "push"):
        found = body.get("messages")
        messages: list = found if isinstance(found, list) else []
        to = f" to {body['to']}" if request.kind == "push" and isinstance(body.get("to"), str) else ""
        return f"{head} {request.kind}{to}: " + " | ".join(_message_line(m) for m in messages)
    if request.kind == "loading":
        return f"{head} loading {body.get('loadingSeconds', '?')} s"
    return head


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m local_agent.testing.fake_line_api",
        description="A fake LINE Messaging API on 127.0.0.1 that prints each request it receives.",
    )
    parser.add_argument("--port", type=int, default=8081, help="the port on 127.0.0.1 (default 8081)")
    args = parser.parse_args(argv)
    if not 1 <= args.port <= 65535:
        parser.error("--port must be 1-65535")
    say = lambda line: print(line, flush=True)  # noqa: E731 - one line per request, as it comes
    fake = FakeLineApi(port=args.port, on_request=lambda request: say(request_line(request)))
    try:
        fake.start()
    except OSError as exc:
        taken = exc.errno == errno.EADDRINUSE
        why = "is in use (another fake, or the service itself?)" if taken else f"cannot be opened ({exc})"
        print(
            f"fake_line_api: port {args.port} on 127.0.0.1 {why}; choose another with --port", file=sys.stderr
        )
        return 1
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    say(f"fake LINE API on {fake.base_url} (accepts any bearer token; Ctrl-C stops)")
    say(f"start the service with LINE_API_HOST={fake.base_url}")
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
