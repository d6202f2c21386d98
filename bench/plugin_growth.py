"""The sample agent that is not LOCAL (``examples.plugin``), three ways, for ``bench.context_growth``.

Per-turn and cumulative request bytes over N turns of one ADK session of the weather agent:
(a) ADK's default session, (b) ADK's EventsCompactionConfig (its summarizer calls counted),
(c) ``BoundedContextPlugin`` with the default projection; and the plugin's added time per turn:
the time spent in its own callbacks (before_run + before_model + after_run), and the wall time of
a turn with it against the same agent without it (default session, nothing recorded).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from bench._common import format_table, out_path, pyplot, write_csv

NAME = "context_growth_plugin"
TIMING_REPEATS = 3


def timed_plugin_class() -> Any:
    """``BoundedContextPlugin`` that adds up the time spent in its own callbacks, per turn."""
    from local_agent.plugin import BoundedContextPlugin

    class TimedPlugin(BoundedContextPlugin):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.spent: list[float] = []
            self._now = 0.0

        async def before_run_callback(self, *, invocation_context: Any) -> Any:
            started = time.perf_counter()
            result = await super().before_run_callback(invocation_context=invocation_context)
            self._now = time.perf_counter() - started
            return result

        async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> Any:
            started = time.perf_counter()
            result = await super().before_model_callback(
                callback_context=callback_context, llm_request=llm_request
            )
            self._now += time.perf_counter() - started
            return result

        async def after_run_callback(self, *, invocation_context: Any) -> None:
            started = time.perf_counter()
            await super().after_run_callback(invocation_context=invocation_context)
            self.spent.append(self._now + time.perf_counter() - started)

    return TimedPlugin


def timing(texts: list[str]) -> dict[str, float]:
    """Median per-turn figures in ms over ``TIMING_REPEATS`` runs, models not recording."""
    from examples.plugin.side_by_side import BUDGET_BYTES, run_way

    inside: list[float] = []
    with_plugin: list[float] = []
    without: list[float] = []
    for _ in range(TIMING_REPEATS):
        plugin = timed_plugin_class()(budget_bytes=BUDGET_BYTES)
        with_plugin += asyncio.run(run_way("plugin", texts, record=False, plugin=plugin)).seconds
        inside += plugin.spent
        without += asyncio.run(run_way("bare", texts, record=False)).seconds
    ms = 1000.0
    return {
        "inside_ms": statistics.median(inside) * ms,
        "inside_p90_ms": statistics.quantiles(inside, n=10)[-1] * ms if len(inside) > 1 else inside[0] * ms,
        "with_ms": statistics.median(with_plugin) * ms,
        "without_ms": statistics.median(without) * ms,
        "without_last10_ms": statistics.median(without[-10:]) * ms,
        "with_last10_ms": statistics.median(with_plugin[-10:]) * ms,
    }


def run(turns: int, out_dir: str | Path | None) -> dict[str, Any]:
    """Print the sample agent's section, write its CSV and PNG; the figures for the KEY line."""
    from examples.plugin.side_by_side import quiet, run_all

    quiet()
    runs = run_all(turns)
    a, ac, c = runs["default"], runs["compaction"], runs["plugin"]
    headers = ["turn", "a_adk_default", "b_adk_compaction", "c_plugin", "cum_a", "cum_b", "cum_c"]
    rows = [
        [i + 1, a.bytes[i], ac.bytes[i], c.bytes[i], a.cumulative[i], ac.cumulative[i], c.cumulative[i]]
        for i in range(turns)
    ]
    csv_file = write_csv(out_path(f"{NAME}.csv", out_dir), headers, rows)
    from examples.plugin.weather import conversation

    times = timing(conversation(turns))
    shown = sorted({n for n in (1, 2, 5, 10, 20, 30, 40, 50, turns) if n <= turns})
    print(
        f"Sample agent that is not LOCAL (examples/plugin: weather, one tool), {turns} turns, one ADK session; "
        "bytes summed over the model calls of a turn:"
    )
    print(format_table(["turn", *headers[1:]], [r for r in rows if r[0] in shown]))
    k = min(5, turns)
    flat = c.bytes[-1] / c.bytes[k - 1]
    print(
        f"  (c) plugin flat: turn {turns} = {c.bytes[-1]:,} B vs turn {k} = {c.bytes[k - 1]:,} B -> x{flat:.3f}; "
        f"(a) x{a.bytes[-1] / a.bytes[k - 1]:.2f}; cumulative (c)/(a) = {c.cumulative[-1] / a.cumulative[-1]:.4f}"
    )
    print(
        f"  (b) ADK compaction: {ac.summarizer_calls} extra summarizer calls ({ac.summarizer_bytes:,} B read); "
        f"the plugin: 0 (deterministic summary). Model calls: (a) {sum(a.calls)}, (b) {sum(ac.calls)}, "
        f"(c) {sum(c.calls)}"
    )
    print(
        f"  plugin's added time per turn (median of {TIMING_REPEATS}x{turns} turns): {times['inside_ms']:.2f} ms "
        f"in its callbacks (p90 {times['inside_p90_ms']:.2f} ms); a turn takes {times['with_ms']:.2f} ms with it, "
        f"{times['without_ms']:.2f} ms without (last 10 turns: {times['with_last10_ms']:.2f} ms with, "
        f"{times['without_last10_ms']:.2f} ms without; wall times on a shared machine are noisy)"
    )
    print(f"  wrote {csv_file}")
    png = out_path(f"{NAME}.png", out_dir)
    plot(png, turns, runs)
    print(f"  wrote {png}")
    return {
        "plugin_turn_bytes": c.bytes[-1],
        "plugin_flat": f"{flat:.3f}",
        "sample_default_turn_bytes": a.bytes[-1],
        "sample_compaction_calls": ac.summarizer_calls,
        "plugin_added_ms_per_turn": f"{times['inside_ms']:.2f}",
    }


def plot(png: Path, turns: int, runs: dict[str, Any]) -> None:
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    xs = list(range(1, turns + 1))
    labels = {
        "default": "(a) ADK default session",
        "compaction": "(b) ADK compaction",
        "plugin": "(c) plugin",
    }
    for way, r in runs.items():
        ax1.plot(xs, r.bytes, label=labels[way])
        ax2.plot(xs, r.cumulative, label=labels[way])
    ax1.set_xlabel("turn")
    ax1.set_ylabel("request bytes per turn")
    ax1.set_title("per-turn request size")
    ax2.set_yscale("log")
    ax2.set_xlabel("conversation length (turns)")
    ax2.set_ylabel("cumulative bytes (log)")
    ax2.set_title("cumulative bytes sent")
    for ax in (ax1, ax2):
        ax.legend(fontsize=8)
    fig.suptitle(
        "Sample ADK agent (weather): BoundedContextPlugin vs ADK (offline stand-in model, UTF-8 bytes)"
    )
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
