"""Builds the service from settings: store, model, measure, budget. No I/O at import."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypedDict

from google.adk.models.base_llm import BaseLlm
from google.genai import types

from local_agent import fingerprint
from local_agent.agent.adk_router import AdkRouter
from local_agent.agent.instructions import dated_instruction
from local_agent.agent.pipeline import ContextPipeline
from local_agent.context.errors import StoreError
from local_agent.context.journal import ContextJournal
from local_agent.context.session_budget import ByteMeasure, BytesBoundMeasure, Measure, SessionBudget
from local_agent.language import townships as language
from local_agent.listings.loader import Listings, ListingsError, listings_from
from local_agent.replies.render import help_text
from local_agent.settings import Settings
from local_agent.stores.guarded import GuardedStore, StoreHealth, StorePool
from local_agent.stores.ports import Store
from local_agent.turns.commands import Commands
from local_agent.turns.consent import ConsentTokens
from local_agent.turns.preference_desk import CommandDesk
from local_agent.turns.service import LocalService

BACKEND_SHARE = 0.8  # of the store deadline, for the backend's own timeout and retries
log = logging.getLogger("local_agent.wiring")


class _GenaiSettings(TypedDict):
    """What both the Gemini model and its token measure are built from."""

    api_key: str | None
    use_vertexai: bool
    project: str | None
    location: str | None
    base_url: str | None


def open_store(settings: Settings) -> Store:
    # The backend's own timeouts end a little before the guard's deadline, so its error wins.
    backend_seconds = settings.local_store_deadline_seconds * BACKEND_SHARE
    if settings.local_store == "firestore":
        from local_agent.stores.firestore import (
            open_firestore_store,  # optional extra, imported only when chosen
        )

        if settings.firestore_emulator_host and not os.environ.get("FIRESTORE_EMULATOR_HOST"):
            # The Firestore client reads only the process environment; a value from .env reaches
            # it through here (one already exported wins).
            os.environ["FIRESTORE_EMULATOR_HOST"] = settings.firestore_emulator_host

        return open_firestore_store(
            settings.google_cloud_project, settings.local_firestore_database, call_timeout=backend_seconds
        )
    from local_agent.stores.sqlite import SqliteStore

    try:
        return SqliteStore(settings.local_sqlite_path, busy_timeout_ms=max(1, int(backend_seconds * 1000)))
    except StoreError as exc:  # name the setting to fix, not only the failed step
        raise StoreError(operation="init: cannot open LOCAL_SQLITE_PATH", backend="sqlite") from exc


def guard_store(store: Store, settings: Settings) -> GuardedStore:
    """``store`` with a deadline on every call, on its own threads, with a health record."""
    if isinstance(store, GuardedStore):
        return store
    return GuardedStore(
        store,
        deadline=settings.local_store_deadline_seconds,
        pool=StorePool(settings.local_store_threads),
        health=StoreHealth(),
    )


def build_model_and_measure(
    settings: Settings,
) -> tuple[BaseLlm, Measure, types.GenerateContentConfig | None]:
    """(model, measure, generate_content_config) for the configured model."""
    if settings.local_model == "offline":
        from local_agent.agent.offline_model import OfflineModel

        return OfflineModel(), ByteMeasure(), None
    from local_agent.agent.gemini import GeminiTokenMeasure, build_gemini_llm, generate_config

    common = _GenaiSettings(
        api_key=settings.google_api_key,
        use_vertexai=settings.google_genai_use_vertexai,
        project=settings.google_cloud_project,
        location=settings.google_cloud_location,
        base_url=settings.local_gemini_base_url,
    )
    model = build_gemini_llm(**common, model=settings.local_model)
    measure: Measure
    if settings.counts_tokens:
        # countTokens only when the byte bound cannot show the request fits (see session_budget).
        measure = BytesBoundMeasure(
            GeminiTokenMeasure.from_settings(**common, model=settings.local_model),
            limit=settings.input_budget,
            factor=settings.local_count_tokens_bytes_factor,
        )
    else:
        measure = ByteMeasure()
    return model, measure, generate_config()


async def run_inline(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a store call on the turn loop itself, without a thread hop."""
    return fn(*args, **kwargs)


async def run_as_unit(store: GuardedStore, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a turn step (begin, a tool, finish) as one guarded job: one hop to the store's pool for
    all of its store calls, and one deadline for the step."""
    return store.unit(f"turn.{getattr(fn, '__name__', 'step')}", fn, *args, **kwargs)


def store_io(settings: Settings, store: Store) -> Callable[..., Awaitable[Any]] | None:
    """How the router runs a turn step's store calls: ``None`` = a worker thread each
    (``asyncio.to_thread``).

    SQLite on local disk (WAL, synchronous=NORMAL) answers a read or a commit in tens of
    microseconds, less than a thread hop costs, and serialises writers anyway; when turns run on
    their own loop thread (``LOCAL_TURN_THREAD=yes``) the turn loop may wait on it, so acks never
    do. Behind ``GuardedStore`` each step then runs as one unit on the guard's pool (one hop and
    one deadline for its two or three calls, instead of a hop per call); a bare adapter runs
    inline. Network stores (Firestore) and turns on the webhook's loop keep a thread per call,
    each bounded by the guard on its own.
    """
    from local_agent.stores.sqlite import SqliteStore

    backend = store.inner if isinstance(store, GuardedStore) else store
    if not (settings.local_turn_thread and isinstance(backend, SqliteStore)):
        return None
    if isinstance(store, GuardedStore):
        return functools.partial(run_as_unit, store)
    return run_inline


@dataclass
class Wiring:
    store: GuardedStore
    journal: ContextJournal
    pipeline: ContextPipeline
    router: AdkRouter
    service: LocalService


def load_listings_or_stop(settings: Settings) -> Listings:
    """The listings, validated in full before anything opens: a bad folder stops the start
    (``ListingsError`` names every problem) instead of serving half of it."""
    try:
        listings = listings_from(settings.local_listings_dir)
    except ListingsError as exc:
        log.error(
            "listings refused; not starting",
            extra={"code": exc.code, "listings_problems": len(exc.problems)},
        )
        raise
    log.info(
        "listings loaded",
        extra={
            "listings_source": listings.source,
            "listings_rows": len(listings.places) + len(listings.events),
        },
    )
    return listings


WARM_QUESTIONS = ("花壇有什麼店推薦吃吃看？", "鹿港這個週末有什麼活動？")


async def warm_up(
    settings: Settings, *, clock: Callable[[], float] = time.time, listings: Listings | None = None
) -> float:
    """Run the first turns' work once before the process reports ready, on a throwaway service
    (offline model, an in-memory store, the same listings): what a fresh process otherwise loads
    on its first turns (ADK's runner and schemas, the tool and reply code, the language and
    calendar tables) is loaded here, and nothing is written to the real store or sent anywhere.
    Returns the seconds it took."""
    from local_agent.agent.offline_model import OfflineModel
    from local_agent.context.journal import ScopeKey
    from local_agent.stores.sqlite import SqliteStore

    started = time.perf_counter()
    store = SqliteStore(":memory:")
    try:
        offline = settings.model_copy(update={"local_model": "offline"})
        wiring = await asyncio.to_thread(
            build_service,
            offline,
            clock=clock,
            store=store,
            model=OfflineModel(),
            measure=ByteMeasure(),
            listings=listings,
        )
        scope = ScopeKey.for_user("Uwarmup000000000000000000000000000", "local-warm-up")
        for question in WARM_QUESTIONS:
            await wiring.service.handle_text(scope, question, turn_id=None)
        wiring.store.pool.shutdown()
    finally:
        store.close()
    return time.perf_counter() - started


def build_service(
    settings: Settings,
    *,
    clock: Callable[[], float] = time.time,
    store: Store | None = None,
    model: BaseLlm | None = None,
    measure: Measure | None = None,
    listings: Listings | None = None,
) -> Wiring:
    fingerprint.configure_key(settings.line_channel_secret)
    listings = listings if listings is not None else load_listings_or_stop(settings)
    language.warm()  # the township vocabulary, pronunciation table and OpenCC, read now rather than in a turn
    store = guard_store(store if store is not None else open_store(settings), settings)
    config: types.GenerateContentConfig | None = None
    if model is None:
        model, default_measure, config = build_model_and_measure(settings)
        measure = measure if measure is not None else default_measure
    measure = measure if measure is not None else ByteMeasure()
    journal = ContextJournal(store, clock=clock)
    budget = SessionBudget(limit=settings.input_budget, unit=measure.unit)
    pipeline = ContextPipeline(
        journal=journal,
        preferences=store,
        audit=store,
        snapshots=store,
        budget=budget,
        clock=clock,
        listings=listings,
    )
    tokens = ConsentTokens(settings.line_channel_secret)
    commands = Commands(
        preferences=store,
        journal=journal,
        clock=clock,
        tokens=tokens,
        audit=store,
        help_text=help_text(listings.meta.help_line),
    )
    router = AdkRouter(
        pipeline=pipeline,
        model=model,
        measure=measure,
        generate_content_config=config,
        instruction=dated_instruction(clock),
        io=store_io(settings, store),
        desk=CommandDesk(commands),
    )
    service = LocalService(
        router=router, commands=commands, journal=journal, preferences=store, clock=clock, listings=listings
    )
    return Wiring(store, journal, pipeline, router, service)
