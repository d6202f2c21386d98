"""The operator's usage report: ``python -m examples.day15.report [--since DAY] [--until DAY] [--out DIR]``.

Reads the usage rows the service records (one per answered turn: its outcome code, a search's kind,
township and date window, how the answer was delivered; ``local_agent/stores/usage.py``) from the
store the settings name (``LOCAL_STORE``: SQLite at ``LOCAL_SQLITE_PATH``, or Firestore), for a
period of Taiwan days (default: the last 7, today included). Prints a short summary, and writes
``report.csv`` and three PNG charts under ``--out`` (default ``out/report/``). No words, ids or
fingerprints in any output; a count behind fewer than 5 people is shown as 「<5」.

The charts need matplotlib (the dev extra) and a CJK font; without them the command says so, still
writes the summary and the CSV, and exits 1 (``--no-charts``: text and CSV only, exit 0).
Exit 2: settings that do not validate, a bad period, or no database at ``LOCAL_SQLITE_PATH``.
"""

from __future__ import annotations

import argparse
import csv
import secrets
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

from examples.day15.report_counts import (
    DAY_MEASURES,
    KIND_LABELS,
    Cell,
    Report,
    build,
    csv_rows,
    day_start,
    taiwan_day,
    township_label,
    window_label,
)
from local_agent.context.errors import StoreError
from local_agent.stores.ports import RECORD_RETENTION_SECONDS
from local_agent.stores.usage import UsageStore

DEFAULT_DAYS = 7
MAX_DAYS = 31


class PeriodError(ValueError):
    pass


def _day(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise PeriodError(f"{name} {value!r} is not a day (write YYYY-MM-DD)") from None


def period(since: str | None, until: str | None, now: float) -> tuple[date, date]:
    """The report's Taiwan days, both included: by default the last ``DEFAULT_DAYS`` up to today."""
    last = _day(until, "--until") if until else taiwan_day(now)
    first = _day(since, "--since") if since else last - timedelta(days=DEFAULT_DAYS - 1)
    if first > last:
        raise PeriodError(f"--since {first} is after --until {last}")
    if (last - first).days + 1 > MAX_DAYS:
        raise PeriodError(
            f"the period is {(last - first).days + 1} days; at most {MAX_DAYS} (rows are kept 30 days)"
        )
    return first, last


def read_report(store: UsageStore, first: date, last: date) -> Report:
    rows = store.usage_rows(day_start(first), day_start(last + timedelta(days=1)))
    return build(rows, first, last)


def _line(label: str, cell: Cell) -> str:
    return f"  {label}：{cell.shown}"


def _order(item: tuple[tuple[str, ...], Cell]) -> tuple[int, tuple[str, ...]]:
    """Largest shown count first; masked cells after, by name (their order must not tell their size)."""
    shown = item[1].shown
    return (-shown if isinstance(shown, int) else 1, item[0])


def summary(report: Report, now: float) -> list[str]:
    """The short text on stdout (Traditional Chinese, as the charts)."""
    total = report.total
    people = Cell(len(total["turns"].people), total["turns"].people)
    lines = [f"LOCAL 使用報告 {report.since.isoformat()} ～ {report.until.isoformat()}（台灣時間）"]
    lines.append(_line("對話則數", total["turns"]) + f"，{_line('人數', people).strip()}")
    for measure, label in DAY_MEASURES.items():
        if measure not in ("turns", "people"):
            lines.append(_line(label, total[measure]))
    busiest = sorted(report.townships.items(), key=_order)[:5]
    if busiest:
        lines.append("查詢最多的鄉鎮：")
        lines += [f"  {township_label(t)} {KIND_LABELS[k]}：{c.shown}" for (t, k), c in busiest]
    nothing = sorted(report.nothing.items(), key=_order)[:10]
    if nothing:
        lines.append("查無結果（可補充的資料）：")
        lines += [
            f"  {township_label(t)} {KIND_LABELS.get(k, k)} {window_label(a, b)}：{c.shown}"
            for (t, k, a, b), c in nothing
        ]
    if day_start(report.since) < now - RECORD_RETENTION_SECONDS:
        lines.append("注意：紀錄只保留 30 天，更早的日子已刪除。")
    lines.append("「<5」：少於 5 人，不顯示數字。")
    return lines


def write_csv(report: Report, folder: Path) -> Path:
    path = folder / "report.csv"
    with path.open("w", encoding="utf-8-sig", newline="") as f:  # with a BOM: Excel reads it as UTF-8
        csv.writer(f).writerows(csv_rows(report))
    return path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.report", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--since", help="first Taiwan day, YYYY-MM-DD (default: 6 days before --until)")
    parser.add_argument("--until", help="last Taiwan day, YYYY-MM-DD (default: today)")
    parser.add_argument("--out", default="out/report", help="folder for report.csv and the PNGs")
    parser.add_argument("--font", default=None, help="a CJK font file for the charts")
    parser.add_argument("--no-charts", action="store_true", help="the summary and the CSV only")
    parser.add_argument("--now", help=argparse.SUPPRESS)  # ISO instant: tests and the bench fix the clock
    return parser


def open_usage_store() -> UsageStore:
    """The store the settings name (the environment over ``.env``); SystemExit 2 with one line per
    problem for settings that do not validate, or a SQLite file that does not exist."""
    from local_agent.settings import SettingsError, exit_on_settings_error, load_settings, read_environment
    from local_agent.wiring import open_store

    environment = read_environment()
    print(environment.source(), file=sys.stderr)
    env = environment.values
    # The report talks to no LINE channel: without the channel's settings, throwaway ones.
    overrides = {
        name: env.get(name) or secrets.token_hex(16)
        for name in ("LINE_CHANNEL_SECRET", "LINE_CHANNEL_ACCESS_TOKEN")
    }
    try:
        settings = load_settings(**overrides)
    except SettingsError as exc:
        exit_on_settings_error(exc, "report")
    if settings.local_store == "sqlite" and not Path(settings.local_sqlite_path).is_file():
        print(f"report: no database at LOCAL_SQLITE_PATH={settings.local_sqlite_path}", file=sys.stderr)
        raise SystemExit(2)
    return open_store(settings)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    now = datetime.fromisoformat(args.now).timestamp() if args.now else datetime.now().timestamp()
    try:
        first, last = period(args.since, args.until, now)
    except PeriodError as exc:
        print(f"report: {exc}", file=sys.stderr)
        return 2
    store = open_usage_store()
    try:
        report = read_report(store, first, last)
    except StoreError as exc:
        print(f"report: cannot read the usage rows ({exc.code})", file=sys.stderr)
        return 1
    print("\n".join(summary(report, now)))
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    written = [write_csv(report, folder)]
    code = 0
    if not args.no_charts:
        from examples.day15.report_charts import ChartError, draw_all, find_font

        try:
            written += draw_all(report, folder, find_font(args.font))
        except ChartError as exc:
            print(f"report: charts not drawn: {exc}", file=sys.stderr)
            code = 1
    print("寫入：" + "、".join(str(p) for p in written))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
