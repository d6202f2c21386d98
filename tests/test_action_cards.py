"""Cards people can act on: the phone column, the map and call links, the card layout for older
eyes, and every outgoing body checked against LINE's own OpenAPI schema."""

from __future__ import annotations

import copy
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
from line_schema import check, check_messages

from local_agent.line.messages import summarize_wire_messages, to_wire
from local_agent.listings import catalogue
from local_agent.listings.loader import PLACE_COLUMNS, ListingsError, load_listings, shipped_listings
from local_agent.replies.links import MAPS_SEARCH, MAX_URI, maps_search_url, place_map_url, tel_uri
from local_agent.replies.render import CALL_LABEL, MAP_LABEL, render_tool_result
from local_agent.replies.reply import Card, CardAction, Reply

EVENTS = (
    "id,name,township,venue,category,start_date,end_date,when,note\ny01,市集,永靖鄉,永靖公園,市集,,,每週六,\n"
)


def folder_with(tmp_path: Path, rows: list[str], header: str = ",".join(PLACE_COLUMNS) + ",phone") -> Path:
    (tmp_path / "places.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    (tmp_path / "events.csv").write_text(EVENTS, encoding="utf-8")
    return tmp_path


def place_row(phone: str, *, pid: str = "x01", address: str = "永靖鄉公所附近") -> str:
    return f"{pid},永靖素食小館,永靖鄉,素食,vegetarian,{address},蛋奶素便當,{phone}"


# -- the phone column ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "phone", ["04-8221234", "(04)8221234", "0912-345-678", "+886-4-822-1234", "04 822 1234"]
)
def test_a_dialable_phone_is_kept_as_written(tmp_path, phone):
    listings = load_listings(folder_with(tmp_path, [place_row(phone)]))
    assert listings.places[0].phone == phone
    assert catalogue.place_to_dict(listings.places[0])["phone"] == phone


@pytest.mark.parametrize(
    "phone",
    [
        "04-1234",  # too few digits
        "1234567890123456",  # does not start with 0 or +
        "+8864822123456789",  # more than 15 digits
        "04-822-1234 ext 5",
        "04-822+1234",
        "(04)(822)1234",
        "04)822(1234",
        "電話04-8221234",
        "04-8221234-",
    ],
)
def test_a_malformed_phone_is_refused_naming_row_and_column(tmp_path, phone):
    folder = folder_with(tmp_path, [place_row("04-8221234", pid="x00"), place_row(phone)])
    with pytest.raises(ListingsError) as info:
        load_listings(folder)
    assert (info.value.file, info.value.row, info.value.column) == ("places.csv", 3, "phone")
    assert "phone number" in info.value.message


def test_the_phone_column_is_optional_and_an_empty_cell_means_no_phone(tmp_path):
    without = load_listings(folder_with(tmp_path, [place_row("")[:-1]], header=",".join(PLACE_COLUMNS)))
    assert without.places[0].phone == ""
    assert "phone" not in catalogue.place_to_dict(without.places[0])
    assert load_listings(folder_with(tmp_path, [place_row("")])).places[0].phone == ""


def test_the_shipped_snapshot_has_the_column_and_no_invented_numbers():
    header = (
        (Path(catalogue.__file__).parent / "data" / "places.csv").read_text(encoding="utf-8").splitlines()[0]
    )
    assert header.split(",")[-1] == "phone"
    assert all(p.phone == "" for p in shipped_listings().places)


# -- links -----------------------------------------------------------------------------------------


def test_a_map_link_is_googles_search_url_with_the_whole_query_encoded():
    url = place_map_url("A&B #1 店?", "中山路 100% 巷/弄 q=x", "永靖鄉")
    assert url is not None and url.startswith(MAPS_SEARCH)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "www.google.com", "/maps/search/")
    assert parts.fragment == ""  # the # in the name did not end the query
    assert parse_qs(parts.query) == {"api": ["1"], "query": ["A&B #1 店? 中山路 100% 巷/弄 q=x 彰化縣永靖鄉"]}
    assert url.isascii() and " " not in url


def test_a_map_link_names_the_county_and_township_unless_the_address_does():
    assert parse_qs(urlsplit(place_map_url("茶舖", "花壇鄉茉莉花田一帶", "花壇鄉") or "").query)["query"] == [
        "茶舖 花壇鄉茉莉花田一帶"
    ]
    assert parse_qs(urlsplit(place_map_url("茶舖", "", "花壇鄉") or "").query)["query"] == [
        "茶舖 彰化縣花壇鄉"
    ]


def test_a_map_link_stays_within_lines_uri_limit_dropping_parts_from_the_end():
    name, address = "名" * 40, "址" * 60  # the longest cells the loader allows
    url = place_map_url(name, address, "永靖鄉")
    assert url is not None and len(url) <= MAX_URI
    assert parse_qs(urlsplit(url).query)["query"] == [f"{name} {address}"]
    assert maps_search_url("字" * 200) is None  # not even the name fits: no link, no clipped link
    assert maps_search_url("", "  ") is None


def test_a_call_link_is_tel_with_digits_only():
    assert tel_uri("(04) 822-1234") == "tel:048221234"
    assert tel_uri("+886-4-822-1234") == "tel:+88648221234"
    assert tel_uri("") is None and tel_uri("123") is None and tel_uri("04-822-1234; drop") is None


# -- cards -----------------------------------------------------------------------------------------


def listings_result(tmp_path: Path, phone: str) -> dict:
    from local_agent.agent.tools import TurnTools
    from local_agent.stores.sqlite import SqliteStore

    store = SqliteStore(str(tmp_path / "s.sqlite3"))
    listings = load_listings(folder_with(tmp_path, [place_row(phone)]))
    tools = TurnTools(
        preferences=store, audit=store, clock=lambda: 0.0, user_id="U1", scope_id="s", listings=listings
    )
    return tools.search_local_places("永靖鄉")


def test_a_place_with_a_phone_gets_map_and_call_buttons(tmp_path):
    reply = render_tool_result(listings_result(tmp_path, "04-8221234"))
    (card,) = reply.cards
    assert [a.label for a in card.actions] == [MAP_LABEL, CALL_LABEL]
    assert card.actions[1].uri == "tel:048221234"
    (flex,) = [m for m in to_wire(reply) if m["type"] == "flex"]
    footer = flex["contents"]["contents"][0]["footer"]["contents"]
    assert [(b["type"], b["action"]["type"], b["action"]["label"]) for b in footer] == [
        ("button", "uri", MAP_LABEL),
        ("button", "uri", CALL_LABEL),
    ]
    assert footer[0]["style"] == "primary" and footer[1]["action"]["uri"] == "tel:048221234"
    check_messages(to_wire(reply))


def test_a_place_without_a_phone_gets_only_the_map_button(tmp_path):
    reply = render_tool_result(listings_result(tmp_path, ""))
    assert [a.label for a in reply.cards[0].actions] == [MAP_LABEL]


def test_events_get_a_map_button_for_their_venue():
    from local_agent.agent.tools import TurnTools
    from local_agent.stores.sqlite import SqliteStore

    store = SqliteStore(":memory:")
    tools = TurnTools(preferences=store, audit=store, clock=lambda: 0.0, user_id="U1", scope_id="s")
    reply = render_tool_result(tools.search_local_events("花壇鄉"))
    assert reply.cards and all([a.label for a in c.actions] == [MAP_LABEL] for c in reply.cards)
    item = tools.executions[-1].result["items"][0]
    query = parse_qs(urlsplit(reply.cards[0].actions[0].uri).query)["query"][0]
    assert query.startswith(item["venue"])
    check_messages(to_wire(reply))


def _texts(component: dict) -> list[dict]:
    if component.get("type") == "text":
        return [component]
    return [t for child in component.get("contents") or [] for t in _texts(child)]


SIZES = ["xxs", "xs", "sm", "md", "lg", "xl", "xxl", "3xl", "4xl", "5xl"]


def test_card_text_suits_older_eyes_and_the_alt_text_names_the_places():
    reply = render_tool_result(
        {"status": "ok", "tool": "search_local_places", "area": "花壇鄉", "items": [], "more_left": 0}
    )
    assert reply.cards == ()
    wire = to_wire(
        Reply(
            texts=("花壇鄉找到 1 家店家：",),
            cards=(
                Card(
                    "和米素食",
                    "花壇鄉・素食",
                    ("飲食：素食", "花壇火車站附近"),
                    "place",
                    (CardAction("地圖", "https://x.test/"),),
                ),
            ),
            alt_text="花壇鄉店家：和米素食",
        )
    )
    flex = wire[-1]
    assert flex["altText"] == "花壇鄉店家：和米素食"
    body = flex["contents"]["contents"][0]["body"]
    title, *rest = _texts(body)
    assert SIZES.index(title["size"]) >= SIZES.index("lg") and title["weight"] == "bold"
    for text in rest:
        assert SIZES.index(text.get("size", "md")) >= SIZES.index("md")
        color = text.get("color")
        if color:  # grey is dark enough to read (contrast against white at least 7:1)
            assert int(color[1:3], 16) <= 0x59
    check_messages(wire)


def test_a_uri_over_lines_limit_gives_no_button_rather_than_a_clipped_link():
    card = Card(
        "店",
        actions=(CardAction("地圖", "https://x.test/" + "a" * 1000), CardAction("打電話", "tel:048221234")),
    )
    (flex,) = to_wire(Reply(cards=(card,)))
    footer = flex["contents"]["contents"][0]["footer"]["contents"]
    assert [b["action"]["label"] for b in footer] == ["打電話"]


def test_the_replay_summary_lists_each_bubbles_buttons(tmp_path):
    wire = to_wire(render_tool_result(listings_result(tmp_path, "04-8221234")))
    flex = summarize_wire_messages(wire)[-1]
    assert flex["buttons"] == [[MAP_LABEL, CALL_LABEL]] and flex["titles"] == ["永靖素食小館"]


# -- the schema check itself -----------------------------------------------------------------------


def test_the_schema_check_catches_what_line_would_refuse(tmp_path):
    good = to_wire(render_tool_result(listings_result(tmp_path, "04-8221234")))
    check_messages(good)
    flex = good[-1]
    for path, value in (
        (("contents", "contents", 0, "footer", "contents", 0, "style"), "huge"),
        (("contents", "contents", 0, "footer", "contents", 0, "action", "uri"), "not a uri"),
        (("contents", "contents", 0, "footer", "contents", 0, "action", "type"), "teleport"),
        (("contents", "contents", 0, "body", "contents", 0, "size"), 12),
        (("quickReply", "items", 0, "action", "data"), "x" * 301),
    ):
        bad = copy.deepcopy(flex)
        target = bad
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            check_messages([bad])
    with pytest.raises(jsonschema.ValidationError):
        check("Message", {"type": "flex", "altText": "x"})  # no contents
