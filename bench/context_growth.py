"""How big is each model request as a conversation grows? (bytes, offline)

One scripted conversation of N turns (default 50) of voice-typed messages, run four ways; for
every turn the request the model is handed is measured with one measure: UTF-8 bytes of the
canonical JSON of system instruction + tool declarations + contents (function calls and
responses included as JSON).

  (a)  ADK default: ONE persistent ADK session (real Runner + InMemorySessionService), an
       LlmAgent with the production instruction and tools (skip_summarization=True, so one
       model call per turn) but WITHOUT the budget before_model_callback. History holds raw
       user text, the real function call/response events and model replies.
  (a') the same with ADK's own EventsCompactionConfig (App, sliding window) run for real, to
       count the extra summarizer calls it makes (the summary text is a stand-in's).
  (b)  full history of projections: every projected turn rendered, no cap.
  (c)  Day 15: two projected turns + summary, via the real AdkRouter on SQLite.
  floor: rules + tool declarations + the current question only.

Then the sample agent that is not LOCAL (``examples.plugin``, ``bench.plugin_growth``): the same
weather agent on ADK's default session, on ADK compaction (summarizer calls counted) and with
``BoundedContextPlugin``, side by side, with its own CSV and plot, and the plugin's added time per turn.

The model is the offline stand-in (local_agent.agent.offline_model), not Gemini. In (a) the
stand-in may also resolve 剛才那個鄉鎮 from the raw history in its request (as Gemini would),
so (a) and (c) make the same tool calls; the run reports how many turns agree.

    python -m bench.context_growth [--turns 50] [--quick] [--out-dir out/bench]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import tempfile
import time
import warnings
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from bench._common import (
    SENTENCES,
    bench_settings,
    canonical_request,
    conversation,
    format_table,
    key_line,
    out_path,
    pyplot,
    recording_model_class,
    request_bytes,
    write_csv,
)

NAME = "context_growth"
COMPACTION_INTERVAL = 3  # the values of ADK's own documentation example
COMPACTION_OVERLAP = 1
STANDIN_SUMMARY = (
    "Conversation Language: Traditional Chinese（繁體中文）。Tools used: search_local_places, "
    "search_local_events。【離線替身摘要：固定文字，不是模型寫的摘要】"
)
FLAT_LIMIT, CUM_LIMIT, FLOOR_LIMIT = 1.05, 0.10, 1.5


def _quiet() -> None:
    warnings.filterwarnings("ignore", message=r".*EXPERIMENTAL.*")
    warnings.filterwarnings("ignore", category=UserWarning, module=r"google\.adk.*")


# -- stand-in models --------------------------------------------------------------------------


def raw_history_model_class():
    """The recording offline stand-in, allowed to resolve a reference from the raw history in
    its request (the area of its own latest function call, or a township in an earlier user
    text) — what Gemini would do with ADK's default history. Otherwise identical."""
    from google.genai import types

    from local_agent.agent import offline_rules as intent
    from local_agent.context.townships import canonical_township
    from local_agent.language.townships import find_townships

    base = recording_model_class()

    def history_area(llm_request) -> str | None:
        for content in reversed((llm_request.contents or [])[:-1]):
            for part in reversed(content.parts or []):
                if part.function_call is not None:
                    area = canonical_township((part.function_call.args or {}).get("area"))
                    if area:
                        return area
                if part.text and content.role == "user":
                    named = find_townships(part.text)
                    if named:
                        return named[-1]
        return None

    class RawHistoryStandin(base):
        async def generate_content_async(
            self, llm_request, stream: bool = False
        ) -> AsyncGenerator[Any, None]:
            responses = [r async for r in super().generate_content_async(llm_request, stream)]
            parts = responses[-1].content.parts if responses and responses[-1].content else []
            # The stand-in asks either in text or by calling the tool with no area (pending).
            asks = any(
                p.text == intent.ASK_TOWNSHIP
                or (p.function_call is not None and not (p.function_call.args or {}).get("area"))
                for p in parts or []
            )
            area = history_area(llm_request) if asks else None
            if area:
                current = "".join(p.text or "" for p in llm_request.contents[-1].parts or [])
                patched = llm_request.model_copy(
                    update={"contents": [types.Content(role="user", parts=[types.Part(text=area + current)])]}
                )
                responses = [r async for r in super().generate_content_async(patched, stream)]
                self.recorded.pop()  # keep the record of the real request only, not of the patched one
            for response in responses:
                yield response

    return RawHistoryStandin


def summarizer_model_class():
    """A stand-in for the compaction summarizer: records each call, answers a fixed text."""
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types
    from pydantic import Field

    class StandinSummarizer(BaseLlm):
        model: str = "local-offline-summarizer-standin"
        calls: list[dict[str, Any]] = Field(default_factory=list)

        async def generate_content_async(self, llm_request, stream: bool = False):
            self.calls.append(canonical_request(llm_request))
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text=STANDIN_SUMMARY)]),
                turn_complete=True,
            )

    return StandinSummarizer


# -- the four ways ----------------------------------------------------------------------------


async def run_adk_default(texts: list[str], workdir: Path, *, compaction: bool) -> dict[str, Any]:
    """(a) or (a'): one persistent ADK session, production tools, no budget callback."""
    from google.adk.agents import LlmAgent
    from google.adk.apps.app import App, EventsCompactionConfig
    from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from local_agent.agent.adk_router import APP_NAME, TURN_KEY
    from local_agent.context.journal import ScopeKey
    from local_agent.context.session_budget import ByteMeasure
    from local_agent.wiring import build_service

    model = raw_history_model_class()()
    name = "a_compaction" if compaction else "a_default"
    # The production router is built only to borrow its two ADK tools (same declarations,
    # same skip_summarization); its own agent and callback are not used.
    wiring = build_service(
        bench_settings("http://127.0.0.1:9", workdir / f"{name}.sqlite3"), model=model, measure=ByteMeasure()
    )
    router = wiring.router
    agent = LlmAgent(
        name=router.agent.name,
        model=model,
        instruction=router.agent.instruction,
        tools=list(router.agent.tools),
    )
    sessions = InMemorySessionService()
    summarizer = None
    if compaction:
        summarizer = summarizer_model_class()()
        app = App(
            name=APP_NAME,
            root_agent=agent,
            events_compaction_config=EventsCompactionConfig(
                summarizer=LlmEventSummarizer(llm=summarizer),
                compaction_interval=COMPACTION_INTERVAL,
                overlap_size=COMPACTION_OVERLAP,
            ),
        )
        runner = Runner(app=app, session_service=sessions)
    else:
        runner = Runner(app_name=APP_NAME, agent=agent, session_service=sessions)
    scope = ScopeKey.for_user("Ubenchcontextgrowth")
    turn_key = f"{name}-turn"
    session = await sessions.create_session(
        app_name=APP_NAME, user_id=scope.storage_id, state={TURN_KEY: turn_key}
    )
    per_turn: list[int] = []
    calls: list[int] = []
    tools: list[tuple[str, str] | None] = []
    summarizer_calls: list[int] = []
    summarizer_bytes: list[int] = []
    for text in texts:
        state = wiring.pipeline.begin(scope, text)
        router._turns[turn_key] = state  # the borrowed tools find their TurnTools here
        before, s_before = len(model.recorded), len(summarizer.calls) if summarizer else 0
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id=scope.storage_id, session_id=session.id, new_message=message):
            pass
        sent = model.recorded[before:]
        per_turn.append(sum(request_bytes(r) for r in sent))
        calls.append(len(sent))
        execution = state.last_execution
        tools.append((execution.tool, execution.effective_arguments.get("area", "")) if execution else None)
        if summarizer:
            new = summarizer.calls[s_before:]
            summarizer_calls.append(len(new))
            summarizer_bytes.append(sum(request_bytes(r) for r in new))
    if hasattr(wiring.store, "close"):
        wiring.store.close()
    return {
        "bytes": per_turn,
        "calls": calls,
        "tools": tools,
        "summarizer_calls": summarizer_calls,
        "summarizer_bytes": summarizer_bytes,
    }


async def run_day15(texts: list[str], workdir: Path) -> dict[str, Any]:
    """(c) the real AdkRouter on SQLite, plus (b) and the floor from the same envelope."""
    from local_agent.context.journal import ScopeKey
    from local_agent.context.projection import SafeTurn
    from local_agent.context.session_budget import ByteMeasure, render_contents
    from local_agent.context.window import ContextWindow
    from local_agent.wiring import build_service

    model = recording_model_class()()
    wiring = build_service(
        bench_settings("http://127.0.0.1:9", workdir / "c_day15.sqlite3"), model=model, measure=ByteMeasure()
    )
    scope = ScopeKey.for_user("Ubenchcontextgrowth")
    c_bytes, c_counted, c_calls, full_bytes, floor_bytes = [], [], [], [], []
    tools: list[tuple[str, str] | None] = []
    projections: list[SafeTurn] = []
    for text in texts:
        before = len(model.recorded)
        outcome = await wiring.router.run_turn(scope, text)
        sent = model.recorded[before:]
        if outcome.error_code or not sent:
            raise RuntimeError(f"Day 15 turn failed: {outcome.error_code}")
        c_bytes.append(sum(request_bytes(r) for r in sent))
        c_calls.append(len(outcome.model_requests))
        c_counted.append(sum(r["count"] for r in outcome.model_requests))
        envelope = {"system_instruction": sent[-1]["system_instruction"], "tools": sent[-1]["tools"]}
        full = {**envelope, "contents": render_contents(ContextWindow(tuple(projections)), text)}
        full_bytes.append(request_bytes(full))
        floor_bytes.append(request_bytes({**envelope, "contents": render_contents(ContextWindow(), text)}))
        call = outcome.tool_calls[-1] if outcome.tool_calls else None
        tools.append((call["tool"], call["effective_arguments"].get("area", "")) if call else None)
        projections.append(
            SafeTurn.from_tool(
                call["tool"], call["effective_arguments"].get("area"), ok=call["status"] == "ok"
            )
            if call
            else SafeTurn()
        )
    if hasattr(wiring.store, "close"):
        wiring.store.close()
    return {
        "bytes": c_bytes,
        "counted": c_counted,
        "calls": c_calls,
        "full": full_bytes,
        "floor": floor_bytes,
        "tools": tools,
    }


def cumulative(values: list[int]) -> list[int]:
    return list(itertools.accumulate(values))


def compaction_rule(turns: int, interval: int) -> int:
    """ADK's documented sliding-window trigger (unchanged from 2.9 to 2.13): one summarizer call each time ``interval``
    new invocations have completed since the last compacted range (overlap ones are not new)."""
    return turns // interval


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50, help="conversation length (default 50)")
    parser.add_argument("--quick", action="store_true", help="smoke-test size (10 turns)")
    parser.add_argument("--out-dir", default=None, help="where CSV/PNG go (default out/bench)")
    args = parser.parse_args(argv)
    turns = 10 if args.quick else args.turns
    if turns < 1:
        parser.error("--turns must be >= 1")
    _quiet()
    texts = conversation(turns)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-context-") as tmp:
        work = Path(tmp)
        a = asyncio.run(run_adk_default(texts, work, compaction=False))
        ac = asyncio.run(run_adk_default(texts, work, compaction=True))
        c = asyncio.run(run_day15(texts, work))
    elapsed = time.perf_counter() - started

    cum_a, cum_ac, cum_b, cum_c, cum_f = (
        cumulative(x) for x in (a["bytes"], ac["bytes"], c["full"], c["bytes"], c["floor"])
    )
    headers = [
        "turn",
        "a_adk_default",
        "a2_adk_compaction",
        "b_full_projections",
        "c_day15",
        "floor",
        "cum_a",
        "cum_a2",
        "cum_b",
        "cum_c",
        "cum_c_over_a",
        "c_over_floor",
        "summarizer_calls_cum",
    ]
    s_cum = cumulative(ac["summarizer_calls"])
    rows = []
    for i in range(turns):
        rows.append(
            [
                i + 1,
                a["bytes"][i],
                ac["bytes"][i],
                c["full"][i],
                c["bytes"][i],
                c["floor"][i],
                cum_a[i],
                cum_ac[i],
                cum_b[i],
                cum_c[i],
                round(cum_c[i] / cum_a[i], 4),
                round(c["bytes"][i] / c["floor"][i], 4),
                s_cum[i],
            ]
        )
    shown = sorted({n for n in (1, 2, 3, 4, 5, 10, 15, 20, 25, 30, 40, 50, turns) if n <= turns})
    csv_file = write_csv(out_path(f"{NAME}.csv", args.out_dir), headers, rows)

    print(
        f"context_growth: request bytes per model call (UTF-8 of canonical JSON: system instruction + "
        f"tool declarations + contents), {turns}-turn scripted conversation ({len(SENTENCES)} distinct "
        f"voice-typed messages, cycled). Offline stand-in model, bytes not tokens."
    )
    print()
    print(
        format_table(
            [
                "turn",
                "(a) ADK default",
                "(a') +compaction",
                "(b) all projections",
                "(c) Day 15",
                "floor",
                "cum (a)",
                "cum (b)",
                "cum (c)",
                "cum (c)/(a)",
                "(c)/floor",
            ],
            [
                [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[8], r[9], r[10], r[11]]
                for r in rows
                if r[0] in shown
            ],
        )
    )
    print()

    n, k = turns, min(5, turns)
    c_n, c_k = c["bytes"][n - 1], c["bytes"][k - 1]
    flat = c_n / c_k
    hist_n, hist_k = c_n - c["floor"][n - 1], c_k - c["floor"][k - 1]
    hist_flat = hist_n / hist_k if hist_k else float("nan")
    cum_ratio = cum_c[-1] / cum_a[-1]
    over_floor = [cb / fb for cb, fb in zip(c["bytes"], c["floor"], strict=True)]
    worst = max(range(turns), key=lambda i: over_floor[i])
    agree = sum(1 for x, y in zip(a["tools"], c["tools"], strict=True) if x == y)
    s_calls = sum(ac["summarizer_calls"])
    s_bytes = sum(ac["summarizer_bytes"])
    rule = compaction_rule(turns, COMPACTION_INTERVAL)
    checks_ok = all(x == y for x, y in zip(c["bytes"], c["counted"], strict=True))

    def verdict(ok: bool) -> str:
        return "MET" if ok else "NOT MET"

    print("Targets (reported, not asserted):")
    print(
        f"  (c) flat: turn {n} = {c_n:,} B vs turn {k} = {c_k:,} B -> x{flat:.3f} (target <= {FLAT_LIMIT}) "
        f"{verdict(flat <= FLAT_LIMIT)}; history part only (request - floor): {hist_n:,} vs {hist_k:,} B "
        f"-> x{hist_flat:.3f}"
    )
    print(
        f"  cumulative (c)/(a) over {n} turns: {cum_c[-1]:,} / {cum_a[-1]:,} B = {cum_ratio:.4f} "
        f"(target <= {CUM_LIMIT}) {verdict(cum_ratio <= CUM_LIMIT)}"
    )
    print(
        f"  (c) <= {FLOOR_LIMIT} x floor: worst turn {worst + 1}: {c['bytes'][worst]:,} / {c['floor'][worst]:,} B "
        f"= x{over_floor[worst]:.3f}; at turn {n}: x{over_floor[-1]:.3f} "
        f"{verdict(max(over_floor) <= FLOOR_LIMIT)}"
    )
    print()
    print("Other figures:")
    print(
        f"  model calls per turn: (a) {sum(a['calls'])}/{n}, (c) {sum(c['calls'])}/{n} "
        f"(outcome.model_requests); tool calls identical in (a) and (c) on {agree}/{n} turns"
    )
    print(
        f"  (c) bytes recorded at the model == the router's own ByteMeasure count on every turn: {checks_ok}"
    )
    print(
        f"  ADK EventsCompactionConfig(compaction_interval={COMPACTION_INTERVAL}, overlap_size={COMPACTION_OVERLAP}) "
        f"over {n} turns: {s_calls} extra summarizer model calls, MEASURED by running an ADK App with a "
        f"recording summarizer model (the documented trigger rule predicts floor({n}/{COMPACTION_INTERVAL}) = "
        f"{rule}); the summarizer read {s_bytes:,} B in total. Day 15 makes 0 extra calls (summary is "
        f"deterministic)."
    )
    print(
        f"  (a') request bytes use a fixed {len(STANDIN_SUMMARY.encode('utf-8'))}-B stand-in summary; a real "
        f"Gemini summary would be longer. (b) grows by one projected exchange per turn."
    )
    beyond_c = sum(cb - fb for cb, fb in zip(c["bytes"], c["floor"], strict=True))
    beyond_a = sum(ab - fb for ab, fb in zip(a["bytes"], c["floor"], strict=True))
    print(
        f"  history beyond the floor, cumulative over {n} turns: (c) {beyond_c:,} B vs (a) {beyond_a:,} B = "
        f"{beyond_c / beyond_a:.4f}; rules + tools + question (~{c['floor'][-1]:,} B) are in every request of "
        f"both, so even with no history at all cum(floor)/cum(a) = {cum_f[-1] / cum_a[-1]:.4f}"
    )
    print(
        f"  (a) per-turn at turn {n}: {a['bytes'][-1]:,} B = x{a['bytes'][-1] / c_n:.1f} of (c); "
        f"(b) {c['full'][-1]:,} B; floor {c['floor'][-1]:,} B"
    )
    print(f"  wrote {csv_file}")

    png = out_path(f"{NAME}.png", args.out_dir)
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    xs = list(range(1, turns + 1))
    for series, label in (
        (a["bytes"], "(a) ADK default session"),
        (ac["bytes"], "(a') ADK + compaction"),
        (c["full"], "(b) all projections"),
        (c["bytes"], "(c) Day 15"),
        (c["floor"], "floor"),
    ):
        ax1.plot(xs, series, label=label)
    ax1.set_yscale("log")
    ax1.set_xlabel("turn")
    ax1.set_ylabel("request bytes (log)")
    ax1.set_title("per-turn request size")
    ax1.legend(fontsize=8)
    for series, label in (
        (cum_a, "(a)"),
        (cum_ac, "(a')"),
        (cum_b, "(b)"),
        (cum_c, "(c) Day 15"),
        (cum_f, "floor"),
    ):
        ax2.plot(xs, series, label=label)
    ax2.set_yscale("log")
    ax2.set_xlabel("conversation length (turns)")
    ax2.set_ylabel("cumulative bytes (log)")
    ax2.set_title("cumulative bytes sent")
    ax2.legend(fontsize=8)
    fig.suptitle("LOCAL Day 15 context growth (offline stand-in model, UTF-8 bytes)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    print(f"  wrote {png}  ({elapsed:.1f} s)")
    print()
    from bench import plugin_growth

    sample = plugin_growth.run(turns, args.out_dir)
    print(
        key_line(
            NAME,
            {
                "turns": n,
                "a_turn_bytes": a["bytes"][-1],
                "c_turn_bytes": c_n,
                "floor_turn_bytes": c["floor"][-1],
                "flat_c_last_over_c5": f"{flat:.3f}(<={FLAT_LIMIT}:{verdict(flat <= FLAT_LIMIT)})",
                "cum_c_over_a": f"{cum_ratio:.4f}(<={CUM_LIMIT}:{verdict(cum_ratio <= CUM_LIMIT)})",
                "c_over_floor_max": f"{max(over_floor):.3f}(<={FLOOR_LIMIT}:{verdict(max(over_floor) <= FLOOR_LIMIT)})",
                "compaction_extra_calls": f"{s_calls}(measured;rule={rule})",
                "model_calls_per_turn_c": f"{sum(c['calls']) / n:.2f}",
                **sample,
            },
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
