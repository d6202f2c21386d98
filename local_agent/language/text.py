"""The form in which the language layer reads a message.

Full-width letters, digits and punctuation become their ASCII forms (NFKC), a sentence written in
simplified characters becomes Taiwan's traditional ones (:func:`traditional`), spaces, zero-width and direction marks go,
emoji or pictographs are dropped (a few that say something, ❌ or 🗑, are read as words first), a
few English words, and a caregiver's Indonesian, Vietnamese or Tagalog ones, are read as whole words
before the spaces go (not, don't, /show, tidak, xóa: the lexicon's ``english_words`` and
``caregiver_words``), punctuation said aloud (逗號) is the mark, Latin letters are lower-cased, a space
between two runs of Chinese separates clauses, and Taiwanese words written in Han characters (and a
caregiver's Thai words, once their marks are dropped: ``thai_words``) read as Mandarin ones. The result
is only ever read, never stored or shown.

Simplified to traditional is OpenCC's ``s2twp`` (Taiwan characters), applied only to a sentence that
holds no traditional-only character (OpenCC's ``t2s`` leaves it as it is), and only character for
character: a Taiwan phrase it would put in place of a word (查看 → 檢視) is not taken, so a sentence
whose characters are the same in both scripts is read as written. A sentence
already in traditional characters is not run through it: ``s2twp`` also rewrites traditional text
(溪州 → 谿州, 保存 → 儲存, 權限 → 許可權, 划龍舟 → 劃龍舟), so such a sentence only has its stray
simplified characters mapped, by the vocabulary's own table (``words.SIMPLIFIED_TO_TRADITIONAL``). The
same table is the whole conversion where OpenCC is not installed (the bare-``python3`` demo).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
import unicodedata
from collections.abc import Callable

from local_agent.language.patterns import alternatives, quick
from local_agent.language.words import (
    ENGLISH_WORDS,
    NETSPEAK,
    SIMPLIFIED_TO_TRADITIONAL,
    SPOKEN_PUNCTUATION,
    SYMBOL_WORDS,
    TAIWANESE,
    TAIWANESE_QUESTION_ENDINGS,
    THAI_WORDS,
    TRAILING_PARTICLES,
    ZHUYIN_PARTICLES,
    ZHUYIN_WORDS,
)

_TABLE = str.maketrans(SIMPLIFIED_TO_TRADITIONAL)
# A cross right after a pictograph says "no" to what it shows (「🐄❌」, no beef), not "cancel".
_NO_CROSSES = "❌✖🚫"
_NO_EMOJI = quick(f"(?<=[\U0001f300-\U0001faff\u2600-\u26ff])\ufe0f?[{_NO_CROSSES}]")
# The characters those two steps read: a sentence with none of them skips both.
_SYMBOL_CHARS = re.compile(f"[{re.escape(_NO_CROSSES + ''.join(SYMBOL_WORDS))}]")
# Full-width ASCII and the ideographic space as NFKC writes them: the usual reason a sentence is not
# in NFKC already (see :func:`_nfkc`).
_WIDE_FORMS = {
    chr(code): unicodedata.normalize("NFKC", chr(code)) for code in (*range(0xFF01, 0xFF5F), 0x3000)
}
_WIDE = re.compile("[\uff01-\uff5e\u3000]")
# A list item's number (「1.」, 「2、」, 「3)」) at the start or after a space, before a word: a clause break.
_LIST_MARK = quick(r"(?:^|\s+)\d{1,2}[.、)](?=[^\d\s.])")
# Chat slang spellings of whole words (「口以」, 「幫窩」): read first, longest first.
_NETSPEAK = quick(alternatives(NETSPEAK))
# A Zhuyin letter for a whole word, before another character (「ㄅ要」: 不要).
_ZHUYIN_WORD = quick(f"[{''.join(ZHUYIN_WORDS)}](?=[\u4e00-\u9fff])")
# A Zhuyin particle letter right after a Chinese character and not before another Zhuyin symbol.
_ZHUYIN_PARTICLE = quick(f"(?<=[\u4e00-\u9fff])[{''.join(ZHUYIN_PARTICLES)}](?![\u3105-\u312fˊˇˋ˙])")
_ZHUYIN_LETTERS = re.compile(f"[{''.join(ZHUYIN_WORDS)}{''.join(ZHUYIN_PARTICLES)}]")  # (what those two read)
_SYMBOLS = str.maketrans(SYMBOL_WORDS)
# English words as whole words (「I'm not asking you to delete」, 「/show」), read before the spaces go.
_ENGLISH = re.compile(
    "(?<![a-z'’])(?:" + alternatives(ENGLISH_WORDS) + ")(?![a-z'’])",
    re.IGNORECASE,
)
_SPOKEN = re.compile("|".join(map(re.escape, SPOKEN_PUNCTUATION)))
_LATIN = re.compile("[A-Za-z]")
# A space between two numbers keeps them apart when the spaces go.
_DIGITS_APART = quick("(?<=[0-9])[ \u3000]+(?=[0-9])")
# A pictograph beside a space between two clauses is a pause too (「…刪掉嗎 🙇 感恩」): one space. (One
# picture may be several joined by U+200D: 😮‍💨.)
_ONE_PICTURE = "[\U0001f300-\U0001faff\u2600-\u27bf]\ufe0f?"
_PICTURE = f"{_ONE_PICTURE}(?:\u200d{_ONE_PICTURE})*"
_SPACED_PICTURES = quick(f"(?:[ \u3000]*{_PICTURE})+[ \u3000]+|[ \u3000]+(?:{_PICTURE}[ \u3000]*)+")
_DROPPED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Sk", "So", "Mn", "Me")
# A space after a clause's end (了, 啦, 的, 嗎 …) or before a clause's start (那, 算了, 幫我 …) between
# runs of Chinese separates clauses, as a voice keyboard writes them (「全素那個不用了啦 我現在什麼都吃」);
# any other space (「忘 記」, 「不 用記了」, 「不想讓 你記得」) is only dropped.
_CLAUSE_SPACE = re.compile(
    "(?<=[\u3400-\u9fff]{2}[了啦啊喔的嗎呢吧耶齁掉來矣])[ \u3000]+(?=[\u3400-\u9fff])"
    "|(?<=[\u3400-\u9fff]{3})[ \u3000]+(?=(?:那|阿|啊|吼|然後|另外|算了|幫我|先幫我|對了|順便|之前|你把|請|麻煩|我只是|我只想|只是想)[\u3400-\u9fff \u3000])"
    "|[ \u3000]+(?=[唉欸哎][ \u3000])|(?<=[ \u3000][唉欸哎])[ \u3000]+"  # (a sigh between pauses: 「… 唉 …」)
    "|(?<=[\u3400-\u9fff])[ \u3000]+(?=(?:刪|刪掉|刪除|删|删掉|删除)[啦啊喔吧了]?[!！。.]*$)"  # (「… 刪掉啦」: the verb said last, alone)
)
ZHUYIN = range(0x3100, 0x3130)
ZHUYIN_EXTENDED = range(0x31A0, 0x31C0)


Converters = tuple[Callable[[str], str], Callable[[str], str]]  # (s2twp, t2s)


@functools.cache
def _opencc(config: str) -> Callable[[str], str] | None:
    """One OpenCC converter, built on first use, or ``None`` without OpenCC."""
    if importlib.util.find_spec("opencc") is None:
        return None
    converter: Callable[[str], str] = importlib.import_module("opencc").OpenCC(config).convert
    return converter


def _to_taiwan(text: str) -> str:
    """OpenCC ``s2twp``. Built on the first sentence in simplified characters, not at start: its
    dictionaries take about 44 MiB and 0.3 s, the ``t2s`` detector about 2.5 MiB and 10 ms
    (``bench.language_cost``), and most people here write traditional characters."""
    convert = _opencc("s2twp")
    return convert(text) if convert is not None else text.translate(_TABLE)


def opencc_converters() -> Converters | None:
    """OpenCC's ``s2twp`` (built when first needed) and ``t2s`` converters, or ``None`` without OpenCC."""
    detect = _opencc("t2s")
    return None if detect is None else (_to_taiwan, detect)


def to_traditional(text: str, converters: Converters | None) -> str:
    """``text`` in traditional characters: all of it through ``s2twp`` when it holds no
    traditional-only character; otherwise (or with no ``converters``) only the vocabulary's table."""
    if converters is not None:
        to_taiwan, to_simplified = converters
        if to_simplified(text) == text:
            return _characters_only(text, to_taiwan(text), to_simplified)
    return text.translate(_TABLE)


def _characters_only(text: str, taiwan: str, to_simplified: Callable[[str], str]) -> str:
    """Of ``s2twp``'s output keep only the characters that are ``text``'s own in the other script
    (記 for 记); a Taiwan phrase it put in place of a word (查看 → 檢視, 軟件 → 軟體) keeps the word
    as it was written, so a sentence with no simplified character at all comes back unchanged. A
    conversion that changed the length is not aligned: the vocabulary's table maps it instead."""
    back = to_simplified(taiwan)
    if not len(back) == len(taiwan) == len(text):
        return text.translate(_TABLE)
    return "".join(t if b == s else s for t, b, s in zip(taiwan, back, text, strict=True))


_TO_SIMPLIFIED = {traditional: simplified for simplified, traditional in SIMPLIFIED_TO_TRADITIONAL.items()}


def spellings(word: str) -> tuple[str, ...]:
    """``word`` (traditional) as written, and as a phone set to simplified characters writes it when
    that differs (員林, 员林): to find a name the reading form matched in the text as sent."""
    simplified = "".join(_TO_SIMPLIFIED.get(ch, ch) for ch in word)
    return (word,) if simplified == word else (word, simplified)


def traditional(text: str) -> str:
    """``text`` in Taiwan's traditional characters (OpenCC when installed; see the module docstring)."""
    return to_traditional(text, opencc_converters())


def warm() -> None:
    """Build the detector now (at service start); ``s2twp`` waits for the first simplified sentence."""
    opencc_converters()


@functools.lru_cache(maxsize=8192)
def _kept(ch: str) -> bool:
    """(One character at a time, so the cache holds characters, never a text.)"""
    return unicodedata.category(ch) not in _DROPPED_CATEGORIES and not ch.isspace()


# Characters :func:`_kept` keeps, the usual ones of a sentence (the CJK ideographs and printable
# ASCII's kept ones): a sentence of these alone is checked by one match, not character by character.
_ALL_KEPT = re.compile(
    "[\u4e00-\u9fff" + re.escape("".join(c for c in map(chr, range(0x21, 0x7F)) if _kept(c))) + "]*"
)


def _without_dropped(text: str) -> str:
    return text if _ALL_KEPT.fullmatch(text) else "".join(filter(_kept, text))


def _nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``, cheaper for the usual sentence: its full-width
    punctuation written narrow first (each character as NFKC writes it alone, which leaves the
    text's NFKC unchanged), then the whole normalised only when it is still not in NFKC."""
    narrow = _WIDE.sub(lambda m: _WIDE_FORMS[m.group()], text)
    return narrow if unicodedata.is_normalized("NFKC", narrow) else unicodedata.normalize("NFKC", narrow)


def reading_form(text: str) -> str:
    """``text`` as intents are matched against it: NFKC, traditional, no spaces, marks or emoji."""
    return reading_form_with(text, opencc_converters())


def reading_form_with(text: str, converters: Converters | None) -> str:
    """:func:`reading_form` with the given converters (``None``: the vocabulary's table alone, as on a
    bare ``python3``); the benchmark compares the two."""
    if not isinstance(text, str):
        return ""
    folded = _nfkc(text.encode("utf-8", "replace").decode("utf-8"))
    if _SYMBOL_CHARS.search(folded):
        folded = _NO_EMOJI.sub("", folded)  # 「🐄❌」: no beef, no cancel
        folded = folded.translate(_SYMBOLS)
    if _LATIN.search(folded):
        folded = _ENGLISH.sub(lambda m: ENGLISH_WORDS[m.group().lower()], folded)
    if "號" in folded:
        folded = _SPOKEN.sub(lambda m: SPOKEN_PUNCTUATION[m.group()], folded)  # 「逗號」 said aloud: a comma
    if "." in folded or "、" in folded or ")" in folded:  # (the marks a list item's number ends with)
        folded = _LIST_MARK.sub(lambda m: "," if m.start() else "", folded)  # 「1.素食那個刪掉 2.員林有什麼」
    folded = _NETSPEAK.sub(lambda m: NETSPEAK[m.group()], folded)  # 「幫窩」: 幫我
    if _ZHUYIN_LETTERS.search(folded):
        folded = _ZHUYIN_WORD.sub(lambda m: ZHUYIN_WORDS[m.group()], folded)  # 「ㄅ要」: 不要
        folded = _ZHUYIN_PARTICLE.sub(lambda m: ZHUYIN_PARTICLES[m.group()], folded)  # 「好ㄚ」: 好啊
    if " " in folded or "\u3000" in folded:
        folded = _SPACED_PICTURES.sub(" ", folded) if " " in folded else folded
        folded = _DIGITS_APART.sub("、", folded)  # 「12月19 20那兩天」: two days, not 1920
        folded = _CLAUSE_SPACE.sub(",", folded)  # 「全素那個不用了啦 我現在什麼都吃」: two clauses
    read = mandarin(to_traditional(_without_dropped(folded), converters).lower())
    read = _TAG_THEN_MORE.sub(r"\1,", read) if "嗎" in read else read
    return _CORRECTION.sub(r"\1,\2", read) if "不是" in read else read


# A polite tag (好嗎, 可以嗎, 行嗎) with more said right after it ends its clause, as a pause would
# (「那個幫我拿掉好嗎我以後不用了」): the request before it is asked kindly, the words after are another clause.
_TAG_THEN_MORE = re.compile("(好嗎|可以嗎|行嗎)(?=[\u3400-\u9fff])")


# A correction: 「不是X，是要Y」 said without a pause (「我不是要找餐廳我是要你把它取消」). What comes
# after the pivot is a clause of its own, so the 不是 negates X, never Y. (是不是 asks; it is no 不是;
# 也不是要 is a second negation, no pivot.) A bare 是 is the pivot before a delete verb (「不是山 是刪掉」: a
# voice-typed word put right; 「不是改 是整個刪掉」), where 是 cannot be the copula of X.
_CORRECTION = re.compile(
    r"((?<!是)不是(?!不是)[^,]{1,16}?)(?<!不)(而是|我是要|我是說|我要的是|是要|是(?=[^,]{0,3}(?:刪|取消|清)))"
)


_SPOKEN_PAIRS = (*TAIWANESE, *THAI_WORDS)
_SPOKEN_WORDS = tuple(spoken for spoken, _ in _SPOKEN_PAIRS)


def mandarin(t: str) -> str:
    """Taiwanese words in ``t`` read as their Mandarin ones (``words.TAIWANESE``; a caregiver's Thai
    words the same way, ``words.THAI_WORDS``), and a final
    無 / 袂 / 未 after three or more characters as the question it asks (「有素食無」 → 「有素食嗎」;
    not 「設為無」 or 「偏好：無」)."""
    if has_any(t, _SPOKEN_WORDS):
        for spoken, mandarin_word in _SPOKEN_PAIRS:
            t = t.replace(spoken, mandarin_word)
    body = t.rstrip(TRAILING_PARTICLES + "?")
    if len(body) >= 3 and body.endswith(TAIWANESE_QUESTION_ENDINGS) and body[-2] not in ":為成是":
        t = body[:-1] + "嗎" + t[len(body) :]
    return t


def has_words(text: str) -> bool:
    """Whether ``text`` holds anything the layer can read: a Han character, a letter or a digit
    (Zhuyin alone, emoji alone or punctuation alone is not)."""
    return has_words_form(reading_form(text))


def has_words_form(form: str) -> bool:
    """:func:`has_words` on a text already in reading form."""
    for ch in form:
        code = ord(ch)
        if code in ZHUYIN or code in ZHUYIN_EXTENDED:
            continue
        if ch.isalnum() and unicodedata.category(ch) != "Lm":
            return True
    return False


_FINDERS: dict[int, tuple[tuple[str, ...], Callable[[str], re.Match[str] | None]]] = {}
_MAX_FINDERS = 512


def has_any(text: str, words: tuple[str, ...]) -> bool:
    """Whether one of ``words`` is in ``text``: ``any(w in text for w in words)`` as one compiled
    search. ``words`` is a module's fixed tuple (each tuple's pattern is built once and kept)."""
    found = _FINDERS.get(id(words))
    if found is not None and found[0] is words:
        return found[1](text) is not None
    if len(_FINDERS) >= _MAX_FINDERS:  # (a tuple built per call would otherwise pile up)
        _FINDERS.clear()
    search = quick(alternatives(words)).search
    _FINDERS[id(words)] = (words, search)
    return search(text) is not None


def without(t: str, removed: tuple[str, ...]) -> str:
    """``t`` with each of ``removed`` taken out, in their order."""
    if not has_any(t, removed):
        return t
    for word in removed:
        t = t.replace(word, "")
    return t
