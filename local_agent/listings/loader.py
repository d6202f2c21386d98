"""Listings as files: read and validate ``places.csv`` and ``events.csv`` from a folder.

Whoever runs LOCAL keeps the listings in a spreadsheet and exports the two files as UTF-8 CSV, with or
without a byte-order mark (Excel's "CSV UTF-8" writes one; it is dropped), with ``\n`` or ``\r\n`` line
ends. Loading checks everything before anything is served and collects every problem in one
:class:`ListingsError`, each naming the file, the row (the spreadsheet's row number: the header is row 1)
and the column, so a service with a bad folder refuses to start instead of serving half a file. What is
refused:

- a file over :data:`MAX_FILE_BYTES` (checked by size, before reading), a missing or empty file;
- bytes that are not UTF-8 (Excel's plain "CSV" export is CP950/Big5);
- malformed CSV (unbalanced quotes), a row with more or fewer cells than the header;
- a missing or unknown column in the header;
- a control character (a line break inside a cell included) or an HTML tag in any cell, a cell longer
  than its column allows (what a LINE card would refuse or show broken);
- an empty required cell, an id that is not letters/digits/``_``/``-`` or repeats one in either file;
- a township that is not one of Changhua's 26, a diet code not in ``DIETARY_TYPES``;
- a date that is not ``YYYY-MM-DD`` or does not exist (2026-02-30), an end before the start or without
  one, an event longer than a year, an event with neither dates nor ``when``;
- a ``phone`` (optional column of ``places.csv``; empty means no call button) that is not a dialable
  number: digits with ``-``, spaces or one pair of parentheses, an optional leading ``+``, starting with
  ``0`` or ``+``, 8 to 15 digits (Taiwan's ``04-7xx-xxxx``, ``0912-345-678``, ``+886-4-7xx-xxxx``);
- a ``months`` cell (optional column of ``events.csv``: the Taiwan calendar months a standing event
  runs, ``6;7;8``; empty means all year) with anything but whole numbers 1 to 12, each once, or on an
  event that has dates.

Standard library only (csv, datetime): the offline demo reads the shipped snapshot on a bare python3.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TypeVar

from local_agent.context.townships import TOWNSHIPS, canonical_township
from local_agent.listings.catalogue import DIETARY_TYPES, Event, Place
from local_agent.listings.dates import MAX_WINDOW_DAYS, parse_iso_date
from local_agent.listings.meta import META_FILE, ListingsMeta, read_meta
from local_agent.listings.problems import ListingsError, Problem, Problems

PLACES_FILE = "places.csv"
EVENTS_FILE = "events.csv"
PLACE_COLUMNS = ("id", "name", "township", "category", "dietary", "address", "note")
# Columns a file may leave out of its header (an absent column reads as empty cells).
OPTIONAL_PLACE_COLUMNS = ("phone",)
EVENT_COLUMNS = ("id", "name", "township", "venue", "category", "start_date", "end_date", "when", "note")
OPTIONAL_EVENT_COLUMNS = ("months",)
# Cells that must not be empty (for events, ``when`` is also required when there are no dates).
_REQUIRED = {"id", "name", "township", "category", "venue"}
# Longest cell per column, in characters: a card title, subtitle or line LINE shows whole.
MAX_CHARS = {
    "id": 32,
    "name": 40,
    "category": 12,
    "venue": 40,
    "address": 60,
    "when": 40,
    "note": 120,
    "phone": 20,
    "months": 40,
}
MAX_FILE_BYTES = 2 * 1024 * 1024  # about 10,000 rows; a 50 MB export is refused before it is read
SHIPPED_DIR = Path(__file__).resolve().parent / "data"

_ID = re.compile(r"^[A-Za-z0-9_-]+$")
_HTML_TAG = re.compile(r"<\s*/?\s*[A-Za-z!?][^>]*>")
_BOM = b"\xef\xbb\xbf"
_PHONE = re.compile(r"^(?:\+|0|\(0)[0-9()\- ]*[0-9]$")
PHONE_DIGITS = (8, 15)  # a Taiwan landline with area code has 9-10 digits, E.164 at most 15


T = TypeVar("T")


@dataclass(frozen=True)
class Listings:
    """The validated places and events of one folder."""

    places: tuple[Place, ...]
    events: tuple[Event, ...]
    source: str
    meta: ListingsMeta = field(default_factory=ListingsMeta)

    @property
    def notice(self) -> str:
        """The line every search reply ends with (``listings.toml``'s notice, else a neutral as-of line)."""
        return self.meta.notice_line

    @functools.cached_property
    def covered_townships(self) -> tuple[str, ...]:
        return tuple(sorted({p.township for p in self.places} | {e.township for e in self.events}))

    @functools.cached_property
    def keyword_vocabulary(self) -> frozenset[str]:
        """The categories: words a search may use as a keyword and the audit may keep as they are."""
        return frozenset({p.category for p in self.places} | {e.category for e in self.events})

    @functools.cached_property
    def _by_township(self) -> dict[str, tuple[tuple[Place, ...], tuple[Event, ...]]]:
        towns = self.covered_townships
        return {
            t: (
                tuple(p for p in self.places if p.township == t),
                tuple(e for e in self.events if e.township == t),
            )
            for t in towns
        }

    def places_in(self, township: str) -> tuple[Place, ...]:
        """The places of one township (full name), for a search that need not scan the others."""
        return self._by_township.get(township, ((), ()))[0]

    def events_in(self, township: str) -> tuple[Event, ...]:
        return self._by_township.get(township, ((), ()))[1]

    def summary(self) -> dict[str, object]:
        """Counts per township (places, dated and standing events) for ``listings check``."""
        per: dict[str, dict[str, int]] = {}
        for place in self.places:
            per.setdefault(place.township, {"places": 0, "dated": 0, "standing": 0})["places"] += 1
        for event in self.events:
            row = per.setdefault(event.township, {"places": 0, "dated": 0, "standing": 0})
            row["standing" if event.standing else "dated"] += 1
        order = {name: i for i, name in enumerate(TOWNSHIPS)}
        return {
            "source": self.source,
            "meta": self.meta.as_dict(),
            "places": len(self.places),
            "events": len(self.events),
            "dated_events": sum(not e.standing for e in self.events),
            "standing_events": sum(e.standing for e in self.events),
            "townships": {t: per[t] for t in sorted(per, key=order.__getitem__)},
        }


def _read_text(path: Path) -> str:
    name = path.name
    if not path.is_file():
        raise ListingsError(name, "file not found", allowed="the folder holds places.csv and events.csv")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ListingsError(name, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} (not read)")
    raw = path.read_bytes()
    if raw.startswith(_BOM):  # Excel's "CSV UTF-8": the mark says UTF-8 and is not part of the header
        raw = raw[len(_BOM) :]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        row = raw.count(b"\n", 0, exc.start) + 1
        cell = raw[line_start : exc.start].count(b",") + 1
        try:
            raw.decode("cp950")
            hint = "it looks like CP950/Big5 (Excel's plain CSV export); export as CSV UTF-8"
        except UnicodeDecodeError:
            hint = "save the file as UTF-8"
        raise ListingsError(name, f"bytes that are not UTF-8; {hint}", row=row, column=f"#{cell}") from None


def _header(
    name: str, header: list[str] | None, columns: tuple[str, ...], optional: tuple[str, ...] = ()
) -> list[str]:
    """The header's column names; :class:`ListingsError` with every header problem. An ``optional``
    column may be in the header or not."""
    if not header or not any(h.strip() for h in header):
        raise ListingsError(name, "empty file", row=1, allowed=f"a first row of: {','.join(columns)}")
    header = [h.strip() for h in header]
    problems = Problems()
    expected = f"the columns {','.join(columns)}, in any order" + "".join(
        f", optionally {c}" for c in optional
    )
    for column in columns:
        if column not in header:
            problems.add(
                name, "required column is missing from the header", row=1, column=column, allowed=expected
            )
    for column in header:
        if column not in columns and column not in optional:
            problems.add(name, "unknown column", row=1, column=column or "(empty)", allowed=expected)
    for column, n in Counter(header).items():
        if n > 1:
            problems.add(name, "column appears twice in the header", row=1, column=column, allowed=expected)
    if problems:
        raise ListingsError(problems.items)
    return header


def _rows(
    path: Path, columns: tuple[str, ...], problems: Problems, optional: tuple[str, ...] = ()
) -> Iterator[tuple[int, dict[str, str]]]:
    """``(row number, cells by column)`` for each non-blank row after the header. A cell that fails its
    check is recorded in ``problems`` and left out of the dict (the row builder then builds nothing);
    a problem that makes the rest of the file unreadable (encoding, header, quotes) ends the file. An
    ``optional`` column the header leaves out reads as empty cells."""
    name = path.name
    try:
        text = _read_text(path)
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        header = _header(name, next(reader, None), columns, optional)
    except ListingsError as exc:
        problems.record(exc)
        return
    try:
        for cells in reader:
            row = reader.line_num
            if not cells or all(not c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                problems.add(
                    name,
                    f"{len(cells)} cells, but the header has {len(header)}",
                    row=row,
                    allowed="one cell per column; quote a cell that holds a comma",
                )
                continue
            checked = {
                c: problems.attempt(_cell, name, row, c, v) for c, v in zip(header, cells, strict=True)
            }
            absent = {c: "" for c in optional if c not in header}
            yield row, {**absent, **{c: v for c, v in checked.items() if v is not None}}
    except csv.Error as exc:
        problems.add(
            name,
            f"malformed CSV ({exc}); check for an unbalanced quote",
            row=reader.line_num,
            allowed='a cell with a comma or quote is written in double quotes, its quotes doubled ("")',
        )


def _cell(file: str, row: int, column: str, value: str) -> str:
    value = value.strip()
    for ch in value:
        if unicodedata.category(ch) == "Cc":
            raise ListingsError(
                file,
                f"control character U+{ord(ch):04X} in the cell",
                row=row,
                column=column,
                allowed="one line of plain text",
            )
    if _HTML_TAG.search(value):
        raise ListingsError(
            file, "an HTML tag in the cell; write plain text", row=row, column=column, allowed="plain text"
        )
    limit = MAX_CHARS.get(column)
    if limit is not None and len(value) > limit:
        raise ListingsError(
            file,
            f"{len(value)} characters; at most {limit}",
            row=row,
            column=column,
            allowed=f"at most {limit} characters",
        )
    if column in _REQUIRED and not value:
        raise ListingsError(file, "required cell is empty", row=row, column=column, allowed="any text")
    return value


class _Ids:
    """Ids seen so far across both files."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def add(self, file: str, row: int, value: str) -> str:
        if not _ID.match(value):
            raise ListingsError(
                file,
                "id may hold only letters, digits, _ and -",
                row=row,
                column="id",
                allowed="letters, digits, _ and -, at most 32",
            )
        if value in self.seen:
            raise ListingsError(
                file,
                f"duplicate id (first at {self.seen[value]})",
                row=row,
                column="id",
                allowed="an id used once across places.csv and events.csv",
            )
        self.seen[value] = f"{file} row {row}"
        return value


def _township(file: str, row: int, value: str) -> str:
    full = canonical_township(value)
    if full is None:
        raise ListingsError(
            file,
            f"{value!r} is not one of Changhua County's 26 townships",
            row=row,
            column="township",
            allowed="a township's full or short name, e.g. 花壇鄉 or 花壇",
        )
    return full


def _dietary(file: str, row: int, value: str) -> frozenset[str]:
    codes = [c.strip() for c in value.split(";") if c.strip()]
    for code in codes:
        if code not in DIETARY_TYPES:
            raise ListingsError(
                file,
                f"unknown diet code {code!r} (use {';'.join(DIETARY_TYPES)})",
                row=row,
                column="dietary",
                allowed=f"empty, or ;-separated codes from {';'.join(DIETARY_TYPES)}",
            )
    return frozenset(codes)


def _phone(file: str, row: int, value: str) -> str:
    """A dialable number as written, or ``""`` (no phone)."""
    if not value:
        return ""
    digits = sum(ch.isdigit() for ch in value)
    low, high = PHONE_DIGITS
    balanced = value.count("(") == value.count(")") <= 1 and value.find("(") <= value.find(")")
    if not _PHONE.match(value) or not balanced or "+" in value[1:] or not low <= digits <= high:
        raise ListingsError(
            file,
            f"{value!r} is not a phone number",
            row=row,
            column="phone",
            allowed=f"digits with - ( ) or spaces, starting with 0 or +, {low}-{high} digits "
            "(e.g. 04-7123456), or empty for no call button",
        )
    return value


def _months(file: str, row: int, value: str) -> frozenset[int]:
    """The calendar months of a ``months`` cell (``6;7;8``), or the empty set (all year)."""
    parts = [p.strip() for p in value.split(";") if p.strip()]
    allowed = "empty (all year), or ;-separated months 1-12, each once (e.g. 6;7;8)"
    months: list[int] = []
    for part in parts:
        if not (part.isascii() and part.isdigit()) or not 1 <= int(part) <= 12:
            raise ListingsError(
                file, f"{part!r} is not a month (write 1 to 12)", row=row, column="months", allowed=allowed
            )
        if int(part) in months:
            raise ListingsError(
                file, f"month {part} is given twice", row=row, column="months", allowed=allowed
            )
        months.append(int(part))
    return frozenset(months)


def _date(file: str, row: int, column: str, value: str) -> date | None:
    if not value:
        return None
    try:
        return parse_iso_date(value)
    except ValueError:
        raise ListingsError(
            file,
            f"{value!r} is not a date that exists (write YYYY-MM-DD)",
            row=row,
            column=column,
            allowed="YYYY-MM-DD, a day that exists, or empty",
        ) from None


class _Row:
    """One row's checks: each runs on a cell that passed :func:`_cell`; a failure is recorded and
    leaves ``ok`` False, so the row builds nothing."""

    def __init__(self, file: str, row: int, cells: dict[str, str], problems: Problems) -> None:
        self.file, self.row, self.cells, self.problems = file, row, cells, problems
        self.ok = True

    def get(self, column: str, check: Callable[[str, int, str], T]) -> T | None:
        """``check(file, row, cell)``, or None when the cell failed before or fails now."""
        if column not in self.cells:
            self.ok = False
            return None
        try:
            return check(self.file, self.row, self.cells[column])
        except ListingsError as exc:
            self.problems.record(exc)
            self.ok = False
            return None

    def date(self, column: str) -> date | None:
        return self.get(column, lambda file, row, value: _date(file, row, column, value))

    def text(self, column: str) -> str:
        self.ok = self.ok and column in self.cells
        return self.cells.get(column, "")

    def fail(self, message: str, *, column: str, allowed: str) -> None:
        self.problems.add(self.file, message, row=self.row, column=column, allowed=allowed)
        self.ok = False


def _place(row: int, cells: dict[str, str], ids: _Ids, problems: Problems) -> Place | None:
    r = _Row(PLACES_FILE, row, cells, problems)
    place_id, township = r.get("id", ids.add), r.get("township", _township)
    dietary, phone = r.get("dietary", _dietary), r.get("phone", _phone)
    name, category, address, note = r.text("name"), r.text("category"), r.text("address"), r.text("note")
    if not r.ok or place_id is None or township is None or dietary is None or phone is None:
        return None
    return Place(
        id=place_id,
        name=name,
        township=township,
        category=category,
        dietary=dietary,
        address_hint=address,
        note=note,
        phone=phone,
    )


def _event_dates(r: _Row) -> tuple[date | None, date | None]:
    """The event's first and last day, with the checks that need both (and ``when`` without them)."""
    first, last = r.date("start_date"), r.date("end_date")
    if not r.ok:
        return None, None
    if last is not None and first is None:
        r.fail("end_date without start_date", column="start_date", allowed="a start_date, or no end_date")
    elif first is not None and last is not None and last < first:
        r.fail(
            f"end_date {last} is before start_date {first}",
            column="end_date",
            allowed=f"empty (one day), or a day from {first} on",
        )
    elif first is not None and last is not None and (last - first).days + 1 > MAX_WINDOW_DAYS:
        r.fail(
            f"longer than {MAX_WINDOW_DAYS} days; leave the dates empty",
            column="end_date",
            allowed=f"at most {MAX_WINDOW_DAYS} days, or both dates empty for a standing event",
        )
    elif first is None and r.cells.get("when") == "":
        r.fail(
            "a standing event (no dates) needs its when",
            column="when",
            allowed="a rhythm such as 每月第一個週六上午, or a start_date",
        )
    return first, last


def _event(row: int, cells: dict[str, str], ids: _Ids, problems: Problems) -> Event | None:
    r = _Row(EVENTS_FILE, row, cells, problems)
    start, end = _event_dates(r)
    event_id, township = r.get("id", ids.add), r.get("township", _township)
    name, venue, when = r.text("name"), r.text("venue"), r.text("when")
    category, note = r.text("category"), r.text("note")
    months = r.get("months", _months)
    if months and start is not None:
        r.fail(
            "months is for a standing event; this event has dates",
            column="months",
            allowed="empty when start_date is given",
        )
    if not r.ok or event_id is None or township is None or months is None:
        return None
    return Event(
        id=event_id,
        name=name,
        township=township,
        venue=venue,
        when=when,
        category=category,
        note=note,
        start_date=start,
        end_date=end if end != start else None,
        months=months,
    )


def check_listings(folder: str | Path) -> tuple[Listings | None, tuple[Problem, ...]]:
    """Read and validate ``places.csv``, ``events.csv`` and ``listings.toml`` (when there is one) in
    ``folder``: the listings when nothing is wrong, and every problem found, in file and row order."""
    path = Path(folder)
    problems = Problems()
    if not path.is_dir():
        problems.add(str(folder), "not a folder", allowed="LOCAL_LISTINGS_DIR names a folder")
        return None, tuple(problems.items)
    meta = read_meta(path, problems)
    ids = _Ids()
    places = [
        _place(row, cells, ids, problems)
        for row, cells in _rows(path / PLACES_FILE, PLACE_COLUMNS, problems, OPTIONAL_PLACE_COLUMNS)
    ]
    events = [
        _event(row, cells, ids, problems)
        for row, cells in _rows(path / EVENTS_FILE, EVENT_COLUMNS, problems, OPTIONAL_EVENT_COLUMNS)
    ]
    if not problems and not places and not events:
        problems.add(
            PLACES_FILE, "both files are empty; there is nothing to serve", allowed="at least one row"
        )
    if problems:
        return None, tuple(problems.items)
    source = "shipped teaching snapshot" if path.resolve() == SHIPPED_DIR else path.name
    kept_places = tuple(p for p in places if p is not None)
    kept_events = tuple(e for e in events if e is not None)
    return Listings(kept_places, kept_events, source, meta), ()


def load_listings(folder: str | Path) -> Listings:
    """The folder's listings; :class:`ListingsError` carrying every problem when anything is wrong.
    Nothing is returned unless every file is valid throughout."""
    listings, problems = check_listings(folder)
    if listings is None:
        error = ListingsError(problems)
        error.folder = str(folder)
        raise error
    return listings


@functools.cache
def shipped_listings() -> Listings:
    """The teaching snapshot inside the package (read once)."""
    return load_listings(SHIPPED_DIR)


def listings_from(folder: str | Path | None) -> Listings:
    """The folder's listings, or the shipped snapshot when ``folder`` is ``None`` or empty."""
    return load_listings(folder) if folder else shipped_listings()


__all__ = [
    "EVENTS_FILE",
    "META_FILE",
    "EVENT_COLUMNS",
    "MAX_FILE_BYTES",
    "OPTIONAL_EVENT_COLUMNS",
    "OPTIONAL_PLACE_COLUMNS",
    "PLACES_FILE",
    "PLACE_COLUMNS",
    "SHIPPED_DIR",
    "Listings",
    "ListingsError",
    "ListingsMeta",
    "Problem",
    "check_listings",
    "listings_from",
    "load_listings",
    "shipped_listings",
]
