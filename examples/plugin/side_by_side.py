"""Request bytes per turn of the sample agent, three ways, over one scripted conversation.

    python -m examples.plugin.side_by_side [--turns 30] [--csv FILE]

  default     ADK's default session: every earlier message, call and response goes back each turn
  compaction  ADK's EventsCompactionConfig (interval 3, overlap 1): a summarizer model call every
              third turn replaces older events with its summary (its calls are counted)
  plugin      BoundedContextPlugin(budget_bytes=16384, max_exchanges=2), default projection

Bytes are UTF-8 bytes of the canonical JSON of system instruction + tool declarations + contents,
summed over the model requests of a turn (a turn with a lookup makes two). The model is the
scripted stand-in of ``examples.plugin.weather``; the summarizer is a stand-in with a fixed text.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import itertools
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Literal

from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from examples.plugin.weather import (
    APP_NAME,
    CountingSummarizer,
    ScriptedWeatherModel,
    build_app,
    conversation,
)
from local_agent.context.session_budget import ByteMeasure
from local_agent.plugin import BoundedContextPlugin

Way = Literal["default", "compaction", "plugin"]
WAYS: tuple[Way, ...] = ("default", "compaction", "plugin")
BUDGET_BYTES = 16384


@dataclass
class Run:
    """One way over the conversation: per-turn request bytes and model calls, summarizer calls,
    and wall time per turn."""

    way: str
    bytes: list[int] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    summarizer_calls: int = 0
    summarizer_bytes: int = 0
    seconds: list[float] = field(default_factory=list)

    @property
    def cumulative(self) -> list[int]:
        return list(itertools.accumulate(self.bytes))


def quiet() -> None:
    """ADK's experimental-feature and missing-usage warnings say nothing about the figures."""
    warnings.filterwarnings("ignore", message=r".*EXPERIMENTAL.*")
    warnings.filterwarnings("ignore", category=UserWarning, module=r"google\.adk.*")
    import logging

    logging.getLogger("google_adk").setLevel(logging.ERROR)


async def run_way(
    way: Way | Literal["bare"],
    texts: list[str],
    *,
    record: bool = True,
    plugin: BoundedContextPlugin | None = None,
) -> Run:
    """``way`` over ``texts`` in one ADK session. ``bare`` = the default session, timed only."""
    model = ScriptedWeatherModel(record=record)
    summarizer = CountingSummarizer() if way == "compaction" else None
    plugins = [plugin or BoundedContextPlugin(budget_bytes=BUDGET_BYTES)] if way == "plugin" else []
    runner = Runner(
        app=build_app(model, plugins=plugins, summarizer=summarizer), session_service=InMemorySessionService()
    )
    session = await runner.session_service.create_session(app_name=APP_NAME, user_id="sample-user")
    run, measure = Run(way), ByteMeasure()
    for text in texts:
        before, calls_before = len(model.sent), model.calls
        message = types.Content(role="user", parts=[types.Part(text=text)])
        started = time.perf_counter()
        async for _ in runner.run_async(user_id="sample-user", session_id=session.id, new_message=message):
            pass
        run.seconds.append(time.perf_counter() - started)
        run.bytes.append(sum(measure.sync(r) for r in model.sent[before:]))
        run.calls.append(model.calls - calls_before)
    if summarizer is not None:
        run.summarizer_calls = len(summarizer.sent)
        run.summarizer_bytes = sum(measure.sync(r) for r in summarizer.sent)
    return run


def run_all(turns: int) -> dict[str, Run]:
    texts = conversation(turns)
    return {way: asyncio.run(run_way(way, texts)) for way in WAYS}


def table(runs: dict[str, Run], every: int = 5) -> str:
    turns = len(next(iter(runs.values())).bytes)
    shown = sorted({1, *range(every, turns + 1, every), turns})
    head = f"{'turn':>4} " + " ".join(f"{w + ' bytes':>17} {'cum':>9}" for w in runs)
    lines = [head]
    for t in shown:
        cells = " ".join(f"{r.bytes[t - 1]:>17,} {r.cumulative[t - 1]:>9,}" for r in runs.values())
        lines.append(f"{t:>4} {cells}")
    return "\n".join(lines)


def summary(runs: dict[str, Run]) -> list[str]:
    out = []
    for way, run in runs.items():
        extra = (
            f", summarizer calls {run.summarizer_calls} ({run.summarizer_bytes:,} bytes)"
            if way == "compaction"
            else ""
        )
        growth = run.bytes[-1] / run.bytes[min(4, len(run.bytes) - 1)]
        out.append(
            f"{way:>10}: last turn {run.bytes[-1]:,} B, total {run.cumulative[-1]:,} B, "
            f"last/turn-5 ×{growth:.2f}, model calls {sum(run.calls)}{extra}"
        )
    return out


def write_csv(path: str, runs: dict[str, Run]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["turn", *(f"{w}_{k}" for w in runs for k in ("bytes", "cumulative", "calls"))])
        for t in range(len(next(iter(runs.values())).bytes)):
            writer.writerow(
                [t + 1, *(v for r in runs.values() for v in (r.bytes[t], r.cumulative[t], r.calls[t]))]
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30, help="conversation length (default 30)")
    parser.add_argument("--csv", default=None, help="also write every turn's figures to this CSV file")
    args = parser.parse_args(argv)
    if args.turns < 1:
        parser.error("--turns must be >= 1")
    quiet()
    runs = run_all(args.turns)
    print(table(runs))
    print("\n".join(summary(runs)))
    if args.csv:
        write_csv(args.csv, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
