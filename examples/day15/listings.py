"""Check a listings folder the way the service does at start: ``python -m examples.day15.listings check DIR``.

Runs the same validation (``local_agent.listings.loader``) over ``places.csv``, ``events.csv`` and
``listings.toml`` (when the folder has one) and prints a summary — who keeps the listings and the notice
replies end with, places and events per township, dated against standing events — or every problem
found, one line each: file, row, column, what is wrong and what is allowed (at most ``--max-problems``,
then a count of the rest), with exit code 1. ``--json`` prints the same as one JSON object on stdout,
on success and on failure. Without DIR it checks the teaching snapshot shipped in the package.
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from local_agent.listings.loader import SHIPPED_DIR, check_listings
from local_agent.listings.problems import Problem, shown_lines

DEFAULT_MAX_PROBLEMS = 20


def summary_lines(summary: dict[str, object]) -> list[str]:
    townships = summary["townships"]
    meta = summary["meta"]
    assert isinstance(townships, dict) and isinstance(meta, dict)
    lines = [
        f"listings: {summary['source']}",
        f"office: {meta['office'] or '(not given)'}  as of: {meta['as_of'] or '(not given)'}"
        + ("" if meta["file"] else "  (no listings.toml)"),
        f"notice: {meta['notice_line']}",
        f"places: {summary['places']}  events: {summary['events']} "
        f"(dated {summary['dated_events']}, standing {summary['standing_events']})",
        f"townships: {len(townships)} of 26",
        "township  places  dated  standing",
    ]
    for name, counts in townships.items():
        lines.append(f"{name}  {counts['places']:>6}  {counts['dated']:>5}  {counts['standing']:>8}")
    return lines


def problem_lines(problems: Sequence[Problem], limit: int) -> list[str]:
    head = f"listings check failed: {len(problems)} problem{'s' if len(problems) != 1 else ''}"
    return [head, *shown_lines(problems, limit, "--max-problems 0 prints them all")]


def _limit(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a whole number (0 = no limit)") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 (no limit) or more")
    return n


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.listings", description=__doc__.splitlines()[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser(
        "check", help="validate places.csv, events.csv and listings.toml in DIR and print a summary"
    )
    check.add_argument(
        "dir", nargs="?", default=str(SHIPPED_DIR), help="the folder (default: the shipped snapshot)"
    )
    check.add_argument("--json", action="store_true", help="print the summary or the problems as JSON")
    check.add_argument(
        "--max-problems",
        type=_limit,
        default=DEFAULT_MAX_PROBLEMS,
        metavar="N",
        help=f"print at most N problems, then a count of the rest (default {DEFAULT_MAX_PROBLEMS}; 0 = all)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    listings, problems = check_listings(args.dir)
    if listings is None:
        if args.json:
            shown = problems if args.max_problems == 0 else problems[: args.max_problems]
            report = {
                "ok": False,
                "folder": args.dir,
                "problem_count": len(problems),
                "problems": [p.as_dict() for p in shown],
                "not_shown": len(problems) - len(shown),
            }
            print(json.dumps(report, ensure_ascii=False, indent=2))
        else:
            print("\n".join(problem_lines(problems, args.max_problems)), file=sys.stderr)
        return 1
    summary = listings.summary()
    if args.json:
        print(json.dumps({"ok": True, **summary}, ensure_ascii=False, indent=2))
    else:
        print("\n".join(summary_lines(summary)))
        print("OK: the service would start with these listings.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
