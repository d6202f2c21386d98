"""A tool-heavy ADK agent (a to-do list), four ways side by side in one run: request bytes per turn.

    python -m bench.plugin_tools [--turns 30] [--quick] [--out-dir out/bench]

The agent is not LOCAL: four tools over a household's to-do list (``list_todos``,
``search_todos``, ``add_todo``, ``complete_todo``), each answering 5–20 KB of JSON. A scripted
model reads only its request (the last user text → one or two tool calls; function responses →
one sentence). The same conversation runs four times, each in one ADK session (``Runner`` +
``InMemorySessionService``):

  default         ADK's default session: every earlier message, call and response, every turn
  compaction      ADK's EventsCompactionConfig(compaction_interval=3, overlap_size=1), with a
                  stand-in summarizer that answers a fixed text and counts its calls
  context_filter  ADK's ContextFilterPlugin(num_invocations_to_keep=3): the current invocation and
                  the two before it, whole
  plugin          BoundedContextPlugin(BUDGET_BYTES, max_exchanges=2), default projection

Every model request is measured the same way (UTF-8 bytes of the canonical JSON of system
instruction + tool declarations + contents) and summed per turn. The conversation cycles through
five kinds of message, so turn 30 is the same kind of turn as turn 5: what differs between them is
what the earlier turns add.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
from collections.abc import AsyncGenerator
from typing import Any, Literal

from bench._common import format_table, key_line, out_path, pyplot, write_csv

NAME = "plugin_tools"
BUDGET_BYTES = 32768  # above the largest turn's own tool results: no way's current turn is cut
KEEP_INVOCATIONS = (
    3  # ContextFilterPlugin: the current invocation and two earlier, as the plugin's 2 exchanges
)
TARGETS = {"plugin_over_filter": 0.5, "plugin_over_default": 0.1, "flat": 1.05}
Status = Literal["open", "done", "all"]
Area = Literal["home", "garden", "health", "errands", "family", "money"]
Priority = Literal["low", "normal", "high"]
AREAS: tuple[str, ...] = ("home", "garden", "health", "errands", "family", "money")
PAGE = {"open": 36, "done": 58, "all": 62}  # items per page: about 12, 18 and 19 KB
INSTRUCTION = (
    "You keep the user's household to-do list. Use the tools: list_todos to show items, "
    "search_todos to find them, add_todo to add one, complete_todo to mark one done. Answer in one "
    "short sentence from the tools' results; never invent an item."
)
MESSAGES = (
    "Good morning dear, what is still open on my list, page {p} please, I lost my paper (message {n})",
    "Anything about the garden, the hedge or the roses? my neighbour asked me again, message {n}",
    "Please add: call the plumber about the kitchen sink, high priority, in 3 days (message {n})",
    "What did I finish already? show me everything done, page {p}, I want to feel good (message {n})",
    "Mark number {k} as done and then show me the whole list, page {p}, thank you (message {n})",
)


class TodoList:
    """The household's list, seeded the same for every way (240 items, every fourth one done)."""

    def __init__(self) -> None:
        self.items = [self._item(i) for i in range(1, 241)]

    @staticmethod
    def _item(i: int) -> dict[str, Any]:
        area = AREAS[i % len(AREAS)]
        return {
            "id": i,
            "title": f"{area} task {i}: check, buy or fix what the {area} needs this week",
            "area": area,
            "priority": ("low", "normal", "high")[i % 3],
            "due": f"2025-07-{i % 28 + 1:02d}",
            "status": "done" if i % 4 == 0 else "open",
            "notes": f"Written on the fridge list; ask the family first. Item {i} of the {area} list, "
            "bring the receipt and keep the box until it works.",
            "tags": [area, ("weekday", "weekend")[i % 2]],
        }

    def page(self, status: str, page: int) -> list[dict[str, Any]]:
        chosen = [t for t in self.items if status == "all" or t["status"] == status]
        size = PAGE.get(status, PAGE["all"])
        start = (max(1, page) - 1) * size % max(1, len(chosen))
        return (chosen[start:] + chosen[:start])[:size]


def todo_tools(todos: TodoList) -> list[Any]:
    """The four tools over one list (Literal arguments are declared as enums)."""

    def list_todos(status: Status, page: int) -> dict[str, Any]:
        """A page of the to-do list.

        Args:
            status: open, done or all.
            page: the page, from 1.
        """
        items = todos.page(status, page)
        return {"status": "ok", "page": page, "count": len(items), "items": items}

    def search_todos(area: Area, words: str) -> dict[str, Any]:
        """Items of one area, the ones naming the words first.

        Args:
            area: the area of the household.
            words: words to look for in titles and notes.
        """
        found = [t for t in todos.items if t["area"] == area]
        return {"status": "ok", "area": area, "count": len(found), "items": found[:18]}

    def add_todo(title: str, area: Area, priority: Priority, due_in_days: int) -> dict[str, Any]:
        """Add an item.

        Args:
            title: what to do.
            area: the area of the household.
            priority: low, normal or high.
            due_in_days: days until it is due.
        """
        item = {**TodoList._item(len(todos.items) + 1), "title": title, "area": area, "priority": priority}
        todos.items.append(item)
        open_here = [t for t in todos.items if t["area"] == area and t["status"] == "open"]
        return {"status": "ok", "added": item, "open_in_area": open_here[-26:]}

    def complete_todo(item: int) -> dict[str, Any]:
        """Mark an item done.

        Args:
            item: the item's number.
        """
        for t in todos.items:
            if t["id"] == item:
                t["status"] = "done"
        return {"status": "ok", "completed": item, "still_open": todos.page("open", item)[:18]}

    return [list_todos, search_todos, add_todo, complete_todo]


def conversation(turns: int) -> list[str]:
    """``turns`` distinct messages, five kinds in turn (turn 5, 10, … 30 are alike)."""
    return [MESSAGES[i % 5].format(n=i + 1, p=i // 5 % 3 + 1, k=i + 7) for i in range(turns)]


def _number(after: str, text: str) -> int:
    found = re.search(after + r"\D{0,3}(\d+)", text)
    return int(found.group(1)) if found else 1


def scripted_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls a message asks for, read from its text alone."""
    lowered = text.lower()
    if lowered.startswith("mark number"):
        page = _number("page", lowered)
        return [
            ("complete_todo", {"item": _number("number", lowered)}),
            ("list_todos", {"status": "all", "page": page}),
        ]
    if "add:" in lowered:
        title = lowered.split("add:", 1)[1].split(",", 1)[0].strip()
        return [
            (
                "add_todo",
                {"title": title, "area": "home", "priority": "high", "due_in_days": _number("in", lowered)},
            )
        ]
    if "garden" in lowered:
        return [("search_todos", {"area": "garden", "words": "hedge roses"})]
    status = "done" if "finish" in lowered else "open"
    return [("list_todos", {"status": status, "page": _number("page", lowered)})]


def scripted_model_class() -> type:
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types
    from pydantic import Field

    from examples.plugin.weather import canonical

    class ScriptedTodoModel(BaseLlm):
        """Offline stand-in: reads only the request's last content; records every request."""

        model: str = "scripted-todo"
        sent: list[dict[str, Any]] = Field(default_factory=list)

        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            self.sent.append(canonical(llm_request))
            last = llm_request.contents[-1]
            answered = [p.function_response for p in last.parts or [] if p.function_response]
            if answered:
                counts = ", ".join(f"{r.name}: {(r.response or {}).get('count', 1)}" for r in answered)
                parts = [types.Part(text=f"Done ({counts}).")]
            else:
                text = "".join(p.text or "" for p in last.parts or [])
                parts = [
                    types.Part(function_call=types.FunctionCall(name=name, args=args))
                    for name, args in scripted_calls(text)
                ]
            yield LlmResponse(content=types.Content(role="model", parts=parts), turn_complete=True)

    return ScriptedTodoModel


Way = Literal["default", "compaction", "context_filter", "plugin", "plugin_default_budget"]
WAYS: tuple[Way, ...] = ("default", "compaction", "context_filter", "plugin")
LABELS = {
    "default": "ADK default",
    "compaction": "ADK compaction",
    "context_filter": f"ContextFilter({KEEP_INVOCATIONS})",
    "plugin": "plugin",
}


class _Codes(logging.Handler):
    """The plugin's warning codes, counted (never a message text)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.codes: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.codes.append(str(getattr(record, "code", "")))


def _app(way: Way, model: Any, summarizer: Any) -> Any:
    from google.adk.agents import LlmAgent
    from google.adk.apps import App
    from google.adk.apps.app import EventsCompactionConfig
    from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
    from google.adk.plugins.context_filter_plugin import ContextFilterPlugin

    from local_agent.plugin import BoundedContextPlugin

    agent = LlmAgent(name="todo_agent", model=model, instruction=INSTRUCTION, tools=todo_tools(TodoList()))
    plugins: list[Any] = {
        "context_filter": [ContextFilterPlugin(num_invocations_to_keep=KEEP_INVOCATIONS)],
        "plugin": [BoundedContextPlugin(BUDGET_BYTES)],
        "plugin_default_budget": [BoundedContextPlugin()],
    }.get(way, [])
    compaction = None
    if summarizer is not None:
        compaction = EventsCompactionConfig(
            summarizer=LlmEventSummarizer(llm=summarizer), compaction_interval=3, overlap_size=1
        )
    return App(name="todo", root_agent=agent, plugins=plugins, events_compaction_config=compaction)


async def run_way(way: Way, texts: list[str]) -> dict[str, Any]:
    """``way`` over ``texts`` in one ADK session: bytes and model calls per turn, the tool calls
    and the size of each tool result, summarizer calls, the plugin's warning codes."""
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    from examples.plugin.weather import CountingSummarizer
    from local_agent.context.canonical import canonical_size
    from local_agent.context.session_budget import ByteMeasure

    model = scripted_model_class()()
    summarizer = (
        CountingSummarizer(summary="[stand-in summary: a fixed text] The user keeps a to-do list.")
        if way == "compaction"
        else None
    )
    runner = Runner(app=_app(way, model, summarizer), session_service=InMemorySessionService())
    session = await runner.session_service.create_session(app_name="todo", user_id="person")
    codes = _Codes()
    logging.getLogger("local_agent.plugin").addHandler(codes)
    out: dict[str, Any] = {"bytes": [], "calls": [], "tools": [], "results": []}
    measure = ByteMeasure()
    try:
        for text in texts:
            before = len(model.sent)
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for event in runner.run_async(user_id="person", session_id=session.id, new_message=message):
                out["tools"] += [(c.name, dict(c.args or {})) for c in event.get_function_calls()]
                out["results"] += [
                    canonical_size(dict(r.response or {})) for r in event.get_function_responses()
                ]
            out["bytes"].append(sum(measure.sync(r) for r in model.sent[before:]))
            out["calls"].append(len(model.sent) - before)
    finally:
        logging.getLogger("local_agent.plugin").removeHandler(codes)
    out["summarizer_calls"] = len(summarizer.sent) if summarizer is not None else 0
    out["summarizer_bytes"] = sum(measure.sync(r) for r in summarizer.sent) if summarizer is not None else 0
    out["codes"] = codes.codes
    return out


def run_all(turns: int) -> dict[str, dict[str, Any]]:
    from examples.plugin.side_by_side import quiet

    quiet()
    texts = conversation(turns)
    return {way: asyncio.run(run_way(way, texts)) for way in (*WAYS, "plugin_default_budget")}


def figures(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Totals, the two ratios and the plugin's flatness (turn N against turn 5)."""
    total = {way: sum(r["bytes"]) for way, r in runs.items()}
    plugin = runs["plugin"]["bytes"]
    k = min(5, len(plugin))
    results = runs["default"]["results"]
    return {
        "turns": len(plugin),
        "total": total,
        "plugin_over_filter": total["plugin"] / total["context_filter"],
        "plugin_over_default": total["plugin"] / total["default"],
        "flat": plugin[-1] / plugin[k - 1],
        "turn_k": k,
        "result_kb": (min(results) / 1024, max(results) / 1024, len(results)),
        "same_tools": all(r["tools"] == runs["default"]["tools"] for r in runs.values()),
        "cuts": {way: r["codes"].count("TOOL_RESPONSE_CUT") for way, r in runs.items()},
        "other_codes": sorted({c for r in runs.values() for c in r["codes"]} - {"TOOL_RESPONSE_CUT"}),
    }


def _verdict(value: float, limit: float) -> str:
    return f"{value:.3f} (target <= {limit}: {'MET' if value <= limit else 'NOT MET'})"


def report(runs: dict[str, dict[str, Any]], f: dict[str, Any]) -> list[str]:
    turns, k = f["turns"], f["turn_k"]
    low, high, n = f["result_kb"]
    t = f["total"]
    lines = [
        f"Tool-heavy agent (a to-do list, 4 tools), {turns} turns, one ADK session per way; {n} tool results "
        f"of {low:.1f}-{high:.1f} KB; bytes summed over the model requests of a turn.",
        "totals: " + ", ".join(f"{LABELS[w]} {t[w]:,} B" for w in WAYS),
        f"plugin / ContextFilter = {_verdict(f['plugin_over_filter'], TARGETS['plugin_over_filter'])}",
        f"plugin / default = {_verdict(f['plugin_over_default'], TARGETS['plugin_over_default'])}",
        f"plugin flat: turn {turns} {runs['plugin']['bytes'][-1]:,} B / turn {k} {runs['plugin']['bytes'][k - 1]:,} B "
        f"= {_verdict(f['flat'], TARGETS['flat'])}",
        f"ADK compaction: {runs['compaction']['summarizer_calls']} summarizer calls reading "
        f"{runs['compaction']['summarizer_bytes']:,} B (in no column); the plugin and ContextFilter: 0",
        f"model calls per way: {sum(runs['default']['calls'])}; the same tool calls in every way: {f['same_tools']}",
        f"plugin at budget {BUDGET_BYTES:,}: {f['cuts']['plugin']} responses cut; at its default budget (16,384): "
        f"{f['cuts']['plugin_default_budget']} cut with the marker, {t['plugin_default_budget']:,} B in total",
    ]
    if f["other_codes"]:
        lines.append("plugin warnings: " + ", ".join(f["other_codes"]))
    return lines


def plot(png: Any, runs: dict[str, dict[str, Any]]) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for way in WAYS:
        ax.plot(range(1, len(runs[way]["bytes"]) + 1), runs[way]["bytes"], label=LABELS[way])
    ax.set_yscale("log")
    ax.set_xlabel("turn")
    ax.set_ylabel("request bytes per turn (log)")
    ax.set_title("A tool-heavy ADK agent: request bytes per turn, four ways (offline, UTF-8 bytes)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30, help="conversation length (default 30)")
    parser.add_argument("--quick", action="store_true", help="smoke-test size (10 turns)")
    parser.add_argument("--out-dir", default=None, help="where CSV/PNG go (default out/bench)")
    args = parser.parse_args(argv)
    turns = 10 if args.quick else args.turns
    if turns < 1:
        parser.error("--turns must be >= 1")
    runs = run_all(turns)
    f = figures(runs)
    shown = sorted({n for n in (1, 2, 5, 10, 15, 20, 25, 30, turns) if n <= turns})
    rows = [[i + 1, *(runs[w]["bytes"][i] for w in WAYS)] for i in range(turns)]
    print(format_table(["turn", *(LABELS[w] for w in WAYS)], [r for r in rows if r[0] in shown]))
    print("\n".join(report(runs, f)))
    csv_file = write_csv(out_path(f"{NAME}.csv", args.out_dir), ["turn", *WAYS], rows)
    png = out_path(f"{NAME}.png", args.out_dir)
    plot(png, runs)
    print(f"wrote {csv_file} and {png}")
    items = {f"total_{w}": f["total"][w] for w in WAYS}
    items |= {k: f"{f[k]:.3f}" for k in ("plugin_over_filter", "plugin_over_default", "flat")}
    items["summarizer_calls"] = runs["compaction"]["summarizer_calls"]
    print(key_line(NAME, items))
    return 0


if __name__ == "__main__":
    sys.exit(main())
