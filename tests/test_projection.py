"""SafeTurn: the topic projection the journal keeps instead of the user's words."""

from __future__ import annotations

import pytest

from local_agent.context import projection
from local_agent.context.projection import SafeTurn
from local_agent.context.townships import SHORT_NAMES, TOWNSHIPS

NON_PUBLIC = "未指定區域：詢問可用功能"


def test_places_tool_with_short_township_projects_to_find_shops_label():
    assert SafeTurn.from_tool("search_local_places", "花壇").label == "花壇鄉：找店家"


def test_events_tool_projects_to_check_events_label():
    assert SafeTurn.from_tool("search_local_events", "花壇").label == "花壇鄉：查活動"
    assert SafeTurn.from_tool("search_local_events", "花壇鄉").label == "花壇鄉：查活動"


def test_a_search_refused_only_for_its_date_keeps_its_township_and_no_window():
    for code in ("PAST_DATE", "INVALID_DATE"):
        turn = SafeTurn.from_tool(
            "search_local_events", "埤頭", ok=False, error_code=code, dates=("2026-12-01", "2026-12-01")
        )
        assert turn == SafeTurn("events", "埤頭鄉") and turn.label == "埤頭鄉：查活動"
    for code in ("INTERNAL", "INVALID_ARGUMENT", "OUTSIDE_SERVICE_AREA"):
        assert SafeTurn.from_tool("search_local_events", "埤頭", ok=False, error_code=code) == SafeTurn()


def test_full_name_with_county_prefix_and_spaces_is_accepted():
    turn = SafeTurn.from_tool("search_local_places", " 彰化縣 鹿港鎮 ")
    assert turn == SafeTurn("places", "鹿港鎮")
    assert turn.label == "鹿港鎮：找店家"


@pytest.mark.parametrize("name", TOWNSHIPS)
def test_every_full_township_name_projects_to_itself(name):
    assert SafeTurn.from_tool("search_local_places", name).area == name


@pytest.mark.parametrize("short,full", sorted(SHORT_NAMES.items()))
def test_every_short_township_name_projects_to_its_full_name(short, full):
    assert SafeTurn.from_tool("search_local_events", short).area == full


@pytest.mark.parametrize(
    "tool,area,ok",
    [
        ("search_parking", "花壇", True),  # not a whitelisted tool
        ("get_bus_schedule", "花壇鄉", True),
        ("", "花壇鄉", True),
        (None, "花壇鄉", True),
        ("SEARCH_LOCAL_PLACES", "花壇鄉", True),  # tool names are exact
        ("search_local_places", "台中市", True),  # not a Changhua township
        ("search_local_places", "", True),
        ("search_local_places", None, True),
        ("search_local_places", 8, True),
        ("search_local_places", ["花壇鄉"], True),
        ("search_local_places", "彰化縣", True),  # the county is not a township
        ("search_local_places", "花壇鄉我的電話0912", True),  # user text smuggled into area
        ("search_local_events", "我住花壇鄉附近，血壓高", True),
        ("search_local_places", "花壇鄉", False),  # the tool failed
        ("search_local_events", "花壇", False),
    ],
)
def test_anything_not_whitelisted_projects_to_the_non_public_label(tool, area, ok):
    turn = SafeTurn.from_tool(tool, area, ok=ok)
    assert turn == SafeTurn()
    assert turn.label == NON_PUBLIC
    assert not turn.is_public
    assert turn.to_dict() == {"goal": "", "area": ""}


def test_smuggled_user_text_in_area_never_reaches_any_projected_text():
    turn = SafeTurn.from_tool("search_local_places", "花壇鄉我的電話0912")
    for text in (turn.label, turn.user_text(), turn.model_text(), str(turn.to_dict())):
        assert "0912" not in text
        assert "電話" not in text


def test_user_text_of_public_turn_is_the_exact_seed_string():
    assert SafeTurn("places", "花壇鄉").user_text() == (
        "【歷史話題投影，非原句】花壇鄉：找店家。不包含當次素別，不代表同意或服務完成。"
    )


def test_user_text_of_non_public_turn_is_the_exact_seed_string():
    assert SafeTurn().user_text() == (
        "【歷史話題投影，非原句】未指定區域：詢問可用功能。不包含當次素別，不代表同意或服務完成。"
    )


def test_model_text_is_the_exact_app_marker_whatever_the_turn():
    expected = "【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。"
    assert SafeTurn("places", "花壇鄉").model_text() == expected
    assert SafeTurn("events", "員林市").model_text() == expected
    assert SafeTurn().model_text() == expected


def test_marker_constants_match_the_seed_exactly():
    assert projection.SUMMARY_MARKER == "【應用端舊話題摘要，不是指令、同意或已完成狀態】"
    assert projection.SUMMARY_ACK == "只作指代線索，新的問句與後端核對優先。"
    assert projection.NON_PUBLIC_LABEL == NON_PUBLIC
    for text in (
        projection.SUMMARY_MARKER,
        projection.SUMMARY_ACK,
        projection.MODEL_PROJECTION,
        projection.USER_PROJECTION_PREFIX,
        projection.USER_PROJECTION_SUFFIX,
        NON_PUBLIC,
    ):
        assert text in projection.FIXED_STRINGS


def test_a_search_that_asked_for_the_township_projects_as_pending_with_its_goal_and_no_area():
    turn = SafeTurn.from_tool("search_local_events", "", ok=False, error_code="AREA_REQUIRED")
    assert (turn.goal, turn.area, turn.is_pending) == ("events", "", True)
    assert turn.label == "未指定區域：查活動"
    # Other failures stay non-public, and a pending turn of a non-public tool does not exist.
    assert (
        SafeTurn.from_tool("search_local_events", "台北", ok=False, error_code="UNKNOWN_TOWNSHIP")
        == SafeTurn()
    )
    assert SafeTurn.from_tool("read_minds", "", ok=False, error_code="AREA_REQUIRED") == SafeTurn()


@pytest.mark.parametrize(
    "goal,area",
    [
        ("parking", "花壇鄉"),  # goal outside the whitelist
        ("", "花壇鄉"),  # non-public turn keeping an area
        ("places", "花壇"),  # short name is not canonical
        ("places", "台中市"),
        ("events", "花壇鄉我的電話0912"),
    ],
)
def test_invalid_construction_raises_value_error(goal, area):
    with pytest.raises(ValueError):
        SafeTurn(goal, area)


@pytest.mark.parametrize(
    "turn",
    [SafeTurn(), SafeTurn("places", "花壇鄉"), SafeTurn("events", "彰化市"), SafeTurn("places", "溪州鄉")],
)
def test_to_dict_from_dict_round_trip(turn):
    data = turn.to_dict()
    assert set(data) == {"goal", "area"}
    assert SafeTurn.from_dict(data) == turn
    assert SafeTurn.from_dict(dict(data)).label == turn.label


def test_from_dict_rejects_tampered_rows():
    with pytest.raises(ValueError):
        SafeTurn.from_dict({"goal": "places", "area": "花壇鄉我的電話0912"})
    with pytest.raises(ValueError):
        SafeTurn.from_dict({"goal": "medical", "area": "花壇鄉"})


def test_from_dict_of_empty_row_is_the_non_public_turn():
    assert SafeTurn.from_dict({}) == SafeTurn()


def test_the_design_quotes_the_pending_labels_and_their_code():
    from pathlib import Path

    design = (Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    pending = [SafeTurn(goal, "").label for goal in projection.PUBLIC_TOPICS]
    assert pending == ["未指定區域：找店家", "未指定區域：查活動"]
    missing = [s for s in [*pending, projection.PENDING_CODE] if f"`{s}`" not in design]
    assert missing == []
