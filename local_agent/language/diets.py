"""Diets as people say them: which one a sentence names, whether it can be remembered, and a diet
said *now* (「我現在沒有吃素了」, 「今天不吃素」) that must win over a remembered one for this turn.
Also the short note a reply adds when a place's kind differs from the one asked for."""

from __future__ import annotations

import re
from dataclasses import dataclass

from local_agent.language import lexicon, rules, words
from local_agent.language.patterns import alternatives, quick
from local_agent.language.text import has_any, reading_form
from local_agent.listings import catalogue

# What a place of this kind serves that a stricter eater may not want; shown next to the place
# when its kind differs from the one asked for (「五辛素，含蔥蒜」).
KIND_NOTES: dict[str, str] = {
    "five_pungent": "含蔥蒜",
    "lacto_ovo": "含蛋奶",
    "pot_side": "與葷食同鍋",
    "no_beef": "不賣牛肉，有其他肉類",
}
# Diets for which a place that serves 五辛 (onion, garlic ...) is always labelled.
STRICT: frozenset[str] = frozenset({"vegetarian", "vegan", "lacto_ovo"})
# Kinds that suit a strict eater of the key, listed from the strictest.
STRICTER_OR_SAME: dict[str, frozenset[str]] = {
    "vegetarian": frozenset({"vegetarian", "vegan"}),
    "vegan": frozenset({"vegan"}),
    "lacto_ovo": frozenset({"lacto_ovo", "vegan", "vegetarian"}),
}


@dataclass(frozen=True)
class DietSaid:
    """A diet the current sentence states. ``code`` is a dietary code, ``catalogue.ANY`` for
    「不吃素」-like sentences, or None (nothing said). ``lasting``: the sentence says it changed for
    good (「沒有吃素了」), so forgetting a remembered diet is worth offering."""

    code: str | None = None
    lasting: bool = False


# 「沒有在吃素」, 「不想吃素」, 「不用特別找素的」: built from the data in ``words``.
NOT_VEGETARIAN = quick(
    f"(?:{alternatives(words.NOT_VEGETARIAN_LEADS)})(?:{alternatives(words.NOT_VEGETARIAN_MIDDLES)})?"
    f"(?:{alternatives(words.VEGETARIAN_WORDS)})|{alternatives(words.NOT_VEGETARIAN)}"
)


def negated_diet(t: str) -> re.Match[str] | None:
    """Where reading-form ``t`` says no vegetarian diet now, if it does. An A-not-A question
    (「有沒有素食」, 「是不是吃素的店」) negates nothing."""
    for match in NOT_VEGETARIAN.finditer(t):
        start = match.start()
        if 0 < start and start + 1 < len(t) and t[start - 1] == t[start + 1]:
            continue
        if t[max(0, start - 1) : start + 2] == "有沒有":
            continue
        if "肉" in match.group(0) and t[max(0, start - 1) : start] in words.MEAT_NEGATIONS and start:
            continue  # 「我不吃肉」 eats no meat
        if match.group(0).endswith("肉") and t.startswith(words.MEAT_DISHES, match.end() - 1):
            continue  # 「想去西螺吃肉圓」: a dish named, no diet given up
        if match.group(0).startswith("都") and t[:start].rstrip("啊呀也跟和及").endswith(
            words.ALLOWED_INGREDIENTS
        ):
            continue  # 「五辛素，蔥啊蒜啊都可以吃」: what the diet allows, said to explain it
        return match
    return None


def diet_said(text: str) -> DietSaid:
    """The diet ``text`` states now (any form: read into the reading form first)."""
    return diet_said_form(reading_form(text))


def diet_said_form(t: str, readings: frozenset[str] | None = None) -> DietSaid:
    """:func:`diet_said` on reading-form ``t`` (``readings``: its clauses' rule readings, when read)."""
    if "exclusion" in (rules.readings(t) if readings is None else readings):
        return DietSaid(catalogue.ANY)  # 「除開素食，員林還有什麼好吃的」: this search leaves it out
    if negated_diet(t) is not None:
        for_now = has_any(t, words.FOR_NOW)
        lasting = not for_now and has_any(t, words.LASTING_CHANGE)
        return DietSaid(catalogue.ANY, lasting)
    return DietSaid(find_diet(t))


def find_diet(text: str) -> str | None:
    """The dietary code ``text`` names, Taiwanese words included: ``catalogue.find_dietary_type``,
    the one diet reader (the tools' argument checks and the offline model read with it too)."""
    return catalogue.find_dietary_type(text)


# A change, lasting or now word: what follows it is the diet eaten since (one tuple, so that
# ``has_any`` builds its pattern once).
_CHANGED_WORDS = (*words.CHANGE_VERBS, *lexicon.words_of("lasting"), *words.NOW_WORDS)


def unsupported_diet(t: str) -> str | None:
    """A lasting diet the service cannot remember (早齋, 不吃牛, 初一十五), as reading-form ``t`` says it;
    not one said as what was before a change to one it can (「我本來初一十五吃素 現在改吃全素」,
    「以前只有早齋 以後都吃素」): a change or lasting word, then a diet it remembers."""
    said = next((w for w in words.UNSUPPORTED_DIETS if w in t and not catalogue.says_milk(t, w)), None)
    if said is None:
        return None
    after = t[t.index(said) + len(said) :]
    diet = find_diet(after) if has_any(after, _CHANGED_WORDS) else None
    return None if diet is not None and rememberable(diet) else said


def rememberable(code: str | None) -> bool:
    return code in words.REMEMBERABLE


def rememberable_labels() -> str:
    return "、".join(catalogue.dietary_label(c) for c in words.REMEMBERABLE)


def kind_note(asked: str, place_kinds: list[str] | tuple[str, ...] | frozenset[str]) -> str:
    """「五辛素，含蔥蒜」 when a place found for ``asked`` is of another kind than asked; else "".
    A strict vegetarian search (素食, 全素, 蛋奶素) always labels a place that serves 五辛."""
    kinds = set(place_kinds)
    if asked == catalogue.ANY:
        return ""
    if "five_pungent" in kinds and asked in STRICT:
        return _note("five_pungent")
    if asked in kinds or kinds & STRICTER_OR_SAME.get(asked, frozenset()):
        return ""
    kind = next((k for k in ("lacto_ovo", "pot_side", "no_beef", "five_pungent") if k in kinds), None)
    return _note(kind) if kind else ""


def _note(kind: str) -> str:
    return f"{catalogue.dietary_label(kind)}，{KIND_NOTES[kind]}"
