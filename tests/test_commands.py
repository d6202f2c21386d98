"""Deterministic commands (no model): consent prompt and answer, forget, help."""

from __future__ import annotations

import json

import pytest

from local_agent.context.errors import StoreError
from local_agent.context.journal import ContextJournal, ScopeKey
from local_agent.context.projection import SafeTurn
from local_agent.replies.render import HELP_TEXT
from local_agent.stores.sqlite import SqliteStore
from local_agent.turns.commands import TAP_REFUSED, Commands, match_text_command, parse_postback

SCOPE = ScopeKey.for_user("U1")


@pytest.fixture
def store(tmp_path):
    s = SqliteStore(tmp_path / "commands.db")
    yield s
    s.close()


@pytest.fixture
def journal(store, clock):
    return ContextJournal(store, clock=clock)


@pytest.fixture
def commands(store, journal, clock):
    return Commands(preferences=store, journal=journal, clock=clock)


DIET_TEXT = {"vegetarian": "記住我吃素", "vegan": "記住我吃全素"}


def button(commands: Commands, label: str = "同意", diet: str = "vegetarian", scope: ScopeKey = SCOPE) -> str:
    """The signed postback data of a consent button, as the prompt offered it just now."""
    prompt = commands.handle_text(scope, DIET_TEXT[diet])
    return next(c.data for c in prompt.reply.choices if c.label == label)


def seed_window(journal: ContextJournal, store: SqliteStore, scope: ScopeKey = SCOPE) -> None:
    revision = store.get(scope.user_id).revision
    journal.append(journal.read(scope, revision), SafeTurn("places", "花壇鄉"), current_revision=revision)
    assert scope.storage_id in store.journal_rows()


class ClearFailsJournal:
    """A journal whose writes (clear, carry_over, offer) fail like an unavailable store; reads are
    delegated."""

    def __init__(self, inner: ContextJournal) -> None:
        self.inner = inner
        self.clear_calls = 0

    def clear(self, scope: ScopeKey) -> None:
        self.clear_calls += 1
        raise StoreError(operation="journal.delete", backend="test")

    def carry_over(self, scope: ScopeKey, old: int, new: int) -> None:
        self.clear_calls += 1
        raise StoreError(operation="journal.update", backend="test")

    def offer(self, scope: ScopeKey, revision: int, token: str) -> None:
        raise StoreError(operation="journal.update", backend="test")

    def __getattr__(self, name):
        return getattr(self.inner, name)


# -- consent prompt ------------------------------------------------------------------------------------


def test_remember_vegetarian_asks_for_consent_with_agree_and_decline_choices(commands, store):
    result = commands.handle_text(SCOPE, "記住我吃素")
    assert result is not None and result.command == "consent_prompt"
    assert "素食" in result.reply.texts[0]
    assert [c.label for c in result.reply.choices] == ["同意", "不同意"]
    assert [parse_postback(c.data) for c in result.reply.choices] == [
        (True, "vegetarian"),
        (False, "vegetarian"),
    ]
    # Asking changes nothing: consent needs the explicit answer.
    assert store.get("U1").revision == 0 and store.get("U1").consent == "none"


@pytest.mark.parametrize(
    "text,diet",
    [
        ("幫我記住我吃全素", "vegan"),
        ("記得我 吃五辛素", "five_pungent"),
        ("記住　我吃蛋奶素", "lacto_ovo"),
        ("記住我吃全　素", "vegan"),
    ],
)
def test_consent_prompt_carries_the_dietary_type_that_was_said(commands, text, diet):
    result = commands.handle_text(SCOPE, text)
    assert result.command == "consent_prompt"
    assert parse_postback(result.reply.choices[0].data) == (True, diet)


@pytest.mark.parametrize("text", ["記住我的電話0912345678", "花壇有什麼好吃的", "我以前吃素"])
def test_texts_without_a_remember_request_and_a_dietary_word_are_not_commands(commands, text):
    assert commands.handle_text(SCOPE, text) is None


# -- consent answer ------------------------------------------------------------------------------------


def kept_window(store: SqliteStore, journal: ContextJournal, scope: ScopeKey = SCOPE) -> list[str]:
    """The window's labels as the next turn reads them, after checking the row holds no diet."""
    row = json.dumps(store.journal_rows().get(scope.storage_id, {}), ensure_ascii=False)
    assert not any(word in row for word in ("vegetarian", "vegan", "素", "offer"))
    return journal.read(scope, store.get(scope.user_id).revision).window.labels()


def test_agreeing_grants_bumps_the_revision_and_keeps_the_township(commands, store, journal):
    seed_window(journal, store)
    result = commands.handle_postback(SCOPE, button(commands))
    assert result.command == "consent_granted" and result.revision == 1
    pref = store.get("U1")
    assert (pref.consent, pref.dietary_type, pref.revision) == ("granted", "vegetarian", 1)
    assert kept_window(store, journal) == ["花壇鄉：找店家"]
    assert store.journal_rows()[SCOPE.storage_id]["preference_revision"] == 1


def test_declining_refuses_bumps_the_revision_and_stores_no_dietary_type(commands, store, journal):
    seed_window(journal, store)
    result = commands.handle_postback(SCOPE, button(commands, "不同意", "vegan"))
    assert result.command == "consent_refused" and result.revision == 1
    pref = store.get("U1")
    assert (pref.consent, pref.dietary_type, pref.revision) == ("refused", None, 1)
    assert kept_window(store, journal) == ["花壇鄉：找店家"]


def test_each_consent_answer_bumps_the_revision_again(commands, store):
    revisions = [
        commands.handle_postback(SCOPE, button(commands, label, diet)).revision
        for label, diet in (("同意", "vegan"), ("不同意", "vegetarian"), ("同意", "vegan"))
    ]
    assert revisions == [1, 2, 3]


def test_asking_to_remember_the_diet_already_kept_says_so_and_offers_nothing(commands, store):
    commands.handle_postback(SCOPE, button(commands, "同意", "vegan"))
    again = commands.handle_text(SCOPE, "記住我吃全素")
    assert again.command == "already_kept" and again.reply.choices == () and "全素" in again.reply.texts[0]
    assert store.get("U1").revision == 1


@pytest.mark.parametrize(
    "data", ["action=buy&itemid=1", "", "LOCAL:CONSENT:YES:VEGETARIAN", "x local:consent:yes:vegan"]
)
def test_foreign_postback_data_is_not_ours(commands, store, data):
    assert parse_postback(data) is None
    assert commands.handle_postback(SCOPE, data) is None
    assert store.get("U1").revision == 0


@pytest.mark.parametrize(
    "data",
    [
        "local:consent:yes:vegetarian",  # the old unsigned form
        "local:consent:no:vegetarian",
        "local:consent:yes:keto",
        "local:consent:maybe:vegetarian",
        "local:consent:yes:vegetarian:extra",
    ],
)
def test_unsigned_or_malformed_consent_data_is_refused_politely_and_changes_nothing(commands, store, data):
    result = commands.handle_postback(SCOPE, data)
    assert result.command == "consent_tap_refused" and result.reply.texts == (TAP_REFUSED,)
    assert store.get("U1").revision == 0


# -- forget --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["忘記我的飲食偏好", " 忘記 我的飲食偏好 ", "請刪除我的飲食偏好", "不要記住我吃素"]
)
def test_forget_deletes_the_preference_bumps_the_revision_and_keeps_the_township(
    commands, store, journal, text
):
    commands.handle_postback(SCOPE, button(commands))
    seed_window(journal, store)
    result = commands.handle_text(SCOPE, text)
    assert result.command == "forget" and result.revision == 2
    pref = store.get("U1")
    assert (pref.consent, pref.dietary_type, pref.revision) == ("forgotten", None, 2)
    assert kept_window(store, journal) == ["花壇鄉：找店家"]  # the township stays, the diet does not


def test_forget_without_any_stored_preference_still_bumps_the_revision(commands, store):
    assert commands.forget(SCOPE).revision == 1
    assert store.get("U1").consent == "forgotten"


def test_forget_still_succeeds_when_clearing_the_journal_fails(store, journal, clock):
    commands = Commands(preferences=store, journal=ClearFailsJournal(journal), clock=clock)
    commands.handle_postback(SCOPE, button(commands))
    seed_window(journal, store)  # a window under revision 1
    result = commands.handle_text(SCOPE, "忘記我的飲食偏好")  # must not raise
    assert result.command == "forget" and result.revision == 2
    assert commands.journal.clear_calls == 2
    assert store.journal_rows()[SCOPE.storage_id]["preference_revision"] == 1  # the carry-over failed ...
    snap = journal.read(SCOPE, store.get("U1").revision)
    assert snap.status == "revision_mismatch" and snap.window.turns == ()  # ... yet it is never read


def test_consent_answer_still_succeeds_when_clearing_the_journal_fails(store, journal, clock):
    commands = Commands(preferences=store, journal=ClearFailsJournal(journal), clock=clock)
    result = commands.handle_postback(SCOPE, button(commands, "同意", "vegan"))
    assert result.command == "consent_granted" and store.get("U1").dietary_type == "vegan"


def test_forget_in_one_scope_does_not_clear_another_users_journal(commands, store, journal):
    other = ScopeKey.for_user("U2")
    seed_window(journal, store, other)
    commands.handle_text(SCOPE, "忘記我的飲食偏好")
    assert other.storage_id in store.journal_rows()
    assert store.get("U2").revision == 0


# -- help ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["help", "HELP", "幫助", "使用說明", "你會做什麼", " 怎麼用 "])
def test_help_answers_the_help_text_and_changes_nothing(commands, store, text):
    result = commands.handle_text(SCOPE, text)
    assert result.command == "help" and result.reply.texts == (HELP_TEXT,)
    assert store.get("U1").revision == 0


def test_match_text_command_prefers_forget_over_remember():
    assert match_text_command("不要記住我吃素") == "forget"
    assert match_text_command("記住我吃素") == "consent_prompt"


@pytest.mark.parametrize(
    "text,kind",
    [
        ("不要忘記我的飲食偏好喔", "forget_declined"),
        ("不要刪除我的飲食偏好", "forget_declined"),
        ("別清除我的偏好", "forget_declined"),
        ("不用幫我刪除偏好", "forget_declined"),
        ("你會不會忘記我的飲食偏好？", "forget_confirm"),
        ("能不能忘記我吃素？", "forget_confirm"),
        ("可以刪除我的偏好嗎", "forget_confirm"),
        ("忘記我的飲食偏好", "forget"),
        ("請刪除我的偏好", "forget"),
        ("記得那家素食店在哪嗎", None),
        ("你記得我吃素嗎？", "show_kept"),
        ("我忘記我吃什麼了", None),
        ("幫我刪除我的偏好", "forget"),
        ("說明", "help"),
        ("怎麼用", "help"),
        ("?", "help"),
        ("你好！", "greeting"),
        ("hi", "greeting"),
    ],
)
def test_commands_read_negation_questions_and_help_words(text, kind):
    assert match_text_command(text) == kind


def test_a_negated_forget_changes_nothing(commands, store):
    commands.handle_postback(SCOPE, button(commands))
    result = commands.handle_text(SCOPE, "不要忘記我的飲食偏好喔")
    assert result.command == "forget_declined"
    assert store.get("U1").consent == "granted" and store.get("U1").revision == 1


# -- a typed answer with courtesies -------------------------------------------------------------------


@pytest.mark.parametrize("said", ["好的，謝謝你", "可以，幫我記住", "好，麻煩你了", "嘿啊", "OK的"])
def test_a_typed_yes_with_courtesies_answers_the_live_prompt(commands, store, said):
    commands.handle_text(SCOPE, "記住我吃素")
    result = commands.handle_text(SCOPE, said)
    assert result is not None and result.command == "consent_granted"
    assert store.get("U1").dietary_type == "vegetarian"


@pytest.mark.parametrize("said", ["不用了，謝謝", "毋免啦", "先不用，謝謝你"])
def test_a_typed_no_with_courtesies_declines_the_live_prompt(commands, store, said):
    commands.handle_text(SCOPE, "記住我吃素")
    result = commands.handle_text(SCOPE, said)
    assert result is not None and result.command == "consent_refused"
    assert store.get("U1").consent != "granted"


@pytest.mark.parametrize("scope", [SCOPE, ScopeKey("local", "group", "G1", "U1")])
def test_thanks_with_a_yes_in_it_is_thanked_when_nothing_was_asked(commands, store, scope):
    result = commands.handle_text(scope, "好的，謝謝你")
    assert result is not None and result.command == "thanks"
    assert store.get("U1").consent != "granted"


# -- a typed answer to the 確定忘記 / 不用 question --------------------------------------------------


def granted(commands: Commands, store: SqliteStore) -> None:
    commands.handle_postback(SCOPE, button(commands))
    assert store.get("U1").consent == "granted"


@pytest.mark.parametrize("said", ["好", "確定", "好，刪掉吧", "那就刪掉吧", "刪除"])
def test_a_typed_yes_to_the_forget_question_forgets(commands, store, said):
    granted(commands, store)
    assert commands.handle_text(SCOPE, "全部刪掉").command == "forget_confirm"
    result = commands.handle_text(SCOPE, said)
    assert result is not None and result.command == "forget"
    assert store.get("U1").consent != "granted" and store.get("U1").dietary_type is None


def test_a_delete_request_after_what_is_kept_forgets(commands, store):
    granted(commands, store)
    assert commands.handle_text(SCOPE, "你記得我什麼").command == "kept"
    assert commands.handle_text(SCOPE, "那就刪掉吧").command == "forget"
    assert store.get("U1").dietary_type is None


@pytest.mark.parametrize("said", ["差點就按到刪除了 沒事啦 還是繼續記著", "刪除要按哪裡？先不要"])
def test_a_typed_answer_telling_of_a_delete_but_keeping_is_asked_again(commands, store, said):
    granted(commands, store)
    assert commands.handle_text(SCOPE, "你記得我什麼").command == "kept"  # its 刪除偏好 button is live
    again = commands.handle_text(SCOPE, said)
    assert again is not None and again.command == "forget_confirm"
    assert store.get("U1").dietary_type == "vegetarian"


@pytest.mark.parametrize("said", ["好", "嗯對 就是這樣 謝謝", "不用"])
def test_a_typed_yes_or_no_after_what_is_kept_deletes_nothing(commands, store, said):
    # the 刪除偏好 button of what is kept asked nothing: agreeing with what was shown is no delete
    granted(commands, store)
    assert commands.handle_text(SCOPE, "你記得我什麼").command == "kept"
    result = commands.handle_text(SCOPE, said)
    assert result is None or result.command not in ("forget", "forget_confirm")
    assert store.get("U1").dietary_type == "vegetarian"
    assert commands.handle_text(SCOPE, "那就刪掉吧").command == "forget"  # a delete still answers it


@pytest.mark.parametrize(("later", "forgotten"), [("對啦 刪除就好了", True), ("好", False), ("不用", False)])
def test_a_delete_typed_after_the_three_way_question_answers_its_delete_button(
    commands, store, later, forgotten
):
    # 「要我記住、刪除，還是看看記了什麼？」 offers 刪除 as what is kept does: a delete typed next
    # answers it; a bare yes or no chooses none of the three
    granted(commands, store)
    asked = commands.handle_text(SCOPE, "那個素食的紀錄嗯")
    assert asked is not None and asked.command == "preference_question"
    result = commands.handle_text(SCOPE, later)
    assert (result is not None and result.command == "forget") is forgotten
    assert (store.get("U1").dietary_type is None) is forgotten


def test_the_three_way_question_with_nothing_kept_offers_no_delete(commands, store):
    asked = commands.handle_text(SCOPE, "那個素食的紀錄嗯")
    assert asked is not None and asked.command == "preference_question"
    result = commands.handle_text(SCOPE, "對啦 刪除就好了")
    assert result is not None and result.command == "kept"  # (nothing to forget: said so)


class UnreadableStore:
    """A preference store that cannot be read, like an unavailable backend."""

    def get(self, user_id: str):
        raise StoreError(operation="preferences.get", backend="test")


def test_the_three_way_question_is_still_asked_when_the_store_cannot_be_read(journal, clock):
    commands = Commands(preferences=UnreadableStore(), journal=journal, clock=clock)  # type: ignore[arg-type]
    asked = commands.handle_text(SCOPE, "那個素食的紀錄嗯")
    assert asked is not None and asked.command == "preference_question"
    assert [c.label for c in asked.reply.choices][:2] == ["記住", "刪除"]


def test_a_typed_no_keeps_and_anything_else_asks_again(commands, store):
    granted(commands, store)
    commands.handle_text(SCOPE, "全部刪掉")
    again = commands.handle_text(SCOPE, "考慮一下")
    assert again.command == "forget_confirm" and "確定忘記" in again.reply.texts[0]
    assert commands.handle_text(SCOPE, "不用").command == "forget_declined"
    assert store.get("U1").dietary_type == "vegetarian"


@pytest.mark.parametrize("no", ["typed", "tapped"])
@pytest.mark.parametrize("later", ["好", "好 謝謝 就這樣", "確定"])
def test_a_yes_after_the_forget_question_was_answered_no_deletes_nothing(commands, store, no, later):
    # 不用 answered the question: a later 「好」 is no yes to the delete the person refused
    granted(commands, store)
    assert commands.handle_text(SCOPE, "全部刪掉").command == "forget_confirm"
    if no == "typed":
        declined = commands.handle_text(SCOPE, "不用")
    else:
        declined = commands.handle_postback(SCOPE, "local:forget:no")
    assert declined is not None and declined.command == "forget_declined"
    result = commands.handle_text(SCOPE, later)
    assert result is None or result.command not in ("forget", "forget_confirm")
    assert store.get("U1").dietary_type == "vegetarian"
    assert commands.handle_text(SCOPE, "全部刪掉").command == "forget_confirm"  # asked again, not taken


def test_a_typed_yes_after_the_forget_question_expired_forgets_nothing(commands, store, clock):
    granted(commands, store)
    commands.handle_text(SCOPE, "全部刪掉")
    clock.advance(601)
    assert commands.handle_text(SCOPE, "好") is None  # small talk for the normal turn
    assert store.get("U1").dietary_type == "vegetarian"


def test_a_short_delete_with_nothing_asked_is_still_confirmed_first(commands, store):
    granted(commands, store)
    assert commands.handle_text(SCOPE, "那就刪掉吧").command == "forget_confirm"
    assert store.get("U1").dietary_type == "vegetarian"


def test_a_delete_with_nothing_kept_says_nothing_is_kept(commands, store):
    result = commands.handle_text(SCOPE, "忘記我吃素")
    assert result.command == "forget" and "沒有記住" in result.reply.texts[0]
