"""``patterns.quick``: a pattern behind a look-ahead of the characters it can begin with matches
exactly as the pattern alone does, and a pattern whose start cannot be bounded is left as it is."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.language import date_calendars, date_grammar, date_spans, dates
from local_agent.language.patterns import alternatives, first_class, quick

PATTERNS = (
    r"(?<![第這那\d])(?:(?P<n>[0-9]{1,3}|[一二兩三]{1,3})\s*(?P<half>個半|多)?|(?P<lone>半))\s*個?(?P<unit>天|月)內",
    r"(?:除夕|年三十)|(?:過年|春節)|(?:端午|五月節)",
    r"(農曆|陰曆)?(?:\d{2,4}年)?(正|冬|臘|十[一二]|[一二三])月(初[一二三]|十[一二]?)?",
    r"(?:這|下|上)?(?:禮拜|星期)[一二三日天]",
    r"\s*(\d{1,2})\s*[號号日]",
)
ALPHABET = "第這那上下個半多天月內除夕年三十過春節端午五節農曆陰正冬臘一二兩初禮拜星期日號号 0123456789x"


@pytest.mark.parametrize(
    ("pattern", "first"),
    [
        ("除夕|過年|端午", "[端過除]"),
        ("(?<!\\d)(這|下)?禮拜", "[下禮這]"),
        ("\\s*\\d+號", "[\\d\\s]"),
        ("(?:a|b)?c", "[abc]"),
    ],
)
def test_the_first_characters_of_a_pattern(pattern: str, first: str) -> None:
    assert first_class(pattern) == first


@pytest.mark.parametrize("pattern", [".月", "[^月]天", "(?P<x>a)?(?P=x)b", "x?", "(?i:a)b", "(?=a)"])
def test_a_start_that_cannot_be_bounded_is_none(pattern: str) -> None:
    assert first_class(pattern) is None


def test_a_pattern_re_already_skips_through_or_one_with_flags_first_is_compiled_as_it_is() -> None:
    for pattern in ("除夕|過年", "^禮拜", "[一二]月", "(?i)lunch|dinner", "(?:(這|下)月)"):
        assert quick(pattern).pattern == pattern
    assert quick("(?<!\\d)(這|下)?禮拜").pattern.startswith("(?=[")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=30), at=st.integers(0, len(PATTERNS) - 1))
def test_quick_matches_where_the_pattern_alone_matches(text: str, at: int) -> None:
    plain, fast = re.compile(PATTERNS[at]), quick(PATTERNS[at])
    assert fast.pattern != plain.pattern  # each of these gets the look-ahead
    found = [(m.span(), m.groups()) for m in plain.finditer(text)]
    assert [(m.span(), m.groups()) for m in fast.finditer(text)] == found
    assert plain.sub("#", text) == fast.sub("#", text) and plain.split(text) == fast.split(text)


def test_the_date_readers_patterns_skip_ahead() -> None:
    """The look-ahead is what makes a sentence with no date cheap: the date modules' long patterns
    carry it (the festival gate, the spans, the month rules)."""
    assert date_calendars._ANY_FESTIVAL.pattern.startswith("(?=[")
    assert date_spans._WITHIN.pattern.startswith("(?=[")
    assert any(rule.pattern.pattern.startswith("(?=[") for rule in date_grammar.RULES)
    assert dates.read_dates("今天天氣很好", dates.date(2026, 12, 1)).kind == "window"


def test_a_word_tree_matches_as_the_words_longest_first_do() -> None:
    """``alternatives`` finds, at each position, the longest word that fits, as the plain alternation
    of the words longest first does, over words sharing beginnings, symbols and a word inside another."""
    rng = random.Random(7)
    alphabet = "吃素的葷記住刪掉a.b*"
    for _ in range(200):
        items = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4))) for _ in range(12)}
        plain = re.compile("|".join(re.escape(w) for w in sorted(items, key=len, reverse=True)))
        tree = re.compile(alternatives(items))
        for _ in range(20):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            assert [m.span() for m in tree.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_a_word_tree_of_shared_beginnings_and_of_nothing() -> None:
    assert alternatives(["吃素", "吃素的", "吃葷"]) == "吃(?:素(?:的)?|葷)"
    assert re.search(alternatives([]), "吃素") is None
