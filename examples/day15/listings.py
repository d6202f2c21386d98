"""Check a listings folder the way the service does at start: ``python -m examples.day15.listings check DIR``.

Runs the same validation (``local_agent.listings.loader``) over ``places.csv``, ``events.csv`` and
``listings.toml`` (when the folder has one) and prints a summary — who keeps the listings and the notice
replies end with, places and events per township, dated against standing events — or every problem
found, one line each: file, row, column, what is wrong and what is allowed (at most ``--max-problems``,
then a count of the rest), with exit code 1. ``--json`` prints the same as one JSON object on stdout,
on success and on failure. Without DIR it checks the folder the service would serve: ``LOCAL_LISTINGS_DIR``
from the environment, then ``.env`` in the current folder (as the service reads it; the first line on
stderr, or ``"settings"`` in the JSON, says which was read), else the teaching snapshot shipped in the
package. Standard library only (on a bare python3 without the project's packages, ``.env`` is not read
and it says so).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from local_agent.listings.loader import SHIPPED_DIR, check_listings
from local_agent.listings.problems import Problem, shown_lines

DEFAULT_MAX_PROBLEMS = 20
FILES_HELP = """files: places.csv and events.csv as UTF-8 CSV, with or without a byte-order mark
(Excel's "CSV UTF-8" writes one), line ends LF or CRLF; Excel's plain "CSV" (CP950/Big5) is refused
with the row and cell of its first non-UTF-8 byte. events.csv may have a months column: the calendar
months a standing event runs, e.g. 6;7;8 (empty = all year). listings.toml is optional."""


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
        prog="python -m examples.day15.listings",
        description=__doc__.splitlines()[0].replace("``", ""),
        epilog=FILES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser(
        "check",
        help="validate places.csv, events.csv and listings.toml in DIR and print a summary",
        description="Validate places.csv, events.csv and listings.toml in DIR as the service does at start.",
        epilog=FILES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "dir",
        nargs="?",
        default=None,
        help="the folder (default: LOCAL_LISTINGS_DIR from the environment or .env, else the shipped snapshot)",
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


def default_folder() -> tuple[str, str]:
    """The folder the service would serve, and which settings were read to find it."""
    try:
        from local_agent.settings import read_environment
    except ImportError:  # a bare python3: no pydantic, no python-dotenv
        folder = os.environ.get("LOCAL_LISTINGS_DIR", "")
        return folder or str(SHIPPED_DIR), "settings: the environment only (.env not read: no python-dotenv)"
    env = read_environment()
    return env.get("LOCAL_LISTINGS_DIR") or str(SHIPPED_DIR), env.source()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    source = ""
    if args.dir is None:
        args.dir, source = default_folder()
        if not args.json:
            print(source, file=sys.stderr)
    listings, problems = check_listings(args.dir)
    if listings is None:
        if args.json:
            shown = problems if args.max_problems == 0 else problems[: args.max_problems]
            report = {
                "ok": False,
                "folder": args.dir,
                **({"settings": source} if source else {}),
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
        settings = {"settings": source} if source else {}
        print(json.dumps({"ok": True, **settings, **summary}, ensure_ascii=False, indent=2))
    else:
        print("\n".join(summary_lines(summary)))
        print("OK: the service would start with these listings.")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # piped into head: stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - replaced for the rest of the process
        raise SystemExit(1) from None
