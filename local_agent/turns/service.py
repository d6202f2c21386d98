"""Turn handling, channel-neutral: commands first (no model), otherwise the ADK router.

A turn in, a ``TurnOutcome`` out. The LINE edge and the terminal chat both call this.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from local_agent import language
from local_agent.agent.adk_router import AdkRouter, TurnOutcome
from local_agent.context.errors import StoreError
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.language.text import spellings
from local_agent.language.utterance import Utterance
from local_agent.listings import catalogue
from local_agent.listings.loader import Listings, shipped_listings
from local_agent.replies import navigation as nav
from local_agent.replies.render import (
    JOIN_TEXT,
    MEDIA_TEXT_OTHER,
    MEDIA_TEXTS,
    POLITE_FAILURE,
    remember_label,
)
from local_agent.replies.reply import Choice, CommandName, Reply
from local_agent.stores.ports import PreferenceStore
from local_agent.turns.commands import Commands, command_of, static_result

log = logging.getLogger("local_agent.turns.service")

MAX_INPUT_CHARS = 5000  # LINE's own limit for a text message
# Waits between attempts to forget a person who unfollowed: the event was acknowledged and LINE
# will not send it again, so a store hiccup must not keep their preference. Five attempts, each
# within the store's deadline, end well inside the turn's bound (TURN_TIMEOUT_SECONDS).
UNFOLLOW_RETRY_DELAYS = (0.2, 0.5, 1.0, 2.0)
# The question a picker tap asks on the person's behalf (app-written, goes through the model).
SEARCH_QUESTION = {"places": "{}有什麼好吃的？", "events": "{}有什麼活動？"}
# Commands after which a search asked in the same sentence still runs.
THEN_SEARCH = ("forget", "already_kept")
# Answers to a live consent prompt that a search said after them in the same message follows.
ANSWERS_FIRST = ("consent_granted", "consent_refused")
NAV_REFUSED = "這個按鈕已經失效，沒有做任何事。請再說一次想找什麼，例如「花壇有什麼好吃的？」"


class LocalService:
    def __init__(
        self,
        *,
        router: AdkRouter,
        commands: Commands,
        journal: ContextJournal,
        preferences: PreferenceStore,
        clock: Callable[[], float],
        listings: Listings | None = None,
    ) -> None:
        self.router, self.commands, self.journal = router, commands, journal
        self.preferences, self.clock = preferences, clock
        self.listings = listings if listings is not None else shipped_listings()

    async def handle_text(self, scope: ScopeKey, text: str, *, turn_id: str | None = None) -> TurnOutcome:
        text = text.replace("\x00", "")[:MAX_INPUT_CHARS]
        said = language.read(text, self.clock())  # read once: every step below takes this
        if await self._remember_and_search(scope, said):
            return await self._search_then_prompt(scope, said, turn_id)
        answered = await self._answered_first(scope, said)
        if answered is not None and not said.also_searches:  # 「好啦 哇這顆芒果好大」: the answer alone
            return answered
        if answered is not None:  # 「可以 順便找鹿港的素食」: the live prompt answered, then the search
            return await self._then_search(scope, said, answered, turn_id)
        outcome = await self.command(scope, said)
        then = outcome is not None and (
            outcome.command in THEN_SEARCH
            or (outcome.command == "kept" and said.reading.intent == "forget_confirm")
        )  # (「不要記我任何東西，幫我找芳苑的店」 with nothing kept: that said, then the search)
        if outcome is not None and then and said.also_searches:
            return await self._then_search(scope, said, outcome, turn_id)
        if outcome is not None and outcome.command == "forget" and said.asks_kept:
            return await self._then_shown(scope, outcome)
        if outcome is not None:
            return outcome
        each = self._each(said)
        if each:
            return await self._search_each(scope, each, turn_id)
        return await self._search(scope, said, turn_id)

    def _each(self, said: Utterance) -> list[Utterance]:
        """「鹿港跟福興都幫我找一下吃的」: townships asked for together, each as the message with the
        others' names left out (its search, diet and dates kept); none when one of them does not then
        read as its own township (an alias, a sound-alike: asked which one, as before)."""
        places = said.places
        if places.kind != "choice" or not places.together or said.reading.intent != "search":
            return []
        parts = []
        for township in places.choices:
            text = said.text
            for other in places.choices:
                if other != township:
                    for name in (*spellings(other), *spellings(other[:-1])):
                        text = text.replace(name, "")
            part = language.read(text, self.clock())
            if part.places.kind != "township" or part.places.township != township:
                return []
            parts.append(part)
        return parts

    async def _search_each(self, scope: ScopeKey, parts: list[Utterance], turn_id: str | None) -> TurnOutcome:
        """One turn per township, one reply: each search's texts and cards in order, the last one's
        next steps. Each is its own model turn (bounded alone, projected alone)."""
        found: list[TurnOutcome] = []
        for n, part in enumerate(parts):
            found.append(await self._search(scope, part, f"{turn_id}-{n + 1}" if turn_id and n else turn_id))
        last = found[-1]
        reply = replace(
            last.reply,
            texts=tuple(dict.fromkeys(t for f in found for t in f.reply.texts)),  # (a refusal said once)
            cards=tuple(c for f in found for c in f.reply.cards),
            alt_text="、".join(a for a in (f.reply.alt_text for f in found) if a),
        )
        return replace(
            last,
            reply=reply,
            error_code=next((f.error_code for f in found if f.error_code), None),
            model_requests=[r for f in found for r in f.model_requests],
            tool_calls=[c for f in found for c in f.tool_calls],
        )

    async def _then_search(
        self, scope: ScopeKey, said: Utterance, done: TurnOutcome, turn_id: str | None
    ) -> TurnOutcome:
        """「吃素的不用記了，幫我找員林好吃的」: the command's answer, then the search the sentence also
        asks for (its search part: after a forget, it applies no diet)."""
        found = await self._search(scope, said.search, turn_id)
        reply = replace(found.reply, texts=(*done.reply.texts, *found.reply.texts))
        return replace(found, reply=reply, command=done.command)

    async def _then_shown(self, scope: ScopeKey, done: TurnOutcome) -> TurnOutcome:
        """「幫我把蛋奶素刪掉 然後告訴我你還記了什麼」: the forget's answer, then what is kept now (1:1
        only: a forget in a group is answered with the pointer to the 1:1 chat, never 「forget」)."""
        try:
            shown = await asyncio.to_thread(self.commands.show_kept, scope)
        except StoreError:
            return done  # (the forget was done and said; what is kept can be asked again)
        return replace(done, reply=replace(shown.reply, texts=(*done.reply.texts, *shown.reply.texts)))

    async def _answered_first(self, scope: ScopeKey, said: Utterance) -> TurnOutcome | None:
        """The answer to a live consent prompt said as the first clause of a search (a grant or a
        refusal, checked against the prompt's token as a tap is); None when nothing is answered."""
        first = said.answer_first if scope.source_type == "user" else None
        if first is None:
            return None
        try:  # (only a consent prompt's token is answered: a live 確定忘記 is never touched here)
            result = await asyncio.to_thread(self.commands.typed_answer, scope, first)
        except StoreError:
            return None  # the normal turn answers, and meets the same store
        if result is None or result.command not in ANSWERS_FIRST:
            return None
        return TurnOutcome(result.reply, command=result.command)

    async def _remember_and_search(self, scope: ScopeKey, said: Utterance) -> bool:
        """A remember request with a search, in the 1:1 chat, for a diet not kept already (a kept one
        answers 「已經記住」 and searches with it, as a forget with a search does)."""
        if scope.source_type != "user" or command_of(said.reading) != "consent_prompt":
            return False
        if not said.also_searches:
            return False
        try:
            state = await asyncio.to_thread(self.preferences.get, scope.user_id)
        except StoreError:
            return False  # the command answers with the polite failure
        return not (state.consent == "granted" and state.dietary_type == said.reading.diet)

    async def _search_then_prompt(self, scope: ScopeKey, said: Utterance, turn_id: str | None) -> TurnOutcome:
        """「記住我吃素，幫我找員林好吃的」: both. The search first, with what the sentence itself says
        (its search part, with the diet to remember for this search only), then the consent prompt,
        whose buttons the reply carries (asked after the search, so the journal keeps its token)."""
        found = await self._search(scope, said.search_with(said.reading.diet), turn_id)
        prompt = await self.command(scope, said)
        if prompt is None:
            return found
        return _prompt_after(found, prompt.reply, prompt.command, prompt.error_code)

    async def _offer_to_keep(self, scope: ScopeKey, diet: str, found: TurnOutcome) -> TurnOutcome:
        """「我吃五辛素 幫我找秀水的餐廳」: the speaker's own diet, said with a search that offers to keep
        it (nothing kept, never refused): the results, then the consent prompt the offer's button
        would ask, so the person answers once instead of tapping twice."""
        try:
            prompt = await asyncio.to_thread(self.commands.consent_prompt, scope, diet)
        except StoreError:
            return found  # (the offer's button still asks)
        if prompt.command != "consent_prompt":
            return found
        return _prompt_after(found, prompt.reply, prompt.command)

    async def command(self, scope: ScopeKey, said: Utterance | str) -> TurnOutcome | None:
        """The answer to a text command (help, consent prompt, forget), with no model; None for a
        message the model reads (most messages: no thread hop). ``said``: the message read (a text is
        read here once)."""
        said = said if isinstance(said, Utterance) else language.read(said, self.clock())
        kind = command_of(said.reading) if said.text.strip() else "help"
        if kind is None:
            return None
        fixed = static_result(kind, scope, said, self.commands.help_text)
        if fixed is not None:  # touches no store
            return TurnOutcome(fixed.reply, command=fixed.command)
        try:
            result = await asyncio.to_thread(self.commands.handle_text, scope, said, kind)
        except StoreError as exc:
            return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=exc.code)
        if result is None:  # the commands found nothing to do after all (e.g. no dietary type)
            return None
        return TurnOutcome(result.reply, command=result.command)

    async def _search(self, scope: ScopeKey, said: Utterance, turn_id: str | None) -> TurnOutcome:
        """The router's turn. When the sentence says the diet changed for good (「我現在沒有吃素了，
        二林有什麼吃的」) and a diet is remembered, the answer also asks whether to forget it."""
        outcome = await self.router.run_turn(scope, said, turn_id=turn_id)
        offered = [c for c in outcome.reply.choices if not nav.is_nav(c.data)]  # beyond next steps
        own = said.own_diet
        if (
            own
            and scope.source_type == "user"
            and any(c.data == nav.remember(own) for c in outcome.reply.choices)
        ):
            return await self._offer_to_keep(scope, own, outcome)
        if scope.source_type != "user" or not said.diet.lasting or offered:
            return outcome
        try:
            state = await asyncio.to_thread(self.preferences.get, scope.user_id)
        except StoreError:
            return outcome
        if state.consent != "granted" or not state.dietary_type:
            return outcome
        asked = await asyncio.to_thread(self.commands.forget_question, scope=scope)
        question = asked.reply
        reply = replace(
            outcome.reply, texts=(*outcome.reply.texts, *question.texts), choices=question.choices
        )
        return replace(outcome, reply=reply)

    async def handle_postback(
        self, scope: ScopeKey, data: str, *, turn_id: str | None = None
    ) -> TurnOutcome | None:
        found = nav.parse(data)
        if found is not None:
            return await self.navigate(scope, found, turn_id=turn_id)
        try:
            result = await asyncio.to_thread(self.commands.handle_postback, scope, data)
        except StoreError as exc:
            return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=exc.code)
        if result is None:
            return None
        return TurnOutcome(result.reply, command=result.command)

    async def navigate(self, scope: ScopeKey, found: nav.Nav, *, turn_id: str | None = None) -> TurnOutcome:
        """One of the app's own buttons (quick reply, township picker, rich menu). A search button
        runs the search as a turn with an app-written question; the others need no model."""
        if found.kind == "help":
            return TurnOutcome(Reply(texts=(self.commands.help_text,)), command="help")
        if found.kind == "pick":
            return self.picker(found.goal, found.region)
        if found.kind == "town":
            if found.township not in self._townships(found.goal):
                return self._no_listings(found.goal, found.township)
            return await self.router.run_turn(
                scope, SEARCH_QUESTION[found.goal].format(found.township), turn_id=turn_id
            )
        if found.kind == "more":
            return await self.router.run_turn(scope, nav.MORE_LABELS[found.goal], turn_id=turn_id)
        try:
            if found.kind == "pref":
                reply = await asyncio.to_thread(self.preference_answer, scope)
                return TurnOutcome(reply, command="kept" if scope.source_type == "user" else "private_only")
            if found.kind == "remember" and found.diet in catalogue.DIETARY_TYPES:
                result = await asyncio.to_thread(self.commands.remember, scope, found.diet)
                return TurnOutcome(result.reply, command=result.command)
        except StoreError as exc:
            return TurnOutcome(Reply(texts=(POLITE_FAILURE,)), error_code=exc.code)
        return TurnOutcome(Reply(texts=(NAV_REFUSED,)), command="nav_refused")

    def preference_answer(self, scope: ScopeKey) -> Reply:
        """「我的偏好」: what is kept (``kept_reply``, with its 刪除偏好 button for a kept diet); with
        nothing kept, buttons that ask to remember one (each asks for consent first). 1:1 only."""
        reply = self.commands.show_kept(scope).reply
        if scope.source_type != "user" or reply.choices:
            return reply
        diets = ("vegetarian", "vegan", "lacto_ovo")
        return replace(
            reply, choices=tuple(Choice(remember_label(d), nav.remember(d), remember_label(d)) for d in diets)
        )

    def _townships(self, goal: str) -> list[str]:
        """The townships with listings of ``goal``'s kind (what a picker offers)."""
        having = self.listings.places_in if goal == "places" else self.listings.events_in
        return [t for t in self.listings.covered_townships if having(t)]

    def picker(self, goal: str, region: int | None = None) -> TurnOutcome:
        towns = self._townships(goal)
        if region is None:
            text, choices = nav.picker(goal, towns)
        else:
            text, choices = nav.region_picker(goal, region, towns)
        if not choices:
            return self._no_listings(goal, "")
        return TurnOutcome(Reply(texts=(text,), choices=choices), command="picker")

    def _no_listings(self, goal: str, township: str) -> TurnOutcome:
        """A picker tap for a township without listings of that kind (the data changed since the
        picker was shown, or the tap was forged): say so, and offer the picker again."""
        words = nav.GOAL_WORDS[goal]
        where = township or "這一區"
        text, choices = nav.picker(goal, self._townships(goal))
        return TurnOutcome(
            Reply(texts=(f"{where}目前的教學快照裡沒有{words}資料。{text}",), choices=choices),
            command="nav_refused",
        )

    def greeting(self) -> TurnOutcome:
        return TurnOutcome(Reply(texts=(self.commands.help_text,)), command="greeting")

    def introduction(self) -> TurnOutcome:
        """What the bot says once when it joins a group or room: how to call it, what it keeps."""
        return TurnOutcome(Reply(texts=(JOIN_TEXT,)), command="join")

    def media_reply(self, kind: str) -> TurnOutcome:
        """The answer to a voice message, sticker, photo, video, file or an unreadable location in
        a 1:1 chat: what LOCAL can read instead. No model, no store."""
        return TurnOutcome(Reply(texts=(MEDIA_TEXTS.get(kind, MEDIA_TEXT_OTHER),)), command="media")

    async def unfollow(self, scope: ScopeKey) -> int | None:
        """Forget the person who unfollowed (or blocked) the account; nothing is sent. A store
        failure is retried (``UNFOLLOW_RETRY_DELAYS``). Returns the new preference revision, or
        None when every attempt failed (logged as an error, code only)."""
        for delay in (*UNFOLLOW_RETRY_DELAYS, None):
            try:
                return await asyncio.to_thread(self.commands.unfollow, scope)
            except StoreError as exc:
                if delay is None:
                    log.error("unfollow not recorded", extra={"code": exc.code})
                    return None
                log.warning("unfollow not recorded yet, retrying", extra={"code": exc.code})
                await asyncio.sleep(delay)
        return None

    def journal_state(self, scope: ScopeKey) -> dict[str, Any]:
        revision = self.preferences.get(scope.user_id).revision
        state = self.journal.state(scope, revision)
        state.pop("status", None)
        return state


def _prompt_after(
    found: TurnOutcome, prompt: Reply, command: CommandName | None, code: str | None = None
) -> TurnOutcome:
    """A search's outcome with a question asked after it: the search's texts and cards, then the
    question's texts, with the question's buttons (the search's next steps give way to them)."""
    reply = replace(found.reply, texts=(*found.reply.texts, *prompt.texts), choices=prompt.choices)
    return replace(found, reply=reply, command=command, error_code=found.error_code or code)
