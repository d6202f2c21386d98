"""The lexicon: each word with its classes (delete verb, remember verb, negation, diet, ...).

A reader asks for the words of a class (``words_of``) or the classes of a word (``classes_of``);
nothing else of this module is its interface. The words are drawn from the intent vocabulary
(``language.words``) and the dietary words of the catalogue, in the reading form. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Iterable

from local_agent.language import words
from local_agent.listings import catalogue


class LexiconError(KeyError):
    """A word class the lexicon does not have."""


def _longest_first(*groups: Iterable[str]) -> tuple[str, ...]:
    unique = dict.fromkeys(w for group in groups for w in group if w)
    return tuple(sorted(unique, key=lambda w: (-len(w), w)))


_STOP_VERBS = ("停用", "暫停", "停止", "停止套用", "不要再用", "別再套", "不再套用", "停掉", "關掉", "關閉")
_APPLY_VERBS = ("套用", "篩選", "過濾", "篩掉", "限定", "只找")
_MEMORY_OBJECTS = ("偏好", "飲食偏好", "設定", "資料", "個資", "紀錄", "記錄", "同意", "授權")
_QUESTIONS = ("是否", "有沒有", "哪裡", "哪個", "幾")
_ASPECT = ("了", "已", "已經", "幫您", "為您", "替您")
_THIRD_PERSON = ("他", "她", "他們", "她們", "我媽", "我爸", "我太太", "我先生", "我老婆", "我老公", "家人")
_REMEMBER_EXCLUDED = frozenset(_APPLY_VERBS) | {"改成", "換成", "改為"}

_CLASSES: dict[str, tuple[str, ...]] = {
    "delete_verb": _longest_first(words.FORGET_VERBS),
    "stop_verb": _longest_first(_STOP_VERBS, words.BARE_STOPS),
    "remember_verb": _longest_first([w for w in words.REMEMBER_VERBS if w not in _REMEMBER_EXCLUDED]),
    "apply_verb": _longest_first(_APPLY_VERBS),
    "show_verb": _longest_first(words.SHOW_ME, ("看看",)),
    "memory_object": _longest_first(_MEMORY_OBJECTS, words.DATA_OBJECTS),
    "diet": _longest_first(
        catalogue.DIETARY_WORDS,
        catalogue.DIETARY_TYPES.values(),
        words.VEGETARIAN_WORDS,
        words.DIET_SYNONYMS,
        ("蛋奶素", "五辛素", "鍋邊素"),
    ),
    "negation": _longest_first(words.NEGATIONS, ("不", "沒", "沒有", "毋", "未")),
    "question": _longest_first([w for w in words.QUESTION_MARKERS if w not in ("可以", "?")], _QUESTIONS),
    "aspect": _longest_first(_ASPECT),
    "third_person": _longest_first(_THIRD_PERSON),
}

WORD_CLASSES: tuple[str, ...] = tuple(_CLASSES)

_BY_WORD: dict[str, frozenset[str]] = {}
for _name, _words in _CLASSES.items():
    for _word in _words:
        _BY_WORD[_word] = _BY_WORD.get(_word, frozenset()) | {_name}


def words_of(word_class: str) -> tuple[str, ...]:
    """The words of ``word_class``, longest first; :class:`LexiconError` for an unknown class."""
    try:
        return _CLASSES[word_class]
    except KeyError:
        raise LexiconError(word_class) from None


def classes_of(word: str) -> frozenset[str]:
    """The classes of ``word`` (empty when the lexicon does not know it)."""
    return _BY_WORD.get(word, frozenset())


__all__ = ["WORD_CLASSES", "LexiconError", "classes_of", "words_of"]
