"""The language layer: what people's own words mean — what a sentence asks for (intents, diets),
townships and dates — read from vocabulary kept as data, shared by the commands, the offline rules
and the tools. It may import ``context`` and ``listings`` only.

``read(text, now, context)`` reads a message once into an ``Utterance`` (``utterance.py``), which
every consumer takes."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from local_agent.language.utterance import Context, Utterance


def read(text: str, now: float | date | None = None, context: Context | None = None) -> Utterance:
    """``text`` read once into an ``Utterance`` (``utterance.read``)."""
    from local_agent.language import utterance  # (imported on first use: the submodules import this package)

    return utterance.read(text, now, context)
