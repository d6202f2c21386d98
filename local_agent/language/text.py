"""The form in which the language layer reads a message.

Full-width letters, digits and punctuation become their ASCII forms (NFKC), simplified characters
that matter to the vocabulary become traditional ones, spaces, zero-width and direction marks go,
and emoji or pictographs are dropped. The result is only ever read, never stored or shown.
"""

from __future__ import annotations

import unicodedata

from local_agent.language.words import SIMPLIFIED_TO_TRADITIONAL

_TABLE = str.maketrans(SIMPLIFIED_TO_TRADITIONAL)
_DROPPED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Sk", "So", "Mn", "Me")
ZHUYIN = range(0x3100, 0x3130)
ZHUYIN_EXTENDED = range(0x31A0, 0x31C0)


def _kept(ch: str) -> bool:
    return unicodedata.category(ch) not in _DROPPED_CATEGORIES and not ch.isspace()


def reading_form(text: str) -> str:
    """``text`` as intents are matched against it: NFKC, traditional, no spaces, marks or emoji."""
    if not isinstance(text, str):
        return ""
    folded = unicodedata.normalize("NFKC", text.encode("utf-8", "replace").decode("utf-8"))
    return "".join(ch for ch in folded if _kept(ch)).translate(_TABLE)


def has_words(text: str) -> bool:
    """Whether ``text`` holds anything the layer can read: a Han character, a letter or a digit
    (Zhuyin alone, emoji alone or punctuation alone is not)."""
    for ch in reading_form(text):
        code = ord(ch)
        if code in ZHUYIN or code in ZHUYIN_EXTENDED:
            continue
        if ch.isalnum() and unicodedata.category(ch) != "Lm":
            return True
    return False
