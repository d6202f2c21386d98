"""Deterministic commands, handled before any model: consent prompt, consent answer, forget, help.

Matching reads intent, not substrings: forget fires only on an affirmative request (「忘記我的
飲食偏好」); a negated one (「不要忘記我的飲食偏好喔」) is declined without touching anything, a
question (「你會不會忘記我的飲食偏好？」) gets a 確定忘記 / 不用 quick reply instead of acting, and a
sentence that merely contains the words (「記得那家素食店在哪嗎」) is no command. Help answers
「說明」, 「怎麼用」, 「help」, 「?」 and a bare greeting alike.

Preferences are personal: in a group or room, remember/forget answer with a pointer to the 1:1
chat and show no button. Consent buttons carry signed tokens (``turns/consent.py``); a tap that
fails the check changes nothing and gets ``TAP_REFUSED``. The old ``local:consent:yes:<diet>``
form is refused the same way.

They change the preference store (each change bumps ``preference_revision``) and, on forget,
clear the scope's journal. If the clear fails, the revision mismatch still guarantees the old
window is never read again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from local_agent.context.errors import StaleContextError, StoreError
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.listings import catalogue
from local_agent.replies.render import HELP_TEXT, consent_choices
from local_agent.replies.reply import Choice, CommandName, Reply
from local_agent.stores.ports import AuditStore, PreferenceState, PreferenceStore
from local_agent.turns.consent import ConsentTokens, is_consent_data

# Affirmative forget requests: a forget verb with what it is about. 「不要記住我」 asks to stop
# remembering, so it is a forget request too.
FORGET_VERBS = ("忘記", "忘掉", "刪除", "刪掉", "清除", "清掉", "取消")
FORGET_OBJECTS = ("偏好", "我吃", "飲食", "素別", "記住的", "記得的")
STOP_REMEMBERING = ("不要記住我", "別記住我", "不用記住我", "不要再記住我", "別再記住我")
NEGATIONS = ("不要", "不用", "不必", "不需要", "別", "甭", "勿", "不可以", "不能")
QUESTION_MARKERS = (
    "會不會",
    "能不能",
    "可不可以",
    "可以",
    "是不是",
    "要不要",
    "嗎",
    "？",
    "?",
    "怎麼",
    "如何",
    "呢",
)
# A remember request starts with the verb about the speaker: 「記住我吃素」, 「幫我記住我吃全素」.
# 「記得那家素食店在哪嗎」 mentions the word and a diet but asks about a shop: not a request.
_REMEMBER = re.compile(r"^(?:請|麻煩)?(?:你)?(?:幫我)?(?:記住|記得|記下|記)(?:一下)?(?:我|：|:)")
HELP_WORDS = (
    "help",
    "幫助",
    "說明",
    "使用說明",
    "你會做什麼",
    "你可以做什麼",
    "怎麼用",
    "要怎麼用",
    "?",
    "？",
    "hi",
    "hello",
    "hey",
    "你好",
    "您好",
    "哈囉",
    "嗨",
    "早安",
    "午安",
    "晚安",
    "安安",
    "在嗎",
)
_TRAILING = re.compile(r"[!！.。~～、,，呀啊喔哦唷]+$")

# What a text message can ask for without the model.
TextCommand = Literal["forget", "forget_confirm", "forget_declined", "consent_prompt", "help"]
ForgetMatch = Literal["forget", "forget_confirm", "forget_declined"]

FORGET_YES = "local:forget:yes"
FORGET_NO = "local:forget:no"
IN_PRIVATE_ONLY = (
    "飲食偏好只在您和我的一對一聊天裡設定或刪除，群組裡不會使用、也不會顯示任何人的偏好。"
    "請點我的頭像，在一對一聊天裡說「記住我吃素」。"
)
NOT_DELETED = "好的，不會刪除您的飲食偏好。"
TAP_REFUSED = (
    "這個按鈕已經失效，或不是給您的，所以沒有變更任何設定。想設定飲食偏好，請再說一次「記住我吃素」。"
)
FORGET_QUESTION = "要刪除我記住的飲食偏好嗎？"


@dataclass(frozen=True)
class CommandResult:
    reply: Reply
    command: CommandName
    revision: int | None = None


def compact_text(text: str) -> str:
    """The text as commands read it: no ASCII or full-width spaces (voice input adds them)."""
    return text.strip().replace(" ", "").replace("　", "")


def _negated_before(compact: str, at: int) -> bool:
    """A negation word ends right before ``at`` (「不要忘記」, 「別刪除」, 「不用幫我清除」)."""
    head = compact[max(0, at - 5) : at]
    head = head.removesuffix("幫我").removesuffix("再").removesuffix("幫我")
    if any(head.endswith(q) for q in ("會不會", "能不能", "可不可以", "要不要", "是不是")):
        return False  # 「能不能忘記…」 asks; it does not refuse
    return any(head.endswith(n) for n in NEGATIONS)


def _is_question(compact: str) -> bool:
    return any(q in compact for q in QUESTION_MARKERS)


def match_forget(compact: str) -> ForgetMatch | None:
    """ "forget" (an affirmative request), "forget_confirm" (a question about it: ask first),
    "forget_declined" (negated: 「不要忘記我的飲食偏好」) or None (not about forgetting)."""
    if any(w in compact for w in STOP_REMEMBERING):
        return "forget_confirm" if _is_question(compact) else "forget"
    hits = [
        (compact.find(v), v)
        for v in FORGET_VERBS
        if v in compact and any(o in compact[compact.find(v) :] for o in FORGET_OBJECTS)
    ]
    if not hits:
        return None
    at, _ = min(hits)
    if compact[:at].endswith("我") and not compact[:at].endswith("幫我"):
        return None  # 「我忘記我吃什麼了」: the speaker forgot something, no request
    if _negated_before(compact, at):
        return "forget_declined"
    if _is_question(compact):
        return "forget_confirm"
    return "forget"


def match_text_command(text: str) -> TextCommand | None:
    compact = compact_text(text)
    forget = match_forget(compact)
    if forget is not None:
        return forget
    if _REMEMBER.match(compact) and not _is_question(compact) and catalogue.find_dietary_type(compact):
        return "consent_prompt"
    bare = _TRAILING.sub("", compact.lower()) or compact.lower()
    if bare in HELP_WORDS or compact.lower() in HELP_WORDS:
        return "help"
    return None


def parse_postback(data: str) -> tuple[bool, str] | None:
    """``(agree, dietary_type)`` as a consent token's data *says* (not verified), else None.
    Only ``ConsentTokens.check`` decides whether a tap may act."""
    parts = (data or "").split(":")
    if len(parts) != 8 or not is_consent_data(data) or parts[2] != "v2" or parts[3] not in ("yes", "no"):
        return None
    if parts[4] not in catalogue.DIETARY_TYPES:
        return None
    return parts[3] == "yes", parts[4]


class Commands:
    def __init__(
        self,
        *,
        preferences: PreferenceStore,
        journal: ContextJournal,
        clock: Callable[[], float],
        tokens: ConsentTokens | None = None,
        audit: AuditStore | None = None,
        help_text: str = HELP_TEXT,
    ) -> None:
        self.preferences, self.journal, self.clock = preferences, journal, clock
        self.help_text = help_text  # ends with the listings' own data line (``listings.toml``)
        self.tokens = tokens or ConsentTokens()
        self.audit = audit  # when given, a forget also scrubs the remembered diet from its audit rows

    def handle_text(
        self, scope: ScopeKey, text: str, kind: TextCommand | None = None
    ) -> CommandResult | None:
        """The command ``text`` is (``kind``, if the caller matched it already), or None.
        Personal commands in a group or room are answered with a pointer to the 1:1 chat."""
        kind = kind or match_text_command(text)
        if kind == "help":
            return CommandResult(Reply(texts=(self.help_text,)), "help")
        if kind == "forget_declined":
            return CommandResult(Reply(texts=(NOT_DELETED,)), "forget_declined")
        if kind in ("consent_prompt", "forget", "forget_confirm") and scope.source_type != "user":
            return CommandResult(Reply(texts=(IN_PRIVATE_ONLY,)), "private_only")
        if kind == "consent_prompt":
            diet = catalogue.find_dietary_type(compact_text(text))
            if diet is None:
                return None
            return self.consent_prompt(scope, diet)
        if kind == "forget_confirm":
            choices = (Choice("確定忘記", FORGET_YES, "確定忘記"), Choice("不用", FORGET_NO, "不用"))
            return CommandResult(Reply(texts=(FORGET_QUESTION,), choices=choices), "forget_confirm")
        if kind == "forget":
            return self.forget(scope)
        return None

    def consent_prompt(self, scope: ScopeKey, diet: str) -> CommandResult:
        """The question with two buttons whose data are consent tokens bound to this person, this
        chat, the current preference revision and an expiry."""
        label = catalogue.dietary_label(diet)
        revision = self.preferences.get(scope.user_id).revision
        now = self.clock()
        yes = self.tokens.issue(scope, agree=True, dietary_type=diet, revision=revision, now=now)
        no = self.tokens.issue(scope, agree=False, dietary_type=diet, revision=revision, now=now)
        reply = Reply(
            texts=(
                f"要我記住您的飲食偏好「{label}」嗎？同意後，在這個一對一聊天找店家時會先套用；"
                "隨時說「忘記我的飲食偏好」就會刪除。",
            ),
            choices=consent_choices(yes, no),
        )
        return CommandResult(reply, "consent_prompt", revision)

    def handle_postback(self, scope: ScopeKey, data: str) -> CommandResult | None:
        """A consent or forget button, or None when the data is not ours."""
        if data in (FORGET_YES, FORGET_NO):
            if scope.source_type != "user":
                return CommandResult(Reply(texts=(IN_PRIVATE_ONLY,)), "private_only")
            if data == FORGET_YES:
                return self.forget(scope)
            return CommandResult(Reply(texts=(NOT_DELETED,)), "forget_declined")
        if not is_consent_data(data):
            return None
        if scope.source_type != "user":
            return CommandResult(Reply(texts=(IN_PRIVATE_ONLY,)), "private_only")
        now = self.clock()
        revision = self.preferences.get(scope.user_id).revision
        check = self.tokens.check(scope, data, revision=revision, now=now)
        if not check.ok or check.dietary_type not in catalogue.DIETARY_TYPES:
            return CommandResult(Reply(texts=(TAP_REFUSED,)), "consent_tap_refused")
        diet = check.dietary_type
        try:  # recorded only while the revision is still the button's: one tap wins, anywhere
            state = self.preferences.set_consent(
                scope.user_id,
                consent="granted" if check.agree else "refused",
                dietary_type=diet if check.agree else None,
                now=now,
                expected_revision=revision,
            )
        except StaleContextError:
            return CommandResult(Reply(texts=(TAP_REFUSED,)), "consent_tap_refused")
        self._clear(scope)
        if check.agree:
            text = (
                f"好的，已記住「{catalogue.dietary_label(diet)}」。之後在這個一對一聊天找店家會先套用；"
                "說「忘記我的飲食偏好」就會刪除。"
            )
            return CommandResult(Reply(texts=(text,)), "consent_granted", state.revision)
        return CommandResult(
            Reply(texts=("好的，不會記住。找店家時不會套用任何飲食偏好。",)),
            "consent_refused",
            state.revision,
        )

    def forget(self, scope: ScopeKey) -> CommandResult:
        state = self._forget_person(scope)
        return CommandResult(
            Reply(texts=("已刪除您的飲食偏好，之後找店家不會再套用。",)), "forget", state.revision
        )

    def unfollow(self, scope: ScopeKey) -> int:
        """The person left (unfollow/block): their diet and consent are dropped and the revision
        moves, so every journal window of theirs (1:1 and group) and every consent button offered
        before becomes unreadable; the 1:1 journal is also deleted now. Returns the new revision."""
        return self._forget_person(scope).revision

    def _forget_person(self, scope: ScopeKey) -> PreferenceState:
        """Diet and consent dropped (the revision moves), the window cleared, and in the audit rows
        of this 1:1 chat the remembered diet replaced by ``FORGOTTEN_MARK``. A store failure
        raises: the caller says so (forget) or tries again (unfollow); each step can be repeated."""
        state = self.preferences.set_consent(
            scope.user_id, consent="forgotten", dietary_type=None, now=self.clock()
        )
        self._clear(scope)
        if self.audit is not None:
            self.audit.forget_audited_memory(scope.storage_id)
        return state

    def _clear(self, scope: ScopeKey) -> None:
        # The revision bump already made the old window unreadable; clearing is housekeeping.
        try:
            self.journal.clear(scope)
        except StoreError:
            pass
