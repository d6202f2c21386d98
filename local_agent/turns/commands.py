"""Deterministic commands, handled before any model: consent prompt, consent answer, forget, help.

They change the preference store (each change bumps ``preference_revision``) and, on forget,
clear the scope's journal. If the clear fails, the revision mismatch still guarantees the old
window is never read again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from local_agent.context.errors import StoreError
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.listings import catalogue
from local_agent.replies.render import HELP_TEXT, consent_choices
from local_agent.replies.reply import CommandName, Reply
from local_agent.stores.ports import PreferenceStore

REMEMBER_WORDS = ("記住", "記得", "幫我記")
FORGET_WORDS = (
    "忘記我的飲食偏好",
    "忘記我的偏好",
    "刪除我的飲食偏好",
    "刪除我的偏好",
    "不要記住我",
    "忘記我吃",
)
HELP_WORDS = ("help", "幫助", "使用說明", "你會做什麼", "你可以做什麼", "怎麼用")

# What a text message can ask for without the model.
TextCommand = Literal["forget", "consent_prompt", "help"]

POSTBACK = re.compile(r"^local:consent:(yes|no):([a-z_]{1,20})$")


@dataclass(frozen=True)
class CommandResult:
    reply: Reply
    command: CommandName
    revision: int | None = None


def compact_text(text: str) -> str:
    """The text as commands read it: no ASCII or full-width spaces (voice input adds them)."""
    return text.strip().replace(" ", "").replace("　", "")


def match_text_command(text: str) -> TextCommand | None:
    compact = compact_text(text)
    if any(w in compact for w in FORGET_WORDS):
        return "forget"
    if any(compact.startswith(w) or w in compact[:6] for w in REMEMBER_WORDS) and catalogue.find_dietary_type(
        compact
    ):
        return "consent_prompt"
    if compact.lower() in HELP_WORDS:
        return "help"
    return None


def parse_postback(data: str) -> tuple[bool, str] | None:
    """``(agree, dietary_type)`` for our consent postbacks, else None (not ours)."""
    match = POSTBACK.match(data or "")
    if not match or match.group(2) not in catalogue.DIETARY_TYPES:
        return None
    return match.group(1) == "yes", match.group(2)


class Commands:
    def __init__(
        self, *, preferences: PreferenceStore, journal: ContextJournal, clock: Callable[[], float]
    ) -> None:
        self.preferences, self.journal, self.clock = preferences, journal, clock

    def handle_text(
        self, scope: ScopeKey, text: str, kind: TextCommand | None = None
    ) -> CommandResult | None:
        """The command ``text`` is (``kind``, if the caller matched it already), or None."""
        kind = kind or match_text_command(text)
        if kind == "help":
            return CommandResult(Reply(texts=(HELP_TEXT,)), "help")
        if kind == "consent_prompt":
            diet = catalogue.find_dietary_type(compact_text(text))
            if diet is None:  # no dietary type named after all: not a consent prompt
                return None
            label = catalogue.dietary_label(diet)
            reply = Reply(
                texts=(
                    f"要我記住您的飲食偏好「{label}」嗎？同意後，找店家時會先套用；"
                    "隨時說「忘記我的飲食偏好」就會刪除。",
                ),
                choices=consent_choices(diet),
            )
            return CommandResult(reply, "consent_prompt")
        if kind == "forget":
            return self.forget(scope)
        return None

    def handle_postback(self, scope: ScopeKey, data: str) -> CommandResult | None:
        parsed = parse_postback(data)
        if parsed is None:
            return None
        agree, diet = parsed
        now = self.clock()
        if agree:
            state = self.preferences.set_consent(scope.user_id, consent="granted", dietary_type=diet, now=now)
            self._clear(scope)
            text = (
                f"好的，已記住「{catalogue.dietary_label(diet)}」。之後找店家會先套用；"
                "說「忘記我的飲食偏好」就會刪除。"
            )
            return CommandResult(Reply(texts=(text,)), "consent_granted", state.revision)
        state = self.preferences.set_consent(scope.user_id, consent="refused", dietary_type=None, now=now)
        self._clear(scope)
        return CommandResult(
            Reply(texts=("好的，不會記住。找店家時不會套用任何飲食偏好。",)),
            "consent_refused",
            state.revision,
        )

    def forget(self, scope: ScopeKey) -> CommandResult:
        state = self.preferences.set_consent(
            scope.user_id, consent="forgotten", dietary_type=None, now=self.clock()
        )
        self._clear(scope)
        return CommandResult(
            Reply(texts=("已刪除您的飲食偏好，之後找店家不會再套用。",)), "forget", state.revision
        )

    def _clear(self, scope: ScopeKey) -> None:
        # The revision bump already made the old window unreadable; clearing is housekeeping.
        try:
            self.journal.clear(scope)
        except StoreError:
            pass
