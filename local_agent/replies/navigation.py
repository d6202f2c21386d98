"""The app's own buttons: quick replies after a result, the township picker, the rich menu.

Each is a postback whose data this module writes and reads back (``parse``); the data names only
fixed words, a goal, a township, a region number or a diet code, never user text. Anything under
``local:nav:`` that does not parse is :data:`INVALID` (an answer, not a crash).

The township picker offers the townships that have listings of the kind asked for. LINE shows at
most 13 quick-reply items: up to 13 townships are one tap each; more are grouped into the county's
four areas (:data:`REGIONS`), so any township is two taps away. Townships come in the county's
official order (cities first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from local_agent.context.projection import PUBLIC_TOPICS
from local_agent.context.townships import TOWNSHIPS, canonical_township
from local_agent.replies.reply import MAX_CHOICES, Choice

PREFIX = "local:nav:"
HELP = PREFIX + "help"
PREFERENCE = PREFIX + "pref"

NavKind = Literal["more", "help", "pref", "pick", "town", "remember", "invalid"]

# The county's 26 townships in four areas of 6-7 each (a picker's first step).
REGIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("彰化市周邊", ("彰化市", "花壇鄉", "芬園鄉", "和美鎮", "線西鄉", "伸港鄉", "秀水鄉")),
    ("鹿港海線", ("鹿港鎮", "福興鄉", "埔鹽鄉", "芳苑鄉", "大城鄉", "二林鎮")),
    ("員林一帶", ("員林市", "大村鄉", "永靖鄉", "埔心鄉", "社頭鄉", "田中鎮", "二水鄉")),
    ("溪湖北斗", ("溪湖鎮", "北斗鎮", "田尾鄉", "埤頭鄉", "溪州鄉", "竹塘鄉")),
)
GOAL_WORDS = {"places": "美食", "events": "活動"}
# What a 「再找一家」 button says for the user, per goal (the model reads it as a request for more).
MORE_LABELS = {"places": "再找一家", "events": "還有別的活動嗎"}
PICK_TEXT = {"places": "想找哪個鄉鎮的美食？請選：", "events": "想找哪個鄉鎮的活動？請選："}
PICK_REGION_TEXT = {
    "places": "想找哪裡的美食？請先選區域：",
    "events": "想找哪裡的活動？請先選區域：",
}


@dataclass(frozen=True)
class Nav:
    """A parsed button: ``kind`` and what it names (validated: a public goal, a canonical
    township, a region index in range, a diet code as written — the caller checks the code)."""

    kind: NavKind
    goal: str = ""
    township: str = ""
    region: int | None = None
    diet: str = ""


INVALID = Nav("invalid")


def more(goal: str) -> str:
    return f"{PREFIX}more:{goal}"


def pick(goal: str, region: int | None = None) -> str:
    return f"{PREFIX}pick:{goal}" + ("" if region is None else f":{region}")


def town(goal: str, township: str) -> str:
    return f"{PREFIX}town:{goal}:{township}"


def remember(diet: str) -> str:
    return f"{PREFIX}remember:{diet}"


def is_nav(data: str) -> bool:
    return isinstance(data, str) and data.startswith(PREFIX)


def parse(data: str) -> Nav | None:
    """The button ``data`` names; None when it is not one of these buttons, :data:`INVALID` when it
    looks like one but does not parse (a forged or outdated tap)."""
    if not is_nav(data):
        return None
    parts = data[len(PREFIX) :].split(":")
    head, args = parts[0], parts[1:]
    if head == "help" and not args:
        return Nav("help")
    if head == "pref" and not args:
        return Nav("pref")
    if head == "more" and len(args) == 1 and args[0] in PUBLIC_TOPICS:
        return Nav("more", goal=args[0])
    if head == "pick" and len(args) in (1, 2) and args[0] in PUBLIC_TOPICS:
        if len(args) == 1:
            return Nav("pick", goal=args[0])
        if args[1].isdigit() and int(args[1]) < len(REGIONS):
            return Nav("pick", goal=args[0], region=int(args[1]))
        return INVALID
    if head == "town" and len(args) == 2 and args[0] in PUBLIC_TOPICS:
        township = canonical_township(args[1])
        return Nav("town", goal=args[0], township=township) if township == args[1] else INVALID
    if head == "remember" and len(args) == 1 and args[0].isascii() and args[0].replace("_", "").isalpha():
        return Nav("remember", diet=args[0])
    return INVALID


def town_choice(goal: str, township: str, label: str | None = None) -> Choice:
    words = GOAL_WORDS.get(goal, "")
    return Choice(label or township, town(goal, township), f"{township}的{words}")


def picker(goal: str, townships: Sequence[str]) -> tuple[str, tuple[Choice, ...]]:
    """``(question, choices)``: one tap per township when they fit in 13 items, else the areas
    that have any of them (each then lists its own)."""
    towns = sorted({t for t in townships if canonical_township(t) == t}, key=TOWNSHIPS.index)
    if len(towns) <= MAX_CHOICES:
        return PICK_TEXT[goal], tuple(town_choice(goal, t) for t in towns)
    choices = []
    for index, (name, members) in enumerate(REGIONS):
        count = sum(t in members for t in towns)
        if count:
            choices.append(Choice(f"{name}（{count}）", pick(goal, index), name))
    return PICK_REGION_TEXT[goal], tuple(choices)


def region_picker(goal: str, region: int, townships: Sequence[str]) -> tuple[str, tuple[Choice, ...]]:
    """The second step: the townships of one area that have listings of this kind."""
    name, members = REGIONS[region]
    towns = [t for t in members if t in set(townships)]
    return f"{name}：請選鄉鎮", tuple(town_choice(goal, t) for t in towns)


__all__ = [
    "HELP",
    "INVALID",
    "PREFERENCE",
    "PREFIX",
    "REGIONS",
    "Nav",
    "is_nav",
    "more",
    "parse",
    "pick",
    "picker",
    "region_picker",
    "remember",
    "town",
    "town_choice",
]
