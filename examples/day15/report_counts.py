"""The usage report's counts: usage rows in, per-day and per-township tables out, small counts masked.

Every cell is a count and the set of people (keyed fingerprints) behind it; a cell behind fewer
than ``MIN_PEOPLE`` people is shown as ``"<5"`` (zero stays 0), so no day, township or found-nothing
search can point to one person. Fingerprints are only counted here; nothing that leaves this module
holds one. Days are Taiwan days (UTC+8).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from local_agent.stores.usage import UsageRow

TAIWAN = timezone(timedelta(hours=8))
MIN_PEOPLE = 5
MASK = "<5"

# The per-day measures, in the order of the CSV and the summary, with their Traditional Chinese labels.
DAY_MEASURES: dict[str, str] = {
    "turns": "對話則數",
    "people": "人數",
    "searches": "查詢次數",
    "answered": "有結果",
    "found_nothing": "查無結果",
    "asked_back": "反問（哪個鄉鎮等）",
    "not_understood": "看不懂",
    "refused_budget": "拒答：超過長度上限",
    "refused_gate": "拒答：模型文字未通過檢查",
    "failed": "出錯（已致歉）",
    "late": "晚回覆（推播）",
    "delivery_failed": "送出失敗（稍後重送）",
    "lost": "未送達（放棄）",
    "consent_granted": "同意記住偏好",
    "consent_refused": "不同意記住",
    "deleted": "刪除資料（含封鎖）",
}
OUTCOME_MEASURES = (
    "answered",
    "found_nothing",
    "asked_back",
    "not_understood",
    "refused_budget",
    "refused_gate",
    "failed",
    "consent_granted",
    "consent_refused",
    "deleted",
)
DELIVERY_MEASURES = {"late": "late", "failed": "delivery_failed", "lost": "lost"}
KIND_LABELS = {"places": "找店家", "events": "查活動"}


@dataclass
class Cell:
    count: int = 0
    people: set[str] = field(default_factory=set)

    def add(self, person: str) -> None:
        self.count += 1
        if person:
            self.people.add(person)

    @property
    def shown(self) -> int | str:
        """The count, or ``MASK`` when fewer than ``MIN_PEOPLE`` people are behind it."""
        return self.count if self.count == 0 or len(self.people) >= MIN_PEOPLE else MASK

    @property
    def shown_people(self) -> int | str:
        return len(self.people) if len(self.people) >= MIN_PEOPLE or not self.people else MASK


def taiwan_day(at: float) -> date:
    return datetime.fromtimestamp(at, TAIWAN).date()


def day_start(day: date) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=TAIWAN).timestamp()


@dataclass
class Report:
    """The period's tables. ``days``: day → measure → cell; ``townships``: (township, kind) → cell
    of searches; ``nothing``: (township, kind, date_from, date_to) → cell of found-nothing searches."""

    since: date
    until: date
    days: dict[date, dict[str, Cell]] = field(default_factory=dict)
    townships: dict[tuple[str, str], Cell] = field(default_factory=lambda: defaultdict(Cell))
    nothing: dict[tuple[str, str, str, str], Cell] = field(default_factory=lambda: defaultdict(Cell))
    total: dict[str, Cell] = field(default_factory=lambda: defaultdict(Cell))

    def day_list(self) -> list[date]:
        return [self.since + timedelta(days=i) for i in range((self.until - self.since).days + 1)]

    def cell(self, day: date, measure: str) -> Cell:
        return self.days.get(day, {}).get(measure) or Cell()

    def people(self, day: date) -> Cell:
        """A cell whose count is the day's distinct people."""
        turns = self.cell(day, "turns")
        return Cell(len(turns.people), turns.people)


def _measures(row: UsageRow) -> list[str]:
    found: list[str] = []
    if row.event == "turn":
        found.append("turns")
        if row.kind:
            found.append("searches")
    if row.outcome in OUTCOME_MEASURES:
        found.append(row.outcome)
    if row.delivery in DELIVERY_MEASURES and not (row.event == "retry" and row.delivery == "failed"):
        found.append(DELIVERY_MEASURES[row.delivery])  # a retry failing again is not a new failure
    return found


def build(rows: Iterable[UsageRow], since: date, until: date) -> Report:
    report = Report(since, until)
    for row in rows:
        day = taiwan_day(row.at)
        if not since <= day <= until:
            continue
        cells = report.days.setdefault(day, defaultdict(Cell))
        for measure in _measures(row):
            cells[measure].add(row.person)
            report.total[measure].add(row.person)
        if row.event == "turn" and row.kind:
            report.townships[(row.township, row.kind)].add(row.person)
        if row.event == "turn" and row.outcome == "found_nothing":
            report.nothing[(row.township, row.kind, row.date_from, row.date_to)].add(row.person)
    return report


def township_label(township: str) -> str:
    return township or "未指定鄉鎮"


def window_label(date_from: str, date_to: str) -> str:
    if not date_from:
        return "不限日期"
    return date_from if date_from == date_to else f"{date_from}～{date_to}"


def csv_rows(report: Report) -> list[list[str]]:
    """The CSV: one line per cell (section, day, township, kind, dates, measure, label, value)."""
    out = [["section", "day", "township", "kind", "dates", "measure", "label", "value"]]
    for day in report.day_list():
        for measure, label in DAY_MEASURES.items():
            cell = report.people(day) if measure == "people" else report.cell(day, measure)
            out.append(["day", day.isoformat(), "", "", "", measure, label, str(cell.shown)])
    for (township, kind), cell in sorted(report.townships.items()):
        row = [township_label(township), KIND_LABELS[kind], "", "searches", "查詢次數", str(cell.shown)]
        out.append(["township", "", *row])
        people = Cell(len(cell.people), cell.people)
        out.append(["township", "", *row[:3], "people", "人數", str(people.shown)])
    for (township, kind, start, end), cell in sorted(report.nothing.items()):
        where = [township_label(township), KIND_LABELS.get(kind, kind), window_label(start, end)]
        out.append(["found_nothing", "", *where, "found_nothing", "查無結果", str(cell.shown)])
    return out
