"""The teaching-snapshot catalogue: dietary words, matching rules, search and data hygiene."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from datetime import date

import pytest

from local_agent.context.townships import TOWNSHIPS, canonical_township
from local_agent.listings.catalogue import (
    ANY,
    COVERED_TOWNSHIPS,
    DIETARY_TYPES,
    DIETARY_WORDS,
    EVENTS,
    INVALID,
    PLACES,
    SNAPSHOT_LABEL,
    SNAPSHOT_NOTICE,
    Event,
    Place,
    dietary_matches,
    event_to_dict,
    find_dietary_type,
    normalize_dietary_type,
    place_to_dict,
    search_events,
    search_places,
)

HUATAN = "花壇鄉"
HUATAN_VEG = "花壇和米素食"


def _place(*dietary: str) -> Place:
    return Place("x1", "測試店", HUATAN, "小吃", frozenset(dietary), "測試", "測試")


def _text_fields(record: Place | Event) -> list[str]:
    return [getattr(record, f.name) for f in fields(record) if isinstance(getattr(record, f.name), str)]


# --- snapshot marking ---------------------------------------------------------------------------


def test_snapshot_notice_says_teaching_snapshot_not_live():
    assert SNAPSHOT_NOTICE == "教學快照，非即時資料：店家與活動僅供示範，出發前請再確認。"
    assert SNAPSHOT_LABEL == "teaching snapshot (not live data)"


def test_every_exported_record_is_marked_snapshot_and_json_able():
    for p in PLACES:
        d = place_to_dict(p)
        assert d["snapshot"] is True
        assert d["dietary"] == sorted(p.dietary)
        json.dumps(d, ensure_ascii=False)
    for e in EVENTS:
        d = event_to_dict(e)
        assert d["snapshot"] is True
        json.dumps(d, ensure_ascii=False)


# --- the 花壇 example from the spec ------------------------------------------------------------


def test_huatan_vegetarian_place_is_found_for_vegetarian():
    names = [p.name for p in search_places(HUATAN, "vegetarian", "")]
    assert HUATAN_VEG in names


def test_huatan_vegetarian_place_is_found_for_any():
    names = [p.name for p in search_places(HUATAN, ANY, "")]
    assert HUATAN_VEG in names


def test_huatan_vegetarian_place_has_the_spec_tags():
    place = next(p for p in PLACES if p.name == HUATAN_VEG)
    assert place.township == HUATAN
    assert place.dietary == frozenset({"vegetarian", "lacto_ovo"})


def test_huatan_has_a_non_vegetarian_place_and_two_events():
    huatan = [p for p in PLACES if p.township == HUATAN]
    assert any(not dietary_matches(p, "vegetarian") for p in huatan)
    assert len(search_events(HUATAN, "")) >= 2


def test_non_vegetarian_place_is_not_found_for_vegetarian():
    meat = [p for p in PLACES if p.township == HUATAN and not p.dietary]
    assert meat
    found = search_places(HUATAN, "vegetarian", "")
    assert not set(found) & set(meat)


def test_no_event_for_bagua_mountain_trail():
    assert all("八卦山" not in f for e in EVENTS for f in _text_fields(e))
    assert search_events("彰化市", "八卦山") == []


# --- dietary matching rules -----------------------------------------------------------------


@pytest.mark.parametrize("tag", ["vegetarian", "vegan", "lacto_ovo", "five_pungent"])
def test_vegetarian_matches_every_vegetarian_subtype(tag):
    assert dietary_matches(_place(tag), "vegetarian")


def test_vegetarian_does_not_match_pot_side_or_no_beef_or_untagged():
    assert not dietary_matches(_place("pot_side"), "vegetarian")
    assert not dietary_matches(_place("no_beef"), "vegetarian")
    assert not dietary_matches(_place(), "vegetarian")


@pytest.mark.parametrize("tag", ["vegetarian", "vegan", "lacto_ovo", "five_pungent", "no_beef"])
def test_no_beef_matches_no_beef_and_vegetarian_family(tag):
    assert dietary_matches(_place(tag), "no_beef")


def test_no_beef_does_not_match_untagged_place():
    assert not dietary_matches(_place(), "no_beef")


def test_specific_codes_match_only_their_own_tag():
    assert dietary_matches(_place("vegan"), "vegan")
    assert not dietary_matches(_place("vegetarian"), "vegan")
    assert not dietary_matches(_place("vegetarian", "lacto_ovo"), "vegan")
    assert dietary_matches(_place("pot_side"), "pot_side")
    assert not dietary_matches(_place("vegetarian"), "pot_side")


def test_any_matches_every_place():
    assert all(dietary_matches(p, ANY) for p in PLACES)
    assert dietary_matches(_place(), ANY)


def test_search_respects_dietary_rule_for_every_code():
    for township in COVERED_TOWNSHIPS:
        for code in (*DIETARY_TYPES, ANY):
            got = search_places(township, code, "", limit=100)
            want = sorted(
                (p for p in PLACES if p.township == township and dietary_matches(p, code)), key=lambda p: p.id
            )
            assert got == want


def test_beef_shop_is_not_found_for_no_beef():
    names = [p.name for p in search_places("員林市", "no_beef", "", limit=100)]
    assert "員林牛肉湯" not in names
    assert "員林蔬食自助餐" in names


# --- keyword, order and limit ---------------------------------------------------------------


def test_keyword_filters_on_name_category_and_note():
    assert [p.name for p in search_places(HUATAN, ANY, "肉圓")] == ["花壇老街肉圓"]
    assert all(p.category == "素食" for p in search_places("彰化市", ANY, "素食"))
    by_note = search_places(HUATAN, ANY, "花茶凍")
    assert [p.name for p in by_note] == ["茉莉花茶小舖"]


def test_empty_keyword_means_no_filter():
    assert search_places(HUATAN, ANY, "") == search_places(HUATAN, ANY, "  ")
    assert len(search_places(HUATAN, ANY, "")) == sum(p.township == HUATAN for p in PLACES)


def test_keyword_is_case_insensitive():
    # The snapshot has no Latin letters, so check the folding on a record built for it.
    cafe = Place("z9", "Latte 咖啡", HUATAN, "Coffee", frozenset(), "測試", "Oat Milk")
    for keyword in ("latte", "LATTE", "coffee", "oat milk"):
        assert search_places(HUATAN, ANY, keyword, places=(*PLACES, cafe)) == [cafe]


def test_keyword_with_no_match_gives_empty_list():
    assert search_places(HUATAN, ANY, "拉麵") == []
    assert search_events(HUATAN, "演唱會") == []


def test_event_keyword_filter():
    # Without a window, a dated event already over by today (花壇秋收感恩市集, October) is left out.
    names = [e.name for e in search_events(HUATAN, "市集", today=date(2026, 11, 30))]
    assert names == ["花壇假日農夫市集"]
    assert [e.name for e in search_events(HUATAN, "市集", today=date(2026, 10, 1))] == [
        "花壇秋收感恩市集",
        "花壇假日農夫市集",
    ]


def test_results_are_ordered_by_id_and_limited():
    found = search_places("彰化市", ANY, "", limit=100)
    assert [p.id for p in found] == sorted(p.id for p in found)
    assert search_places("彰化市", ANY, "", limit=2) == found[:2]
    assert search_places("彰化市", ANY, "", limit=0) == []
    events = search_events("彰化市", "", limit=100)
    # Dated events first, by first day; then the standing ones, by id.
    dated = [e for e in events if not e.standing]
    standing = [e for e in events if e.standing]
    assert events == dated + standing and dated and standing
    assert [e.start_date for e in dated] == sorted(e.start_date for e in dated if e.start_date)
    assert [e.id for e in standing] == sorted(e.id for e in standing)
    assert search_events("彰化市", "", limit=1) == events[:1]


def test_search_in_uncovered_or_unknown_township_is_empty():
    uncovered = next(t for t in TOWNSHIPS if t not in COVERED_TOWNSHIPS)
    assert search_places(uncovered, ANY, "") == []
    assert search_events(uncovered, "") == []
    assert search_places("台北市", ANY, "") == []


def test_search_with_invalid_dietary_type_is_empty():
    assert search_places(HUATAN, "carnivore", "") == []


# --- townships ----------------------------------------------------------------------------------


def test_all_26_townships_are_accepted_by_full_and_short_name():
    assert len(TOWNSHIPS) == 26
    for name in TOWNSHIPS:
        assert canonical_township(name) == name
        assert canonical_township(name[:-1]) == name


@pytest.mark.parametrize("name", ["台北市", "彰化縣", "花蓮", "", "八卦山", "鹿港老街"])
def test_unknown_township_names_are_rejected(name):
    assert canonical_township(name) is None


def test_at_least_eight_townships_are_covered():
    assert len(COVERED_TOWNSHIPS) >= 8
    assert COVERED_TOWNSHIPS == tuple(sorted(COVERED_TOWNSHIPS))


def test_required_townships_are_covered():
    required = {
        "花壇鄉",
        "彰化市",
        "鹿港鎮",
        "員林市",
        "田中鎮",
        "北斗鎮",
        "二林鎮",
        "溪湖鎮",
        "和美鎮",
        "社頭鄉",
        "芬園鄉",
    }
    assert required <= set(COVERED_TOWNSHIPS)


def test_every_record_township_is_canonical():
    for record in (*PLACES, *EVENTS):
        assert canonical_township(record.township) == record.township


# --- data hygiene -----------------------------------------------------------------------------


def test_catalogue_size():
    assert len(PLACES) >= 35
    assert len(EVENTS) >= 20


def test_no_duplicate_ids():
    ids = [r.id for r in (*PLACES, *EVENTS)]
    assert len(ids) == len(set(ids))


def test_no_duplicate_place_names():
    names = [p.name for p in PLACES]
    assert len(names) == len(set(names))


def test_every_dietary_tag_is_a_known_code():
    for p in PLACES:
        assert isinstance(p.dietary, frozenset)
        assert p.dietary <= set(DIETARY_TYPES)


def test_no_phone_number_like_digits_in_any_text_field():
    pattern = re.compile(r"\d{4,}")
    for record in (*PLACES, *EVENTS):
        for text in _text_fields(record):
            assert not pattern.search(text), (record.id, text)


def test_text_fields_are_non_empty():
    """Every text field but the optional phone (the teaching snapshot invents no phone numbers)."""
    for record in (*PLACES, *EVENTS):
        texts = [getattr(record, f.name) for f in fields(record) if f.name != "phone"]
        assert all(text.strip() for text in texts if isinstance(text, str)), record.id
    assert all(p.phone == "" for p in PLACES)


def test_records_are_frozen():
    with pytest.raises(AttributeError):
        PLACES[0].name = "改名"  # type: ignore[misc]


# --- dietary words ----------------------------------------------------------------------------


def test_dietary_codes_and_labels_are_exact():
    assert DIETARY_TYPES == {
        "vegetarian": "素食",
        "vegan": "全素",
        "lacto_ovo": "蛋奶素",
        "five_pungent": "五辛素",
        "pot_side": "鍋邊素",
        "no_beef": "不吃牛",
    }
    assert ANY == "any"
    assert INVALID == "__invalid__"
    assert set(DIETARY_WORDS.values()) <= set(DIETARY_TYPES)


@pytest.mark.parametrize(
    "text, code",
    [
        ("我吃素", "vegetarian"),
        ("有沒有素食", "vegetarian"),
        ("是不是吃素的店", "vegetarian"),
        ("有沒有全素", "vegan"),
        ("想找蔬食", "vegetarian"),
        ("要素的", "vegetarian"),
        ("我吃全素", "vegan"),
        ("純素可以嗎", "vegan"),
        ("我是蛋奶素", "lacto_ovo"),
        ("蛋奶素食", "lacto_ovo"),
        ("五辛素", "five_pungent"),
        ("鍋邊素就好", "pot_side"),
        ("我不吃牛", "no_beef"),
        ("不吃牛肉", "no_beef"),
    ],
)
def test_find_dietary_type_longest_match_wins(text, code):
    assert find_dietary_type(text) == code


@pytest.mark.parametrize(
    "text, code",
    [
        ("二水有沒有吃素的麵店 要純素的", "vegan"),  # the family first, then which kind of it
        ("找素食餐廳 我媽吃蛋奶素", "lacto_ovo"),
        ("全素的店 還是一般素食也行", "vegan"),  # the kind first: the earliest, as before
        ("我吃蛋奶素 我先生吃全素", "lacto_ovo"),  # two kinds: the earliest
        ("我吃素 不吃牛", "vegetarian"),  # no_beef is no kind of vegetarian
        ("吃素的店 不是全素也可以", "vegetarian"),  # a negated kind says nothing
    ],
)
def test_a_kind_of_vegetarian_said_beside_the_family_word_says_which_kind(text, code):
    assert find_dietary_type(text) == code


@pytest.mark.parametrize("text", ["", "花壇有什麼好吃的", "我不吃素", "沒有吃素"])
def test_find_dietary_type_returns_none_without_a_positive_mention(text):
    assert find_dietary_type(text) is None


def test_find_dietary_type_every_word_finds_its_own_code():
    for word, code in DIETARY_WORDS.items():
        assert find_dietary_type(word) == code, word


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, None),
        ("", None),
        ("   ", None),
        ("any", ANY),
        ("不限", ANY),
        ("vegetarian", "vegetarian"),
        ("vegan", "vegan"),
        (" VEGAN ", "vegan"),
        ("lacto_ovo", "lacto_ovo"),
        ("素食", "vegetarian"),
        ("全素", "vegan"),
        ("蛋奶素", "lacto_ovo"),
        ("五辛素", "five_pungent"),
        ("鍋邊素", "pot_side"),
        ("不吃牛", "no_beef"),
        ("吃素", "vegetarian"),
        ("純素", "vegan"),
        ("不吃牛肉", "no_beef"),
        ("carnivore", INVALID),
        ("葷食", INVALID),
        (42, INVALID),
    ],
)
def test_normalize_dietary_type(value, expected):
    assert normalize_dietary_type(value) == expected


def test_normalize_accepts_every_code_and_label():
    for code, label in DIETARY_TYPES.items():
        assert normalize_dietary_type(code) == code
        assert normalize_dietary_type(label) == code
