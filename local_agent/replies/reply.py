"""A channel-neutral reply: what one turn answers, before any LINE type exists.

The LINE edge turns it into a TextMessage (+ QuickReply) and a Flex carousel; the terminal chat
and the replay render the very same object without LINE types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# What a card shows.
CardKind = Literal["place", "event"]
# The deterministic command that answered a turn without the model (``local_agent.turns.commands``,
# plus the greeting on follow, the introduction on join and the answer to a non-text message).
CommandName = Literal[
    "consent_prompt",
    "consent_granted",
    "consent_refused",
    "consent_tap_refused",
    "forget",
    "forget_confirm",
    "forget_declined",
    "kept",
    "already_kept",
    "private_only",
    "help",
    "greeting",
    "join",
    "unfollow",
    "media",
    "consent_hint",
    "unsupported_diet",
    "diet_change",
    "thanks",
    "small_talk",
    "preference_question",
    "which_diet",
    "unreadable",
    "picker",
    "nav_refused",
]

MAX_TEXT_UTF16 = 5000  # LINE text message limit, in UTF-16 code units
MAX_CARDS = 12  # bubbles in one Flex carousel
MAX_CHOICES = 13  # quick-reply items
MAX_CHOICE_LABEL = 20  # quick-reply action label, characters


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def clip_utf16(text: str, limit: int = MAX_TEXT_UTF16) -> str:
    """Cut ``text`` to at most ``limit`` UTF-16 units without splitting a surrogate pair."""
    if utf16_len(text) <= limit:
        return text
    out: list[str] = []
    used = 0
    for ch in text:
        size = 2 if ord(ch) > 0xFFFF else 1
        if used + size > limit - 1:
            break
        out.append(ch)
        used += size
    return "".join(out) + "…"


@dataclass(frozen=True)
class CardAction:
    """A button on a card that opens ``uri`` (a map search, a ``tel:`` call)."""

    label: str
    uri: str


@dataclass(frozen=True)
class Card:
    """One place or event, shown as a Flex bubble on LINE (its actions as buttons)."""

    title: str
    subtitle: str = ""
    lines: tuple[str, ...] = ()
    kind: CardKind = "place"
    actions: tuple[CardAction, ...] = ()


@dataclass(frozen=True)
class Choice:
    """A quick-reply choice. ``data`` is the postback data the service reads back; with ``sends_text``
    it is the text the tap sends as the person's own message (「是」 answering 「您是說員林市嗎？」)."""

    label: str
    data: str
    display_text: str = ""
    sends_text: bool = False


@dataclass(frozen=True)
class Reply:
    texts: tuple[str, ...] = ()
    cards: tuple[Card, ...] = ()
    choices: tuple[Choice, ...] = ()
    alt_text: str = ""
    error_code: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "texts", tuple(clip_utf16(t) for t in self.texts if t))
        object.__setattr__(self, "cards", tuple(self.cards[:MAX_CARDS]))
        object.__setattr__(self, "choices", tuple(self.choices[:MAX_CHOICES]))
