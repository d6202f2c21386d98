"""The lexicon: every word the language layer and the text gate read, once, with its classes, as data.

``data/lexicon.json`` maps each word (in the reading form of ``text.reading_form``) to the classes
it belongs to. A word may have several classes (套用 is a remembering and an applying verb); it is
listed once. The diet words of ``listings.catalogue`` (the one diet reader) belong to ``diet`` without
being listed again here.

Two kinds of class:
  * **rule classes** (``CLASS_MEANINGS``): the classes the rule table's patterns name. Their words are
    the sentence's tokens (``tokens``);
  * **list classes** (the file's ``lists``, each with its meaning): words the code looks for in a
    sentence or in a model-written text (``words.py``'s tables, the text gate's ``gate_``
    classes). They are never tokens, so a list word cannot hide a rule word under it.

And **maps** (the file's ``maps``): a word as written beside the word it is read as, in order — the
simplified characters, the Taiwanese words and the symbols the reading form reads, and the short
answers a consent answer reads as its core (``pairs_of``).

    words_of("delete_verb")  → every delete verb, longest first
    words_of("kept_topics")  → a list class's words, longest first
    classes_of("刪掉")        → frozenset({"delete_verb"})
    pairs_of("taiwanese")    → (("阮兜", "我家"), ("本人", "我"), …)
    tokens(text)             → the lexicon's rule words in a sentence, longest first at each position

Standard library only; imports only ``context`` and ``listings`` (the language wing's rule).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from local_agent.language.memo import memoised
from local_agent.language.patterns import alternatives, quick
from local_agent.listings import catalogue

DATA = Path(__file__).parent / "data" / "lexicon.json"

# Every class, with what it means. The rule table (``rules.py``) may name only these.
CLASS_MEANINGS: dict[str, str] = {
    "necessity": "a need that may have passed (必要, 還需要): asked of keeping what is kept, whether it still is",
    "delete_verb": "a verb that deletes or forgets (刪除, 忘記, 清空, 歸零, 取消, 丟掉)",
    "forget_verb": "a verb of forgetting (忘記, 忘了); also a delete verb, but said of the past a complaint",
    "drop": "drop it, said at the end (不要了, 算了, 全部不要, 改回來): with what is kept, a delete to ask about",
    "undo_phrase": "a phrase that takes something back (按錯, 當我沒說, 恢復預設); read like a delete verb",
    "stop_verb": "stop applying or remembering (停用, 暫停, 關掉, 不要再用)",
    "remember_verb": "keep something (記住, 記得, 存, 保存, 設定成)",
    "apply_verb": "apply the kept diet to a search (套用, 篩選, 過濾)",
    "filter_loose": "verbs that apply the diet only when negated beside it (找, 用, 選)",
    "show_verb": "show what is kept (看看, 查看, 顯示)",
    "memory_object": "what is kept (偏好, 設定, 資料, 個資, 記錄)",
    "diet": "a diet word (素, 吃素, 全素, 蛋奶素, 食菜): the catalogue's diet words and synonyms and every "
    "vegetarian word, never listed here; its code comes from ``diets.find_diet``",
    "vegetarian_word": "a word of the vegetarian family (素, 吃素, 素食, 吃齋); also a diet word",
    "negation": "any negation (不, 不要, 別, 沒, 免)",
    "negation_request": "a negation that cancels the request verb after it (不要, 別, 免)",
    "question": "a question marker (嗎, 呢, 什麼, 是否, 有沒有)",
    "a_not_a": "an A-not-A question on a verb (記不記得, 刪不刪): asks, negates nothing",
    "not_a_verb": "a word with a verb's character that is no verb (日記, 登記, 留意, 存錢)",
    "agree_phrase": "agrees in a phrase, read as 好 in a short answer (就這樣, 這樣就好)",
    "hesitation": "the speaker has not decided (再想想, 考慮一下, 不確定)",
    "keep_as_is": "leave it as it is (不用改, 照原本): with what is kept, nothing changes",
    "bare_stop": "stop remembering, said alone (不記了, 不用記)",
    "stop_lead": "a negation asking someone to stop (不想讓你, 不要再, 以後不要)",
    "stop_again": "no more of it (不要再, 別再): with what is kept, a stop",
    "negation_of_delete": "a negation that only negates a delete verb (不會, 不想, 不打算)",
    "aspect": "marks a claim that something was done (了, 已經, 幫您)",
    "clause_close": "closes what was said before it (了, 囉): in typed speech, what follows is apart",
    "third_person": "someone other than the speaker and the bot (他, 我媽, 朋友)",
    "kin": "a named person, by kin or name (我媽, 阿嬤, 阮牽手): also a third person; the diet is theirs",
    "exclusion": "apart from (除了, 除開, 以外): what follows is left out, not deleted",
    "past_marker": "a past or habitual time (上次, 之前, 又, 老是): a complaint, not a request",
    "temporary": "for now only (先, 暫時, 這次)",
    "lasting": "from now on, every time (以後, 往後, 以後都, 一律, from now on): with a diet, a wish to be kept",
    "also": "also, even (也, 連): after a worry, the kept thing deleted along with something else",
    "forgot_to_do": "forgot to do something (忘記帶, 忘了吃藥): someone's own slip, told, never a delete",
    "will_it": "asks whether something will happen (會不會, 是不是會): before a delete verb, a worry, not a request",
    "still_there": "asks whether something is still there (還在嗎, 還會在吧): what is kept asked; after a delete, a wish to keep",
    "like_this": "like this, by this (照這樣, 按這個): after a lasting word, what was just said is how to search from now on",
    "thanks_word": "thanks in any words (感謝, 多謝, 幫了大忙, 辛苦你了)",
    "goodbye": "a goodbye (掰掰, 再見, 晚安)",
    "compliment": "a compliment to the bot (好棒, 很好用, 辛苦了)",
    "complaint": "a complaint about the bot (很爛, 不準, 聽不懂)",
    "health": "a remark about the speaker's health (腰痠, 感冒, 好累)",
    "weather": "a remark about the weather (好熱, 下雨, 颱風)",
    "bot_question": "a question about the bot itself (你是誰, 你是機器人嗎)",
    "visited": "a comment about a place already visited (去過, 吃過, 那家很好吃)",
    "for_someone": "the speaker asks the bot to act for someone (幫她, 幫他): a request, not a remark about them",
    "which": "asks which or what (哪一種, 什麼, 哪些, 多久): after a remembering verb, what is kept",
    "vague_do": "do something, unsaid what (弄一下, 處理一下, 看著辦): with what is kept, ask what",
    "self_forgetting": "the speaker's own forgetting (我忘記, 我自己忘了): a remark, not a request",
    "worry": "a fear or worry (怕, 擔心, 就怕): before a forgetting verb, a worry that something is forgotten, no request",
    "diet_place": "a place named by a diet (素食店, 素食餐廳): a place, not the kept diet",
    "courtesy": "a courtesy read whole (不好意思, 不客氣, 麻煩): its 不 negates nothing, its 煩 is no complaint",
    "self_correction": "the speaker takes back what they said (講錯, 打錯, 說錯): a correction, no complaint",
    "help_question": "asks what the bot can do (你會做什麼, 使用說明): the help text, beside small talk too",
    "identity": "what someone is (出家人, 和尚, 小孩): a negation before it (不是出家人) denies being so and reaches "
    "nothing after it",
    "other_verb": "a verb that is none of the preference's (知道, 曉得, 懂, 信任, 喜歡): a negation before it negates it (毋知, 不相信)",
    "request_tag": "a polite tag after a request (好嗎, 好不好, 可以嗎): the clause asks something done, no remark",
    "going": "not going back, said last (不要再去了, 以後不要再去啦): a place left behind, no stop",
    "ahead": "time to come, of what the bot will do (下次, 下回, 永遠): with a remembering verb and a diet, a wish to be kept",
    "ask_can": "asks whether the bot can (可以, 能不能, 有辦法, 能否): with a remembering verb and a diet, a wish to be kept",
    "will_happen": "what may happen (會把, 會被, 會不小心): after a worry, a delete feared, not asked",
    "watch_out": "asked to watch out for it (幫我留意, 多注意): after a diet, a wish to be kept",
    "each_time": "every time (每次, 逐擺): after a negation and before 這樣 or a diet, no longer every time, a stop",
    "the_rest": "the rest left as it is (其他不用動, 別的不要改): it bounds a request to what it names and keeps nothing",
    "other_thing": "something else people delete, cancel or turn off (照片, 訊息, 帳號, 通知, 報名, 訂閱): not what is kept",
    "no_negation": "a word holding 不 or 沒 that negates nothing (不小心, 沒關係, 不錯, 沒問題)",
    "disposal": "把, 將: the object comes before its verb, so a negation before them reaches that verb",
    "eats_what": "what someone eats, asked (吃什麼, 吃哪種): after a remembering verb, the kept diet asked",
    "permission": "agreeing to or allowing (同意, 答應, 允許): negated before a remembering verb, a refusal to be kept",
    "other_record": "a record or memory of something else (行車紀錄器, 病歷, 聊天紀錄, 記憶卡): not what is kept",
    "either": "or, offering a choice (還是, 或是): a delete or a keep on either side, a choice not yet made",
    "fresh_subject": "the speaker starting anew with what they want now (我現在就要, 我決定): a negation before it "
    "reaches nothing after it",
    "asked_of_bot": "the bot asked to do it (請你, 叫你): a forgetting verb after it is a request, whoever is named before",
}
WORD_CLASSES: tuple[str, ...] = tuple(CLASS_MEANINGS)
_RULE_CLASSES = frozenset(CLASS_MEANINGS)


class LexiconError(KeyError):
    """An unknown word class, or a malformed lexicon file."""


class Token(NamedTuple):
    """One lexicon word found in a sentence: where it starts and its classes (a named tuple: a
    sentence makes a dozen of these on every read)."""

    word: str
    start: int
    classes: frozenset[str]

    @property
    def end(self) -> int:
        return self.start + len(self.word)


@functools.cache
def _table() -> dict[str, frozenset[str]]:
    return load(DATA)


@functools.cache
def list_meanings() -> dict[str, str]:
    """Each list class of the shipped lexicon with its meaning."""
    return _list_meanings(DATA, json.loads(DATA.read_text(encoding="utf-8")))


def _list_meanings(path: Path, raw: object) -> dict[str, str]:
    lists = raw.get("lists", {}) if isinstance(raw, dict) else None
    if not isinstance(lists, dict) or not all(
        isinstance(m, str) and m and isinstance(c, str) and c not in CLASS_MEANINGS for c, m in lists.items()
    ):
        raise LexiconError(f"{path.name}: 'lists' maps each list class (no rule class) to its meaning")
    return dict(lists)


@functools.cache
def pairs_of(name: str) -> tuple[tuple[str, str], ...]:
    """The pairs of the shipped lexicon's map ``name`` (a word as written, the word it is read as), in
    the file's order; LexiconError on an unknown map."""
    found = maps(DATA, json.loads(DATA.read_text(encoding="utf-8"))).get(name)
    if found is None:
        raise LexiconError(f"unknown map {name!r}")
    return found


def maps(path: Path, raw: object) -> dict[str, tuple[tuple[str, str], ...]]:
    """The file's ``maps``: each named map with its meaning (``about``) and its pairs of two
    non-empty strings, no word mapped twice; else LexiconError naming the map."""
    found = raw.get("maps", {}) if isinstance(raw, dict) else None
    if not isinstance(found, dict):
        raise LexiconError(f"{path.name}: 'maps' names each map with its 'about' and 'pairs'")
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for name, entry in found.items():
        pairs = entry.get("pairs") if isinstance(entry, dict) else None
        ok = isinstance(entry, dict) and isinstance(entry.get("about"), str) and isinstance(pairs, list)
        ok = ok and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) and x for x in p)
            for p in pairs or ()
        )
        if not ok or not pairs:
            raise LexiconError(
                f"{path.name}: map {name!r} needs an 'about' and a list of [word, read as] pairs"
            )
        sources = [p[0] for p in pairs]
        if len(set(sources)) != len(sources):
            raise LexiconError(f"{path.name}: map {name!r} maps a word twice")
        out[name] = tuple((p[0], p[1]) for p in pairs)
    return out


def load(path: Path) -> dict[str, frozenset[str]]:
    """A lexicon file read and checked: every word with a non-empty list of known classes (rule
    classes, or list classes the file's ``lists`` describes), every list class with a word, else
    LexiconError naming the word or class (the shipped file is read once, on first use)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LexiconError(f"{path.name}: not readable as JSON ({exc.__class__.__name__})") from None
    entries = raw.get("words") if isinstance(raw, dict) else None
    if not isinstance(entries, dict):
        raise LexiconError(f"{path.name}: no 'words' object")
    lists = _list_meanings(path, raw)
    maps(path, raw)
    table: dict[str, frozenset[str]] = {}
    for word, classes in entries.items():
        if not word or not isinstance(classes, list) or not classes:
            raise LexiconError(f"{path.name}: {word!r} needs a non-empty list of classes")
        unknown = [c for c in classes if c not in CLASS_MEANINGS and c not in lists]
        if unknown:
            raise LexiconError(f"{path.name}: {word!r} has unknown classes {unknown}")
        table[word] = frozenset(classes)
    diet_words = (*catalogue.DIETARY_WORDS, *catalogue.DIETARY_SYNONYMS)  # the diet reader's own words
    diet_words += tuple(w for w, classes in table.items() if "vegetarian_word" in classes)
    for word in diet_words:
        table[word] = table.get(word, frozenset()) | {"diet"}
    empty = sorted(set(lists) - {c for classes in table.values() for c in classes})
    if empty:
        raise LexiconError(f"{path.name}: list classes with no word: {empty}")
    return table


@functools.cache
def words_of(word_class: str) -> tuple[str, ...]:
    """The words of ``word_class`` (a rule class or a list class), longest first (then in
    code-point order); LexiconError on an unknown class."""
    if word_class not in CLASS_MEANINGS and word_class not in list_meanings():
        raise LexiconError(f"unknown word class {word_class!r}")
    found = [w for w, classes in _table().items() if word_class in classes]
    return tuple(sorted(found, key=lambda w: (-len(w), w)))


def classes_of(word: str) -> frozenset[str]:
    """The classes of ``word`` (empty when the lexicon does not know it)."""
    return _table().get(word, frozenset())


@functools.cache
def _rule_words() -> dict[str, frozenset[str]]:
    """Each word with a rule class, with its rule classes only (a token never carries a list class)."""
    return {w: c & _RULE_CLASSES for w, c in _table().items() if c & _RULE_CLASSES}


@functools.cache
def _any_word() -> re.Pattern[str]:
    """Every rule word, longest first: at each position the first alternative that fits is the longest."""
    return quick(alternatives(_rule_words()))


@functools.cache
def _words_by_first() -> tuple[re.Pattern[str], dict[str, Callable[[str, int], re.Match[str] | None]]]:
    """The characters a rule word begins with, and for each one the words that begin with it as one
    pattern: :func:`_any_word`'s branch for that character alone. Matched where that character
    stands, it tries those words only, not every word's first character in turn."""
    groups: dict[str, list[str]] = {}
    for word in _rule_words():
        groups.setdefault(word[0], []).append(word)
    starts = re.compile(f"[{''.join(map(re.escape, groups))}]")
    return starts, {first: re.compile(alternatives(words)).match for first, words in groups.items()}


def _words_in(text: str) -> list[tuple[str, int]]:
    """Each rule word of ``text`` with where it starts, as :func:`_any_word`'s ``finditer`` finds them
    (left to right, the longest at each position, none overlapping)."""
    starts, words_at = _words_by_first()
    found: list[tuple[str, int]] = []
    end = 0
    for first in starts.finditer(text):
        at = first.start()
        if at >= end and (word := words_at[first.group()](text, at)) is not None:
            found.append((word.group(), at))
            end = word.end()
    return found


@memoised
def tokens(text: str) -> tuple[Token, ...]:
    """The lexicon's rule words in reading-form ``text``, left to right; at each position the longest
    word wins and its characters are not read again (「不要再用」 is one stop verb, not 不要 + 用)."""
    table = _rule_words()
    found = [Token(word, start, table[word]) for word, start in _words_in(text.lower())]
    for at, token in enumerate(found):
        if not _A_NOUN_AFTER_DE <= token.classes:
            continue
        before = found[at - 1] if at else None
        after_de = before is not None and before.word.endswith("的") and before.end == token.start
        # 「吃素的記錄」: the word before took the 的 that makes 記錄 the record (as 的記錄 is); 「那個設定」:
        # a record pointed at is a thing, no remembering; 「之前設定的素食篩選」: set before, describing
        # the kept thing after its 的, a record named
        pointed = text.endswith(words_of("pointing"), 0, token.start)
        if after_de or pointed or _modifies_the_kept_thing(text, found, at):
            found[at] = Token(token.word, token.start, token.classes - {"remember_verb"})
    return tuple(found)


def _modifies_the_kept_thing(text: str, found: list[Token], at: int) -> bool:
    """The remember verb at ``at`` is followed right away by 的 and then the diet or a record: it
    describes that thing (「設定的素食」), it does not ask to remember it."""
    token = found[at]
    if not text.startswith("的", token.end) or at + 1 >= len(found):
        return False
    after = found[at + 1]
    return after.start == token.end + 1 and not after.classes.isdisjoint({"diet", "memory_object"})


_A_NOUN_AFTER_DE = frozenset({"remember_verb", "memory_object"})
