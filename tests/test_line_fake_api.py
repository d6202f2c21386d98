"""The fake LINE API, driven by the real SDK (AsyncMessagingApi) through LineGateway."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
import uuid

import pytest

from local_agent.line.client import LineDeliveryError, LineGateway, new_retry_key, retry_key_for
from local_agent.line.messages import to_line_messages
from local_agent.replies.reply import Reply
from local_agent.testing.fake_line_api import (
    AUTH_FAILED,
    INVALID_REPLY_TOKEN,
    LOADING_PATH,
    PUSH_PATH,
    REPLY_PATH,
    RETRY_KEY_ACCEPTED,
    FakeLineApi,
)

TOKEN = "test-channel-token"
USER = "U0123456789abcdef0123456789abcdef"


@pytest.fixture
def api():
    with FakeLineApi(access_token=TOKEN) as fake:
        yield fake


def gateway(api: FakeLineApi, **kw) -> LineGateway:
    kw.setdefault("timeout", 2.0)
    kw.setdefault("backoff", 0.01)
    kw.setdefault("max_backoff", 0.02)
    token = kw.pop("token", TOKEN)
    return LineGateway(token, api.base_url, **kw)


def run(coro_fn):
    """Run ``coro_fn()`` in a fresh loop (the gateway must be built inside it)."""
    return asyncio.run(coro_fn())


def hello(text: str = "你好，彰化！"):
    return to_line_messages(Reply(texts=(text,)))


def post(api: FakeLineApi, path: str, body: object, headers: dict | None = None) -> tuple[int, dict]:
    """A raw POST, bypassing the SDK's client-side validation."""
    data = json.dumps(body).encode() if not isinstance(body, bytes) else body
    hdrs = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}
    hdrs.update(headers or {})
    hdrs = {k: v for k, v in hdrs.items() if v is not None}
    req = urllib.request.Request(api.base_url + path, data=data, headers=hdrs, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


# -- reply / push / loading ------------------------------------------------------------------


def test_reply_is_recorded_with_bearer_token_and_one_sent_message_per_message(api):
    async def go():
        async with gateway(api) as line:
            await line.reply("rt-1", to_line_messages(Reply(texts=("一", "二"))))

    run(go)
    [reply] = api.replies()
    assert reply.path == REPLY_PATH
    assert reply.headers["authorization"] == f"Bearer {TOKEN}"
    assert reply.body["replyToken"] == "rt-1"
    assert [m["text"] for m in reply.body["messages"]] == ["一", "二"]
    assert len(reply.response["sentMessages"]) == 2
    assert all(m["quotaConsumed"] == 1 for m in reply.response["sentMessages"])
    assert api.pushes() == []


def test_deliver_with_fresh_token_replies_and_does_not_push(api):
    async def go():
        async with gateway(api) as line:
            now = time.time()
            return await line.deliver("rt-fresh", USER, hello(), new_retry_key(), now - 1, now)

    assert run(go) == "reply"
    assert len(api.replies()) == 1
    assert api.attempts("push") == []


def test_reused_reply_token_falls_back_to_push_with_uuid_retry_key(api):
    key = retry_key_for("webhook-event-42")

    async def go():
        async with gateway(api) as line:
            now = time.time()
            first = await line.deliver("rt-1", USER, hello("first"), new_retry_key(), now, now)
            second = await line.deliver("rt-1", USER, hello("second"), key, now, now)
            return first, second

    assert run(go) == ("reply", "push")
    rejected = [r for r in api.attempts("reply") if r.status == 400]
    assert len(rejected) == 1 and rejected[0].response == {"message": INVALID_REPLY_TOKEN}
    [push] = api.pushes()
    assert push.body["to"] == USER
    assert push.body["messages"][0]["text"] == "second"
    assert push.headers["x-line-retry-key"] == key
    assert uuid.UUID(push.headers["x-line-retry-key"])  # LINE requires a UUID


def test_expired_reply_token_falls_back_to_push(api):
    api.expire_reply_token("rt-expired")

    async def go():
        async with gateway(api) as line:
            now = time.time()
            return await line.deliver("rt-expired", USER, hello(), new_retry_key(), now, now)

    assert run(go) == "push"
    assert api.replies() == []
    assert len(api.pushes()) == 1


def test_old_reply_token_goes_straight_to_push_without_trying_reply(api):
    async def go():
        async with gateway(api, reply_token_max_age=50) as line:
            return await line.deliver(
                "rt-old", USER, hello(), new_retry_key(), token_received_at=100.0, now=151.0
            )

    assert run(go) == "push"
    assert api.attempts("reply") == []
    assert len(api.pushes()) == 1


def test_missing_reply_token_pushes(api):
    async def go():
        async with gateway(api) as line:
            return await line.deliver(None, USER, hello(), new_retry_key(), token_received_at=0.0)

    assert run(go) == "push"
    assert len(api.pushes()) == 1


def test_loading_animation_is_accepted_with_202_and_rounded_seconds(api):
    async def go():
        async with gateway(api) as line:
            await line.show_loading(USER, seconds=7)
            await line.show_loading(USER, seconds=600)

    run(go)
    loadings = api.loadings()
    assert [r.status for r in loadings] == [202, 202]
    assert [r.body for r in loadings] == [
        {"chatId": USER, "loadingSeconds": 10},
        {"chatId": USER, "loadingSeconds": 60},
    ]
    assert all(r.path == LOADING_PATH for r in loadings)


# -- retries and errors ----------------------------------------------------------------------


def test_server_error_is_retried_once_then_delivered(api):
    api.fail_next("/message/reply", 500)

    async def go():
        async with gateway(api) as line:
            await line.reply("rt-500", hello())

    run(go)
    assert [r.status for r in api.attempts("reply")] == [500, 200]
    assert len(api.replies()) == 1


def test_rate_limit_three_times_raises_after_bounded_attempts(api):
    api.fail_next("/message/push", 429, times=3)

    async def go():
        async with gateway(api, max_retries=2) as line:
            await line.push(USER, hello(), new_retry_key())

    with pytest.raises(LineDeliveryError) as info:
        run(go)
    assert info.value.status == 429
    assert info.value.retryable is True
    assert [r.status for r in api.attempts("push")] == [429, 429, 429]  # 1 try + 2 retries
    assert api.pushes() == []


def test_retries_reuse_the_same_retry_key(api):
    api.fail_next("/message/push", 503, times=2)
    key = new_retry_key()

    async def go():
        async with gateway(api) as line:
            await line.push(USER, hello(), key)

    run(go)
    attempts = api.attempts("push")
    assert [r.status for r in attempts] == [503, 503, 200]
    assert {r.headers["x-line-retry-key"] for r in attempts} == {key}


def test_monthly_limit_429_is_not_retried(api):
    api.fail_next("/message/push", 429, body={"message": "You have reached your monthly limit."})

    async def go():
        async with gateway(api) as line:
            await line.push(USER, hello(), new_retry_key())

    with pytest.raises(LineDeliveryError) as info:
        run(go)
    assert (info.value.status, info.value.retryable, info.value.reason) == (429, False, "monthly_limit")
    assert len(api.attempts("push")) == 1


def test_bad_request_is_neither_retried_nor_pushed(api):
    api.fail_next("/message/reply", 400, body={"message": "The request body has 1 error(s)"})

    async def go():
        async with gateway(api) as line:
            now = time.time()
            await line.deliver("rt-bad", USER, hello(), new_retry_key(), now, now)

    with pytest.raises(LineDeliveryError) as info:
        run(go)
    assert (info.value.status, info.value.retryable) == (400, False)
    assert len(api.attempts("reply")) == 1
    assert api.attempts("push") == []


def test_push_timeout_is_retried_with_the_same_retry_key_and_delivered_once(api):
    # The client timeout is long enough that every attempt reaches the fake even on a stalled
    # machine; only the held one outlasts it.
    api.delay_next("/message/push", 3.0)
    key = new_retry_key()

    async def go():
        async with gateway(api, timeout=1.0) as line:
            await line.push(USER, hello(), key)

    run(go)
    # the held first request finishes later and must find the key already accepted
    assert api.wait_for(lambda reqs: len([r for r in reqs if r.path == PUSH_PATH]) == 2, timeout=10)
    assert len(api.pushes()) == 1
    assert sorted(r.status for r in api.attempts("push")) == [200, 409]


def test_timeouts_exhaust_retries_with_status_none(api):
    # Each attempt has 0.5 s to reach the fake (a loaded machine can take over 0.1 s to connect
    # and send), and the fake holds each answer well past that.
    api.delay_next("/message/reply", 2.0, times=3)

    async def go():
        async with gateway(api, timeout=0.5, max_retries=2) as line:
            await line.reply("rt-slow", hello())

    with pytest.raises(LineDeliveryError) as info:
        run(go)
    assert (info.value.status, info.value.retryable, info.value.reason) == (None, True, "timeout")
    assert api.wait_for(lambda reqs: len(reqs) == 3, timeout=10)  # exactly 3 attempts reached the server
    time.sleep(0.1)
    assert len(api.attempts("reply")) == 3


def test_same_retry_key_twice_answers_409_and_is_not_a_second_delivery(api):
    key = new_retry_key()
    body = {"to": USER, "messages": [{"type": "text", "text": "hi"}]}
    status1, first = post(api, PUSH_PATH, body, {"X-Line-Retry-Key": key})
    status2, second = post(api, PUSH_PATH, body, {"X-Line-Retry-Key": key})
    assert status1 == 200
    assert status2 == 409
    assert second["message"] == RETRY_KEY_ACCEPTED
    assert second["sentMessages"] == first["sentMessages"]
    assert len(api.pushes()) == 1


def test_gateway_treats_409_retry_key_as_delivered(api):
    key = new_retry_key()

    async def go():
        async with gateway(api) as line:
            await line.push(USER, hello(), key)
            await line.push(USER, hello(), key)  # e.g. a redelivered webhook

    run(go)
    assert [r.status for r in api.attempts("push")] == [200, 409]
    assert len(api.pushes()) == 1


def test_non_uuid_retry_key_is_refused(api):
    async def go():
        async with gateway(api) as line:
            await line.push(USER, hello(), "event-42")

    with pytest.raises(ValueError):
        run(go)
    assert api.attempts("push") == []
    status, body = post(
        api,
        PUSH_PATH,
        {"to": USER, "messages": [{"type": "text", "text": "x"}]},
        {"X-Line-Retry-Key": "not-a-uuid"},
    )
    assert status == 400 and "X-Line-Retry-Key" in body["message"]


def test_missing_authorization_answers_401(api):
    status, body = post(
        api,
        REPLY_PATH,
        {"replyToken": "rt", "messages": [{"type": "text", "text": "x"}]},
        {"Authorization": None},
    )
    assert status == 401
    assert body == {"message": AUTH_FAILED}
    assert api.replies() == []


def test_wrong_token_raises_non_retryable_401_without_retry(api):
    async def go():
        async with gateway(api, token="wrong-token") as line:
            await line.reply("rt-auth", hello())

    with pytest.raises(LineDeliveryError) as info:
        run(go)
    assert (info.value.status, info.value.retryable) == (401, False)
    assert [r.status for r in api.attempts("reply")] == [401]


def test_delivery_error_text_never_contains_token_or_message_text(api):
    api.fail_next("/message/push", 500, times=3)
    secret_text = "我的地址是彰化市中山路一段1號"

    async def go():
        async with gateway(api) as line:
            now = time.time()
            await line.deliver("rt-secret-token", USER, hello(secret_text), new_retry_key(), now - 60, now)

    with pytest.raises(LineDeliveryError) as info:
        run(go)
    text = str(info.value) + repr(info.value)
    for leaked in (secret_text, "rt-secret-token", TOKEN, USER):
        assert leaked not in text
    assert info.value.__cause__ is None and info.value.__context__ is None


def test_gateway_must_be_built_inside_a_running_loop():
    with pytest.raises(RuntimeError):
        LineGateway(TOKEN, "http://127.0.0.1:9")


# -- request shape validation ----------------------------------------------------------------


def _text(n: int) -> dict:
    return {"type": "text", "text": "字" * n}


def _quick_reply(n: int) -> dict:
    return {
        "items": [
            {"type": "action", "action": {"type": "postback", "label": f"q{i}", "data": f"d{i}"}}
            for i in range(n)
        ]
    }


def _carousel(n: int) -> dict:
    bubble = {
        "type": "bubble",
        "body": {"type": "box", "layout": "vertical", "contents": [{"type": "text", "text": "t"}]},
    }
    return {"type": "flex", "altText": "alt", "contents": {"type": "carousel", "contents": [bubble] * n}}


@pytest.mark.parametrize(
    ("messages", "status"),
    [
        ([_text(5000)], 200),
        ([_text(5001)], 400),
        ([_text(1)] * 5, 200),
        ([_text(1)] * 6, 400),
        ([], 400),
        ([{"text": "no type"}], 400),
        ([{**_text(1), "quickReply": _quick_reply(13)}], 200),
        ([{**_text(1), "quickReply": _quick_reply(14)}], 400),
        ([_carousel(12)], 200),
        ([_carousel(13)], 400),
        ([{**_carousel(1), "altText": "a" * 401}], 400),
    ],
    ids=[
        "text-5000",
        "text-5001",
        "5-messages",
        "6-messages",
        "no-messages",
        "no-type",
        "13-quick-replies",
        "14-quick-replies",
        "12-bubbles",
        "13-bubbles",
        "alt-text-401",
    ],
)
def test_message_shape_limits(api, messages, status):
    got, body = post(api, PUSH_PATH, {"to": USER, "messages": messages})
    assert got == status
    if status == 400:
        assert body["message"].startswith("The request body has") and body["details"]
        assert api.pushes() == []
    else:
        assert len(body["sentMessages"]) == len(messages)


def test_rejected_reply_does_not_consume_the_token(api):
    status, _ = post(api, REPLY_PATH, {"replyToken": "rt-keep", "messages": [_text(5001)]})
    assert status == 400
    status, _ = post(api, REPLY_PATH, {"replyToken": "rt-keep", "messages": [_text(10)]})
    assert status == 200


def test_unknown_path_answers_404(api):
    status, body = post(api, "/v2/bot/message/broadcast", {"messages": [_text(1)]})
    assert status == 404
    assert api.requests[-1].status == 404 and api.requests[-1].kind is None


# -- the recorder ----------------------------------------------------------------------------


def test_wait_for_count_sees_requests_from_other_threads_and_clear_forgets(api):
    assert api.wait_for_count(1, "push", timeout=0.05) is False

    async def go():
        async with gateway(api) as line:
            await line.push(USER, hello(), new_retry_key())

    run(go)
    assert api.wait_for_count(1, "push", timeout=1) is True
    assert api.requests[0].headers["content-type"].startswith("application/json")
    api.clear()
    assert api.requests == [] and api.pushes() == []


def test_base_url_needs_a_started_server():
    fake = FakeLineApi()
    with pytest.raises(RuntimeError):
        _ = fake.base_url
    fake.start()
    try:
        assert fake.base_url.startswith("http://127.0.0.1:")
    finally:
        fake.stop()
