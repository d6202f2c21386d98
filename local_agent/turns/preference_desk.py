"""The preference desk: how a checked ``manage_preference`` proposal (or a refused remember/delete
wording) is answered, with the commands' own replies and nothing new.

* remember → the consent prompt with signed buttons bound to this person, chat, revision and expiry
  (``Commands.consent_prompt``); without a diet the user named, the question which diet;
* forget → the 確定忘記 / 不用 confirmation (``Commands.handle_text`` with ``forget_confirm``);
* show → the "what is kept" answer (``kept.kept_reply``);
* in a group or room, each of them → the 1:1-only pointer.

Nothing here writes: a preference changes only when its owner taps a bound button.
"""

from __future__ import annotations

from local_agent.agent.tools import WHICH_DIET_TEXT
from local_agent.context.journal import ScopeKey
from local_agent.language import diets
from local_agent.listings import catalogue
from local_agent.replies.reply import CommandName, Reply
from local_agent.turns.commands import IN_PRIVATE_ONLY, Commands, unsupported_diet_text


class CommandDesk:
    """``adk_router.PreferenceDesk`` over the deterministic commands."""

    def __init__(self, commands: Commands) -> None:
        self.commands = commands

    def offer(self, scope: ScopeKey, action: str, dietary_type: str) -> tuple[Reply, CommandName | None]:
        if scope.source_type != "user":
            return Reply(texts=(IN_PRIVATE_ONLY,)), "private_only"
        if action == "remember":
            if dietary_type not in catalogue.DIETARY_TYPES:
                return Reply(texts=(WHICH_DIET_TEXT,)), None
            if not diets.rememberable(dietary_type):  # 不吃牛: a search filter, not a lasting preference
                label = catalogue.dietary_label(dietary_type)
                return Reply(texts=(unsupported_diet_text(label),)), "unsupported_diet"
            prompt = self.commands.consent_prompt(scope, dietary_type)
            return prompt.reply, prompt.command
        if action == "forget":
            confirm = self.commands.handle_text(scope, "", "forget_confirm")
            if confirm is not None:
                return confirm.reply, confirm.command
        return self.commands.show_kept(scope).reply, "kept"
