"""Consent belongs to one person: random interleavings of consent prompts, taps (own, foreign,
in a group, stale, expired), forget, unfollow and clock jumps never leave a preference its owner
did not grant in their own 1:1 chat, and a preference is never applied or named outside it.

The real Commands, ConsentTokens, ContextPipeline/TurnTools and an in-memory SQLite store run
each example; a plain model of the rules says what must be stored after every step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st

from local_agent.agent.pipeline import ContextPipeline
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.context.session_budget import SessionBudget
from local_agent.replies.render import render_tool_result
from local_agent.stores.sqlite import SqliteStore
from local_agent.turns.commands import Commands
from local_agent.turns.consent import TOKEN_TTL_SECONDS, ConsentTokens

USERS = ("U" + "a" * 32, "U" + "b" * 32)
GROUP = "C" + "g" * 32
DEST = "Udest"
DIETS = {"記住我吃素": "vegetarian", "記住我吃全素": "vegan", "記住我吃五辛素": "five_pungent"}


def private(user: str) -> ScopeKey:
    return ScopeKey(DEST, "user", user, user)


def in_group(user: str) -> ScopeKey:
    return ScopeKey(DEST, "group", GROUP, user)


@dataclass
class Offered:
    owner: str
    agree: bool
    diet: str
    revision: int
    expires: float
    data: str


@dataclass
class Model:
    now: float = 1_800_000_000.0
    revision: dict[str, int] = field(default_factory=lambda: dict.fromkeys(USERS, 0))
    granted: dict[str, str | None] = field(default_factory=lambda: dict.fromkeys(USERS, None))


user_ix = st.integers(0, len(USERS) - 1)
actions = st.lists(
    st.one_of(
        st.tuples(st.just("prompt"), user_ix, st.sampled_from(sorted(DIETS))),
        # who taps (the button's owner, mostly, or the other user), which button, in a group?
        st.tuples(
            st.just("tap"), st.sampled_from(["owner", "owner", "other"]), st.integers(0, 50), st.booleans()
        ),
        st.tuples(st.just("tap"), st.just("owner"), st.integers(-2, -1), st.just(False)),  # a latest button
        st.tuples(st.just("forget"), user_ix, st.booleans()),
        st.tuples(st.just("unfollow"), user_ix),
        st.tuples(st.just("advance"), st.sampled_from([0.0, 1.0, 299.0, TOKEN_TTL_SECONDS, 901.0, 86400.0])),
        st.tuples(st.just("search"), user_ix, st.booleans()),
        st.tuples(st.just("tamper"), user_ix, st.integers(0, 50)),
    ),
    min_size=10,
    max_size=40,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=actions)
def test_no_preference_without_its_owners_own_valid_tap_and_none_shown_outside_the_private_chat(
    steps,
) -> None:
    model = Model()
    store = SqliteStore(":memory:")
    clock = lambda: model.now  # noqa: E731
    journal = ContextJournal(store, clock=clock)
    commands = Commands(
        preferences=store, journal=journal, clock=clock, tokens=ConsentTokens("channel-secret")
    )
    pipeline = ContextPipeline(
        journal=journal,
        preferences=store,
        audit=store,
        snapshots=store,
        budget=SessionBudget(limit=10**6),
        clock=clock,
    )
    offered: list[Offered] = []
    try:
        for step in steps:
            kind = step[0]
            if kind == "prompt":
                user = USERS[step[1]]
                result = commands.handle_text(private(user), step[2])
                already = model.granted[user] == DIETS[step[2]]  # kept: said so, nothing offered
                assert result is not None
                assert result.command == ("already_kept" if already else "consent_prompt")
                assert bool(result.reply.choices) is not already
                for choice in result.reply.choices:
                    offered.append(
                        Offered(
                            user,
                            choice.label == "同意",
                            DIETS[step[2]],
                            model.revision[user],
                            model.now + TOKEN_TTL_SECONDS,
                            choice.data,
                        )
                    )
            elif kind in ("tap", "tamper") and offered:
                button = offered[step[2] % len(offered)]
                if kind == "tap":
                    tapper = (
                        button.owner if step[1] == "owner" else next(u for u in USERS if u != button.owner)
                    )
                else:
                    tapper = USERS[step[1]]
                where_group = kind == "tap" and step[3]
                scope = in_group(tapper) if where_group else private(tapper)
                data = button.data
                if kind == "tamper":  # the owner's own button, its MAC edited
                    scope = private(button.owner)
                    data = data[:-2] + ("AA" if not data.endswith("AA") else "BB")
                result = commands.handle_postback(scope, data)
                assert result is not None
                valid = (
                    kind == "tap"
                    and not where_group
                    and scope.user_id == button.owner
                    and model.now <= button.expires
                    and button.revision == model.revision[button.owner]
                )
                hypothesis_event(f"tap valid={valid}")
                if valid:
                    model.revision[button.owner] += 1
                    model.granted[button.owner] = button.diet if button.agree else None
                    assert result.command == ("consent_granted" if button.agree else "consent_refused")
                else:
                    assert result.command in ("consent_tap_refused", "private_only")
            elif kind == "forget":
                user = USERS[step[1]]
                scope = in_group(user) if step[2] else private(user)
                result = commands.handle_text(scope, "忘記我的飲食偏好")
                if not step[2]:
                    model.revision[user] += 1
                    model.granted[user] = None
                else:
                    assert result is not None and result.command == "private_only"
            elif kind == "unfollow":
                user = USERS[step[1]]
                commands.unfollow(private(user))
                model.revision[user] += 1
                model.granted[user] = None
            elif kind == "advance":
                model.now += step[1]
            elif kind == "search":
                user = USERS[step[1]]
                scope = in_group(user) if step[2] else private(user)
                state = pipeline.begin(scope, "花壇有什麼好吃的")
                result = pipeline.tools(state).search_local_places(area="花壇鄉")
                text = render_tool_result(result).texts[0]
                if step[2] or model.granted[user] is None:
                    assert result["preference_origin"] == "none" and result["dietary_type"] == "any"
                    assert "偏好" not in text
                else:
                    assert result["preference_origin"] == "consented_memory"
                    assert result["dietary_type"] == model.granted[user]
            # After every step the store says exactly what the owners granted themselves.
            for user in USERS:
                pref = store.get(user)
                assert pref.revision == model.revision[user]
                assert (pref.dietary_type if pref.consent == "granted" else None) == model.granted[user]
    finally:
        store.close()
