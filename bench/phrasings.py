"""The phrasing corpus: hand-written sentences, as people type and voice-type them, with what must come of each.

    python -m bench.conversations --corpus phrasings [--half dev|test|both] [--show-failures 30]

``bench/data/phrasings.jsonl`` holds one conversation per line: a category, an optional consented diet
to start from (``given_diet``: the person said 「記住我吃素」 and tapped 同意, both checked), and a few
turns (a text, a tap on a quick reply of the last answer, or ``advance_seconds``), each with the
outcome it must have in terms the service exposes: the search it ran (tool, effective area,
dietary_type, date window), the question it asked, the command's effect on the person's stored
preference, the buttons it showed. Nothing is matched against the wording of a reply beyond a
township name, a diet label or a few fixed words (``check`` says which).

**Split.** Each item belongs to the development half or the test half by a keyed hash of its id and
``SPLIT_SEED`` (``half_of``): each category is split evenly, and an item never changes half when
others are added, edited or removed. Tune on the development half; the test half is reported but its failures are
not printed (``--show-test-failures`` prints them, for the final write-up only).

**Clock.** Every conversation runs at ``FIXED_NOW``, Tuesday 2026-12-01 10:00 in Taiwan, so 「明天」
is 2026-12-02, 「這週末」 2026-12-05..06, 過年 2027-02-06, 端午 2027-06-09 on every run. Each item
has its own user, so no state leaks between items.

**Delete requests.** A turn marked ``delete_request`` asks to delete, stop remembering or cancel the
diet. Its own expectation says what it should do (clear → forgotten; unclear → forgotten or the
確定忘記 / 不用 question); the separate figure "delete requests: forget or confirm" counts the turns
that did either, whatever the expectation — a delete request that neither forgets nor asks is a
privacy defect.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "phrasings.jsonl"
SPLIT_SEED = "local-phrasings-18"
FIXED_NOW = 1_796_090_400.0  # 2026-12-01 10:00 in Taiwan (02:00 UTC), a Tuesday
HALVES = ("dev", "test")
CATEGORIES = (
    "delete request",
    "must not forget",
    "remember request",
    "show kept",
    "typed consent",
    "diet in sentence",
    "place search",
    "homophone",
    "outside Changhua",
    "two townships",
    "township in a longer word",
    "event dates",
    "festival",
    "date follow-up",
    "reference",
    "small talk",
    "Taiwanese",
    "voice typing",
)
TOOLS = {"places": "search_local_places", "events": "search_local_events"}
# The setup sentence for each diet a conversation can start from (then a tap on 同意, both checked):
# every diet the service can keep (不吃牛 is said per search, never kept).
GIVEN_SETUP = {
    "vegetarian": "記住我吃素",
    "vegan": "記住我吃全素",
    "lacto_ovo": "記住我吃蛋奶素",
    "five_pungent": "記住我吃五辛素",
    "pot_side": "記住我吃鍋邊素",
}
OUTCOMES = (
    "search",
    "search_each",
    "ask_which",
    "ask_township",
    "confirm_township",
    "not_area",
    "only_changhua",
    "consent_prompt",
    "consent_granted",
    "not_granted",
    "forgotten",
    "forget_confirm",
    "kept",
    "kept_answer",
    "no_consent_prompt",
    "help",
    "short_answer",
    "honest_unsupported",
    "preference_question",
)
# The buttons of the question asked when a sentence touches the kept preference but its reading is
# not certain: the 確定忘記 / 不用 question, or the three-way one (remember / delete / show kept).
THREE_WAY = ("記住", "刪除", "看看記了什麼")


# -- the corpus ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    id: str
    category: str
    turns: tuple[dict[str, Any], ...]
    given_diet: str | None = None
    batch: int = 1  # when it was written: batch 1 first; a later batch met the rules tuned on earlier ones

    @property
    def half(self) -> str:
        return half_of(self.id)

    @property
    def name(self) -> str:
        return " / ".join(
            t.get("text") or f"[{t.get('tap') or t.get('advance_seconds')}]" for t in self.turns
        )


def half_of(item_id: str, seed: str = SPLIT_SEED) -> str:
    """ "dev" or "test". Ids are ``<category slug>-<n>``; items 1 and 2 of a category form a pair, 3
    and 4 the next, and so on; a keyed hash of (seed, slug, pair) sends the odd one of each pair to
    one half and the even one to the other. So every category is split evenly (within one item), and
    an item keeps its half when items are added, edited or removed."""
    slug, _, number = item_id.rpartition("-")
    n = int(number)
    digest = hashlib.sha256(f"{seed}:{slug}:{(n + 1) // 2}".encode()).digest()
    bit = digest[0] & 1
    return HALVES[bit if n % 2 else 1 - bit]


def _check_expect(expect: Any, where: str) -> None:
    if not isinstance(expect, dict):
        raise ValueError(f"{where}: an expectation is an object")
    for key in ("any", "all"):
        if key in expect:
            for sub in expect[key]:
                _check_expect(sub, where)
            return
    if expect.get("outcome") not in OUTCOMES:
        raise ValueError(f"{where}: unknown outcome {expect.get('outcome')!r}")


def parse_item(line: str, where: str) -> Item:
    raw = json.loads(line)
    if raw.get("category") not in CATEGORIES:
        raise ValueError(f"{where}: unknown category {raw.get('category')!r}")
    if raw.get("given_diet") not in (None, *GIVEN_SETUP):
        raise ValueError(f"{where}: given_diet must be one of {sorted(GIVEN_SETUP)}")
    turns = raw.get("turns")
    if not isinstance(turns, list) or not turns:
        raise ValueError(f"{where}: turns must be a non-empty list")
    for turn in turns:
        kinds = [k for k in ("text", "tap", "advance_seconds") if k in turn]
        if len(kinds) != 1:
            raise ValueError(f"{where}: a turn has exactly one of text, tap, advance_seconds")
        if "expect" in turn:
            _check_expect(turn["expect"], where)
    batch = raw.get("batch", 1)
    if not isinstance(batch, int) or isinstance(batch, bool) or not 1 <= batch <= 999:
        raise ValueError(f"{where}: batch must be a whole number from 1 to 999")
    return Item(str(raw["id"]), raw["category"], tuple(turns), raw.get("given_diet"), batch)


def load_corpus(path: Path = DATA) -> list[Item]:
    items: list[Item] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            items.append(parse_item(line, f"{path.name}:{n}"))
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path.name}: ids are not unique")
    return items


# -- observing a turn ------------------------------------------------------------------------------


@dataclass
class Observed:
    """What one turn produced, as the service exposes it."""

    texts: list[str] = field(default_factory=list)
    buttons: dict[str, str] = field(default_factory=dict)  # quick-reply label -> postback data
    searches: list[dict[str, Any]] = field(default_factory=list)  # {"tool", "args", "origin"}
    before: tuple[str, str | None] = ("none", None)  # the person's (consent, dietary_type)
    after: tuple[str, str | None] = ("none", None)

    @property
    def all_text(self) -> str:
        return "\n".join(self.texts)


def _short(township: str) -> str:
    return township[:-1] if len(township) == 3 else township


def _window_ok(expect: dict[str, Any], args: dict[str, Any]) -> str | None:
    start, end = args.get("date_from") or "", args.get("date_to") or args.get("date_from") or ""
    if expect.get("no_dates"):
        return None if not start else f"expected no date window, got {start}..{end}"
    if "date_from" in expect:
        want = (expect["date_from"], expect["date_to"])
        return None if (start, end) == want else f"expected dates {want[0]}..{want[1]}, got {start}..{end}"
    if "dates_contain" in expect:
        day = expect["dates_contain"]
        if not start:
            return f"expected a window with {day}, got none"
        days = (date.fromisoformat(end) - date.fromisoformat(start)).days + 1
        if not (start <= day <= end) or days > expect["max_days"]:
            return f"expected a window of ≤{expect['max_days']} days with {day}, got {start}..{end}"
    return None


def _search_ok(expect: dict[str, Any], obs: Observed) -> str | None:
    tool, area = TOOLS[expect["tool"]], expect["area"]
    if not obs.searches:
        return f"expected {expect['tool']}({area}), got no search: {obs.all_text[:30]!r}"
    others = [s["args"].get("area") for s in obs.searches if s["args"].get("area") != area]
    last = obs.searches[-1]
    if others or last["tool"] != tool:
        return f"expected {expect['tool']}({area}), got {[(s['tool'][13:], s['args'].get('area')) for s in obs.searches]}"
    diet = expect.get("dietary_type")
    if diet is not None and last["args"].get("dietary_type") != diet:
        return f"expected dietary_type {diet}, got {last['args'].get('dietary_type')}"
    return _window_ok(expect, last["args"])


def _no_search(obs: Observed) -> str | None:
    if obs.searches:
        return f"expected no search, got {[(s['tool'][13:], s['args'].get('area')) for s in obs.searches]}"
    return None


def _consent_diet(obs: Observed) -> str | None:
    """The diet the 同意 button's token carries, else the one diet label the prompt names."""
    from local_agent.listings import catalogue
    from local_agent.turns.commands import parse_postback

    parsed = parse_postback(obs.buttons.get("同意", ""))
    if parsed:
        return parsed[1]
    named = [code for code, label in catalogue.DIETARY_TYPES.items() if f"「{label}」" in obs.all_text]
    return named[0] if len(named) == 1 else None


def _diet_label(code: str) -> str:
    from local_agent.listings import catalogue

    return catalogue.dietary_label(code)


def _first(*reasons: str | None) -> str | None:
    return next((r for r in reasons if r), None)


def _search_each(e: dict[str, Any], o: Observed) -> str | None:
    got = {(s["tool"], s["args"].get("area")) for s in o.searches}
    missing = [a for a in e["areas"] if (TOOLS[e["tool"]], a) not in got]
    return f"expected searches in {e['areas']}, missing {missing}" if missing else None


def _ask_which(e: dict[str, Any], o: Observed) -> str | None:
    named = all(_short(a) in o.all_text for a in e["areas"])
    return _first(_no_search(o), None if named else f"expected a question naming {e['areas']}")


def _says(cond: bool, what: str, o: Observed) -> str | None:
    return None if cond else f"expected {what}, got {o.all_text[:40]!r}"


def _kept_answer(e: dict[str, Any], o: Observed) -> str | None:
    diet = e["dietary_type"]
    if diet is None:
        return _first(_no_search(o), _says("沒有" in o.all_text, "an answer that nothing is kept", o))
    label_ok = _diet_label(diet) in o.all_text and ("忘記" in o.all_text or "刪除" in o.all_text)
    return _first(
        _no_search(o),
        None if o.after == o.before else "the preference changed",
        None if "同意" not in o.buttons else "a consent prompt, not what is kept",
        _says(label_ok, f"what is kept ({_diet_label(diet)}) and how to delete it", o),
    )


def _short_answer(o: Observed) -> str | None:
    from local_agent.agent.offline_rules import ASK_TOWNSHIP

    fitting = (
        bool(o.texts)
        and not any(w in o.all_text for w in ("停車", "公車"))
        and ASK_TOWNSHIP not in o.all_text
    )
    return _first(
        _no_search(o),
        None if o.after == o.before and "同意" not in o.buttons else "a preference prompt or change",
        _says(fitting, "a short answer that fits (no parking/bus text, no township question)", o),
    )


def _granted(o: Observed) -> bool:
    return o.after[0] == "granted" and o.after[1] is not None


def _forgotten(o: Observed) -> str | None:
    if o.before[0] != "granted":
        return "setup: nothing was remembered before this turn"
    return None if not _granted(o) and o.after[1] is None else f"expected forgotten, still {o.after}"


def asked_about_preference(o: Observed) -> bool:
    """The reply offers buttons to act on the preference: 確定忘記, or the three-way question."""
    return "確定忘記" in o.buttons or all(b in o.buttons for b in THREE_WAY)


def _preference_question(o: Observed) -> str | None:
    return _first(
        _no_search(o),
        None if o.after == o.before else f"the preference changed to {o.after}",
        _says(asked_about_preference(o), "a 確定忘記 or remember/delete/show question with buttons", o),
    )


def _forget_confirm(o: Observed) -> str | None:
    asked = "確定忘記" in o.buttons and o.after == o.before
    return None if asked else f"expected the 確定忘記 / 不用 question, got {o.all_text[:30]!r} {o.after}"


CHECKS: dict[str, Callable[[dict[str, Any], Observed], str | None]] = {
    "search": _search_ok,
    "search_each": _search_each,
    "ask_which": _ask_which,
    "ask_township": lambda e, o: _first(
        _no_search(o), _says("哪個鄉鎮" in o.all_text, "請問是哪個鄉鎮？", o)
    ),
    "confirm_township": lambda e, o: _first(
        _no_search(o),
        _says(_short(e["area"]) in o.all_text and "是" in o.buttons, f"「您是說{e['area']}嗎？」 with 是", o),
    ),
    "not_area": lambda e, o: (
        f"searched {e['area']}" if any(s["args"].get("area") == e["area"] for s in o.searches) else None
    ),
    "only_changhua": lambda e, o: _first(
        _no_search(o),
        _says("彰化" in o.all_text and ("只" in o.all_text or "僅" in o.all_text), "only Changhua", o),
    ),
    "consent_prompt": lambda e, o: _first(
        None if "同意" in o.buttons else f"expected a consent prompt, got {o.all_text[:30]!r}",
        None
        if _consent_diet(o) == e["dietary_type"]
        else f"prompt for {_consent_diet(o)}, not {e['dietary_type']}",
        None if o.after == o.before else "the preference changed before consent",
    ),
    "consent_granted": lambda e, o: (
        None
        if o.after == ("granted", e["dietary_type"])
        else f"expected {e['dietary_type']} granted, got {o.after}"
    ),
    "not_granted": lambda e, o: (
        None if o.after[0] != "granted" else f"expected nothing stored, got {o.after}"
    ),
    "forgotten": lambda e, o: _forgotten(o),
    "forget_confirm": lambda e, o: _forget_confirm(o),
    "kept": lambda e, o: (
        None if _granted(o) and o.after == o.before else f"expected the preference kept, got {o.after}"
    ),
    "kept_answer": _kept_answer,
    "no_consent_prompt": lambda e, o: _first(
        None if "同意" not in o.buttons else "a consent prompt", None if o.after == o.before else "changed"
    ),
    "help": lambda e, o: _first(
        _no_search(o), _says("店家" in o.all_text and "活動" in o.all_text, "what LOCAL can do", o)
    ),
    "short_answer": lambda e, o: _short_answer(o),
    "preference_question": lambda e, o: _preference_question(o),
    "honest_unsupported": lambda e, o: _first(
        _no_search(o), _says("停車" in o.all_text or "公車" in o.all_text, "an honest 停車/公車 answer", o)
    ),
}


def check(expect: dict[str, Any], obs: Observed) -> str | None:
    """None when ``obs`` is what ``expect`` asks for, else a short reason."""
    if "any" in expect:
        reasons = [check(e, obs) for e in expect["any"]]
        return None if any(r is None for r in reasons) else " / ".join(r for r in reasons if r)
    if "all" in expect:
        return _first(*(check(e, obs) for e in expect["all"]))
    return CHECKS[expect["outcome"]](expect, obs)


def forgot_or_confirmed(obs: Observed) -> bool:
    """The delete-request figure: the turn forgot the diet, or asked with buttons that can delete it
    (確定忘記 / 不用, or the remember / delete / show question); with nothing kept, said that nothing is."""
    nothing_kept = (
        obs.before[0] != "granted" and not _granted(obs) and not obs.searches and "沒有" in obs.all_text
    )
    return (
        _forgotten(obs) is None
        or _forget_confirm(obs) is None
        or _preference_question(obs) is None
        or nothing_kept
    )


# -- running ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnClass:
    """One turn's outcome for the privacy figures. ``kind``: "delete" (marked ``delete_request``),
    "remember" (marked ``remember_request``, or expecting a consent prompt), or None; ``outcome``:
    act (forgot, or said nothing is kept / offered consent), ask (buttons about the preference) or pass (anything else)."""

    kind: str | None
    outcome: str
    clear: bool  # its expectation is the act alone (a clear command)
    unasked_delete: bool  # it forgot a kept diet while not marked delete_request (nor answering a 確定忘記)
    kept_answer: bool  # a delete/stop request answered 「已經記住」 / 「會繼續套用」


def _expects(expect: dict[str, Any], outcome: str) -> bool:
    if "any" in expect or "all" in expect:
        return any(_expects(e, outcome) for e in expect.get("any", expect.get("all", [])))
    return expect.get("outcome") == outcome


def classify_turn(turn: dict[str, Any], obs: Observed, answering_forget: bool) -> TurnClass:
    expect = turn.get("expect") or {}
    kind = "delete" if turn.get("delete_request") else None
    if (
        kind is None
        and "text" in turn
        and (turn.get("remember_request") or _expects(expect, "consent_prompt"))
    ):
        kind = "remember"
    forgot = obs.before[0] == "granted" and not _granted(obs)
    nothing_kept = obs.before[0] != "granted" and forgot_or_confirmed(obs)  # said that nothing is kept
    acted = (forgot or nothing_kept) if kind == "delete" else "同意" in obs.buttons and kind == "remember"
    outcome = "act" if acted else "ask" if asked_about_preference(obs) else "pass"
    act_name = "forgotten" if kind == "delete" else "consent_prompt"
    clear = expect.get("outcome") == act_name
    unasked = (
        forgot and kind != "delete" and "text" in turn and not answering_forget and not turn.get("setup")
    )
    kept = kind == "delete" and any(w in obs.all_text for w in ("會繼續套用", "已經記住"))
    return TurnClass(kind, outcome, clear, unasked, kept)


@dataclass
class ItemResult:
    item: Item
    failures: list[str] = field(default_factory=list)
    deletes: list[bool] = field(default_factory=list)  # one per delete_request turn: forgot or confirmed
    turns: list[TurnClass] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def setup_turns(item: Item) -> list[dict[str, Any]]:
    if item.given_diet is None:
        return []
    consented = {"outcome": "consent_granted", "dietary_type": item.given_diet}
    return [
        {"text": GIVEN_SETUP[item.given_diet], "setup": True},
        {"tap": "同意", "setup": True, "expect": consented},
    ]


async def _preference(driver: Any, user: str) -> tuple[str, str | None]:
    state = await asyncio.to_thread(driver.app.state.wiring.service.preferences.get, user)
    return state.consent, state.dietary_type


async def observe(driver: Any, user: str, turn: dict[str, Any]) -> Observed:
    """Send one turn as ``user`` in the 1:1 chat and observe what the service did."""
    before = await _preference(driver, user)
    if "tap" in turn:
        result = await driver.tap(user, turn["tap"])
    else:
        result = await driver.send_text(user, turn["text"])
    obs = Observed(before=before, after=await _preference(driver, user))
    obs.texts = [r.get("text", "") for r in result.replies if r.get("type") == "text"]
    obs.buttons = {str(a.get("label")): str(a.get("data", "")) for a in result.quick_replies}
    obs.searches = [
        {"tool": c["tool"], "args": c["effective_arguments"], "origin": c["preference_origin"]}
        for c in result.tool_calls
        if c.get("effective_arguments")
    ]
    return obs


async def run_item(driver: Any, item: Item, user: str) -> ItemResult:
    from examples.day15.replay import NoSuchQuickReply

    out = ItemResult(item)
    answering_forget = False  # the last answer asked 確定忘記 / 不用: a typed 「好」 answers it
    for n, turn in enumerate([*setup_turns(item), *item.turns]):
        if "advance_seconds" in turn:
            driver.advance(turn["advance_seconds"])
            continue
        label = "setup" if turn.get("setup") else f"turn {n}"
        try:
            obs = await observe(driver, user, turn)
        except NoSuchQuickReply as exc:
            out.failures.append(f"{label} ({turn.get('tap')}): {exc}")
            break
        if turn.get("delete_request"):
            out.deletes.append(forgot_or_confirmed(obs))
        if not turn.get("setup"):
            out.turns.append(classify_turn(turn, obs, answering_forget))
        answering_forget = "確定忘記" in obs.buttons
        reason = check(turn["expect"], obs) if "expect" in turn else None
        if reason:
            out.failures.append(f"{label} ({turn.get('text') or turn.get('tap')}): {reason}")
    return out


async def run_phrasings(items: list[Item], progress: Callable[[int], None] | None = None) -> list[ItemResult]:
    """Every item through the replay path (the real app, signed webhooks, fake LINE API, SQLite),
    one driver, one user per item, the service clock fixed at ``FIXED_NOW``."""
    from examples.day15.replay import ReplayDriver

    results: list[ItemResult] = []
    async with ReplayDriver.open(start_at=FIXED_NOW) as driver:
        for n, item in enumerate(items):
            results.append(await run_item(driver, item, f"Uphrase{n:026d}"))
            if progress:
                progress(n)
    return results


# -- reporting -------------------------------------------------------------------------------------


def _rate(oks: list[bool]) -> str:
    if not oks:
        return f"{'-':>14}"
    return f"{sum(oks):>4}/{len(oks):<4}{sum(oks) / len(oks):>6.1%}"


def tally(results: list[ItemResult]) -> dict[str, dict[str, list[bool]]]:
    """category -> half -> one bool per item."""
    table: dict[str, dict[str, list[bool]]] = defaultdict(lambda: {h: [] for h in HALVES})
    for r in results:
        table[r.item.category][r.item.half].append(r.ok)
    return table


def delete_figure(results: list[ItemResult], half: str | None = None) -> tuple[int, int]:
    hits = [d for r in results if half in (None, r.item.half) for d in r.deletes]
    return sum(hits), len(hits)


def report(results: list[ItemResult], seconds: float, show: int, show_test: bool) -> tuple[str, str]:
    """The table (per category, both halves) with the failures, and the figures for the KEY line."""
    table = tally(results)
    lines = [
        f"Phrasing corpus: {len(results)} conversations ({DATA.name}), clock fixed at 2026-12-01 10:00 "
        f"Taiwan, {seconds:.1f} s",
        "",
        f"  {'category':<28}{'dev':>14}{'test':>14}{'all':>14}",
    ]
    for cat in CATEGORIES:
        if cat in table:
            d, t = table[cat]["dev"], table[cat]["test"]
            lines.append(f"  {cat:<28}{_rate(d):>14}{_rate(t):>14}{_rate(d + t):>14}")
    dev = [r.ok for r in results if r.item.half == "dev"]
    test = [r.ok for r in results if r.item.half == "test"]
    lines.append(f"  {'overall':<28}{_rate(dev):>14}{_rate(test):>14}{_rate(dev + test):>14}")
    figures = {h: delete_figure(results, h) for h in ("dev", "test", None)}
    cells = [f"{ok}/{n} ({ok / n:.1%})" if n else "-" for ok, n in figures.values()]
    lines.append(
        f"  {'delete requests: forget or confirm':<36} dev {cells[0]}, test {cells[1]}, all {cells[2]}"
    )
    lines += _by_batch(results)
    lines += shape_lines(results)
    lines += outcome_lines(results)
    lines += _failures(results, show, show_test)
    ok_all, n_all = figures[None]
    rates = {"dev": dev, "test": test}
    key = "; ".join(
        [f"phrasings_n={len(results)}"]
        + [f"phrasings_{h}={sum(oks) / len(oks):.3f}" for h, oks in rates.items() if oks]
        + ([f"delete_forget_or_confirm={ok_all / n_all:.3f}"] if n_all else [])
    )
    return "\n".join(lines), key


def outcome_figures(results: list[ItemResult]) -> dict[str, Any]:
    """Per intent (delete, remember) the act / ask / pass counts, and the privacy counts: ignored
    delete/stop requests, deletions on a sentence that did not ask, 「已經記住 / 會繼續套用」 answers
    to a stop request, asks on clear commands (of how many)."""
    turns = [t for r in results for t in r.turns]
    rates = {
        kind: {o: sum(1 for t in turns if t.kind == kind and t.outcome == o) for o in ("act", "ask", "pass")}
        for kind in ("delete", "remember")
    }
    clear = [t for t in turns if t.kind and t.clear]
    return {
        "rates": rates,
        "ignored_deletes": rates["delete"]["pass"],
        "unasked_deletions": sum(t.unasked_delete for t in turns),
        "kept_answers_to_stop": sum(t.kept_answer for t in turns),
        "asks_on_clear": (sum(1 for t in clear if t.outcome == "ask"), len(clear)),
    }


def outcome_lines(results: list[ItemResult]) -> list[str]:
    f = outcome_figures(results)
    lines = ["", f"  {'act / ask / pass':<28}{'act':>8}{'ask':>8}{'pass':>8}"]
    for kind, label in (("delete", "delete requests"), ("remember", "remember requests")):
        row = f["rates"][kind]
        n = sum(row.values()) or 1
        cells = "".join(f"{row[o] / n:>8.1%}" for o in ("act", "ask", "pass"))
        lines.append(f"  {f'{label} ({sum(row.values())})':<28}{cells}")
    asks, clear = f["asks_on_clear"]
    lines += [
        f"  ignored delete/stop requests: {f['ignored_deletes']}; deletions nobody asked for: "
        f"{f['unasked_deletions']}; 「會繼續套用」 to a stop request: {f['kept_answers_to_stop']}; "
        f"asks on clear commands: {asks}/{clear}" + (f" ({asks / clear:.1%})" if clear else ""),
    ]
    return lines


def turn_oks(result: ItemResult) -> list[bool]:
    """One bool per turn of ``result`` that has an expectation (setup turns excluded), in order."""
    offset = len(setup_turns(result.item))
    failed = {f.split(" ", 2)[1] for f in result.failures if f.startswith("turn ")}
    return [str(offset + n) not in failed for n, turn in enumerate(result.item.turns) if "expect" in turn]


def shape_figures(results: list[ItemResult], half: str | None = None) -> dict[str, tuple[int, int]]:
    """Single-message conversations (one turn to judge: the item passes or not) and the turns of
    longer conversations, each judged on its own: (passed, of how many)."""
    single: list[bool] = []
    turns: list[bool] = []
    for r in results:
        if half not in (None, r.item.half):
            continue
        oks = turn_oks(r)
        if len(oks) == 1:
            single.append(r.ok)
        else:
            turns += oks
    return {"single": (sum(single), len(single)), "conversation_turns": (sum(turns), len(turns))}


def shape_lines(results: list[ItemResult]) -> list[str]:
    lines = ["", f"  {'by shape':<28}{'dev':>14}{'test':>14}{'all':>14}"]
    figures = {h: shape_figures(results, h) for h in ("dev", "test", None)}
    for name, label in (("single", "single-message"), ("conversation_turns", "conversation turns")):
        cells = []
        for h in ("dev", "test", None):
            ok, n = figures[h][name]
            cells.append(f"{ok:>4}/{n:<4}{ok / n:>6.1%}" if n else f"{'-':>14}")
        lines.append(f"  {label:<28}" + "".join(f"{c:>14}" for c in cells))
    return lines


def _by_batch(results: list[ItemResult]) -> list[str]:
    """Each batch's halves: a batch written after the rules were tuned on the earlier ones shows how
    the rules do on sentences nobody tuned them for."""
    batches = sorted({r.item.batch for r in results})
    if len(batches) < 2:
        return []
    lines = ["", f"  {'by batch (order written)':<28}{'dev':>14}{'test':>14}{'all':>14}"]
    for b in batches:
        dev = [r.ok for r in results if r.item.batch == b and r.item.half == "dev"]
        test = [r.ok for r in results if r.item.batch == b and r.item.half == "test"]
        lines.append(f"  {f'batch {b}':<28}{_rate(dev):>14}{_rate(test):>14}{_rate(dev + test):>14}")
    return lines


def _failures(results: list[ItemResult], show: int, show_test: bool) -> list[str]:
    halves = HALVES if show_test else ("dev",)
    failed = [r for r in results if not r.ok and r.item.half in halves]
    hidden = sum(1 for r in results if not r.ok and r.item.half not in halves)
    lines: list[str] = []
    if failed:
        lines += [
            "",
            f"Failures, {' and '.join(halves)} half ({len(failed)}, first {min(show, len(failed))}):",
        ]
        for r in failed[:show]:
            lines.append(f"  [{r.item.id} {r.item.category}] {r.item.name}")
            lines.extend(f"      {f}" for f in r.failures)
    if hidden:
        lines.append(f"  ({hidden} test-half failures not shown: tune on the development half)")
    return lines


def csv_rows(results: list[ItemResult], show_test: bool) -> list[list[str]]:
    """One row per conversation; ``delete_requests`` is how many of its delete requests forgot or
    confirmed, of how many. Test-half failure reasons only with ``show_test``."""
    rows = [["id", "category", "batch", "half", "ok", "delete_requests", "failures"]]
    for r in results:
        shown = r.item.half == "dev" or show_test
        deletes = f"{sum(r.deletes)}/{len(r.deletes)}" if r.deletes else ""
        reasons = " | ".join(r.failures) if shown else ""
        rows.append(
            [r.item.id, r.item.category, str(r.item.batch), r.item.half, str(int(r.ok)), deletes, reasons]
        )
    return rows
