"""Places and events: the records, the dietary types and the searches — and A TEACHING SNAPSHOT.

The records themselves live in two CSV files (``places.csv``, ``events.csv``) that
``local_agent.listings.loader`` reads and validates. The snapshot shipped inside the package
(``local_agent/listings/data/``) is invented teaching data in a plausible local style: none of it is a
real business listing, none of it is kept up to date, and it carries no phone numbers or real addresses
(only hints such as 「花壇火車站附近」). Whatever shows a record to a user must also show
:data:`SNAPSHOT_NOTICE`; every exported record carries ``"snapshot": True``. ``PLACES``, ``EVENTS``,
``COVERED_TOWNSHIPS`` and ``KEYWORD_VOCABULARY`` are that shipped snapshot, read on first use.

Dietary tags on a :class:`Place` say *who can eat there*: ``{"vegetarian", "lacto_ovo"}`` means
a vegetarian or a lacto-ovo vegetarian finds food there. See :func:`dietary_matches` for the rule
a search uses. An :class:`Event` either has dates (Taiwan days, both ends included) or is *standing*:
recurring or open-ended, described only by its ``when``, and optionally limited to some calendar months
(``months``: a summer tour runs in 6, 7 and 8; no months means all year).

Standard library only: this module runs on a bare Python 3.11.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from local_agent.context.townships import canonical_township
from local_agent.listings.dates import DateWindow

SNAPSHOT_NOTICE = "教學快照，非即時資料：店家與活動僅供示範，出發前請再確認。"
SNAPSHOT_LABEL = "teaching snapshot (not live data)"

# ---------------------------------------------------------------------------------------------
# Dietary types
# ---------------------------------------------------------------------------------------------

ANY = "any"
INVALID = "__invalid__"

DIETARY_TYPES: dict[str, str] = {
    "vegetarian": "素食",
    "vegan": "全素",
    "lacto_ovo": "蛋奶素",
    "five_pungent": "五辛素",
    "pot_side": "鍋邊素",
    "no_beef": "不吃牛",
}

# Spoken words -> code. Matching is longest-word-first, so 全素 reads as vegan, not vegetarian.
DIETARY_WORDS: dict[str, str] = {
    "吃素": "vegetarian",
    "吃素的": "vegetarian",
    "素食": "vegetarian",
    "素食者": "vegetarian",
    "蔬食": "vegetarian",
    "素的": "vegetarian",
    "vegetarian": "vegetarian",
    "全素": "vegan",
    "全素食": "vegan",
    "純素": "vegan",
    "純素食": "vegan",
    "vegan": "vegan",
    "蛋奶素": "lacto_ovo",
    "奶蛋素": "lacto_ovo",
    "五辛素": "five_pungent",
    "鍋邊素": "pot_side",
    "肉邊素": "pot_side",
    "不吃牛": "no_beef",
    "不吃牛肉": "no_beef",
    "不食牛": "no_beef",
}

# Taiwanese and other words for a diet, read as the word above they stand for before a sentence is
# read (``find_dietary_type`` is the one diet reader; ``language/diets.py`` delegates to it).
DIETARY_SYNONYMS: dict[str, str] = {
    "食菜": "吃素",
    "食素": "吃素",
    "食全素": "吃全素",
    "呷菜": "吃素",
    "呷素": "吃素",
    "茹素": "吃素",
    "持素": "吃素",
    "吃齋": "吃素",
    "齋菜": "素食",
    "菜食": "素食",
    "齋食": "素食",
    "齋飯": "素食",
    "素菜": "素食",
    "五心素": "五辛素",  # (voice input writes a diet by its sound: 五心素, 五新素, 過邊素)
    "五新素": "五辛素",
    "五欣素": "五辛素",
    "過邊素": "鍋邊素",
    "吃蛋奶": "吃蛋奶素",
    "蛋奶可以": "蛋奶素",
    "蛋奶都可": "蛋奶素",
    "不要牛肉": "不吃牛肉",  # (asked of a search: 「找二林的午餐 不要牛肉」)
    "不能吃牛": "不吃牛",
    "不敢吃牛": "不吃牛",
}

# Words meaning "no restriction" for normalize_dietary_type.
ANY_WORDS: frozenset[str] = frozenset({ANY, "不限", "不拘", "都可以", "葷素不拘"})

# Places a vegetarian can use besides those tagged "vegetarian" itself.
_VEGETARIAN_SUBTYPES: frozenset[str] = frozenset({"vegan", "lacto_ovo", "five_pungent"})
# The vegetarian family (no meat served). 鍋邊素 is not in it: a pot-side place also cooks meat.
VEGETARIAN_FAMILY: frozenset[str] = frozenset({"vegetarian"}) | _VEGETARIAN_SUBTYPES

# A dietary word right after one of these is negated: 不吃素, 非素食. The first three also negate
# across one character: 不是全素, 不要素的, 沒吃素.
_NEGATORS: tuple[str, ...] = ("不", "沒", "没", "非", "無")
_FAR_NEGATORS: tuple[str, ...] = ("不", "沒", "没")
# Apart from a diet (除了素食, 除開素食, 素食以外): a search that leaves it out.
_APART_BEFORE: tuple[str, ...] = ("除了", "除開", "除去")
_APART_AFTER: tuple[str, ...] = ("以外", "之外")

# After 牛 these make it milk (不吃牛奶, 毋啉牛乳): no beef word.
_MILK = ("奶", "乳")

_LABEL_TO_CODE: dict[str, str] = {label: code for code, label in DIETARY_TYPES.items()}
# Of two words as long, a kind of vegetarian claims first: 蛋奶素食者 is 蛋奶素, not 素食者.
_WORDS_BY_LENGTH: tuple[str, ...] = tuple(
    sorted(DIETARY_WORDS, key=lambda w: (-len(w), DIETARY_WORDS[w] == "vegetarian", w))
)
# Any dietary word or synonym: a text with none of them names no diet (one search, before the walk).
_ANY_DIET_WORD = re.compile(
    "|".join(re.escape(w) for w in sorted({*DIETARY_WORDS, *DIETARY_SYNONYMS}, key=len, reverse=True))
)


def _negated(text: str, start: int, word: str) -> bool:
    if word.startswith(_NEGATORS):
        return False  # 不吃牛 is itself the dietary word
    before = text[:start]
    if before.endswith(_APART_BEFORE) or text[start + len(word) :].startswith(_APART_AFTER):
        return True  # 除了素食, 素食以外: apart from it, not asked for
    if before.endswith("有無"):
        return False  # 有無素食: whether there is (Taiwanese), not a negation
    if len(before) >= 3 and before[-2] in _FAR_NEGATORS and before[-3] == before[-1]:
        return False  # 有沒有素食 / 是不是吃素: a question, not a negation
    return before.endswith(_NEGATORS) or (len(before) >= 2 and before[-2] in _FAR_NEGATORS)


def find_dietary_type(text: str) -> str | None:
    """The dietary code a user's ``text`` mentions, else ``None``.

    Longer words claim their characters first (全素 → vegan, not the 素 of vegetarian; 蛋奶素 →
    lacto_ovo); of what remains, the earliest mention wins, except that a kind of vegetarian said
    beside the family's own word says which kind it is (「吃素的地方，要全素的」 → vegan). A negated
    mention (我不吃素) counts as no mention.
    """
    if not isinstance(text, str) or not text:
        return None
    lowered = text.lower()
    if not _ANY_DIET_WORD.search(lowered):
        return None
    for word, same in DIETARY_SYNONYMS.items():
        lowered = lowered.replace(word, same)
    taken = [False] * len(lowered)
    hits: list[tuple[int, str]] = []
    for word in _WORDS_BY_LENGTH:
        start = lowered.find(word)
        while start != -1:
            end = start + len(word)
            if not any(taken[start:end]) and not (word.endswith("牛") and lowered.startswith(_MILK, end)):
                for i in range(start, end):
                    taken[i] = True
                if not _negated(lowered, start, word):
                    hits.append((start, DIETARY_WORDS[word]))
            start = lowered.find(word, start + 1)
    codes = [code for _, code in sorted(hits)]
    kinds = [code for code in codes if code in _VEGETARIAN_SUBTYPES]
    if kinds and codes[0] == "vegetarian":
        return kinds[0]  # the family named first, then which kind of it
    if codes and codes[0] == "vegetarian" and _eggs_and_milk_allowed(lowered):
        return "lacto_ovo"  # 「吃素 但是蛋跟牛奶可以」: the kind that eats both
    return codes[0] if codes else None


# Eggs and milk named together (蛋奶, 蛋跟牛奶, 蛋和奶, 蛋 牛奶), not a drink or a dish of them.
_EGGS_AND_MILK = re.compile("蛋(?:跟|和|與|及|、|還有|或)?牛?[奶乳](?![茶昔粉凍酪])")
_REFUSED_BEFORE = ("不", "沒", "無", "免", "別")


def _eggs_and_milk_allowed(text: str) -> bool:
    """Eggs and milk named together after a vegetarian word, and not refused (「不吃蛋奶」, 「蛋奶都不行」):
    said as what the diet allows."""
    found = _EGGS_AND_MILK.search(text)
    if found is None:
        return False
    before, after = text[max(0, found.start() - 3) : found.start()], text[found.end() : found.end() + 4]
    after = after.replace("沒關係", "").replace("沒問題", "")  # (「蛋奶沒關係」 allows them)
    return not any(c in before for c in _REFUSED_BEFORE) and not any(c in after for c in _REFUSED_BEFORE)


def says_milk(text: str, word: str) -> bool:
    """Every 不吃牛-like ``word`` in ``text`` is the start of milk (「牛奶嘛毋啉」): no beef said."""
    if not word.endswith("牛"):
        return False
    ends = [m.end() for m in re.finditer(re.escape(word), text)]
    return bool(ends) and all(text.startswith(_MILK, end) for end in ends)


def normalize_dietary_type(value: object) -> str | None:
    """Turn a code, a Chinese label or a dietary word into a code.

    ``None`` or blank → ``None``; ``"any"``/``"不限"`` → :data:`ANY`; anything else unknown →
    :data:`INVALID` (never raises).
    """
    if value is None:
        return None
    if not isinstance(value, str):
        return INVALID
    text = value.strip()
    if not text:
        return None
    code = text.lower().replace("-", "_").replace(" ", "_")
    if code in DIETARY_TYPES:
        return code
    if code in ANY_WORDS or text in ANY_WORDS:
        return ANY
    if text in _LABEL_TO_CODE:
        return _LABEL_TO_CODE[text]
    if text.lower() in DIETARY_WORDS:
        return DIETARY_WORDS[text.lower()]
    return INVALID


def dietary_label(code: str) -> str:
    """Chinese label for a code (``any`` → 不限); unknown codes come back unchanged."""
    if code == ANY:
        return "不限"
    return DIETARY_TYPES.get(code, code)


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    id: str
    name: str
    township: str
    category: str
    dietary: frozenset[str]
    address_hint: str
    note: str
    phone: str = ""  # as the listing writes it; "" = none (the shipped snapshot has none)


@dataclass(frozen=True)
class Event:
    id: str
    name: str
    township: str
    venue: str
    when: str
    category: str
    note: str
    start_date: date | None = None
    end_date: date | None = None
    months: frozenset[int] = frozenset()  # a standing event's calendar months; empty = all year

    @property
    def standing(self) -> bool:
        """A recurring or open-ended event: no dates, only its ``when``."""
        return self.start_date is None

    @property
    def last_day(self) -> date | None:
        return self.end_date or self.start_date

    def overlaps(self, window: DateWindow) -> bool:
        """Whether a dated event has a day inside ``window`` (a standing one never does)."""
        if self.start_date is None:
            return False
        return window.overlaps(self.start_date, self.end_date or self.start_date)

    def in_season(self, window: DateWindow | None, today: date | None) -> bool:
        """Whether a standing event runs in ``window`` (a month of it is one of ``months``), or, without
        a window, in ``today``'s month; always when it has no months, or with neither to compare."""
        if not self.months:
            return True
        if window is not None:
            return bool(self.months & months_of(window))
        return today is None or today.month in self.months


def months_of(window: DateWindow) -> frozenset[int]:
    """The calendar months ``window`` has a day in."""
    months: set[int] = set()
    year, month = window.start.year, window.start.month
    while (year, month) <= (window.end.year, window.end.month) and len(months) < 12:
        months.add(month)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return frozenset(months)


def dietary_matches(place: Place, dietary_type: str) -> bool:
    """Whether ``place`` suits someone with ``dietary_type``.

    A place matches code X when X is among its tags, except that ``vegetarian`` also matches
    vegan, lacto-ovo and five-pungent places, and ``no_beef`` also matches any vegetarian-family
    place. ``any`` matches every place.
    """
    if dietary_type == ANY:
        return True
    if dietary_type in place.dietary:
        return True
    if dietary_type == "vegetarian":
        return bool(place.dietary & _VEGETARIAN_SUBTYPES)
    if dietary_type == "no_beef":
        return bool(place.dietary & VEGETARIAN_FAMILY)
    return False


# ---------------------------------------------------------------------------------------------
# Search and export
# ---------------------------------------------------------------------------------------------


def _contains(keyword: str, *fields: str) -> bool:
    needle = keyword.casefold()
    return any(needle in field.casefold() for field in fields)


def search_places(
    township: str, dietary_type: str, keyword: str, limit: int = 10, *, places: Sequence[Place] | None = None
) -> list[Place]:
    """Places in ``township`` that suit ``dietary_type`` and mention ``keyword``, ordered by id.

    ``township`` should be a canonical full name (a short name is tolerated). ``dietary_type`` is a
    code or :data:`ANY` (a label or word is normalised; blank means any; unknown gives no result).
    ``keyword`` ``""`` means no filter, else a case-insensitive substring of name, category or
    note. ``places`` defaults to the shipped snapshot.
    """
    full = canonical_township(township) or township
    code = normalize_dietary_type(dietary_type)
    if code is None:
        code = ANY
    if code == INVALID or limit <= 0:
        return []
    needle = (keyword or "").strip()
    found = [
        p
        for p in (_shipped().places if places is None else places)
        if p.township == full
        and dietary_matches(p, code)
        and (not needle or _contains(needle, p.name, p.category, p.note))
    ]
    return sorted(found, key=lambda p: p.id)[:limit]


def search_events(
    township: str,
    keyword: str,
    limit: int = 10,
    *,
    events: Sequence[Event] | None = None,
    window: DateWindow | None = None,
    today: date | None = None,
) -> list[Event]:
    """Events in ``township`` that mention ``keyword`` (name, venue, category or note).

    Dated events come first, by first day then id: with a ``window``, those that have a day in it;
    without one, those not over by ``today`` (all of them when ``today`` is ``None``). Standing events
    follow, by id: those without ``months`` whatever the window (they have no dates to compare, and the
    reply labels them so), those with ``months`` only when the window (else ``today``) falls in one.
    ``events`` defaults to the shipped snapshot.
    """
    full = canonical_township(township) or township
    if limit <= 0:
        return []
    needle = (keyword or "").strip()
    found = [
        e
        for e in (_shipped().events if events is None else events)
        if e.township == full and (not needle or _contains(needle, e.name, e.venue, e.category, e.note))
    ]
    standing = sorted((e for e in found if e.standing and e.in_season(window, today)), key=lambda e: e.id)
    dated = [e for e in found if not e.standing]
    if window is not None:
        dated = [e for e in dated if e.overlaps(window)]
    elif today is not None:
        dated = [e for e in dated if (e.last_day or today) >= today]
    dated.sort(key=lambda e: (e.start_date or date.min, e.id))
    return [*dated, *standing][:limit]


def place_to_dict(p: Place) -> dict[str, object]:
    """A JSON-able dict for ``p``, marked as a teaching snapshot."""
    dietary = sorted(p.dietary)
    return {
        "id": p.id,
        "name": p.name,
        "township": p.township,
        "category": p.category,
        "dietary": dietary,
        "dietary_labels": [DIETARY_TYPES[c] for c in dietary if c in DIETARY_TYPES],
        "address_hint": p.address_hint,
        "note": p.note,
        **({"phone": p.phone} if p.phone else {}),
        "snapshot": True,
    }


def event_to_dict(e: Event) -> dict[str, object]:
    """A JSON-able dict for ``e``, marked as a teaching snapshot."""
    return {
        "id": e.id,
        "name": e.name,
        "township": e.township,
        "venue": e.venue,
        "when": e.when,
        "category": e.category,
        "note": e.note,
        "start_date": e.start_date.isoformat() if e.start_date else "",
        "end_date": (e.end_date or e.start_date).isoformat() if e.start_date else "",
        "standing": e.standing,
        "snapshot": True,
    }


__all__ = [
    "ANY",
    "ANY_WORDS",
    "DIETARY_TYPES",
    "DIETARY_SYNONYMS",
    "DIETARY_WORDS",
    "INVALID",
    "SNAPSHOT_LABEL",
    "SNAPSHOT_NOTICE",
    "VEGETARIAN_FAMILY",
    "Event",
    "Place",
    "dietary_label",
    "dietary_matches",
    "event_to_dict",
    "find_dietary_type",
    "months_of",
    "normalize_dietary_type",
    "place_to_dict",
    "search_events",
    "search_places",
]


# The shipped snapshot, read and validated on first use (``local_agent.listings.loader``).
# KEYWORD_VOCABULARY: words the offline model may use as a search keyword, and that the audit may store
# as they are: the snapshot's own categories. Anything else a model proposes is audited only as a hash.
_LAZY = ("PLACES", "EVENTS", "COVERED_TOWNSHIPS", "KEYWORD_VOCABULARY")

if TYPE_CHECKING:  # what ``__getattr__`` serves, typed for callers
    from local_agent.listings.loader import Listings

    PLACES: tuple[Place, ...]
    EVENTS: tuple[Event, ...]
    COVERED_TOWNSHIPS: tuple[str, ...]
    KEYWORD_VOCABULARY: frozenset[str]


def _shipped() -> Listings:
    from local_agent.listings.loader import shipped_listings  # the loader builds on this module's types

    return shipped_listings()


def __getattr__(name: str) -> object:
    if name in _LAZY:
        listings = _shipped()
        return {
            "PLACES": listings.places,
            "EVENTS": listings.events,
            "COVERED_TOWNSHIPS": listings.covered_townships,
            "KEYWORD_VOCABULARY": listings.keyword_vocabulary,
        }[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
