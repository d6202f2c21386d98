"""Current-turn tool responses larger than their share of the budget, cut with a marker.

A tool has already run when its response is in the request: refusing the model call then would
leave its effects without an answer. So before refusing, the plugin measures what the turn needs
without any response (rules, tools, the message, this turn's calls), shares what is left of the
budget among the responses (a response smaller than its share keeps it all, the rest is shared
again among the larger ones) and cuts each larger response to its share: its canonical JSON, cut,
under ``CUT_MARKER``. Only the request is cut; ADK's session keeps the whole response.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.genai import types

from local_agent.context.canonical import canonical_json, canonical_size

CUT_MARKER = "[Cut by the app to fit the request budget: the start of the tool's response, as JSON]"
CUT_KEY = "cut_response"
_STUB: dict[str, Any] = {CUT_KEY: CUT_MARKER, "start": ""}


def response_parts(tail: Sequence[types.Content]) -> list[tuple[int, int]]:
    """(content index, part index) of every function response in ``tail``."""
    return [
        (i, j)
        for i, content in enumerate(tail)
        for j, part in enumerate(content.parts or [])
        if part.function_response is not None
    ]


def _response(part: types.Part) -> dict[str, Any]:
    response = part.function_response
    return dict(response.response or {}) if response is not None else {}


def stubbed(tail: Sequence[types.Content], which: Sequence[tuple[int, int]]) -> list[types.Content]:
    """``tail`` with the responses at ``which`` replaced by the empty cut marker."""
    return with_responses(tail, {key: dict(_STUB) for key in which})


def with_responses(
    tail: Sequence[types.Content], replaced: dict[tuple[int, int], dict[str, Any]]
) -> list[types.Content]:
    """A copy of ``tail`` whose function responses at the given places carry new bodies."""
    out = []
    for i, content in enumerate(tail):
        if not any((i, j) in replaced for j in range(len(content.parts or []))):
            out.append(content)
            continue
        parts = []
        for j, part in enumerate(content.parts or []):
            body = replaced.get((i, j))
            if body is None or part.function_response is None:
                parts.append(part)
                continue
            response = part.function_response.model_copy(update={"response": body})
            parts.append(part.model_copy(update={"function_response": response}))
        out.append(content.model_copy(update={"parts": parts}))
    return out


def cut_body(body: dict[str, Any], share: int) -> dict[str, Any]:
    """``body`` when it fits in ``share`` bytes, else the cut marker with as much of its canonical
    JSON as fits (never more than ``share`` bytes, never less than the marker alone)."""
    if canonical_size(body) <= share:
        return body
    text = canonical_json(body)
    room = max(0, share - canonical_size(_STUB))
    start = text.encode("utf-8")[:room].decode("utf-8", "ignore")
    cut = {CUT_KEY: CUT_MARKER, "start": start}
    while start and canonical_size(cut) > max(share, canonical_size(_STUB)):  # JSON escapes took room
        start = start[: max(0, len(start) - 1 - (canonical_size(cut) - share))]
        cut = {CUT_KEY: CUT_MARKER, "start": start}
    return cut


def shares(sizes: Sequence[int], room: int) -> list[int]:
    """Water-filling: ``room`` bytes shared among responses of ``sizes``; a smaller one keeps its
    size, the rest is shared equally among the larger ones."""
    order = sorted(range(len(sizes)), key=lambda k: sizes[k])
    out = [0] * len(sizes)
    left = max(0, room)
    for n, k in enumerate(order):
        share = left // (len(sizes) - n)
        out[k] = min(sizes[k], share)
        left -= out[k]
    return out


def cut_to_fit(tail: Sequence[types.Content], room: int) -> tuple[list[types.Content], int]:
    """``tail`` with its responses cut to share ``room`` bytes (what the budget leaves once
    everything else is measured with every response as the bare marker); how many were cut."""
    where = response_parts(tail)
    bodies = [_response((tail[i].parts or [])[j]) for i, j in where]
    stub = canonical_size(_STUB)
    given = shares([max(0, canonical_size(b) - stub) for b in bodies], room)
    replaced: dict[tuple[int, int], dict[str, Any]] = {}
    for key, body, extra in zip(where, bodies, given, strict=True):
        new = cut_body(body, stub + extra)
        if new is not body:
            replaced[key] = new
    return with_responses(tail, replaced), len(replaced)
