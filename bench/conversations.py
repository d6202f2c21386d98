"""The conversation eval: scripted multi-turn LINE conversations through the replay path.

    python -m bench.conversations [--corpus both|generated|phrasings] [--seed 15] [--per-category 16]
                                  [--show-failures 20] [--show-test-failures] [--quick]

Two corpora. *generated* (below): conversations built from templates. *phrasings*
(``bench/phrasings.py``, ``bench/data/phrasings.jsonl``): hand-written sentences as people type and
voice-type them, split into a development and a test half, reported per category for each half,
with the figure "delete requests: forget or confirm". ``--corpus both`` (the default) runs the two.

Each conversation runs through ``examples.day15.replay.ReplayDriver`` (the real app, signed
webhook bodies, the fake LINE API, SQLite in a temp dir), each with its own user and group ids.
The corpus is generated from templates over the catalogue's townships (``COVERED_TOWNSHIPS``),
with phrasings drawn by a seeded RNG, so it is not written against the offline rules. Every step
states what must happen: a search with its tool and effective arguments (area, and where it
matters dietary_type and preference_origin), the township question, silence, help, or a fixed
command answer. A conversation succeeds when every step does.

The model is what the environment configures: the offline stand-in by default; with
``LOCAL_MODEL=gemini-3.8-flash`` and a ``GOOGLE_API_KEY`` the same corpus runs on Gemini.
Prints the success rate per category and overall, the failures, and a ``KEY conversations:`` line
(the phrasing figures appended when that corpus ran); writes one CSV row per conversation to
``out/bench/conversations.csv`` and ``out/bench/phrasings.csv`` (``--out-dir``).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import random
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from local_agent.context.townships import SHORT_NAMES
from local_agent.listings import catalogue

ASK = "請問是哪個鄉鎮？"
SHORT_OF = {full: short for short, full in SHORT_NAMES.items()}

PLACE_ASKS = (
    "{t}有什麼好吃的？",
    "{t}附近有推薦的小吃嗎",
    "想在{t}吃午餐",
    "請問{t}有早餐店嗎",
    "{t}有什麼美食",
)
EVENT_ASKS = ("{t}這週有什麼活動？", "{t}有市集嗎", "{t}最近有什麼展覽", "{t}有什麼好玩的活動")
PLACE_REFS = (
    "剛才那個鄉鎮，再找一家吃的。",
    "那裡還有什麼好吃的",
    "那邊有什麼小吃",
    "同一個地方再找一家吃的",
)
EVENT_REFS = ("那邊有什麼活動？", "那裡有什麼活動", "同一個地方有什麼活動", "剛才那個鄉鎮有什麼活動")
PLACE_OPENERS = ("我想吃東西", "有什麼好吃的推薦", "想找個地方吃晚餐", "附近有什麼小吃")
EVENT_OPENERS = ("最近有什麼活動", "有什麼活動可以參加", "週末有什麼市集")
ANSWERS = ("{s}", "{f}的", "在{s}", "{s}啦", "{f}")
CHATTER = ("哈哈好啊，等等見", "晚上要不要一起去吃飯", "{t}那家不錯吃", "阿嬤說她明天要去{t}", "好喔👌")
NEGATED_FORGET = ("不要忘記我的飲食偏好喔", "不要刪除我的飲食偏好", "別清除我的偏好", "不用刪除我的偏好")
QUESTION_FORGET = ("你會不會忘記我的飲食偏好？", "可以刪除我的偏好嗎？", "能不能忘記我吃素？")
HELP = ("說明", "使用說明", "怎麼用", "help", "?", "你好", "hi", "嗨！")
DIETS = (("記住我吃素", "vegetarian"), ("記住我吃全素", "vegan"), ("幫我記住我吃蛋奶素", "lacto_ovo"))


@dataclass(frozen=True)
class Step:
    """One event and what must come of it.

    ``expect``: "search" (``tool``/``area`` and, when set, ``diet``/``origin``), "ask", "silence",
    "help", or "text" (the first reply text equals ``text``; ``text`` may also be a fragment when
    ``contains``)."""

    action: str  # "text" | "tap" | "advance" | "unfollow" | "follow"
    user: str | None = None
    text: str = ""
    group: str | None = None
    mention: bool = False
    tap_owner: str | None = None  # tap the latest button shown to this user
    seconds: float = 0.0
    expect: str = "any"
    tool: str = ""
    area: str = ""
    diet: str | None = None
    origin: str | None = None
    reply: str = ""


@dataclass
class Conversation:
    category: str
    name: str
    steps: list[Step] = field(default_factory=list)


# -- the corpus ------------------------------------------------------------------------------------------


def _search(user: str, text: str, tool: str, area: str, **kw: Any) -> Step:
    return Step("text", user, text, expect="search", tool=tool, area=area, **kw)


def _granted(user: str, remember: str) -> list[Step]:
    """``user`` asks to remember a diet in the 1:1 chat and taps 同意 on the prompt."""
    return [
        Step("text", user, remember, expect="text", reply="要我記住您的飲食偏好"),
        Step("tap", user, "同意", tap_owner=user, expect="text", reply="好的，已記住"),
    ]


PLACES, EVENTS = "search_local_places", "search_local_events"


def build_corpus(seed: int = 15, per_category: int = 15) -> list[Conversation]:
    from local_agent.turns.commands import IN_PRIVATE_ONLY, NOT_DELETED, TAP_REFUSED, forget_question_text

    rng = random.Random(seed)
    towns = list(catalogue.COVERED_TOWNSHIPS)
    out: list[Conversation] = []
    counter = iter(range(1, 10**6))

    def ids() -> tuple[str, str, str]:
        n = next(counter)
        return f"Ueval{n:027d}a", f"Ueval{n:027d}b", f"Ceval{n:027d}g"

    def town(i: int) -> tuple[str, str]:
        full = towns[i % len(towns)]
        return full, SHORT_OF.get(full, full)

    def said(full: str, short: str) -> str:
        return rng.choice((short, full))

    for i in range(per_category):
        full, short = town(i)
        u, v, g = ids()
        place = rng.choice(PLACE_ASKS).format(t=said(full, short))
        event = rng.choice(EVENT_ASKS).format(t=said(full, short))
        out.append(
            Conversation(
                "1:1 search",
                f"{place} / {event}",
                [_search(u, place, PLACES, full), _search(u, event, EVENTS, full)],
            )
        )

        u, v, g = ids()
        first = rng.choice(PLACE_ASKS).format(t=said(full, short))
        ref1, ref2 = rng.choice(EVENT_REFS), rng.choice(PLACE_REFS)
        out.append(
            Conversation(
                "references",
                f"{first} / {ref1} / {ref2}",
                [
                    _search(u, first, PLACES, full),
                    _search(u, ref1, EVENTS, full),
                    _search(u, ref2, PLACES, full),
                ],
            )
        )

        u, v, g = ids()
        places = rng.random() < 0.6
        opener = rng.choice(PLACE_OPENERS if places else EVENT_OPENERS)
        answer = rng.choice(ANSWERS).format(s=short, f=full)
        out.append(
            Conversation(
                "clarifying answer",
                f"{opener} / {answer}",
                [
                    Step("text", u, opener, expect="ask"),
                    _search(u, answer, PLACES if places else EVENTS, full),
                ],
            )
        )

        u, v, g = ids()
        chat = rng.choice(CHATTER).format(t=short)
        ask = rng.choice(PLACE_ASKS).format(t=said(full, short))
        out.append(
            Conversation(
                "group etiquette",
                f"{chat} / @LOCAL {ask} / {ask}",
                [
                    Step("text", u, chat, group=g, expect="silence"),
                    Step("text", v, ask, group=g, expect="silence"),  # not addressed: chatter too
                    Step("text", v, ask, group=g, mention=True, expect="search", tool=PLACES, area=full),
                    Step(
                        "text",
                        None,
                        rng.choice(EVENT_ASKS).format(t=short),
                        group=g,
                        mention=True,
                        expect="search",
                        tool=EVENTS,
                        area=full,
                    ),
                    Step("text", u, rng.choice(HELP), group=g, mention=True, expect="help"),
                ],
            )
        )

        u, v, g = ids()
        remember, diet = rng.choice(DIETS)
        ask = rng.choice(PLACE_ASKS).format(t=said(full, short))
        out.append(
            Conversation(
                "preferences stay personal",
                f"{remember} / 同意 / group {ask} / 1:1 {ask}",
                [
                    *_granted(u, remember),
                    Step(
                        "text",
                        u,
                        ask,
                        group=g,
                        mention=True,
                        expect="search",
                        tool=PLACES,
                        area=full,
                        diet="any",
                        origin="none",
                    ),
                    Step("text", u, remember, group=g, mention=True, expect="text", reply=IN_PRIVATE_ONLY),
                    _search(u, ask, PLACES, full, diet=diet, origin="consented_memory"),
                ],
            )
        )

        u, v, g = ids()
        remember, diet = rng.choice(DIETS)
        negated = rng.choice(NEGATED_FORGET)
        question = rng.choice(QUESTION_FORGET)
        ask = rng.choice(PLACE_ASKS).format(t=said(full, short))
        out.append(
            Conversation(
                "consent and negation",
                f"{remember} / 同意 / {negated} / {question} / 不用 / 忘記",
                [
                    *_granted(u, remember),
                    Step("text", u, negated, expect="text", reply=NOT_DELETED),
                    Step(
                        "text",
                        u,
                        question,
                        expect="text",
                        reply=forget_question_text(catalogue.dietary_label(diet)),
                    ),
                    Step("tap", u, "不用", tap_owner=u, expect="text", reply=NOT_DELETED),
                    _search(u, ask, PLACES, full, diet=diet, origin="consented_memory"),
                    Step("text", u, "忘記我的飲食偏好", expect="text", reply="已刪除"),
                    _search(u, ask, PLACES, full, diet="any", origin="none"),
                ],
            )
        )

        u, v, g = ids()
        ask = rng.choice(EVENT_ASKS).format(t=said(full, short))
        ref = rng.choice(EVENT_REFS)
        out.append(
            Conversation(
                "TTL",
                f"{ask} / +899 s {ref} / +901 s {ref}",
                [
                    _search(u, ask, EVENTS, full),
                    Step("advance", seconds=899),
                    _search(u, ref, EVENTS, full),  # every write refreshes the 900 s window
                    Step("advance", seconds=901),
                    Step("text", u, ref, expect="ask"),
                ],
            )
        )

        u, v, g = ids()
        remember, diet = rng.choice(DIETS)
        out.append(
            Conversation(
                "stale and foreign taps",
                f"{remember} / other taps 同意 / 同意 / 同意 again / forget / old 同意",
                [
                    Step("text", u, remember, expect="text", reply="要我記住您的飲食偏好"),
                    Step("tap", v, "同意", tap_owner=u, expect="text", reply=TAP_REFUSED),  # foreign
                    Step("tap", v, "同意", group=g, tap_owner=u, expect="text", reply=IN_PRIVATE_ONLY),
                    _search(
                        v, rng.choice(PLACE_ASKS).format(t=short), PLACES, full, diet="any", origin="none"
                    ),
                    Step("tap", u, "同意", tap_owner=u, expect="text", reply="好的，已記住"),
                    Step("tap", u, "同意", tap_owner=u, expect="text", reply=TAP_REFUSED),  # replayed
                    Step("text", u, "忘記我的飲食偏好", expect="text", reply="已刪除"),
                    Step("tap", u, "同意", tap_owner=u, expect="text", reply=TAP_REFUSED),  # stale
                    _search(
                        u, rng.choice(PLACE_ASKS).format(t=short), PLACES, full, diet="any", origin="none"
                    ),
                ],
            )
        )

        u, v, g = ids()
        remember, diet = rng.choice(DIETS)
        ask = rng.choice(PLACE_ASKS).format(t=said(full, short))
        out.append(
            Conversation(
                "unfollow forgets",
                f"{remember} / 同意 / unfollow / follow / {ask}",
                [
                    *_granted(u, remember),
                    _search(u, ask, PLACES, full, diet=diet, origin="consented_memory"),
                    Step("unfollow", u, expect="silence"),
                    Step("follow", u, expect="help"),
                    Step("text", u, rng.choice(PLACE_REFS), expect="ask"),  # the journal went too
                    _search(u, ask, PLACES, full, diet="any", origin="none"),
                ],
            )
        )

        u, v, g = ids()
        out.append(
            Conversation(
                "help words",
                "help",
                [Step("text", u, w, expect="help") for w in rng.sample(HELP, 3)],
            )
        )
    return out


# -- running ---------------------------------------------------------------------------------------------


def check(step: Step, result: Any) -> str | None:
    """None when ``result`` is what ``step`` expects, else a short reason."""
    from local_agent.replies.render import HELP_TEXT

    texts = [r.get("text", "") for r in result.replies if r.get("type") == "text"]
    first = texts[0] if texts else ""
    if step.expect == "silence":
        return None if not result.messages else f"expected silence, got {first[:30]!r}"
    if step.expect == "help":
        return None if first == HELP_TEXT else f"expected help, got {first[:30]!r}"
    if step.expect == "ask":  # the question, possibly with why it is asked (「我這裡沒有前面找過的紀錄…」)
        asked = first.startswith(ASK)
        return None if asked else f"expected {ASK}, got {first[:30]!r}"
    if step.expect == "text":
        return None if step.reply in first else f"expected {step.reply[:20]!r}, got {first[:30]!r}"
    if step.expect == "search":
        calls = [c for c in result.tool_calls if c.get("effective_arguments")]
        if not calls:
            return f"expected {step.tool}({step.area}), got no search ({first[:30]!r})"
        call = calls[-1]
        args = call["effective_arguments"]
        got = (call["tool"], args.get("area"))
        if got != (step.tool, step.area):
            return f"expected {step.tool}({step.area}), got {got}"
        if step.diet is not None and args.get("dietary_type") != step.diet:
            return f"expected dietary_type {step.diet}, got {args.get('dietary_type')}"
        if step.origin is not None and call["preference_origin"] != step.origin:
            return f"expected origin {step.origin}, got {call['preference_origin']}"
        return None
    return None


async def run_step(driver: Any, step: Step) -> Any:
    if step.action == "text":
        return await driver.send_text(step.user, step.text, step.group, mention=step.mention)
    if step.action == "tap":
        return await driver.tap_from(step.user, step.text, step.tap_owner, step.group)
    if step.action in ("follow", "unfollow"):
        return await driver.lifecycle(step.action, user=step.user)
    raise ValueError(step.action)


async def run_corpus(
    corpus: list[Conversation], progress: Callable[[int], None] | None = None
) -> list[tuple[Conversation, list[str]]]:
    from examples.day15.replay import NoSuchQuickReply, ReplayDriver

    results: list[tuple[Conversation, list[str]]] = []
    async with ReplayDriver.open() as driver:
        for n, conv in enumerate(corpus):
            failures: list[str] = []
            for i, step in enumerate(conv.steps):
                if step.action == "advance":
                    driver.advance(step.seconds)
                    continue
                try:
                    result = await run_step(driver, step)
                except NoSuchQuickReply as exc:
                    failures.append(f"step {i}: {exc}")
                    break
                reason = check(step, result)
                if reason:
                    failures.append(f"step {i} ({step.text or step.action}): {reason}")
            results.append((conv, failures))
            if progress:
                progress(n)
    return results


def report(
    results: list[tuple[Conversation, list[str]]], seconds: float, show: int, model: str
) -> tuple[str, str]:
    """The table and failures, and the figures for the KEY line."""
    by_cat: dict[str, list[bool]] = defaultdict(list)
    for conv, failures in results:
        by_cat[conv.category].append(not failures)
    lines = [f"Conversation eval: {len(results)} conversations, model {model}, {seconds:.1f} s", ""]
    lines.append(f"  {'category':<28}{'ok':>5}{'total':>7}{'rate':>9}")
    for cat, oks in by_cat.items():
        lines.append(f"  {cat:<28}{sum(oks):>5}{len(oks):>7}{sum(oks) / len(oks):>9.1%}")
    total_ok = sum(not f for _, f in results)
    overall = total_ok / len(results) if results else 0.0
    lines.append(f"  {'overall':<28}{total_ok:>5}{len(results):>7}{overall:>9.1%}")
    failed = [(c, f) for c, f in results if f]
    if failed:
        lines += ["", f"Failures ({len(failed)}, first {min(show, len(failed))}):"]
        for conv, failures in failed[:show]:
            lines.append(f"  [{conv.category}] {conv.name}")
            lines.extend(f"      {f}" for f in failures)
    per = "; ".join(f"{cat}={sum(o) / len(o):.3f}" for cat, o in by_cat.items())
    return "\n".join(lines), f"n={len(results)}; overall={overall:.3f}; seconds={seconds:.1f}; {per}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.conversations", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--corpus", choices=("both", "generated", "phrasings"), default="both")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument(
        "--per-category", type=int, default=16, help="conversations per category (10 categories)"
    )
    parser.add_argument("--show-failures", type=int, default=20)
    parser.add_argument(
        "--show-test-failures",
        action="store_true",
        help="also print the phrasing corpus's test-half failures (not while tuning)",
    )
    parser.add_argument(
        "--category",
        action="append",
        default=[],
        help="phrasing corpus: run only this category (repeatable)",
    )
    parser.add_argument(
        "--half", choices=("both", "dev", "test"), default="both", help="phrasing corpus: which half to run"
    )
    parser.add_argument(
        "--batch",
        type=int,
        action="append",
        default=[],
        help="phrasing corpus: run only this batch (repeatable)",
    )
    parser.add_argument("--quick", action="store_true", help="2 conversations per category (smoke test)")
    parser.add_argument("--out-dir", default="out/bench", help="where the CSV files are written")
    args = parser.parse_args(argv)
    if args.quick:
        args.per_category = 2
    warnings.filterwarnings("ignore")
    import logging
    import os

    logging.disable(logging.WARNING)
    model = os.environ.get("LOCAL_MODEL", "offline")
    key = ""
    if args.corpus in ("both", "generated"):
        corpus = build_corpus(args.seed, args.per_category)
        started = time.perf_counter()
        results = asyncio.run(run_corpus(corpus))
        seconds = time.perf_counter() - started
        write_csv(results, Path(args.out_dir) / "conversations.csv")
        text, key = report(results, seconds, args.show_failures, model)
        print(text + "\n")
    if args.corpus in ("both", "phrasings"):
        extra = run_phrasing_corpus(args, Path(args.out_dir))
        key = f"{key}; {extra}" if key else extra
    print(f"KEY conversations: {key}")
    return 0


def run_phrasing_corpus(args: argparse.Namespace, out_dir: Path) -> str:
    """Run the phrasing corpus (both halves), print its table; returns its KEY figures."""
    from bench import phrasings

    items = phrasings.load_corpus()
    unknown = sorted(set(args.category) - set(phrasings.CATEGORIES))
    if unknown:
        raise SystemExit(f"unknown --category {unknown}; the categories are {list(phrasings.CATEGORIES)}")
    if args.category:
        items = [i for i in items if i.category in args.category]
    if args.batch:
        items = [i for i in items if i.batch in args.batch]
    if args.half != "both":
        items = [i for i in items if i.half == args.half]
    if args.quick:  # the first item of each category
        items = [i for n, i in enumerate(items) if all(j.category != i.category for j in items[:n])]
    started = time.perf_counter()
    results = asyncio.run(phrasings.run_phrasings(items))
    seconds = time.perf_counter() - started
    text, key = phrasings.report(results, seconds, args.show_failures, args.show_test_failures)
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "phrasings.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(phrasings.csv_rows(results, args.show_test_failures))
    print(text + "\n")
    return key


def write_csv(results: list[tuple[Conversation, list[str]]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["category", "conversation", "steps", "ok", "failures"])
        for conv, failures in results:
            writer.writerow(
                [conv.category, conv.name, len(conv.steps), int(not failures), " | ".join(failures)]
            )


if __name__ == "__main__":
    sys.exit(main())
