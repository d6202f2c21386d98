"""The preference desk and the "what is kept" answer: a model's checked proposal is answered with
the commands' own bound replies, and nothing is written until the owner taps."""

from __future__ import annotations

import pytest

from local_agent.agent.tools import WHICH_DIET_TEXT
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.stores.sqlite import SqliteStore
from local_agent.turns.commands import FORGET_QUESTION, FORGET_YES, IN_PRIVATE_ONLY, Commands
from local_agent.turns.consent import ConsentTokens
from local_agent.turns.kept import KEPT_CONTEXT, NOTHING_KEPT, kept_reply
from local_agent.turns.preference_desk import CommandDesk

SCOPE = ScopeKey.for_user("U1")
GROUP = ScopeKey("Udest", "group", "C1", "U1")
ANONYMOUS = ScopeKey("Udest", "group", "C1", "-")


@pytest.fixture
def store(tmp_path):
    s = SqliteStore(tmp_path / "desk.db")
    yield s
    s.close()


@pytest.fixture
def commands(store, clock):
    return Commands(
        preferences=store, journal=ContextJournal(store, clock=clock), clock=clock, tokens=ConsentTokens("s")
    )


def test_remember_is_the_consent_prompt_whose_tap_is_checked_like_the_commands(commands, store):
    reply, command = CommandDesk(commands).offer(SCOPE, "remember", "vegan")
    assert command == "consent_prompt" and "「全素」" in reply.texts[0]
    assert store.get("U1").consent == "none"
    agree = reply.choices[0].data
    assert commands.handle_postback(GROUP, agree).command == "private_only"  # not in another chat
    assert commands.handle_postback(SCOPE, agree).command == "consent_granted"
    assert store.get("U1").dietary_type == "vegan"


def test_remember_without_a_known_diet_asks_which(commands, store):
    reply, command = CommandDesk(commands).offer(SCOPE, "remember", "")
    assert (reply.texts, reply.choices, command) == ((WHICH_DIET_TEXT,), (), None)


def test_forget_is_the_confirmation_and_only_the_tap_deletes(commands, store, clock):
    store.set_consent("U1", consent="granted", dietary_type="vegan", now=clock())
    reply, command = CommandDesk(commands).offer(SCOPE, "forget", "")
    assert (reply.texts, command) == ((FORGET_QUESTION,), "forget_confirm")
    assert [c.data for c in reply.choices] == [FORGET_YES, "local:forget:no"]
    assert store.get("U1").consent == "granted"


@pytest.mark.parametrize("scope", [GROUP, ANONYMOUS])
@pytest.mark.parametrize("action", ["remember", "forget", "show"])
def test_in_a_group_every_action_is_the_one_to_one_answer(commands, store, scope, action):
    reply, command = CommandDesk(commands).offer(scope, action, "vegan")
    assert (reply.texts, reply.choices, command) == ((IN_PRIVATE_ONLY,), (), "private_only")
    assert store.get(scope.user_id).revision == 0


def test_the_kept_answer_names_only_a_granted_diet(store, clock):
    assert kept_reply(store, SCOPE).texts == (NOTHING_KEPT + "\n" + KEPT_CONTEXT,)
    store.set_consent("U1", consent="granted", dietary_type="lacto_ovo", now=clock())
    assert "「蛋奶素」" in kept_reply(store, SCOPE).texts[0]
    assert kept_reply(store, GROUP).texts == (IN_PRIVATE_ONLY,)
    store.set_consent("U1", consent="forgotten", dietary_type=None, now=clock())
    assert kept_reply(store, SCOPE).texts[0].startswith(NOTHING_KEPT)
