"""Check a listings folder the way the service does at start: ``python -m examples.day15.listings check DIR``.

Runs the same validation (``local_agent.listings.loader``) and prints a summary — places and events per
township, dated against standing events — or the first problem, naming file, row and column, with exit
code 1. Without DIR it checks the teaching snapshot shipped in the package. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from local_agent.listings.loader import SHIPPED_DIR, ListingsError, load_listings


def summary_lines(summary: dict[str, object]) -> list[str]:
    townships = summary["townships"]
    assert isinstance(townships, dict)
    lines = [
        f"listings: {summary['source']}",
        f"places: {summary['places']}  events: {summary['events']} "
        f"(dated {summary['dated_events']}, standing {summary['standing_events']})",
        f"townships: {len(townships)} of 26",
        "township  places  dated  standing",
    ]
    for name, counts in townships.items():
        lines.append(f"{name}  {counts['places']:>6}  {counts['dated']:>5}  {counts['standing']:>8}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.listings", description=__doc__.splitlines()[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate places.csv and events.csv in DIR and print a summary")
    check.add_argument(
        "dir", nargs="?", default=str(SHIPPED_DIR), help="the folder (default: the shipped snapshot)"
    )
    check.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    try:
        listings = load_listings(args.dir)
    except ListingsError as exc:
        print(f"listings check failed: {exc}", file=sys.stderr)
        return 1
    summary = listings.summary()
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        print("\n".join(summary_lines(summary)))
        print("OK: the service would start with these listings.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
