"""The date reader against two public peers' test cases that ``bench.date_corpus`` does not hold.

    python -m bench.date_peers [--show] [--out-dir DIR]

- ``bench/data/duckling_zh_day_level.jsonl``: Duckling's Chinese time corpus (``Duckling/Time/ZH/Corpus.hs``
  and ``ZH/TW/Corpus.hs``, BSD, ``bench/data/DUCKLING_LICENSE``) selected another way than
  ``bench.date_corpus``'s: every example read at day level (a part of a day is its day, an interval the
  days it touches), past ones included, except clock times and moments, years on their own, month/day/year
  forms and holidays not kept in Taiwan, and except the texts ``bench.date_corpus`` holds. Reference day
  2013-02-12.
- ``bench/data/jionlp_dates.jsonl``: JioNLP's time-parser tests (``test/test_time_parser.py``, Apache-2.0,
  ``bench/data/JIONLP_LICENSE``): every case of its main and future-preference lists whose expected value
  is whole days, at most a year long and not a year on its own, each at its own time base.

Every case is in Traditional characters with the reference day it assumes (``today``); one that ends
before that day expects the past-day answer. Where Taiwan's reading differs from the peer's, the case
carries Taiwan's expectation and a ``note`` (the peer's value stays in ``peer``).
``python -m bench.date_peers_build`` rebuilds both files from the peers' own files.

Scores as in ``bench.date_corpus``: EXACT, OVERLAP, NONE, WRONG (a disjoint window, or another kind).
``tests/test_date_peers.py`` fails below :data:`FLOOR` exact-or-overlapping and on any WRONG not listed
in :data:`JUSTIFIED`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from bench import date_corpus
from bench._common import ROOT, format_table, out_path, write_csv

PEERS = {
    "duckling": ROOT / "bench" / "data" / "duckling_zh_day_level.jsonl",
    "jionlp": ROOT / "bench" / "data" / "jionlp_dates.jsonl",
}
FLOOR = 0.85  # EXACT + OVERLAP over all cases of a peer; the test fails below it
JUSTIFIED: dict[str, str] = {}  # text → why a WRONG stands (none today)


@dataclass(frozen=True)
class PeerCase:
    peer: str
    today: date
    case: date_corpus.Case


def load(peer: str) -> list[PeerCase]:
    cases = []
    for line in PEERS[peer].read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        start = date.fromisoformat(row["from"]) if "from" in row else None
        end = date.fromisoformat(row["to"]) if "to" in row else None
        case = date_corpus.Case(row["text"], row["expect"], start, end, row.get("note", ""))
        cases.append(PeerCase(peer, date.fromisoformat(row["today"]), case))
    return cases


def run(peer: str) -> list[tuple[PeerCase, date_corpus.Scored]]:
    return [(c, date_corpus.score(c.case, c.today)) for c in load(peer)]


def share(results: Sequence[tuple[PeerCase, date_corpus.Scored]]) -> float:
    found = date_corpus.counts([s for _, s in results])
    return (found["EXACT"] + found["OVERLAP"]) / max(len(results), 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.date_peers", description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list every case that is not EXACT")
    parser.add_argument("--out-dir", default=None)
    args = parser.parse_args(argv)
    table: list[list[object]] = []
    rows: list[list[object]] = []
    keys = []
    for peer in PEERS:
        results = run(peer)
        found = date_corpus.counts([s for _, s in results])
        table.append([peer, len(results), *found.values(), f"{share(results):.0%}"])
        scores = "; ".join(f"{k.lower()}={v}" for k, v in found.items())
        keys.append(
            f"KEY date_peers {peer}: cases={len(results)}; {scores}; exact_or_overlap={share(results):.0%}"
        )
        for case, scored in results:
            expected = f"{case.case.start}..{case.case.end}" if case.case.expect == "window" else "past"
            rows.append([peer, case.today, scored.score, case.case.text, expected, scored.read])
    header = ["peer", "today", "score", "text", "expected", "read"]
    if args.show:
        print(format_table(header, [r for r in rows if r[2] != "EXACT"]))
        print()
    print(format_table(["peer", "cases", *date_corpus.SCORES, "exact+overlap"], table))
    print(f"wrote {write_csv(out_path('date_peers.csv', args.out_dir), header, rows)}")
    print("\n".join(keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
