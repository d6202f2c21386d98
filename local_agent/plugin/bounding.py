"""The one bounding step, shared by ``BoundedContextPlugin`` and LOCAL's router.

``bound_request`` measures system instruction + tool declarations + a window rendered with the
current turn, trims it (``SessionBudget.prepare`` of the stdlib core, or the caller's own
``prepare``) and writes the result into the ``LlmRequest``: ADK's static-instruction prefix (if
any) first, then the app-written contents, then the current turn's own contents untouched.
``fit_responses`` is what the plugin does before refusing: the current turn's tool responses cut
to their share of what the budget leaves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.genai import types

from local_agent.context.session_budget import BudgetResult, ByteMeasure, W
from local_agent.plugin.cut import cut_to_fit, response_parts, stubbed
from local_agent.plugin.request import app_written_content, content_dict, request_envelope

PREFIX_KEY = "contents_prefix"  # ADK's static-instruction contents, measured with the rules
# (window, current contents as dicts, envelope) -> the trimmed result
Prepare = Callable[[W, Any, dict[str, Any]], Awaitable[BudgetResult[W]]]


def envelope_with(llm_request: LlmRequest, prefix: Sequence[types.Content]) -> dict[str, Any]:
    envelope = request_envelope(llm_request)
    if prefix:
        envelope[PREFIX_KEY] = [content_dict(c) for c in prefix]
    return envelope


async def bound_request(
    llm_request: LlmRequest,
    window: W,
    current: Any,
    tail: Sequence[types.Content],
    prepare: Prepare[W],
    *,
    prefix: Sequence[types.Content] = (),
) -> BudgetResult[W]:
    """Measure, trim, and put the result in ``llm_request``: ``prefix``, the app-written contents,
    then ``tail`` (the current turn's own contents, as ``current`` renders them). Raises
    ``BudgetError`` (``BudgetExceeded``: nothing left to drop) without touching the request."""
    result = await prepare(window, current, envelope_with(llm_request, prefix))
    earlier = result.contents[: len(result.contents) - len(tail)]
    llm_request.contents = [*prefix, *(app_written_content(c) for c in earlier), *tail]
    return result


def fit_responses(
    llm_request: LlmRequest, tail: Sequence[types.Content], limit: int, prefix: Sequence[types.Content] = ()
) -> tuple[list[types.Content], int] | None:
    """The current turn with its tool responses cut to fit ``limit`` bytes beside everything else
    (the rules, the tools, the message, the calls; no earlier exchange), and how many were cut;
    ``None`` when there is no response to cut or even the bare markers do not fit. Bytes bound
    tokens from above, so a cut that fits in bytes fits a token budget of the same number."""
    where = response_parts(tail)
    if not where:
        return None
    bare = {
        **envelope_with(llm_request, prefix),
        "contents": [content_dict(c) for c in stubbed(tail, where)],
    }
    room = limit - ByteMeasure().sync(bare)
    if room < 0:
        return None
    return cut_to_fit(tail, room)
