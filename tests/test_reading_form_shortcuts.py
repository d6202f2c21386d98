"""The reading form's shortcuts (``language/text.py``) skip only work that would change nothing: each
step is skipped when the sentence lacks every character it reads, NFKC is taken narrow first, and the
dropped characters are looked for one by one only when the sentence has one."""

from __future__ import annotations

import random
import unicodedata

import pytest

from local_agent.language import text
from local_agent.language.text import (
    ENGLISH_WORDS,
    NETSPEAK,
    SPOKEN_PUNCTUATION,
    ZHUYIN_PARTICLES,
    ZHUYIN_WORDS,
    mandarin,
    opencc_converters,
    reading_form_with,
    to_traditional,
)

# Characters that each step reads, among ordinary ones: full-width forms, a combining mark after a
# full-width letter, half-width kana with its voicing mark, Zhuyin, pictographs, spaces, list marks.
_POOL = list(
    "我吃素員林了啦那好嗎不是記住刪掉號逗句12 .、)ＡＢ１２，。！？\u3000ㄅㄚㄇ❌✖🚫🗑🐄😮\u200d\ufe0fｶﾞ①㈱"
) + ["\u0301", "\u3099", "\u200b", "not ", "口以", "幫窩", "逗號", "^", "`", "\t", "\U000e0001"]


def _samples(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_POOL) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def _unguarded(said: str, converters: text.Converters | None) -> str:
    """The reading form with every step taken, as it was before the shortcuts."""
    folded = unicodedata.normalize("NFKC", said.encode("utf-8", "replace").decode("utf-8"))
    folded = text._NO_EMOJI.sub("", folded).translate(text._SYMBOLS)
    if text._LATIN.search(folded):
        folded = text._ENGLISH.sub(lambda m: ENGLISH_WORDS[m.group().lower()], folded)
    if "號" in folded:
        folded = text._SPOKEN.sub(lambda m: SPOKEN_PUNCTUATION[m.group()], folded)
    folded = text._LIST_MARK.sub(lambda m: "," if m.start() else "", folded)
    folded = text._NETSPEAK.sub(lambda m: NETSPEAK[m.group()], folded)
    folded = text._ZHUYIN_WORD.sub(lambda m: ZHUYIN_WORDS[m.group()], folded)
    folded = text._ZHUYIN_PARTICLE.sub(lambda m: ZHUYIN_PARTICLES[m.group()], folded)
    folded = text._SPACED_PICTURES.sub(" ", folded) if " " in folded else folded
    folded = text._CLAUSE_SPACE.sub(",", text._DIGITS_APART.sub("、", folded))
    kept = "".join(ch for ch in folded if text._kept(ch))
    read = mandarin(to_traditional(kept, converters).lower())
    read = text._TAG_THEN_MORE.sub(r"\1,", read) if "嗎" in read else read
    return text._CORRECTION.sub(r"\1,\2", read) if "不是" in read else read


@pytest.mark.parametrize("with_opencc", [True, False])
def test_the_shortcuts_read_as_every_step_does(with_opencc: bool) -> None:
    converters = opencc_converters() if with_opencc else None
    for said in _samples(2000, seed=7):
        assert reading_form_with(said, converters) == _unguarded(said, converters), said


def test_nfkc_taken_narrow_first_is_nfkc() -> None:
    for said in [*_samples(2000, seed=11), "Ａ\u0301", "ｶﾞ", "，\u0301", "\u3000\u0301", "①２"]:
        assert text._nfkc(said) == unicodedata.normalize("NFKC", said), said


def test_every_character_the_one_match_passes_is_kept() -> None:
    passed = [chr(code) for code in range(0x4E00, 0xA000)] + [chr(code) for code in range(0x80)]
    passed = [ch for ch in passed if text._ALL_KEPT.fullmatch(ch)]
    assert len(passed) > 20000
    assert all(text._kept(ch) for ch in passed)
    assert not text._ALL_KEPT.fullmatch("^") and not text._ALL_KEPT.fullmatch(" ")
