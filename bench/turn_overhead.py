"""What does the context layer cost per turn, next to a whole offline turn? (wall-clock ms)

(i)   the context pipeline alone: journal read (begin) + prepare (assemble + measure the whole
      request) + journal write (finish: append + snapshot), via ContextPipeline on SQLite with
      N active scopes pre-populated (default 1,000), begin and finish each run as the service runs
      them (wiring.store_io: one guarded unit per step). Offline, no ADK. The tool that runs between
      prepare and finish (proposed by the offline rules, audit row included) is not timed.
(ii)  one offline ADK turn: AdkRouter.run_turn (fresh ADK session, budget callback, offline
      stand-in model, tool, journal write) on the same SQLite file, interleaved turn by turn with
(ii') ADK's floor: a bare ADK agent (one tool, skip_summarization, same Runner and
      InMemorySessionService, fresh session per turn, trivial BaseLlm; bench/adk_floor.py).
      The ratio (ii)/(ii') is the price of our wrapping (target <= 1.3). Both run with the mark
      the router sets on ADK's missing optional A2A module (local_agent/agent/adk_imports.py).
(ii'') the same bare agent on ADK as installed, without that mark: ADK retries the failing
      import on every turn (2.13: once, loading two modules). (ii)/(ii'') is what a turn costs next to a stock ADK turn.
(ii-u) for attribution only: the turn of (ii) over the bare SQLite adapter with every step run
      inline on the turn's loop (no GuardedStore: no thread hop, no deadline, no health record).
      Not a mode the service offers; (ii) - (ii-u) is what the store guard costs per turn.
(iii) one whole offline turn through the webhook: signed POST /callback to the real app under
      uvicorn on 127.0.0.1 until the reply is recorded by the FakeLineApi (sequential turns).
(iv)  the Gemini path per turn against FakeGemini over loopback (real google-genai + ADK):
      model round trips (generateContent + countTokens), request bytes and reported tokens, for
      the five-turn script and a 50-turn sweep, with the byte bound (factor 1.0) and without it
      (factor 0: countTokens before every send, as before the bound), and four preference turns
      (three manage_preference calls, one false deletion claim the text gate refuses).

  python -m bench.turn_overhead [--scopes 1000] [--iterations 2000] [--adk-turns 300]
                                [--webhook-turns 200] [--sweep-turns 50] [--quick] [--gemini-only]
                                [--out-dir out/bench]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from bench._common import (
    SECRET,
    TOKEN,
    ThreadedUvicorn,
    bench_settings,
    conversation,
    format_table,
    key_line,
    load_note,
    median,
    out_path,
    percentile,
    probe_fake_line_api,
    pyplot,
    start_fake_line_api,
    write_csv,
)

NAME = "turn_overhead"
PIPELINE_TARGET_MS = 1.0
FLOOR_RATIO_TARGET = 1.3
FIVE_TURNS = (
    "花壇有什麼店推薦吃吃看？",
    "花壇這週有什麼活動？",
    "附近哪裡可以停車？",
    "要怎麼搭公車過去？",
    "剛才那個鄉鎮，再找一家吃的。",
)


def scope_for(i: int):
    from local_agent.context.journal import ScopeKey

    return ScopeKey("Ubenchdestination", "user", f"U{i:032x}", f"U{i:032x}")


def populate(store: Any, scopes: int, now: float) -> list[Any]:
    """``scopes`` active journals, each a full window: two projected turns + a summary."""
    from local_agent.context.journal import JournalRecord
    from local_agent.context.projection import SafeTurn
    from local_agent.context.townships import TOWNSHIPS
    from local_agent.context.window import ContextSummary, ContextWindow

    keys = []
    for i in range(scopes):
        a, b, c = (TOWNSHIPS[(i + k) % len(TOWNSHIPS)] for k in range(3))
        window = ContextWindow((SafeTurn("places", b), SafeTurn("events", c)), ContextSummary("places", a))
        record = JournalRecord(window, 0, now, 3)
        key = scope_for(i)
        store.update(key.storage_id, lambda _old, r=record: r)
        keys.append(key)
    return keys


def wire(store: Any) -> Any:
    """The service's own wiring (pipeline, budget, router) over ``store``, offline settings."""
    from local_agent.wiring import build_service

    return build_service(bench_settings("http://127.0.0.1:9", "unused.sqlite3"), store=store)


async def measure_pipeline(
    pipeline: Any, keys: list[Any], iterations: int, seed: int, io: Any
) -> dict[str, list[float]]:
    """``io``: how the service runs a step's store calls (``wiring.store_io``: on SQLite with the
    turn thread, each step as one guarded unit), so begin and finish are timed as production runs
    them."""
    from local_agent.agent import offline_rules as intent
    from local_agent.agent.instructions import dated_rules, today_from
    from local_agent.agent.tools import TOOL_DECLARATIONS, TOOL_NAMES
    from local_agent.context.session_budget import ByteMeasure, build_envelope

    envelope = build_envelope(dated_rules(time.time()), TOOL_DECLARATIONS)  # the rules the service sends
    today = today_from(envelope["system_instruction"])
    measure = ByteMeasure()
    rng = random.Random(seed)
    texts = conversation(iterations, offset=rng.randrange(20))
    out: dict[str, list[float]] = {"begin": [], "prepare": [], "finish": [], "pipeline": []}
    clock = time.perf_counter_ns

    for text in texts:
        key = keys[rng.randrange(len(keys))]
        t0 = clock()
        state = await io(pipeline.begin, key, text)
        t1 = clock()
        result = await pipeline.prepare(state, envelope, measure)
        t2 = clock()
        proposal = intent.propose(result.contents, TOOL_NAMES, today)  # untimed: the model + the tool
        if "function_call" in proposal:
            call = proposal["function_call"]
            await io(pipeline.tools(state).call, call["name"], dict(call["args"]))
        t3 = clock()
        await io(pipeline.finish, state)
        t4 = clock()
        out["begin"].append((t1 - t0) / 1e6)
        out["prepare"].append((t2 - t1) / 1e6)
        out["finish"].append((t4 - t3) / 1e6)
        out["pipeline"].append((t2 - t0 + t4 - t3) / 1e6)
    return out


def unguarded_router(wiring: Any, store: Any) -> Any:
    """(ii-u): the router of ``wiring`` over the bare adapter ``store``, each step run inline on
    the turn's loop (``wiring.run_inline``): the same pipeline, budget, model and tools without the
    guard. Built from the public constructors, for attribution only."""
    from local_agent.agent.adk_router import AdkRouter
    from local_agent.agent.pipeline import ContextPipeline
    from local_agent.context.journal import ContextJournal
    from local_agent.wiring import run_inline

    shared, router = wiring.pipeline, wiring.router
    pipeline = ContextPipeline(
        journal=ContextJournal(store, clock=shared.clock),
        preferences=store,
        audit=store,
        snapshots=store,
        budget=shared.budget,
        clock=shared.clock,
        listings=shared.listings,
    )
    return AdkRouter(
        pipeline=pipeline,
        model=router.model,
        measure=router.measure,
        instruction=router.instruction,
        io=run_inline,
    )


async def measure_adk(
    wiring: Any, keys: list[Any], turns: int, seed: int, unguarded: Any
) -> dict[str, list[float]]:
    """Our offline turn, the same turn without the store guard (``unguarded``) and ADK's bare
    floor, interleaved turn by turn in a shuffled order (same load for each): wall-clock ms and
    process CPU ms (all threads) per turn. The floor runs twice: under the same process-wide A2A
    import mark the router sets (like for like), and as installed."""
    from bench.adk_floor import BareAdk, as_installed

    floor = BareAdk()
    rng = random.Random(seed + 1)
    texts = conversation(turns + 5, offset=rng.randrange(20))
    names = ["ours", "unguarded", "floor", "floor_installed"]
    out: dict[str, list[float]] = {k: [] for name in names for k in (name, f"{name}_cpu")}
    wall, cpu = time.perf_counter_ns, time.process_time_ns
    for n, text in enumerate(texts):
        key = keys[rng.randrange(len(keys))]
        rng.shuffle(names)
        for name in names:
            t0, c0 = wall(), cpu()
            if name in ("ours", "unguarded"):
                router = wiring.router if name == "ours" else unguarded
                outcome = await router.run_turn(key, text)
                ok = outcome.error_code is None
            elif name == "floor":
                ok = await floor.turn(text) == 1
            else:
                with as_installed():
                    ok = await floor.turn(text) == 1
            t1, c1 = wall(), cpu()
            if not ok:
                raise RuntimeError(f"{name}: the turn did not run its tool")
            if n >= 5:  # the first few warm ADK up
                out[name].append((t1 - t0) / 1e6)
                out[f"{name}_cpu"].append((c1 - c0) / 1e6)
    return out


def gemini_rows(sweep_turns: int) -> dict[str, list[dict[str, Any]]]:
    """(iv): per-turn rows for the five-turn script, the sweep and the preference turns, with and
    without the bound."""
    from bench.adk_floor import PREFERENCE_ANSWERS, gemini_path

    runs: dict[str, list[dict[str, Any]]] = {}
    turns = (
        ("five", list(FIVE_TURNS)),
        ("sweep", conversation(sweep_turns)),
        ("preference", list(PREFERENCE_ANSWERS)),
    )
    for label, texts in turns:
        for factor in (1.0, 0.0):
            runs[f"{label}/{factor:g}"] = gemini_path(texts, factor=factor)
    return runs


def gemini_summary(label: str, rows: list[dict[str, Any]]) -> list[Any]:
    n = len(rows)
    errors = sum(r["error_code"] is not None for r in rows)
    return [
        label,
        n,
        round(sum(r["generate"] for r in rows) / n, 3),
        round(sum(r["count"] for r in rows) / n, 3),
        round(sum(r["generate"] + r["count"] for r in rows) / n, 3),
        round(median([r["body_bytes"] for r in rows])),
        max(r["body_bytes"] for r in rows),
        round(median([r["reported_prompt_tokens"] for r in rows])),
        max(r["reported_prompt_tokens"] for r in rows),
        ",".join(sorted({str(r["measured_by"]) for r in rows})),
        errors,
        sum(r["gate_code"] is not None for r in rows),
    ]


def measure_webhook(
    db_path: Path, turns: int, users: int, *, nodelay: bool
) -> tuple[list[float], list[float]]:
    """(turn ms: send -> reply recorded at the fake, ack ms: send -> 200) for sequential turns."""
    import httpx

    from local_agent.server.app import create_app
    from local_agent.testing.webhooks import signed, text_event

    turn_ms: list[float] = []
    ack_ms: list[float] = []
    warmup = 5
    with start_fake_line_api(TOKEN, nodelay=nodelay) as line:
        app = create_app(bench_settings(line.base_url, db_path), configure_logs=False)
        with ThreadedUvicorn(app) as server, httpx.Client(base_url=server.url, timeout=10.0) as client:
            texts = conversation(turns + warmup)
            for n, text in enumerate(texts):
                user = f"U{(n % users) + 7_000_000:032x}"
                body, headers = signed(SECRET, text_event(user, text))
                expected = len(line.replies()) + 1
                t0 = time.perf_counter_ns()
                response = client.post("/callback", content=body, headers=headers)
                t1 = time.perf_counter_ns()
                if response.status_code != 200:
                    raise RuntimeError(f"webhook answered {response.status_code}")
                if not line.wait_for_count(expected, "reply", timeout=10.0):
                    raise RuntimeError("the reply did not arrive within 10 s")
                t2 = time.perf_counter_ns()
                if n >= warmup:
                    ack_ms.append((t1 - t0) / 1e6)
                    turn_ms.append((t2 - t0) / 1e6)
    return turn_ms, ack_ms


def stats_row(name: str, values: list[float]) -> list[Any]:
    return [
        name,
        len(values),
        round(median(values), 4),
        round(percentile(values, 90), 4),
        round(percentile(values, 99), 4),
        round(sum(values) / len(values), 4),
        round(max(values), 4),
    ]


def report_gemini(gemini: dict[str, list[dict[str, Any]]], out_dir: str | None) -> list[list[Any]]:
    """(iv): print the Gemini-path table and write its CSV; the table's rows."""
    gemini_headers = [
        "gemini path (fake over loopback)",
        "turns",
        "generate/turn",
        "countTokens/turn",
        "round trips/turn",
        "body B med",
        "body B max",
        "prompt tok med",
        "prompt tok max",
        "measured_by",
        "errors",
        "gate refusals",
    ]
    gemini_table = [
        gemini_summary(
            f"{label} turns, {'byte bound (factor 1.0)' if factor == '1' else 'count every send (factor 0)'}",
            rows,
        )
        for key, rows in gemini.items()
        for label, factor in [key.split("/")]
    ]
    print(format_table(gemini_headers, gemini_table))
    print(
        "  body B = generateContent HTTP body bytes as google-genai sent them; prompt tok = the fake's "
        "usageMetadata (bytes // 4 of the body: a stand-in, not Gemini's tokenizer)"
    )
    gemini_csv = write_csv(
        out_path(f"{NAME}_gemini.csv", out_dir),
        ["run", *gemini.get("five/1", [{}])[0].keys()],
        [[key, *row.values()] for key, rows in gemini.items() for row in rows],
    )
    print(f"  wrote {gemini_csv}")

    return gemini_table


def gemini_keys(table: list[list[Any]]) -> dict[str, Any]:
    return {
        "gemini_round_trips_per_turn_five": table[0][4],
        "gemini_count_tokens_per_turn_five": table[0][3],
        "gemini_body_bytes_median_five": table[0][5],
        "gemini_round_trips_per_turn_sweep": table[2][4],
        "gemini_round_trips_per_turn_sweep_count_every_send": table[3][4],
        "gemini_round_trips_per_turn_preference": table[4][4],
        "gemini_gate_refusals_preference": table[4][11],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scopes", type=int, default=1000, help="active scopes pre-populated (default 1000)")
    parser.add_argument("--iterations", type=int, default=2000, help="pipeline-only turns (default 2000)")
    parser.add_argument("--adk-turns", type=int, default=300, help="offline ADK turns (default 300)")
    parser.add_argument("--webhook-turns", type=int, default=200, help="webhook turns (default 200)")
    parser.add_argument("--sweep-turns", type=int, default=50, help="Gemini-path sweep turns (default 50)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument(
        "--stock-fake",
        action="store_true",
        help="switch Nagle back on in the FakeLineApi (its ~40 ms delayed-ACK stall per call included)",
    )
    parser.add_argument("--quick", action="store_true", help="smoke-test size")
    parser.add_argument("--gemini-only", action="store_true", help="only (iv), the Gemini path over loopback")
    parser.add_argument("--out-dir", default=None, help="where CSV/PNG go (default out/bench)")
    args = parser.parse_args(argv)
    if args.quick:
        args.scopes, args.iterations, args.adk_turns, args.webhook_turns = 100, 100, 20, 20
        args.sweep_turns = 10
    if min(args.scopes, args.iterations, args.adk_turns, args.webhook_turns, args.sweep_turns) < 1:
        parser.error("sizes must be >= 1")
    warnings.filterwarnings("ignore", message=r".*EXPERIMENTAL.*")
    if args.gemini_only:
        print(key_line(NAME, gemini_keys(report_gemini(gemini_rows(args.sweep_turns), args.out_dir))))
        return 0

    from local_agent.stores.sqlite import SqliteStore
    from local_agent.wiring import store_io

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp:
        store = SqliteStore(Path(tmp) / "overhead.sqlite3")
        t = time.perf_counter()
        keys = populate(store, args.scopes, time.time())
        populate_s = time.perf_counter() - t
        wiring = wire(store)
        io = store_io(bench_settings("http://127.0.0.1:9", "unused.sqlite3"), wiring.store)
        assert io is not None, "SQLite with the turn thread: each step runs as one guarded unit"
        pipe = asyncio.run(measure_pipeline(wiring.pipeline, keys, args.iterations, args.seed, io))
        # (ii-u) on a file of its own, populated alike: two connections writing one file would
        # each find their page cache stale after the other's commits, slowing both.
        bare = SqliteStore(Path(tmp) / "unguarded.sqlite3")
        populate(bare, args.scopes, time.time())
        adk_runs = asyncio.run(
            measure_adk(wiring, keys, args.adk_turns, args.seed, unguarded_router(wiring, bare))
        )
        adk = adk_runs["ours"]
        store.close()
        bare.close()
        webhook, acks = measure_webhook(
            Path(tmp) / "webhook.sqlite3", args.webhook_turns, users=20, nodelay=not args.stock_fake
        )
    gemini = gemini_rows(args.sweep_turns)
    probes = {}
    for nodelay in (False, True):
        with start_fake_line_api(TOKEN, nodelay=nodelay) as probe:
            probes[nodelay] = probe_fake_line_api(probe.base_url)
    elapsed = time.perf_counter() - started

    headers = ["measure", "n", "median_ms", "p90_ms", "p99_ms", "mean_ms", "max_ms"]
    rows = [
        stats_row("(i) pipeline: begin+prepare+finish", pipe["pipeline"]),
        stats_row("    begin (pref + journal read)", pipe["begin"]),
        stats_row("    prepare (assemble + measure)", pipe["prepare"]),
        stats_row("    finish (journal + snapshot write)", pipe["finish"]),
        stats_row("(ii) offline ADK turn (run_turn)", adk),
        stats_row("(ii') ADK floor: bare agent, one tool", adk_runs["floor"]),
        stats_row("(ii'') the same, ADK as installed", adk_runs["floor_installed"]),
        stats_row("(ii-u) (ii) without the store guard", adk_runs["unguarded"]),
        stats_row("     (ii) CPU ms (process, all threads)", adk_runs["ours_cpu"]),
        stats_row("     (ii') CPU ms (process, all threads)", adk_runs["floor_cpu"]),
        stats_row("     (ii'') CPU ms (process, all threads)", adk_runs["floor_installed_cpu"]),
        stats_row("     (ii-u) CPU ms (process, all threads)", adk_runs["unguarded_cpu"]),
        stats_row("(iii) webhook turn: POST -> reply at fake", webhook),
        stats_row("     webhook ack: POST -> 200", acks),
    ]
    csv_file = write_csv(out_path(f"{NAME}.csv", args.out_dir), headers, rows)
    samples = out_path(f"{NAME}_samples.csv", args.out_dir)
    write_csv(
        samples,
        ["measure", "i", "ms"],
        [
            [k, i, round(v, 5)]
            for k, vs in (
                ("pipeline", pipe["pipeline"]),
                ("adk_turn", adk),
                ("adk_floor", adk_runs["floor"]),
                ("adk_floor_as_installed", adk_runs["floor_installed"]),
                ("adk_turn_unguarded", adk_runs["unguarded"]),
                ("webhook_turn", webhook),
                ("webhook_ack", acks),
            )
            for i, v in enumerate(vs)
        ],
    )

    print(
        f"turn_overhead: wall-clock per turn, offline stand-in model, SQLite on local disk, "
        f"{args.scopes:,} active scopes pre-populated ({populate_s:.1f} s)."
    )
    print(f"machine: {load_note()} (shared with other work: expect noise, compare within this run)")
    print(
        f"fake LINE API: {'Nagle on' if args.stock_fake else 'TCP_NODELAY'}; one reply call over aiohttp "
        f"keep-alive costs median {probes[False]:.1f} ms with Nagle on vs {probes[True]:.1f} ms with "
        f"TCP_NODELAY (a test-fake artefact; a turn makes two calls: loading + reply)"
    )
    print()
    print(format_table(headers, rows))
    print()
    p_med, w_med, a_med = median(pipe["pipeline"]), median(webhook), median(adk)
    share_webhook = p_med / w_med
    share_adk = p_med / a_med
    met = "MET" if p_med <= PIPELINE_TARGET_MS else "NOT MET"
    print(
        f"Target (reported, not asserted): pipeline <= {PIPELINE_TARGET_MS} ms median: {p_med:.3f} ms -> {met} "
        f"(p99 {percentile(pipe['pipeline'], 99):.3f} ms)"
    )
    print(
        f"pipeline share of a whole webhook turn (median/median): {share_webhook:.1%}; "
        f"of an offline ADK turn: {share_adk:.1%}"
    )
    print(
        f"offline turn through the webhook: median {w_med:.1f} ms over {len(webhook)} "
        f"(p99 {percentile(webhook, 99):.1f} ms; ack median {median(acks):.2f} ms)"
    )
    f_med = median(adk_runs["floor"])
    floor_ratio = a_med / f_med
    cpu_ratio = median(adk_runs["ours_cpu"]) / median(adk_runs["floor_cpu"])
    floor_met = "MET" if floor_ratio <= FLOOR_RATIO_TARGET else "NOT MET"
    i_med = median(adk_runs["floor_installed"])
    installed_ratio = a_med / i_med
    print(
        f"ADK floor (reported, not asserted): offline run_turn / bare ADK agent, medians of interleaved "
        f"turns, both with ADK's missing A2A import marked once (like for like): {a_med:.2f} / "
        f"{f_med:.2f} ms = {floor_ratio:.2f} (CPU {cpu_ratio:.2f}; target <= {FLOOR_RATIO_TARGET}) "
        f"-> {floor_met}"
    )
    print(
        f"  against the bare agent on ADK as installed (its failing A2A import retried every turn): {a_med:.2f} / "
        f"{i_med:.2f} ms = {installed_ratio:.2f}; the mark saves {i_med - f_med:.2f} ms per turn"
    )
    u_med = median(adk_runs["unguarded"])
    print(
        f"  attribution: the same turn without the store guard (ii-u, steps inline, no deadline): "
        f"{u_med:.2f} / {f_med:.2f} ms = {u_med / f_med:.2f}; the guard costs {a_med - u_med:.2f} ms "
        f"per turn (3 hops: begin, tool, finish)"
    )
    print(f"  wrote {csv_file} and {samples}")
    print()
    gemini_table = report_gemini(gemini, args.out_dir)

    png = out_path(f"{NAME}.png", args.out_dir)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    data = [pipe["pipeline"], adk, webhook]
    ax.boxplot(data, orientation="horizontal", whis=(1, 99), showfliers=False)
    ax.set_yticks([1, 2, 3], ["(i) context pipeline", "(ii) offline ADK turn", "(iii) webhook turn"])
    ax.set_xscale("log")
    ax.set_xlabel("ms per turn (log; box = quartiles, whiskers = p1..p99)")
    ax.axvline(PIPELINE_TARGET_MS, linestyle="--", linewidth=1, label="pipeline target 1 ms")
    ax.legend(fontsize=8)
    ax.set_title("LOCAL Day 15 per-turn overhead (offline, shared 2-core machine)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    print(f"  wrote {png}  ({elapsed:.1f} s)")
    print(
        key_line(
            NAME,
            {
                "pipeline_median_ms": f"{p_med:.3f}",
                "pipeline_p99_ms": f"{percentile(pipe['pipeline'], 99):.3f}",
                "pipeline_target_le_1ms": met,
                "adk_turn_median_ms": f"{a_med:.2f}",
                "adk_turn_p99_ms": f"{percentile(adk, 99):.2f}",
                "webhook_turn_median_ms": f"{w_med:.2f}",
                "webhook_turn_p99_ms": f"{percentile(webhook, 99):.2f}",
                "webhook_turns": len(webhook),
                "pipeline_share_of_webhook_turn": f"{share_webhook:.1%}",
                "adk_floor_median_ms": f"{f_med:.2f}",
                "adk_floor_ratio": f"{floor_ratio:.2f}",
                "adk_floor_cpu_ratio": f"{cpu_ratio:.2f}",
                "adk_floor_target_le_1.3": floor_met,
                "adk_floor_as_installed_median_ms": f"{i_med:.2f}",
                "adk_floor_as_installed_ratio": f"{installed_ratio:.2f}",
                "adk_turn_unguarded_median_ms": f"{u_med:.2f}",
                "adk_floor_ratio_unguarded": f"{u_med / f_med:.2f}",
                **gemini_keys(gemini_table),
            },
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
