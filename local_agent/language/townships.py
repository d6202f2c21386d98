"""Township names as people say and voice-type them: which place a sentence is about.

``read_places(text)`` reads a whole sentence and tells what it can honestly conclude:

- ``township``: one Changhua township. With two, the one the person is going to wins over the one they
  live in or come from (「我住田中，後天要去二林」 is 二林鎮).
- ``choice``: two or more townships and nothing says which one (「二林和芳苑有什麼活動」): ask, never
  drop one silently.
- ``confirm``: no township by name, but two characters that *sound* like one (a voice keyboard writes
  「原林」 for 員林, or the right syllable in the wrong tone: 「北豆」 for 北斗, 「大存」 for 大村). Both
  syllables must match the name's without tones and at least one with its tone. The suggestion is
  confirmed with the person (「您是說員林市嗎？」), never applied.
- ``outside``: a place elsewhere in Taiwan (台中, 南投, 西螺, …): the honest answer is that only
  Changhua's 26 townships are served. A township's name right after one (「桃園的埔心」, 「台中大村」) is
  that place's own town, not the Changhua township.
- ``none``: no place at all.

Who lives where and who goes where: 「住」「從」「我是二林人」 mark where a person lives or comes from;
「去」「到」「現在在」「人在」 where they are going or are now. A township name directly followed by a local
product (「鹿港牛舌餅」, 「彰化肉圓」) names the product, not the area, when the sentence names another
township too (「鹿港哪裡吃得到彰化肉圓」 is 鹿港鎮; alone, 「北斗肉圓在哪」 is still 北斗鎮).

A township name inside a longer word is not that township (「咖啡和美食」 is not 和美鎮, 「會員林先生」 not
員林市, 「大城市」 not 大城鄉, 「員林客運」 is a bus company); those words, the readings of the names, the
ordinary words that sound like a name (方圓, 達成), the products, the gazetteer of places outside the
county and the residence/destination markers are data (``data/places.json``).

Pronunciation comes from pypinyin's character dictionary (each character's usual reading, tones
included): it is read once, only the characters whose reading without tones is a township syllable's are
kept, and the rest is dropped. Without pypinyin (the bare-``python3`` demo) there are no near misses, and everything else works.
``read_area`` applies the same reading to a tool's ``area`` argument, so a model's proposal is checked the
same way as the offline rules read a sentence.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from local_agent.context.townships import COUNTY, SHORT_NAMES, TOWNSHIPS, canonical_township
from local_agent.language import lexicon, words
from local_agent.language.diets import find_diet
from local_agent.language.memo import memoised
from local_agent.language.patterns import alternatives, first_class, quick
from local_agent.language.text import has_any, reading_form
from local_agent.language.text import warm as warm_reading_form

_ASKING_WORDS = (*words.PLACE_WORDS, *words.EVENT_WORDS, *words.ASKING_PLACE)

DATA = Path(__file__).with_name("data") / "places.json"
PlaceKind = Literal["none", "township", "choice", "confirm", "outside"]
SERVED_ONLY = "目前只服務彰化縣的 26 個鄉鎮市"
MAX_AREA_CHARS = 16  # an ``area`` argument longer than a few names is not read as places
# A short name before these is that township's school (「和美國中」), never a false hit.
_SCHOOLS = ("國中", "國小", "高中", "高工", "高商", "國民")
_CLAUSE_BREAK = quick(r"[,，。.!！?？;；~～\s]+")  # (a space is a pause in voice typing)
_SEPARATORS = quick(r"[\s、，,/／和與跟或及]+")
_TONE_MARKS = "\u0300\u0301\u030c\u0304"  # combining grave, acute, caron, macron; ü keeps its dots
_TONED = "āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜńňǹḿ"
_CJK = range(0x4E00, 0xA000)  # the characters a keyboard writes (rare extensions left out)
# 「桃園的埔心」, 「台中市大村」: at most one of these between a place outside and a township's name
_BETWEEN_OUTSIDE = tuple("的縣市區")


@dataclass(frozen=True, slots=True)
class PlaceReading:
    kind: PlaceKind = "none"
    township: str = ""  # the township (``township``) or the suggested one (``confirm``)
    choices: tuple[str, ...] = ()  # ``choice``: the townships named, in order
    outside: str = ""  # ``outside``: the county or city named, e.g. 臺中市
    heard: str = ""  # ``confirm``: the characters that sounded like ``township``
    together: bool = False  # ``choice``: asked for together (「鹿港跟福興都幫我找」), not as alternatives

    def area_argument(self) -> str:
        """What a model passes as the tool's ``area`` for this reading (the tool reads it again)."""
        if self.kind == "township":
            return self.township
        if self.kind == "confirm":
            return self.heard
        if self.kind == "choice":
            return "、".join(self.choices)
        return self.outside


@dataclass(frozen=True, slots=True)
class _Mention:
    start: int
    end: int
    township: str
    role: Literal["residence", "destination", ""]
    product: bool = False  # directly followed by a local product (「鹿港牛舌餅」)


@dataclass(frozen=True)
class _Vocabulary:
    readings: dict[str, tuple[frozenset[str], ...]]
    false_hits: dict[str, tuple[tuple[str, int], ...]]  # alias -> (longer word, offset of alias in it)
    not_misheard: frozenset[str]
    residence: tuple[str, ...]
    destination: tuple[str, ...]
    residence_suffixes: tuple[tuple[str, str], ...]  # (before, after): 「我是」二林「人」
    products: tuple[str, ...]
    corrections: tuple[str, ...]
    outside: tuple[tuple[str, str], ...]  # (alias, county or city), longest alias first
    outside_names: tuple[str, ...]  # the aliases alone
    older_times: tuple[str, ...]  # 「一開始」「昨天」: earlier than the live conversation
    older_places: tuple[str, ...]  # 「那個鄉鎮」「那裡」: what such a time points at
    surnames: frozenset[str] = frozenset()  # a person's name: a surname right before a township's name,
    introducers: tuple[str, ...] = ()  # itself right after one of these (「同事叫林永靖」)
    namers: tuple[str, ...] = ()  # right after one of these a township's name is what someone is called
    honorifics: tuple[str, ...] = ()  # right after a name, these make it a person's (「大城先生」)


def _words(section: Any) -> list[str]:
    return [str(w) for w in (section.get("words", []) if isinstance(section, dict) else section)]


@functools.cache
def vocabulary() -> _Vocabulary:
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    readings = {
        name: tuple(frozenset(pos) for pos in sounds)
        for name, sounds in raw["readings"].items()
        if not name.startswith("_")
    }
    aliases = [*TOWNSHIPS, *SHORT_NAMES]
    false_hits: dict[str, list[tuple[str, int]]] = {}
    for word in _words(raw["false_hits"]):
        for alias in aliases:
            if alias in word:
                false_hits.setdefault(alias, []).append((word, word.index(alias)))
    outside = [
        (alias, place)
        for place, names in raw["outside"].items()
        if not place.startswith("_")
        for alias in (place, *names)
    ]
    return _Vocabulary(
        readings=readings,
        false_hits={k: tuple(v) for k, v in false_hits.items()},
        not_misheard=frozenset(_words(raw["not_misheard"])),
        residence=tuple(
            sorted([*raw["residence_markers"], *_words(raw["passing_markers"])], key=len, reverse=True)
        ),
        destination=tuple(sorted(raw["destination_markers"], key=len, reverse=True)),
        residence_suffixes=tuple((str(b), str(a)) for b, a in raw["residence_suffixes"]["pairs"]),
        products=tuple(_words(raw["products"])),
        corrections=tuple(_words(raw["corrections"])),
        outside=tuple(sorted(outside, key=lambda a: len(a[0]), reverse=True)),
        outside_names=tuple(alias for alias, _ in outside),
        older_times=tuple(_words(raw["older_references"]["times"])),
        older_places=tuple(_words(raw["older_references"]["places"])),
        surnames=frozenset(raw["person_names"]["surnames"]),
        introducers=tuple(raw["person_names"]["introducers"]),
        namers=tuple(raw["person_names"]["namers"]),
        honorifics=tuple(raw["person_names"]["honorifics"]),
    )


def _pinyin_dictionary_path() -> Path | None:
    """pypinyin's character dictionary, found without importing the package (its import also loads the
    much larger phrase dictionary, which this module does not need)."""
    spec = importlib.util.find_spec("pypinyin")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "pinyin_dict.json"
    return path if path.is_file() else None


def _untone_table() -> dict[int, str | None]:
    """``str.translate`` table: each toned letter to its bare letter (ǚ to ü), stray tone marks dropped."""
    table: dict[int, str | None] = {ord(mark): None for mark in _TONE_MARKS}
    for letter in _TONED:
        bare = "".join(c for c in unicodedata.normalize("NFD", letter) if c not in _TONE_MARKS)
        table[ord(letter)] = unicodedata.normalize("NFC", bare)
    return table


_UNTONE = _untone_table()


def toneless(syllable: str) -> str:
    """A pinyin syllable without its tone mark (「dǒu」 → 「dou」; ü stays ü) and with a curled initial
    said flat (zh, ch, sh as z, c, s: 「chūn」 → 「cun」), as most people here say them, so a voice
    keyboard writes 「大春」 for 大村."""
    flat = syllable.translate(_UNTONE)
    return flat[0] + flat[2:] if flat[:2] in _CURLED else flat


_CURLED = ("zh", "ch", "sh")


@functools.cache
def sounds() -> dict[str, str]:
    """Character → its usual reading (tones included), for the characters whose usual reading without
    tones is a township syllable's (empty without pypinyin)."""
    path = _pinyin_dictionary_path()
    if path is None:
        return {}
    wanted = frozenset(
        toneless(s) for positions in vocabulary().readings.values() for pos in positions for s in pos
    )
    table: dict[str, str] = {}
    interned: dict[str, str] = {}
    for code, readings in json.loads(path.read_text(encoding="utf-8")).items():
        if int(code) not in _CJK:
            continue
        usual = readings.split(",", 1)[0]  # a keyboard writes a character for how it is usually said
        if toneless(usual) in wanted:
            table[chr(int(code))] = interned.setdefault(usual, usual)
    return table


@functools.cache
def _toneless_readings() -> tuple[tuple[str, tuple[frozenset[str], ...]], ...]:
    """Each short name with its positions' readings without tones."""
    return tuple(
        (name, tuple(frozenset(toneless(s) for s in pos) for pos in positions))
        for name, positions in vocabulary().readings.items()
    )


def warm() -> None:
    """Load the vocabulary, the pronunciation table and the reading form's OpenCC converters now (at
    service start), not in a user's turn."""
    vocabulary()
    sounds()
    warm_reading_form()


def _role(text: str, start: int, end: int, vocab: _Vocabulary) -> Literal["residence", "destination", ""]:
    before = text[max(0, start - 4) : start].rstrip()
    if before.endswith(vocab.residence):
        return "residence"
    if any(before.endswith(b) and text.startswith(a, end) for b, a in vocab.residence_suffixes):
        return "residence"  # 「我是二林人」
    if before.endswith(vocab.destination):
        return "destination"
    return ""


def _is_false_hit(text: str, alias: str, start: int, vocab: _Vocabulary) -> bool:
    for word, offset in vocab.false_hits.get(alias, ()):
        begin = start - offset
        if begin >= 0 and text.startswith(word, begin) and not _closes_an_event(text, start):
            return True
    return _in_a_persons_name(text, start, vocab)


def _closes_an_event(text: str, end: int) -> bool:
    """An event word ends at ``end``, where the township begins (「看燈會員林有嗎」: the 會 of 燈會, not
    of 會員): the longer word that spans the township is no word there."""
    return text[:end].endswith(_event_words())


@functools.cache
def _event_words() -> tuple[str, ...]:
    return tuple(w for w in lexicon.words_of("event_words") if len(w) > 1)


def _in_a_persons_name(text: str, start: int, vocab: _Vocabulary) -> bool:
    """The name at ``start`` ends a person's full name: a surname right before it, and before that a
    word that introduces a person (「我女兒的同事叫林永靖」, 「我乾媽林秀水」); or the name is what someone is
    called, right after 叫 or 名叫 (「男主角叫田中」)."""
    if text[:start].endswith(vocab.namers):
        return True
    return start > 0 and text[start - 1] in vocab.surnames and text[: start - 1].endswith(vocab.introducers)


def _after_outside(text: str, start: int, township: str, vocab: _Vocabulary) -> bool:
    """A place outside the county right before ``start`` (「桃園的埔心」, 「台中大村」); not 彰化, which
    is no other place's town (「台中彰化一日遊」 names two places)."""
    if township == "彰化市":
        return False
    before = text[max(0, start - 5) : start]
    if before.endswith(_BETWEEN_OUTSIDE):
        before = before[:-1]
    return before.endswith(vocab.outside_names)


@functools.cache
def _aliases() -> tuple[tuple[str, str], ...]:
    pairs = [(name, name) for name in TOWNSHIPS] + list(SHORT_NAMES.items())
    return tuple(sorted(pairs, key=lambda p: len(p[0]), reverse=True))


@functools.cache
def _alias_starts() -> tuple[re.Pattern[str], dict[str, tuple[int, ...]]]:
    """The characters a name begins with, and for each the places in :func:`_aliases` of its names."""
    index: dict[str, list[int]] = {}
    for at, (alias, _) in enumerate(_aliases()):
        index.setdefault(alias[0], []).append(at)
    return re.compile(f"[{''.join(index)}]"), {ch: tuple(ats) for ch, ats in index.items()}


def _aliases_in(text: str) -> list[tuple[str, str]]:
    """Of :func:`_aliases`, in their order, those whose first character ``text`` holds (the others
    cannot be in it: one search in C instead of a look for every name)."""
    starts, index = _alias_starts()
    aliases = _aliases()
    return [aliases[at] for at in sorted({at for ch in set(starts.findall(text)) for at in index[ch]})]


def _mentions(text: str, taken: list[bool], vocab: _Vocabulary) -> list[_Mention]:
    """Townships named in ``text`` (longest names first, no overlaps, no false hits), in order."""
    found: list[_Mention] = []
    for alias, township in _aliases_in(text):
        start = text.find(alias)
        while start != -1:
            end = start + len(alias)
            county = alias == "彰化" and text.startswith(COUNTY, start)
            full = end < len(text) and len(alias) == 2 and text[end] == township[-1]
            full = full or text.startswith(_SCHOOLS, end)  # 「和美國中」 is no 「和美國」
            blocked = not full and (
                _is_false_hit(text, alias, start, vocab) or text.startswith(vocab.honorifics, end)
            )
            if not county and not blocked and not any(taken[start:end]):
                taken[start:end] = [True] * (end - start)
                if not _after_outside(text, start, township, vocab):
                    product = text.startswith(vocab.products, end)
                    found.append(_Mention(start, end, township, _role(text, start, end, vocab), product))
            start = text.find(alias, start + 1)
    return sorted(found, key=lambda m: m.start)


def _mask_words(text: str, taken: list[bool], words: re.Pattern[str]) -> None:
    """Mark every place one of the ``words`` (a :func:`_masker`) stands in ``text``: at each position
    the longest that begins there, which covers any shorter one beginning there too."""
    for match in words.finditer(text):
        start = match.start()
        taken[start : start + len(match.group(1))] = [True] * len(match.group(1))


@functools.cache
def _masker(which: str) -> re.Pattern[str]:
    """Every word of the vocabulary's ``which`` list ("false_hits" or "outside"), found where it begins
    even inside another one (a look-ahead consumes nothing)."""
    vocab = vocabulary()
    if which == "false_hits":
        listed = [word for pairs in vocab.false_hits.values() for word, _ in pairs]
    else:
        listed = [alias for alias, _ in vocab.outside]
    words = alternatives(listed)
    first = first_class(words)  # (positions no word begins at are passed over at once)
    return re.compile(f"(?={first})(?=({words}))" if first else f"(?=({words}))")


def _sounds_like(first: str, second: str, vocab: _Vocabulary) -> str:
    """The short name two readings say: both syllables exactly, else both without tones with at least
    one exactly (「běi dòu」 is 北斗's 「běi dǒu」); "" for none."""
    exact, flat = _by_sound()
    name = exact.get((first, second))
    if name is not None:
        return name
    for name in flat.get((toneless(first), toneless(second)), ()):
        one, two = vocab.readings[name]
        if first in one or second in two:
            return name
    return ""


@functools.cache
def _by_sound() -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], tuple[str, ...]]]:
    """The short names by their two syllables: with tones, the first name in the vocabulary's order
    that has them; without tones, every name that has them, in that order."""
    exact: dict[tuple[str, str], str] = {}
    for name, (one, two) in vocabulary().readings.items():
        for pair in itertools.product(one, two):
            exact.setdefault(pair, name)
    flat: dict[tuple[str, str], list[str]] = {}
    for name, (flat_one, flat_two) in _toneless_readings():
        for pair in itertools.product(flat_one, flat_two):
            flat.setdefault(pair, []).append(name)
    return exact, {pair: tuple(names) for pair, names in flat.items()}


def _near_miss(text: str, taken: list[bool], vocab: _Vocabulary) -> tuple[str, str] | None:
    """The first two free characters that sound like a township's short name without being it:
    ``(heard, township)``."""
    table = sounds()
    if not table:
        return None
    heard = [table.get(ch) for ch in text]
    for i, (first, second) in enumerate(zip(heard, heard[1:], strict=False)):
        if not (first and second):
            continue  # (a character that sounds like no township syllable: no name there)
        pair = text[i : i + 2]
        common = pair in vocab.not_misheard and not _place_slot(text, i)
        if taken[i] or taken[i + 1] or common or pair in SHORT_NAMES:
            continue
        name = _sounds_like(first, second, vocab)
        if name:
            return pair, SHORT_NAMES[name]
    return None


def _place_slot(text: str, at: int) -> bool:
    """Two characters at ``at`` stand where a place is said: before a township's ending 鄉 or 鎮
    (「福星鄉」), or first in the sentence (or after 在, 去, 到, 找) and before 有, 那, 這, 附近
    (「復興有什麼好吃的」), or alone (a search's area). There even a
    common word that sounds like a township (福星, 大成) is asked about (「您是說…嗎？」), never
    searched."""
    if text.startswith(("鄉", "鎮"), at + 2):
        return True  # 「福星鄉」: said with a township's own ending, a place is meant
    lead = at == 0 or text[at - 1] in "在去到找,"
    return lead and (at + 2 == len(text) or text.startswith(("有", "那", "這", "附近"), at + 2))


def _outside(text: str, taken: list[bool], vocab: _Vocabulary) -> str:
    if _masker("outside").search(text) is None:
        return ""  # (most sentences: no name outside the county at all)
    for alias, place in vocab.outside:
        start = text.find(alias)
        if start != -1 and not any(taken[start : start + len(alias)]):
            return place
    return ""


def _unique(townships: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(townships))


def _decide(mentions: list[_Mention]) -> PlaceReading:
    named = _unique([m.township for m in mentions])
    if len(named) == 1:
        return PlaceReading("township", named[0])
    going = _unique([m.township for m in mentions if m.role != "residence"])
    if len(going) == 1:
        return PlaceReading("township", going[0])
    marked = _unique([m.township for m in mentions if m.role == "destination"])
    if len(marked) == 1:
        return PlaceReading("township", marked[0])
    return PlaceReading("choice", choices=going or named)


def _together(text: str, mentions: list[_Mention], reading: PlaceReading) -> PlaceReading:
    """Townships the person asks for together: joined by 跟 / 和 / 及 (「鹿港跟福興的素食」) or said
    with a word for both (兩邊, 兩個都): each is searched, where two townships otherwise ask which, or
    where one of them would be read as the place searched."""
    named = _unique([m.township for m in mentions])
    if reading.kind == "township" and 1 < len(named) <= 3 and has_any(text, lexicon.words_of("both")):
        # (「去鹿港 然後順便去福興 兩個地方都幫我看看」: one is where the person goes, and both are asked)
        return PlaceReading("choice", choices=named, together=True)
    if reading.kind != "choice" or len(reading.choices) > 3:
        return reading
    chosen = [m for m in mentions if m.township in reading.choices]
    joined = any(
        text[first.end : second.start] in lexicon.words_of("joined")
        for first, second in zip(chosen, chosen[1:], strict=False)
    )
    if joined or has_any(text, lexicon.words_of("both")):
        return replace(reading, together=True)
    return reading


def _alternatives(text: str, mentions: list[_Mention]) -> PlaceReading | None:
    """Two townships offered as alternatives (「二林還是芳苑」, the lexicon's ``alternatives``): which
    one is asked, whatever marks the first as where the person goes."""
    offered = lexicon.words_of("alternatives")
    for first, second in zip(mentions, mentions[1:], strict=False):
        if first.township != second.township and text[first.end : second.start] in offered:
            return PlaceReading("choice", choices=(first.township, second.township))
    return None


_QUOTED = re.compile(r"「[^「」]*」|『[^『』]*』|“[^“”]*”|\"[^\"]*\"")


def _outside_quotes(text: str, mentions: list[_Mention]) -> list[_Mention]:
    """「員林那家「伸港海產」在哪裡」: a name inside quotes names a shop or a sign, and gives way to a
    township named outside them."""
    if not mentions or not any(q in text for q in '「『“"'):
        return mentions
    spans = [(m.start(), m.end()) for m in _QUOTED.finditer(text)]
    outside = [m for m in mentions if not any(a < m.start and m.end < b for a, b in spans)]
    return outside or mentions


def _without_products(mentions: list[_Mention]) -> list[_Mention]:
    """「鹿港哪裡吃得到彰化肉圓」: a product's township gives way to another township named on its own."""
    areas = [m for m in mentions if not m.product]
    own = {m.township for m in areas}
    return areas if areas and any(m.township not in own for m in mentions) else mentions


# Before a township, these deny it: 「不是員林，是埔心」, 「幫我看秀水，不要伸港」.
_DENIALS = ("不是", "不要", "不去", "別去", "毋是")


def _corrected(text: str, mentions: list[_Mention], vocab: _Vocabulary) -> list[_Mention]:
    """「員林，喔不是，是埔心」, 「不是員林，是埔心」, 「看秀水，不要伸港」: a township taken back or
    denied gives way to the others; one said again after the correction word is denied again."""
    if len({m.township for m in mentions}) < 2:
        return mentions
    kept = []
    for at, mention in enumerate(mentions):
        after = text[mention.end : mentions[at + 1].start] if at + 1 < len(mentions) else ""
        before = text[max(0, mention.start - 3) : mention.start]
        between = text[mentions[at - 1].end : mention.start] if at else ""
        again = (  # 「埤頭 嗯不是 埤頭 是北斗」: said again, then another
            0 < at < len(mentions) - 1
            and mentions[at - 1].township == mention.township != mentions[at + 1].township
        )
        denied = (
            before.endswith(_DENIALS)
            and not before.endswith(("是不是", "要不要"))
            and (again or not _retracts(between, vocab))
        )
        taken_back = has_any(after, vocab.corrections) and "是不是" not in after
        if not (denied or taken_back):
            kept.append(mention)
    return kept or mentions


def _retracts(between: str, vocab: _Vocabulary) -> bool:
    """「鹿港喔不是福興」: a correction word said after an interjection takes back the township before
    it; it denies none after (where 「員林，不是埔心」 denies 埔心)."""
    rest = between.lstrip(" ,")
    spoken = rest.lstrip(words.INTERJECTIONS)
    return spoken != rest and spoken.startswith(vocab.corrections)


def corrects(form: str) -> bool:
    """The sentence takes back or corrects what was said before (「不是啦 是福興」, 「我講錯了」)."""
    return has_any(form, vocabulary().corrections)


# Before a correction word, these make it a warning (「別給我搞錯」), not a correction.
_WARNINGS = ("別", "不要", "莫", "毋通", "不可以", "不能", "別給我", "不要給我", "別再", "不要再")
# 是不是 / 對不對 asked, not inside a doubled 不是不是 / 不對不對 (which corrects).
_A_NOT_A = quick("(?<!不)(?:是不是|對不對)")


@memoised
def corrected_tail(form: str) -> str | None:
    """What follows the last correction word of ``form`` (「明天 不對 是後天」 → 「是後天」), or None when
    it has none. A 不是 / 不對 inside an A-not-A question (是不是, 對不對) corrects nothing, and one
    said bare corrects only after an interjection (「禮拜三 喔不是 禮拜四」), before a 是 (「不對 是
    後天」) or with a particle (「不是啦」): 「下禮拜三，不是這禮拜」 denies the day after it instead."""
    asked = _A_NOT_A.sub("", form)
    corrections = vocabulary().corrections
    if not has_any(asked, corrections):
        return None  # (most sentences: no correction word at all)
    ends = []
    for word in corrections:
        at = asked.find(word)
        while at >= 0:  # (each time it is said: a bare 不是 that denies may follow one that corrects)
            if _corrects_at(asked, word, at):
                ends.append(at + len(word))
            at = asked.find(word, at + 1)
    return asked[max(ends) :] if ends else None


def _corrects_at(asked: str, word: str, at: int) -> bool:
    """The correction ``word`` at ``at`` takes back what was said before it (see :func:`corrected_tail`)."""
    end = at + len(word)
    if asked[:at].endswith(_WARNINGS) or asked[: max(0, at - 1)].endswith(_WARNINGS):
        return False  # 「別給我搞錯」, 「不要再弄錯了」 warn; they take nothing back
    taken_back = _then_is(asked[end:]) or asked.startswith(_RETRACTING, end)
    return word not in ("不是", "不對") or asked[:at].endswith(tuple(words.INTERJECTIONS)) or taken_back


# A particle right after a bare 不是 / 不對 takes back what was said (「禮拜六 不是啦 禮拜天」); without
# one, 「不是這禮拜」 denies what follows.
_RETRACTING = ("啦", "喔", "啊", "呀", "咧")


def _then_is(rest: str) -> bool:
    return rest.lstrip(" ," + words.INTERJECTIONS + "啦").startswith("是")


def _asks(clause: str) -> bool:
    t = reading_form(clause)
    return has_any(t, _ASKING_WORDS) or bool(find_diet(t))


def _asked(text: str, mentions: list[_Mention]) -> list[_Mention]:
    """「埔鹽離溪湖很近吧？溪湖有什麼好吃的」, 「人在北斗，旁邊田尾有什麼活動」: when the last clause
    that names a township asks for something, its townships win over the earlier clauses' ones."""
    if len({m.township for m in mentions}) < 2 or has_any(text, lexicon.words_of("both")):
        return mentions  # (「…兩個地方都幫我看看」 asks for every one named)
    ends = [m.end() for m in _CLAUSE_BREAK.finditer(text)]
    last = mentions[-1]
    start = max((e for e in ends if e <= last.start), default=0)
    end = min((e for e in ends if e > last.start), default=len(text))
    inside = [m for m in mentions if m.start >= start]
    if len(inside) < len(mentions) and _asks(text[start:end]):
        return inside
    return mentions


def read_places(text: str) -> PlaceReading:
    """What ``text`` says about a place; see the module docstring."""
    vocab = vocabulary()
    found, covered = _named(text)
    taken = list(covered)
    mentions = _without_products(_outside_quotes(text, list(found)))
    mentions = _asked(text, _corrected(text, mentions, vocab))
    staying = all(m.role == "residence" for m in mentions)
    if mentions and not staying:
        return _alternatives(text, mentions) or _together(text, mentions, _decide(mentions))
    _mask_words(text, taken, _masker("false_hits"))
    outside = _outside(text, taken, vocab)
    if outside:
        _mask_words(text, taken, _masker("outside"))
    miss = _near_miss(text, taken, vocab)
    if miss is not None:
        return PlaceReading("confirm", miss[1], heard=miss[0])
    if mentions:  # (where one lives and works, 「兩邊都幫我找」: both, as any two asked together)
        return _together(text, mentions, _decide(mentions))
    return PlaceReading("outside", outside=outside) if outside else PlaceReading()


def read_area(area: object) -> PlaceReading:
    """A tool's ``area`` argument read like a sentence: an exact name first (「員林」「彰化縣員林市」),
    then several names (「二林鎮、芳苑鄉」), a near miss (「原林」) or a place outside the county."""
    if not isinstance(area, str) or not area.strip():
        return PlaceReading()
    exact = canonical_township(area)
    if exact is not None:
        return PlaceReading("township", exact)
    if len(area) > MAX_AREA_CHARS or any(c.isdigit() for c in area):
        return PlaceReading()  # a sentence or a number in ``area`` is no place name
    parts = [p for p in _SEPARATORS.split(area.strip()) if p]
    named = [canonical_township(p) for p in parts]
    if len(parts) > 1 and all(named):
        choices = _unique([n for n in named if n])
        return (
            PlaceReading("township", choices[0])
            if len(choices) == 1
            else PlaceReading("choice", choices=choices)
        )
    return read_places(area.strip())


_PUNCTUATION = quick(r"[\s，。、！？!?.,~～…]+")
YES = frozenset(
    {
        "是",
        "是的",
        "是啊",
        "對",
        "對啊",
        "對的",
        "沒錯",
        "嗯",
        "嗯嗯",
        "好",
        "好啊",
        "就是",
        "就是那裡",
        "對對對",
    }
)
NO = frozenset({"不是", "不對", "錯了", "都不是", "不是啦", "不是喔", "不要"})
_ZHUYIN = quick("[\u3105-\u312f\u31a0-\u31bf]")


def _bare(text: str) -> str:
    return _PUNCTUATION.sub("", text)


def is_yes(text: str) -> bool:
    """A plain yes (是, 對, 沒錯, …) to 「您是說員林市嗎？」."""
    return _bare(text) in YES


def is_no(text: str) -> bool:
    """A plain no (不是, 不對, …) to 「您是說員林市嗎？」."""
    return _bare(text) in NO


def is_zhuyin(text: str) -> bool:
    """Mostly Zhuyin symbols (ㄏㄨㄚ ㄊㄢˊ): phonetic spelling, not a name that can be read."""
    if not _ZHUYIN.search(text):
        return False  # (most sentences: no symbol to count)
    letters = [c for c in _bare(text) if c not in "ˊˇˋ˙"]
    return bool(letters) and sum(1 for c in letters if _ZHUYIN.match(c)) * 2 >= len(letters)


def refers_to_older(text: str) -> bool:
    """「一開始問的那個鄉鎮」, 「昨天說的那個地方」, 「上禮拜問的那裡」: a place pointed at by a time earlier than
    the live conversation (a time word, then a place word, in one clause). 「剛才那個鄉鎮」 is not."""
    return refers_to_older_form(reading_form(text))


def refers_to_older_form(form: str) -> bool:
    """:func:`refers_to_older` on a text already in reading form."""
    vocab = vocabulary()
    if not has_any(form, vocab.older_times):
        return False  # (most sentences: no earlier time at all)
    for clause in _CLAUSE_BREAK.split(form):
        starts = [clause.find(w) for w in vocab.older_times if w in clause]
        if starts and any(clause.find(p, min(starts)) != -1 for p in vocab.older_places):
            return True
    return False


def find_townships(text: str) -> list[str]:
    """The townships a sentence names, in order of first appearance, without repeats: the names the
    reader sees (full names over short ones, not the county 彰化縣, not a name inside a longer word
    such as 「咖啡和美食」 or 「員林客運」, not a name right after a place outside the county such as
    「桃園的埔心」). Commands ask it whether a sentence names a township at all."""
    return list(_townships_named(text))


@memoised
def _townships_named(text: str) -> tuple[str, ...]:
    return tuple(_unique([m.township for m in _named(text)[0]]))


@memoised
def _named(text: str) -> tuple[tuple[_Mention, ...], tuple[bool, ...]]:
    """:func:`_mentions` of ``text`` and the characters they cover, found once per reading (the
    reader and :func:`find_townships` both ask)."""
    taken = [False] * len(text)
    return tuple(_mentions(text, taken, vocabulary())), tuple(taken)


__all__ = [
    "SERVED_ONLY",
    "PlaceReading",
    "find_townships",
    "is_no",
    "is_yes",
    "is_zhuyin",
    "read_area",
    "read_places",
    "refers_to_older",
    "warm",
]
