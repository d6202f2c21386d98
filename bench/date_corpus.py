"""The date reader against a public peer corpus: Duckling's Chinese time expressions, day-level future cases.

    python -m bench.date_corpus [--show] [--out-dir DIR]

``bench/data/duckling_zh_dates.jsonl`` holds the cases of Duckling's ``Duckling/Time/ZH/Corpus.hs`` and
``Duckling/Time/ZH/TW/Corpus.hs`` an events question could use — days, weeks, months and spans of them,
from the corpus's reference day on — converted to Traditional characters, each with the window of whole
days its expected value means at Duckling's reference time, 2013-02-12 04:30 (a Tuesday; the lunar
new year's third day). Hours and minutes, past days, years on their own, written forms Taiwan does not use
(3/3/15) and holidays nobody in Changhua asks events for are left out. Where Taiwan's meaning differs from
the corpus's, Taiwan's is the expectation and the case says so in ``note``; ``duckling`` keeps the
corpus's own value. Duckling is BSD-licensed: ``bench/data/DUCKLING_LICENSE`` (copyright line and
licence text) sits beside the data.

``read_dates`` runs on each case at that reference day, and each case scores

- **EXACT**: the same window (or, for a case whose Taiwan meaning is a past day, the past-day answer);
- **OVERLAP**: a window sharing some days with the expected one;
- **NONE**: nothing read;
- **WRONG**: a window with no day in common, or an answer of another kind.

``tests/test_date_corpus.py`` fails on any WRONG and on EXACT below :data:`EXACT_FLOOR`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from bench._common import ROOT, format_table, out_path, write_csv

CORPUS = ROOT / "bench" / "data" / "duckling_zh_dates.jsonl"
REFERENCE_DAY = date(2013, 2, 12)  # Duckling's reference time, 2013-02-12 04:30, is this day in any zone
SCORES = ("EXACT", "OVERLAP", "NONE", "WRONG")
EXACT_FLOOR = 134  # the figure the reader reaches (of 146); the test fails below it


@dataclass(frozen=True)
class Case:
    text: str
    expect: str  # "window" or "past"
    start: date | None
    end: date | None
    note: str


@dataclass(frozen=True)
class Scored:
    case: Case
    score: str
    read: str  # what the reader answered, for the table


def load(path: Path = CORPUS) -> list[Case]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row: dict[str, Any] = json.loads(line)
        start = date.fromisoformat(row["from"]) if "from" in row else None
        end = date.fromisoformat(row["to"]) if "to" in row else None
        cases.append(Case(row["text"], row["expect"], start, end, row.get("note", "")))
    return cases


def score(case: Case, today: date = REFERENCE_DAY) -> Scored:
    """One case read at ``today`` and scored (see the module docstring)."""
    from local_agent.language.dates import read_dates

    reading = read_dates(case.text, today)
    window = reading.window
    read = f"{window.start}..{window.end}" if window is not None else reading.kind
    if reading.kind == "none":
        return Scored(case, "NONE", read)
    if case.expect == "past":
        return Scored(case, "EXACT" if reading.kind == "past" else "WRONG", read)
    if reading.kind != "window" or window is None or case.start is None or case.end is None:
        return Scored(case, "WRONG", read)
    if (window.start, window.end) == (case.start, case.end):
        return Scored(case, "EXACT", read)
    return Scored(case, "OVERLAP" if window.overlaps(case.start, case.end) else "WRONG", read)


def run(cases: Sequence[Case] | None = None) -> list[Scored]:
    return [score(c) for c in (cases if cases is not None else load())]


def counts(results: Sequence[Scored]) -> dict[str, int]:
    found = Counter(r.score for r in results)
    return {s: found.get(s, 0) for s in SCORES}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.date_corpus", description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list every case that is not EXACT")
    parser.add_argument("--quick", action="store_true", help="the same run (the corpus is small)")
    parser.add_argument("--out-dir", default=None)
    args = parser.parse_args(argv)
    results = run()
    if args.show:
        rows = [
            [r.score, r.case.text, f"{r.case.start}..{r.case.end}" if r.case.start else r.case.expect, r.read]
            for r in results
            if r.score != "EXACT"
        ]
        print(format_table(["score", "text", "expected", "read"], rows))
        print()

    found = counts(results)
    print(format_table(["cases", *SCORES], [[len(results), *found.values()]]))
    csv_path = write_csv(
        out_path("date_corpus.csv", args.out_dir),
        ["text", "expected_from", "expected_to", "expect", "score", "read"],
        [[r.case.text, r.case.start, r.case.end, r.case.expect, r.score, r.read] for r in results],
    )
    print(f"wrote {csv_path}")
    print(
        f"KEY date_corpus: cases={len(results)}; " + "; ".join(f"{k.lower()}={v}" for k, v in found.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
