"""Listings as files: read and validate ``places.csv`` and ``events.csv`` from a folder.

Whoever runs LOCAL keeps the listings in a spreadsheet and exports the two files as UTF-8 CSV. Loading
checks everything before anything is served; the first problem raises :class:`ListingsError` naming the
file, the row (the spreadsheet's row number: the header is row 1) and the column, so a service with a bad
folder refuses to start instead of serving half a file. What is refused:

- a file over :data:`MAX_FILE_BYTES` (checked by size, before reading), a missing or empty file;
- a UTF-8 byte-order mark, or bytes that are not UTF-8 (Excel's plain "CSV" export is CP950/Big5);
- malformed CSV (unbalanced quotes), a row with more or fewer cells than the header;
- a missing or unknown column in the header;
- a control character (a line break inside a cell included) or an HTML tag in any cell, a cell longer
  than its column allows (what a LINE card would refuse or show broken);
- an empty required cell, an id that is not letters/digits/``_``/``-`` or repeats one in either file;
- a township that is not one of Changhua's 26, a diet code not in ``DIETARY_TYPES``;
- a date that is not ``YYYY-MM-DD`` or does not exist (2026-02-30), an end before the start or without
  one, an event longer than a year, an event with neither dates nor ``when``.

Standard library only (csv, datetime): the offline demo reads the shipped snapshot on a bare python3.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from local_agent.context.townships import TOWNSHIPS, canonical_township
from local_agent.listings.catalogue import DIETARY_TYPES, Event, Place
from local_agent.listings.dates import MAX_WINDOW_DAYS, parse_iso_date

PLACES_FILE = "places.csv"
EVENTS_FILE = "events.csv"
PLACE_COLUMNS = ("id", "name", "township", "category", "dietary", "address", "note")
EVENT_COLUMNS = ("id", "name", "township", "venue", "category", "start_date", "end_date", "when", "note")
# Cells that must not be empty (for events, ``when`` is also required when there are no dates).
_REQUIRED = {"id", "name", "township", "category", "venue"}
# Longest cell per column, in characters: a card title, subtitle or line LINE shows whole.
MAX_CHARS = {"id": 32, "name": 40, "category": 12, "venue": 40, "address": 60, "when": 40, "note": 120}
MAX_FILE_BYTES = 2 * 1024 * 1024  # about 10,000 rows; a 50 MB export is refused before it is read
SHIPPED_DIR = Path(__file__).resolve().parent / "data"

_ID = re.compile(r"^[A-Za-z0-9_-]+$")
_HTML_TAG = re.compile(r"<\s*/?\s*[A-Za-z!?][^>]*>")
_BOM = b"\xef\xbb\xbf"


class ListingsError(ValueError):
    """A listings file the service will not serve. ``str()`` names file, row and column."""

    code = "LISTINGS_INVALID"

    def __init__(self, file: str, message: str, *, row: int | None = None, column: str | None = None) -> None:
        self.file, self.row, self.column, self.message = file, row, column, message
        where = file
        if row is not None:
            where += f" row {row}"
        if column is not None:
            where += f" column {column}"
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Listings:
    """The validated places and events of one folder."""

    places: tuple[Place, ...]
    events: tuple[Event, ...]
    source: str

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
            "places": len(self.places),
            "events": len(self.events),
            "dated_events": sum(not e.standing for e in self.events),
            "standing_events": sum(e.standing for e in self.events),
            "townships": {t: per[t] for t in sorted(per, key=order.__getitem__)},
        }


def _read_text(path: Path) -> str:
    name = path.name
    if not path.is_file():
        raise ListingsError(name, "file not found (the folder needs places.csv and events.csv)")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ListingsError(name, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} (not read)")
    raw = path.read_bytes()
    if raw.startswith(_BOM):
        raise ListingsError(
            name,
            "starts with a UTF-8 byte-order mark (BOM); save as UTF-8 without BOM",
            row=1,
            column="(first)",
        )
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


def _rows(path: Path, columns: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """``(row number, cells by column)`` for each non-blank row after the header."""
    name = path.name
    text = _read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if not header or not any(h.strip() for h in header):
            raise ListingsError(name, f"empty file; the first row must be: {','.join(columns)}", row=1)
        header = [h.strip() for h in header]
        for column in columns:
            if column not in header:
                raise ListingsError(name, "required column is missing from the header", row=1, column=column)
        for column in header:
            if column not in columns:
                raise ListingsError(
                    name, f"unknown column (expected: {','.join(columns)})", row=1, column=column or "(empty)"
                )
        if len(set(header)) != len(header):
            twice = next(c for c, n in Counter(header).items() if n > 1)
            raise ListingsError(name, "column appears twice in the header", row=1, column=twice)
        for cells in reader:
            row = reader.line_num
            if not cells or all(not c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                raise ListingsError(name, f"{len(cells)} cells, but the header has {len(header)}", row=row)
            yield (
                row,
                {
                    column: _cell(name, row, column, value)
                    for column, value in zip(header, cells, strict=True)
                },
            )
    except csv.Error as exc:
        raise ListingsError(
            name, f"malformed CSV ({exc}); check for an unbalanced quote", row=reader.line_num
        ) from None


def _cell(file: str, row: int, column: str, value: str) -> str:
    value = value.strip()
    for ch in value:
        if unicodedata.category(ch) == "Cc":
            raise ListingsError(
                file, f"control character U+{ord(ch):04X} in the cell", row=row, column=column
            )
    if _HTML_TAG.search(value):
        raise ListingsError(file, "an HTML tag in the cell; write plain text", row=row, column=column)
    limit = MAX_CHARS.get(column)
    if limit is not None and len(value) > limit:
        raise ListingsError(file, f"{len(value)} characters; at most {limit}", row=row, column=column)
    if column in _REQUIRED and not value:
        raise ListingsError(file, "required cell is empty", row=row, column=column)
    return value


class _Ids:
    """Ids seen so far across both files."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def add(self, file: str, row: int, value: str) -> str:
        if not _ID.match(value):
            raise ListingsError(file, "id may hold only letters, digits, _ and -", row=row, column="id")
        if value in self.seen:
            raise ListingsError(file, f"duplicate id (first at {self.seen[value]})", row=row, column="id")
        self.seen[value] = f"{file} row {row}"
        return value


def _township(file: str, row: int, value: str) -> str:
    full = canonical_township(value)
    if full is None:
        raise ListingsError(
            file, f"{value!r} is not one of Changhua County's 26 townships", row=row, column="township"
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
            )
    return frozenset(codes)


def _date(file: str, row: int, column: str, value: str) -> date | None:
    if not value:
        return None
    try:
        return parse_iso_date(value)
    except ValueError:
        raise ListingsError(
            file, f"{value!r} is not a date that exists (write YYYY-MM-DD)", row=row, column=column
        ) from None


def _place(row: int, cells: dict[str, str], ids: _Ids) -> Place:
    return Place(
        id=ids.add(PLACES_FILE, row, cells["id"]),
        name=cells["name"],
        township=_township(PLACES_FILE, row, cells["township"]),
        category=cells["category"],
        dietary=_dietary(PLACES_FILE, row, cells["dietary"]),
        address_hint=cells["address"],
        note=cells["note"],
    )


def _event(row: int, cells: dict[str, str], ids: _Ids) -> Event:
    file = EVENTS_FILE
    start = _date(file, row, "start_date", cells["start_date"])
    end = _date(file, row, "end_date", cells["end_date"])
    if end is not None and start is None:
        raise ListingsError(file, "end_date without start_date", row=row, column="start_date")
    if start is not None and end is not None:
        if end < start:
            raise ListingsError(
                file, f"end_date {end} is before start_date {start}", row=row, column="end_date"
            )
        if (end - start).days + 1 > MAX_WINDOW_DAYS:
            raise ListingsError(
                file, f"longer than {MAX_WINDOW_DAYS} days; leave the dates empty", row=row, column="end_date"
            )
    if start is None and not cells["when"]:
        raise ListingsError(file, "a standing event (no dates) needs its when", row=row, column="when")
    return Event(
        id=ids.add(file, row, cells["id"]),
        name=cells["name"],
        township=_township(file, row, cells["township"]),
        venue=cells["venue"],
        when=cells["when"],
        category=cells["category"],
        note=cells["note"],
        start_date=start,
        end_date=end if end != start else None,
    )


def load_listings(folder: str | Path) -> Listings:
    """Read and validate ``places.csv`` and ``events.csv`` in ``folder``; :class:`ListingsError` on the
    first problem. Nothing is returned unless both files are valid throughout."""
    path = Path(folder)
    if not path.is_dir():
        raise ListingsError(str(folder), "not a folder (LOCAL_LISTINGS_DIR must name a folder)")
    ids = _Ids()
    places = tuple(_place(row, cells, ids) for row, cells in _rows(path / PLACES_FILE, PLACE_COLUMNS))
    events = tuple(_event(row, cells, ids) for row, cells in _rows(path / EVENTS_FILE, EVENT_COLUMNS))
    if not places and not events:
        raise ListingsError(PLACES_FILE, "both files are empty; there is nothing to serve")
    source = "shipped teaching snapshot" if path.resolve() == SHIPPED_DIR else path.name
    return Listings(places, events, source)


@functools.cache
def shipped_listings() -> Listings:
    """The teaching snapshot inside the package (read once)."""
    return load_listings(SHIPPED_DIR)


def listings_from(folder: str | Path | None) -> Listings:
    """The folder's listings, or the shipped snapshot when ``folder`` is ``None`` or empty."""
    return load_listings(folder) if folder else shipped_listings()


__all__ = [
    "EVENTS_FILE",
    "EVENT_COLUMNS",
    "MAX_FILE_BYTES",
    "PLACES_FILE",
    "PLACE_COLUMNS",
    "SHIPPED_DIR",
    "Listings",
    "ListingsError",
    "listings_from",
    "load_listings",
    "shipped_listings",
]
