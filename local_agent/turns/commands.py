"""Deterministic commands, handled before any model: consent prompt and answer, forget, what is
kept, help and small talk. What a message asks for is read by ``language/intents.py``.

Forget is never ignored: a clear request (「取消吃素」, 「把我吃素的資料刪掉」) forgets, an unclear or
asking one (「可以刪除我的偏好嗎？」) gets a 確定忘記 / 不用 quick reply, a negated one (「不要忘記我的
飲食偏好喔」) is declined without touching anything. A sentence that merely contains the words
(「記得那家素食店在哪嗎」) is no command.

Preferences are personal: in a group or room, remember/forget/what-is-kept answer with a pointer
to the 1:1 chat and show no button. Consent buttons carry signed tokens (``turns/consent.py``); a
tap that fails the check changes nothing and gets ``TAP_REFUSED``. The prompt's agree token is
also kept in the person's journal record, so a typed 「同意」/「好」/「可以」 right after it is
checked exactly like a tap (same person, revision and expiry); anything else gets a hint to tap.

A change of consent bumps ``preference_revision``; the window is then projected again under the
new revision (``ContextJournal.carry_over``), so the township survives and nothing of the
preference does. If that fails, the revision mismatch still guarantees the old window is never
read again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from local_agent import language
from local_agent.agent.tools import WHICH_DIET_TEXT
from local_agent.context.errors import StaleContextError, StoreError
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.language import diets, lexicon, policy
from local_agent.language.intents import Reading
from local_agent.language.text import has_any
from local_agent.language.utterance import Utterance
from local_agent.listings import catalogue
from local_agent.replies.render import (
    FORGET_NO,
    FORGET_YES,
    HELP_TEXT,
    IN_PRIVATE_ONLY,
    PREFERENCE_QUESTION,
    SMALL_TALK_TEXTS,
    THANKS_TEXT,
    UNREADABLE_TEXT,
    consent_choices,
    forget_choices,
    preference_choices,
)
from local_agent.replies.reply import CommandName, Reply
from local_agent.stores.ports import AuditStore, PreferenceState, PreferenceStore
from local_agent.turns.consent import ConsentTokens, is_consent_data
from local_agent.turns.kept import kept_reply

__all__ = ["FORGET_NO", "FORGET_YES", "IN_PRIVATE_ONLY", "Commands", "match_text_command", "parse_postback"]

# What a text message can ask for without the model.
TextCommand = Literal[
    "forget",
    "forget_confirm",
    "forget_declined",
    "consent_prompt",
    "consent_answer",
    "unsupported_diet",
    "show_kept",
    "diet_change",
    "help",
    "greeting",
    "thanks",
    "unreadable",
    "preference_question",
    "which_diet",
    "small_talk",
]
# Commands answered by fixed text: no store is touched (help and greeting: the help text, which
# ends with the listings' own data line).
STATIC: dict[str, tuple[str, CommandName]] = {
    "thanks": (THANKS_TEXT, "thanks"),
    "unreadable": (UNREADABLE_TEXT, "unreadable"),
    "which_diet": (WHICH_DIET_TEXT, "which_diet"),
}
_BY_INTENT: dict[str, TextCommand] = {
    "which_diet": "which_diet",
    "forget": "forget",
    "forget_confirm": "forget_confirm",
    "forget_declined": "forget_declined",
    "show_kept": "show_kept",
    "consent_yes": "consent_answer",
    "consent_no": "consent_answer",
    "consent_unclear": "consent_answer",
    "diet_change": "diet_change",
    "help": "help",
    "greeting": "greeting",
    "thanks": "thanks",
    "unreadable": "unreadable",
    "preference_question": "preference_question",
    "small_talk": "small_talk",
}

NOT_DELETED = "好的，不會刪除您的飲食偏好。"
TAP_REFUSED = (
    "這個按鈕已經失效，或不是給您的，所以沒有變更任何設定。想設定飲食偏好，請再說一次「記住我吃素」。"
)
FORGET_QUESTION = "要刪除我記住的飲食偏好嗎？"
FORGET_HINT = "請按下面的「確定忘記」或「不用」回答。" + FORGET_QUESTION


def forget_question_text(label: str | None) -> str:
    """The 確定忘記 / 不用 question for an unclear delete request: naming the kept diet when there is one."""
    return f"您是要刪除記住的「{label}」嗎？" if label else FORGET_QUESTION


# A 確定忘記 / 不用 question kept in the journal (no words: this prefix and its expiry) for a typed answer.
FORGET_OFFER = "local:forget:offer:"
# The same offer made by the 刪除偏好 button of what is kept: no question was asked, so a typed yes or
# no there is no answer to it (「好 沒錯 謝謝你喔」 agrees with what was shown); a delete request is.
SHOWN_OFFER = f"{FORGET_OFFER}shown:"
FORGET_OFFER_SECONDS = 600
# Text commands that may answer a live 確定忘記 / 不用 question (「好」, 「刪掉吧」, 「不用」).
FORGET_ANSWERS = ("consent_answer", "forget", "forget_confirm")
# In an unclear delete typed as the answer to 確定忘記, words of these classes leave it unclear.
_DOUBTS_A_DELETE = frozenset({"remember_verb", "keep_as_is", "hesitation", "question"})
TAP_HINT = "請按下面的「同意」或「不同意」回答；沒有回答前，我不會記住。"
NO_LIVE_PROMPT = "目前沒有等您同意的問題，沒有變更任何設定。想讓我記住飲食偏好，請說「記住我吃素」。"
EXPIRED_PROMPT = "剛才的問題已經過期，沒有變更任何設定。想讓我記住飲食偏好，請再說一次「記住我吃素」。"
FORGOTTEN = "已刪除您的飲食偏好，之後找店家不會再套用。"
NOTHING_TO_FORGET = "目前沒有記住您的飲食偏好，找店家時不會套用任何飲食限制。"
NOTHING_REMEMBERED = "好的。我沒有記住您的飲食偏好，找店家時不會套用任何飲食限制。"


def _forget_live(offered: str, now: float) -> bool:
    """``offered`` is a 確定忘記 marker (``FORGET_OFFER`` or ``SHOWN_OFFER`` and its expiry) that has
    not expired."""
    expires = offered.rpartition(":")[2]
    return offered.startswith(FORGET_OFFER) and expires.isdigit() and now < int(expires)


@dataclass(frozen=True)
class CommandResult:
    reply: Reply
    command: CommandName
    revision: int | None = None


def command_of(reading: Reading) -> TextCommand | None:
    if reading.intent == "remember":
        return "consent_prompt" if reading.diet else "unsupported_diet"
    return _BY_INTENT.get(reading.intent)


def match_text_command(text: str) -> TextCommand | None:
    return command_of(language.read(text).reading)


def unsupported_diet_text(named: str) -> str:
    return (
        f"「{named}」這種飲食習慣我還沒辦法長期記住。我能記住的飲食偏好有：{diets.rememberable_labels()}。"
        "其他的可以在每次找店家時直接說，例如「花壇有什麼素食」。"
    )


def parse_postback(data: str) -> tuple[bool, str] | None:
    """``(agree, dietary_type)`` as a consent token's data *says* (not verified), else None.
    Only ``ConsentTokens.check`` decides whether a tap may act."""
    parts = (data or "").split(":")
    if len(parts) != 8 or not is_consent_data(data) or parts[2] != "v2" or parts[3] not in ("yes", "no"):
        return None
    if parts[4] not in catalogue.DIETARY_TYPES:
        return None
    return parts[3] == "yes", parts[4]


def static_result(
    kind: TextCommand | None, scope: ScopeKey, said: Utterance | None, help_text: str = HELP_TEXT
) -> CommandResult | None:
    """The commands that need no store: fixed answers, and every personal one in a group (``said``:
    the message read, None for an empty one)."""
    if kind in ("help", "greeting"):
        return CommandResult(Reply(texts=(help_text,)), "help" if kind == "help" else "greeting")
    if kind in STATIC:
        answer, name = STATIC[kind]
        return CommandResult(Reply(texts=(answer,)), name)
    if kind == "forget_declined" and (scope.source_type != "user" or said is None or not said.diet.named):
        return CommandResult(Reply(texts=(NOT_DELETED,)), "forget_declined")
    if kind == "small_talk":
        talk = (said.talk if said else None) or ""
        return CommandResult(Reply(texts=(SMALL_TALK_TEXTS.get(talk, THANKS_TEXT),)), "small_talk")
    if kind == "unsupported_diet":
        named = (said.reading.unsupported if said else None) or ""
        return CommandResult(Reply(texts=(unsupported_diet_text(named),)), "unsupported_diet")
    if scope.source_type == "user":
        return None
    if kind == "consent_answer":  # no consent prompt lives in a group: 同意 points to the 1:1 chat,
        if said is not None and said.consent_only:  # anything else (是, 好) is the normal turn's
            return CommandResult(Reply(texts=(IN_PRIVATE_ONLY,)), "private_only")
        if said is not None and said.thanked:  # 「好，謝謝你喔」
            return static_result("thanks", scope, said)
        return None
    if kind == "diet_change":
        return CommandResult(Reply(texts=("好的，這次找店家不限定素食。",)), "diet_change")
    if kind in ("consent_prompt", "forget", "forget_confirm", "show_kept", "preference_question"):
        return CommandResult(Reply(texts=(IN_PRIVATE_ONLY,)), "private_only")
    return None


def _dropped(said: Utterance) -> bool:
    """A no that drops something (不要了, 不用了), said of something pointed at (那個) or read where the
    classifier is sure a kept preference is undone (a delete or a stop)."""
    scores = said.scores
    sure = scores is not None and scores.best in ("delete", "stop") and scores.confidence >= policy.HIGH
    pointed = has_any(said.form, lexicon.words_of("pointing"))
    return (sure or pointed) and said.intent == "consent_no" and any("drop" in t.classes for t in said.tokens)


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

    def read(self, text: str) -> Utterance:
        """A message read once (``language.read``) on this service's clock."""
        return language.read(text, self.clock())

    def handle_text(
        self, scope: ScopeKey, said: Utterance | str, kind: TextCommand | None = None
    ) -> CommandResult | None:
        """The command the message ``said`` is (its ``Utterance``, or a text read here once; ``kind``
        if the caller matched it already), or None. Personal commands in a group or room are answered
        with a pointer to the 1:1 chat."""
        said = said if isinstance(said, Utterance) else self.read(said)
        kind = kind or command_of(said.reading)
        offer = self._offered(scope) if kind in FORGET_ANSWERS and scope.source_type == "user" else None
        if offer is not None and _forget_live(offer[1], self.clock()):
            shown = offer[1].startswith(SHOWN_OFFER)  # (what is kept was shown; nothing was asked)
            if not (shown and said.intent in ("consent_yes", "consent_no")):
                return self.forget_answer(scope, said)
        fixed = static_result(kind, scope, said if said.text.strip() else None, self.help_text)
        if fixed is not None or kind is None:
            return fixed
        if kind == "consent_prompt":
            diet = said.reading.diet
            return self.consent_prompt(scope, diet) if diet else None
        if kind == "forget_declined":
            return self.keep_diet(scope, said)
        if kind == "consent_answer":
            return self.typed_answer(scope, said, offer)
        if kind == "show_kept":
            return self.show_kept(scope)
        if kind == "diet_change":
            return self.diet_change(scope)
        if kind == "forget_confirm":
            return self.unclear_forget(scope, said)
        if kind == "preference_question":
            return self.preference_question(said, scope)
        if kind == "forget":
            return self.forget(scope)
        return None

    def unclear_forget(self, scope: ScopeKey, said: Utterance) -> CommandResult:
        """An unclear delete request: the 確定忘記 / 不用 question naming the kept diet, or, with
        nothing kept, that nothing is (a question there would be one 「嗯」 from a needless write).
        No text: the desk's question for a model's proposal."""
        if not said.text.strip():
            return self.forget_question(FORGET_QUESTION, scope=scope)
        kept = self._kept_label(scope)
        if kept is None:
            return CommandResult(Reply(texts=(NOTHING_TO_FORGET,)), "kept")
        return self.forget_question(forget_question_text(kept), scope=scope)

    def forget_question(self, text: str = FORGET_QUESTION, *, scope: ScopeKey | None = None) -> CommandResult:
        """The 確定忘記 / 不用 question, asked before an unclear delete request acts. In the 1:1
        chat it is also kept as offered, so a typed 「好」 or 「刪掉吧」 answers it."""
        if scope is not None:
            self._offer_forget(scope)
        return CommandResult(Reply(texts=(text,), choices=forget_choices()), "forget_confirm")

    def _kept_label(self, scope: ScopeKey) -> str | None:
        state = self.preferences.get(scope.user_id)
        kept = state.consent == "granted" and state.dietary_type
        return catalogue.dietary_label(state.dietary_type or "") if kept else None

    def _kept_or_none(self, scope: ScopeKey) -> str | None:
        """The kept diet's label, or None when nothing is kept or the store cannot be read (then only
        the buttons answer the question)."""
        try:
            return self._kept_label(scope)
        except StoreError:
            return None

    def preference_question(self, said: Utterance, scope: ScopeKey | None = None) -> CommandResult:
        """「要我記住、刪除，還是看看記了什麼？」 with three buttons: the sentence touches the kept
        preference but does not say what it wants. Nothing changes until a button (or the same
        words typed) says. With a diet kept, its 刪除 button is offered as what is kept offers it,
        so a delete typed next (「對啦 刪除就好了」) answers it; a bare yes does not."""
        diet = said.diet.named
        label = catalogue.dietary_label(diet) if diet and diets.rememberable(diet) else None
        reply = Reply(texts=(PREFERENCE_QUESTION,), choices=preference_choices(label))
        if scope is not None and self._kept_or_none(scope) is not None:
            self._offer_forget(scope, SHOWN_OFFER)
        return CommandResult(reply, "preference_question")

    def show_kept(self, scope: ScopeKey) -> CommandResult:
        """What is kept; with a kept diet its 刪除偏好 button is offered, so 「那就刪掉吧」 answers it."""
        reply = kept_reply(self.preferences, scope)
        if reply.choices:
            self._offer_forget(scope, SHOWN_OFFER)
        return CommandResult(reply, "kept")

    def _offer_forget(self, scope: ScopeKey, marker: str = FORGET_OFFER) -> None:
        if scope.source_type != "user":
            return
        try:
            revision = self.preferences.get(scope.user_id).revision
            expires = int(self.clock()) + FORGET_OFFER_SECONDS
            self.journal.offer(scope, revision, f"{marker}{expires}")
        except StoreError:
            pass  # the buttons still work; only a typed answer is lost

    def _offered(self, scope: ScopeKey) -> tuple[int, str] | None:
        """``(revision, what the journal keeps as offered)`` (a consent token, a 確定忘記 marker or
        ""), read once per turn; None when the preference store cannot be read."""
        try:
            revision = self.preferences.get(scope.user_id).revision
        except StoreError:
            return None
        try:
            return revision, self.journal.offered(scope, revision)
        except StoreError:
            return revision, ""

    def forget_answer(self, scope: ScopeKey, said: Utterance) -> CommandResult:
        """A typed answer to a live 確定忘記 / 不用 question (or the 刪除偏好 button of what is kept):
        yes or a delete request forgets, no keeps, anything else asks again. An unclear delete
        (「那就刪掉吧」) answers it only when nothing in it keeps, asks or remembers: 「剛剛手滑差點
        按到刪除 沒事沒事 繼續記著」 tells of a delete and asks to keep, so it is asked again."""
        intent = said.intent
        doubted = any(token.classes & _DOUBTS_A_DELETE for token in said.tokens)
        if intent in ("consent_yes", "forget") or (intent == "forget_confirm" and not doubted):
            return self.forget(scope)
        if intent == "consent_no":
            return self._keep_answered(scope)
        return self.forget_question(FORGET_HINT, scope=scope)

    def _keep_answered(self, scope: ScopeKey) -> CommandResult:
        """不用 (tapped or typed) to the 確定忘記 question: nothing deleted, and the question withdrawn,
        so that a later 「好」 (「好 謝謝 就這樣」) is no yes to a delete the person already refused."""
        offer = self._offered(scope)
        if offer is not None and offer[1].startswith(FORGET_OFFER):
            try:
                self.journal.offer(scope, offer[0], "")
            except StoreError:
                pass  # the question expires on its own (FORGET_OFFER_SECONDS)
        return CommandResult(Reply(texts=(NOT_DELETED,)), "forget_declined")

    def consent_prompt(self, scope: ScopeKey, diet: str, *, lead: str = "") -> CommandResult:
        """The question with two buttons whose data are consent tokens bound to this person, this
        chat, the current preference revision and an expiry. The agree token is also kept in the
        person's journal record for a typed answer (a failure there only costs the typed path)."""
        label = catalogue.dietary_label(diet)
        state = self.preferences.get(scope.user_id)
        if state.consent == "granted" and state.dietary_type == diet and not lead:
            return CommandResult(Reply(texts=(f"「{label}」已經記住了，會繼續套用。",)), "already_kept")
        revision = state.revision
        now = self.clock()
        yes = self.tokens.issue(scope, agree=True, dietary_type=diet, revision=revision, now=now)
        no = self.tokens.issue(scope, agree=False, dietary_type=diet, revision=revision, now=now)
        try:
            self.journal.offer(scope, revision, yes)
        except StoreError:
            pass
        reply = Reply(
            texts=(
                f"{lead}要我記住您的飲食偏好「{label}」嗎？同意後，在這個一對一聊天找店家時會先套用；"
                "隨時說「忘記我的飲食偏好」就會刪除。",
            ),
            choices=consent_choices(yes, no),
        )
        return CommandResult(reply, "consent_prompt", revision)

    def typed_answer(
        self, scope: ScopeKey, said: Utterance, offer: tuple[int, str] | None = None
    ) -> CommandResult | None:
        """A typed 同意/好/可以 (or 不要/不用) in the 1:1 chat. It answers the consent prompt whose
        token the journal keeps, checked as a tap would be; without a live prompt it is no command
        (None), except 同意 / 不同意, which get a pointer. ``offer`` is ``_offered``'s reading, when
        the caller has it."""
        if offer is None:
            revision = self.preferences.get(scope.user_id).revision
            try:
                token = self.journal.offered(scope, revision)
            except StoreError:
                token = ""
        else:
            revision, token = offer
        if token.startswith(FORGET_OFFER):
            token = ""  # a 確定忘記 question that has expired: nothing is waiting
        if not token:  # not an answer to a consent prompt: 是 / 好 / 不是 are the normal turn's
            if said.consent_only:  # (「您是說員林市嗎？」 is answered there)
                return CommandResult(Reply(texts=(NO_LIVE_PROMPT,)), "consent_hint")
            if said.thanked:  # 「好的，謝謝你」 with nothing asked
                return static_result("thanks", scope, said)
            if _dropped(said) and self._kept_diet(scope):
                # 「那個不要了」 with no question waiting, a diet kept and the classifier sure it is
                # undone: whether to forget it is asked (確定忘記 / 不用), never taken as a no to nothing
                return self.unclear_forget(scope, said)
            return None
        check = self.tokens.check(scope, token, revision=revision, now=self.clock())
        if not check.ok or check.dietary_type not in catalogue.DIETARY_TYPES:
            return CommandResult(Reply(texts=(EXPIRED_PROMPT,)), "consent_hint")
        answer = said.intent
        if answer in ("consent_yes", "consent_no"):
            agree = answer == "consent_yes"
            return self._answer(scope, agree, check.dietary_type, revision, late=EXPIRED_PROMPT)
        return self.consent_prompt(scope, check.dietary_type, lead=TAP_HINT)

    def _kept_diet(self, scope: ScopeKey) -> bool:
        state = self.preferences.get(scope.user_id)
        return state.consent == "granted" and bool(state.dietary_type)

    def keep_diet(self, scope: ScopeKey, said: Utterance) -> CommandResult:
        """「別忘了我吃素喔」: kept as it is when remembered; otherwise it asks to be remembered, so the
        consent prompt (a diet that cannot be kept gets the honest answer)."""
        state = self.preferences.get(scope.user_id)
        diet = said.diet.named
        if (state.consent == "granted" and state.dietary_type) or diet is None:
            return CommandResult(Reply(texts=(NOT_DELETED,)), "forget_declined")
        if not diets.rememberable(diet):
            return CommandResult(
                Reply(texts=(unsupported_diet_text(catalogue.dietary_label(diet)),)), "unsupported_diet"
            )
        return self.consent_prompt(scope, diet)

    def diet_change(self, scope: ScopeKey) -> CommandResult:
        """「我現在沒有吃素了」 with no search: offer to forget what is remembered, if anything is."""
        state = self.preferences.get(scope.user_id)
        if state.consent == "granted" and state.dietary_type:
            label = catalogue.dietary_label(state.dietary_type)
            return self.forget_question(f"了解，這次找店家不套用「{label}」。{FORGET_QUESTION}", scope=scope)
        return CommandResult(Reply(texts=(NOTHING_REMEMBERED,)), "diet_change")

    def remember(self, scope: ScopeKey, diet: str) -> CommandResult:
        """A 「記住我吃素」 button: the same consent question as saying it (1:1 chat only)."""
        if scope.source_type != "user":
            return CommandResult(Reply(texts=(IN_PRIVATE_ONLY,)), "private_only")
        return self.consent_prompt(scope, diet)

    def handle_postback(self, scope: ScopeKey, data: str) -> CommandResult | None:
        """A consent or forget button, or None when the data is not ours."""
        if data in (FORGET_YES, FORGET_NO):
            if scope.source_type != "user":
                return CommandResult(Reply(texts=(IN_PRIVATE_ONLY,)), "private_only")
            if data == FORGET_YES:
                return self.forget(scope)
            return self._keep_answered(scope)
        if not is_consent_data(data):
            return None
        if scope.source_type != "user":
            return CommandResult(Reply(texts=(IN_PRIVATE_ONLY,)), "private_only")
        revision = self.preferences.get(scope.user_id).revision
        check = self.tokens.check(scope, data, revision=revision, now=self.clock())
        if not check.ok or check.dietary_type not in catalogue.DIETARY_TYPES:
            return CommandResult(Reply(texts=(TAP_REFUSED,)), "consent_tap_refused")
        return self._answer(scope, check.agree, check.dietary_type, revision)

    def _answer(
        self, scope: ScopeKey, agree: bool, diet: str, revision: int, *, late: str = TAP_REFUSED
    ) -> CommandResult:
        """A checked consent answer (tap or typed): recorded only while the revision is still the
        prompt's, in the store's transaction (one answer wins, on any instance; a later one gets
        ``late``), then the window carried over to the new revision."""
        try:
            state = self.preferences.set_consent(
                scope.user_id,
                consent="granted" if agree else "refused",
                dietary_type=diet if agree else None,
                now=self.clock(),
                expected_revision=revision,
            )
        except StaleContextError:
            return CommandResult(Reply(texts=(late,)), "consent_tap_refused")
        self._carry_over(scope, revision, state.revision)
        if agree:
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
        """Diet and consent dropped (the revision moves), the window projected again under the new
        revision without anything of the preference, and in the audit rows of this 1:1 chat the
        remembered diet replaced by ``FORGOTTEN_MARK``. A store failure raises."""
        before = self.preferences.get(scope.user_id)
        state = self._drop_preference(scope)
        self._carry_over(scope, before.revision, state.revision)
        kept = before.consent == "granted" and before.dietary_type is not None
        return CommandResult(
            Reply(texts=(FORGOTTEN if kept else NOTHING_TO_FORGET,)), "forget", state.revision
        )

    def unfollow(self, scope: ScopeKey) -> int:
        """The person left (unfollow/block): their diet and consent are dropped and the revision
        moves, so every journal window of theirs (1:1 and group) and every consent button offered
        before becomes unreadable; the 1:1 journal is also deleted now. Returns the new revision."""
        state = self._drop_preference(scope)
        try:
            self.journal.clear(scope)
        except StoreError:
            pass  # the revision bump already made the old window unreadable
        return state.revision

    def _drop_preference(self, scope: ScopeKey) -> PreferenceState:
        state = self.preferences.set_consent(
            scope.user_id, consent="forgotten", dietary_type=None, now=self.clock()
        )
        if self.audit is not None:
            self.audit.forget_audited_memory(scope.storage_id)
        return state

    def _carry_over(self, scope: ScopeKey, old: int, new: int) -> None:
        # The revision bump already made the old window unreadable; carrying it over is a courtesy.
        try:
            self.journal.carry_over(scope, old, new)
        except StoreError:
            pass
