"""Builds the service from settings: store, model, measure, budget. No I/O at import."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from google.adk.models.base_llm import BaseLlm
from google.genai import types

from local_agent import fingerprint
from local_agent.agent.adk_router import AdkRouter
from local_agent.agent.instructions import dated_instruction
from local_agent.agent.pipeline import ContextPipeline
from local_agent.context.journal import ContextJournal
from local_agent.context.session_budget import ByteMeasure, Measure, SessionBudget
from local_agent.listings.loader import ListingsError, listings_from
from local_agent.settings import Settings
from local_agent.stores.ports import Store
from local_agent.turns.commands import Commands
from local_agent.turns.service import LocalService

log = logging.getLogger("local_agent.wiring")


class _GenaiSettings(TypedDict):
    """What both the Gemini model and its token measure are built from."""

    api_key: str | None
    use_vertexai: bool
    project: str | None
    location: str | None
    base_url: str | None


def open_store(settings: Settings) -> Store:
    if settings.local_store == "firestore":
        from local_agent.stores.firestore import (
            open_firestore_store,  # optional extra, imported only when chosen
        )

        return open_firestore_store(settings.google_cloud_project, settings.local_firestore_database)
    from local_agent.stores.sqlite import SqliteStore

    return SqliteStore(settings.local_sqlite_path)


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
        measure = GeminiTokenMeasure.from_settings(**common, model=settings.local_model)
    else:
        measure = ByteMeasure()
    return model, measure, generate_config()


@dataclass
class Wiring:
    store: Store
    journal: ContextJournal
    pipeline: ContextPipeline
    router: AdkRouter
    service: LocalService


def build_service(
    settings: Settings,
    *,
    clock: Callable[[], float] = time.time,
    store: Store | None = None,
    model: BaseLlm | None = None,
    measure: Measure | None = None,
) -> Wiring:
    fingerprint.configure_key(settings.line_channel_secret)
    # Validated in full before anything opens: a bad file stops the start (ListingsError names
    # file, row and column) instead of serving half of it.
    try:
        listings = listings_from(settings.local_listings_dir)
    except ListingsError as exc:
        log.error("listings refused; not starting", extra={"code": exc.code})
        raise
    log.info(
        "listings loaded",
        extra={
            "kind": "folder" if settings.local_listings_dir else "shipped",
            "count": len(listings.places) + len(listings.events),
        },
    )
    store = store if store is not None else open_store(settings)
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
    router = AdkRouter(
        pipeline=pipeline,
        model=model,
        measure=measure,
        generate_content_config=config,
        instruction=dated_instruction(clock),
    )
    commands = Commands(preferences=store, journal=journal, clock=clock)
    service = LocalService(router=router, commands=commands, journal=journal, preferences=store, clock=clock)
    return Wiring(store, journal, pipeline, router, service)
