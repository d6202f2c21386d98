"""What the operator's usage report costs on a full retention window, and what recording costs a turn.

    python -m bench.report_cost [--days 30] [--turns-per-day 1000] [--quick]

Fills a fresh SQLite file with ``days`` × ``turns-per-day`` usage rows (a mix like the service's:
about 300 people a day, searches in every township, found-nothing, asks back, refusals, late and lost
deliveries, consent decisions, unfollows), one ``append_usage`` per row as the service writes them,
then runs ``python -m examples.day15.report`` over the whole window in-process, three times: the
seconds to read the rows, to count them, to write the CSV and to draw the three PNGs, and the
total. The target is ≤ 10 s for 30 days of 1,000 turns. Also: the microseconds one ``append_usage``
takes (the one write a turn adds), and the file's bytes per row.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from examples.day15 import report as cli
from examples.day15.report_charts import draw_all, find_font
from examples.day15.report_counts import build, day_start
from local_agent.context.townships import TOWNSHIPS
from local_agent.stores.sqlite import SqliteStore
from local_agent.stores.usage import UsageRow

LAST = date(2026, 11, 30)
OUTCOMES = (
    ("answered", 50),
    ("found_nothing", 10),
    ("asked_back", 10),
    ("not_understood", 5),
    ("refused_gate", 1),
    ("refused_budget", 1),
    ("failed", 1),
    ("consent_granted", 2),
    ("consent_refused", 1),
    ("deleted", 1),
    ("command", 10),
    ("talk", 8),
)
DELIVERIES = (("reply", 95), ("late", 3), ("failed", 1), ("lost", 1))


def _pick(rng: random.Random, weighted: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([k for k, _ in weighted], [w for _, w in weighted])[0]


def row_for(rng: random.Random, at: float, people: int) -> UsageRow:
    outcome = _pick(rng, OUTCOMES)
    person = f"{rng.randrange(people):024x}"
    search = outcome in ("answered", "found_nothing", "asked_back")
    kind = rng.choice(("places", "events")) if search else ""
    township = rng.choice(TOWNSHIPS) if search and outcome != "asked_back" else ""
    dated = kind == "events" and rng.random() < 0.4
    start = (LAST - timedelta(days=rng.randrange(5))).isoformat() if dated else ""
    found = rng.randrange(1, 6) if outcome == "answered" else 0 if outcome == "found_nothing" else -1
    return UsageRow(
        at, "turn", person, "user", outcome, kind, township, start, start, found, _pick(rng, DELIVERIES)
    )  # type: ignore[arg-type]


def fill(store: SqliteStore, days: int, per_day: int, rng: random.Random) -> list[float]:
    """The rows, appended one by one; returns the microseconds of each append."""
    took: list[float] = []
    for offset in range(days):
        start = day_start(LAST - timedelta(days=days - 1 - offset))
        for i in range(per_day):
            row = row_for(rng, start + 86400 * (i + 0.5) / per_day, max(5, per_day * 3 // 10))
            t0 = time.perf_counter()
            store.append_usage(row)
            took.append((time.perf_counter() - t0) * 1e6)
    return took


def run_report(store: SqliteStore, first: date, out: Path, font: str) -> dict[str, float]:
    t0 = time.perf_counter()
    rows = store.usage_rows(day_start(first), day_start(LAST + timedelta(days=1)))
    t1 = time.perf_counter()
    report = build(rows, first, LAST)
    t2 = time.perf_counter()
    cli.write_csv(report, out)
    t3 = time.perf_counter()
    draw_all(report, out, font)
    t4 = time.perf_counter()
    return {"read": t1 - t0, "count": t2 - t1, "csv": t3 - t2, "charts": t4 - t3, "total": t4 - t0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--turns-per-day", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="7 days of 100 turns, once")
    args = parser.parse_args(argv)
    days, per_day, repeat = (7, 100, 1) if args.quick else (args.days, args.turns_per_day, args.repeat)
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        path = Path(tmp) / "usage.sqlite3"
        store = SqliteStore(path)
        appends = fill(store, days, per_day, random.Random(35))
        first = LAST - timedelta(days=days - 1)
        runs = [run_report(store, first, Path(tmp), find_font()) for _ in range(repeat)]
        store.close()
        size = path.stat().st_size
    rows = days * per_day
    print(f"rows: {rows} ({days} days x {per_day} turns); SQLite file {size / rows:.0f} bytes per row")
    print(
        f"append_usage: median {statistics.median(appends):.0f} us, p90 {sorted(appends)[len(appends) * 9 // 10]:.0f} us"
    )
    for name in ("read", "count", "csv", "charts", "total"):
        values = [r[name] for r in runs]
        print(f"report {name:<6}: median {statistics.median(values):.2f} s (max {max(values):.2f} s)")
    total = statistics.median(r["total"] for r in runs)
    print(f"KEY report_seconds={total:.2f} target<=10 rows={rows}")
    return 0 if args.quick or total <= 10 else 1


if __name__ == "__main__":
    raise SystemExit(main())
