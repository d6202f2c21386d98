"""EventProcessor on its own: one inbound event from dedupe to delivered reply, with the real
service (offline model, SQLite) and the real LINE gateway talking to the fake LINE API."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from google.adk.models.base_llm import BaseLlm
from helpers_app import TOKEN, HangingModel, make_settings

from local_agent.agent.adk_router import TurnOutcome
from local_agent.context.errors import StoreError
from local_agent.line.client import LineGateway
from local_agent.line.inbound import InboundEvent
from local_agent.replies.render import POLITE_FAILURE
from local_agent.server.processor import EventProcessor
from local_agent.testing import webhooks as W
from local_agent.testing.fake_line_api import FakeLineApi
from local_agent.wiring import Wiring, build_service

USER = "U" + "1" * 32


class ClaimFails:
    """The store, except that the dedupe claim is unavailable."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def claim_event(self, event_id: str, *, now: float) -> bool:
        raise StoreError(operation="dedupe.claim", backend="test")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def line() -> Any:
    with FakeLineApi(access_token=TOKEN) as api:
        yield api


def build_wiring(tmp_path: Path, line: FakeLineApi, model: BaseLlm | None = None) -> Wiring:
    return build_service(make_settings(line.base_url, tmp_path / "p.db"), model=model)


@pytest.fixture
def wiring(tmp_path: Path, line: FakeLineApi) -> Any:
    built = build_wiring(tmp_path, line)
    yield built
    built.store.close()


def text_event(text: str, event_id: str | None = "01HZPROCESSOREVENT000000001") -> InboundEvent:
    return InboundEvent(
        kind="text",
        scope=W.scope_of(USER),
        reply_to=USER,
        event_id=event_id,
        reply_token=None,  # no reply token: the answer is a push, recorded by the fake
        received_at=time.time(),
        text=text,
    )


def run_with(
    wiring: Wiring,
    line: FakeLineApi,
    work: Callable[[EventProcessor], Awaitable[None]],
    *,
    store: Any = None,
    observers: list[Callable[[InboundEvent, TurnOutcome], None]] | None = None,
) -> None:
    async def go() -> None:
        gateway = await LineGateway.open(TOKEN, line.base_url)
        try:
            processor = EventProcessor(
                service=wiring.service,
                gateway=gateway,
                store=store if store is not None else wiring.store,
                clock=time.time,
                observers=observers if observers is not None else [],
            )
            await work(processor)
        finally:
            await gateway.close()

    asyncio.run(go())


def pushed_texts(line: FakeLineApi) -> list[str]:
    return [r.body["messages"][0].get("text", "") for r in line.pushes()]


def test_an_event_is_turned_observed_and_delivered_once_even_when_it_arrives_twice(
    wiring: Wiring, line: FakeLineApi
) -> None:
    seen: list[TurnOutcome] = []

    async def twice(processor: EventProcessor) -> None:
        await processor.process(text_event("花壇有什麼店推薦吃吃看？"))
        await processor.process(text_event("花壇有什麼店推薦吃吃看？"))

    run_with(wiring, line, twice, observers=[lambda event, outcome: seen.append(outcome)])
    assert len(seen) == 1 and seen[0].tool_calls[0]["effective_arguments"]["area"] == "花壇鄉"
    assert len(line.pushes()) == 1 and pushed_texts(line)[0].startswith("花壇鄉找到")
    assert [r.body["chatId"] for r in line.loadings()] == [USER]


def test_a_failing_dedupe_claim_is_answered_with_the_apology_and_writes_no_context(
    wiring: Wiring, line: FakeLineApi
) -> None:
    """The event was acknowledged already (LINE will not redeliver it): the user hears from us at
    once, and no turn runs on a store that just failed."""
    seen: list[TurnOutcome] = []

    async def once(processor: EventProcessor) -> None:
        await processor.process(text_event("花壇有什麼店推薦吃吃看？"))

    run_with(wiring, line, once, store=ClaimFails(wiring.store), observers=[lambda e, o: seen.append(o)])
    assert pushed_texts(line) == [POLITE_FAILURE]
    assert [o.error_code for o in seen] == ["STORE_UNAVAILABLE"]
    assert wiring.store.journal_rows() == {} and wiring.store.audit_rows() == []
    assert line.loadings() == []  # no turn started


def test_a_failing_observer_does_not_stop_the_next_one_or_the_delivery(
    wiring: Wiring, line: FakeLineApi
) -> None:
    seen: list[str] = []

    def broken(event: InboundEvent, outcome: TurnOutcome) -> None:
        raise RuntimeError("observer bug")

    async def once(processor: EventProcessor) -> None:
        await processor.process(text_event("花壇有什麼店推薦吃吃看？"))

    run_with(wiring, line, once, observers=[broken, lambda event, outcome: seen.append(event.kind)])
    assert seen == ["text"] and len(line.pushes()) == 1


def test_a_turn_over_the_timeout_is_apologised_for_and_raised(tmp_path: Path, line: FakeLineApi) -> None:
    hanging = build_wiring(tmp_path, line, HangingModel())

    async def times_out(processor: EventProcessor) -> None:
        processor.turn_timeout = 0.2
        with pytest.raises(TimeoutError):
            await processor.process(text_event("花壇有什麼店推薦吃吃看？"))

    try:
        run_with(hanging, line, times_out)
    finally:
        hanging.store.close()
    assert pushed_texts(line) == [POLITE_FAILURE]


class ForgetFailsTwice:
    """The store, except that the first two preference writes are unavailable."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.failures = inner, 0

    def set_consent(self, user_id: str, **kwargs: Any) -> Any:
        if self.failures < 2:
            self.failures += 1
            raise StoreError(operation="preferences.set_consent", backend="test")
        return self.inner.set_consent(user_id, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def unfollow_event() -> InboundEvent:
    return InboundEvent(
        kind="unfollow",
        scope=W.scope_of(USER),
        reply_to=USER,
        event_id="01HZPROCESSORUNFOLLOW00001",
        reply_token=None,
        received_at=time.time(),
    )


def grant_vegan(wiring: Wiring) -> None:
    wiring.store.set_consent(USER, consent="granted", dietary_type="vegan", now=time.time())
    assert wiring.store.get(USER).dietary_type == "vegan"


def test_an_unfollow_whose_claim_fails_still_forgets_and_sends_nothing(
    wiring: Wiring, line: FakeLineApi
) -> None:
    """The person blocked the account: there is no one to apologise to, and forgetting twice is
    harmless, so a failing dedupe claim does not keep their preference."""
    grant_vegan(wiring)

    async def once(processor: EventProcessor) -> None:
        await processor.process(unfollow_event())

    run_with(wiring, line, once, store=ClaimFails(wiring.store))
    state = wiring.store.get(USER)
    assert (state.consent, state.dietary_type) == ("forgotten", None)
    assert line.pushes() == [] and line.replies() == []


def test_an_unfollow_is_retried_through_store_failures(wiring: Wiring, line: FakeLineApi) -> None:
    grant_vegan(wiring)
    flaky = ForgetFailsTwice(wiring.store)
    wiring.service.commands.preferences = flaky

    async def once(processor: EventProcessor) -> None:
        await processor.process(unfollow_event())

    run_with(wiring, line, once)
    state = wiring.store.get(USER)
    assert flaky.failures == 2 and (state.consent, state.dietary_type) == ("forgotten", None)
    assert line.pushes() == [] and line.replies() == []
