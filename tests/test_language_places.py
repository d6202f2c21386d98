"""The language layer's townships: names in sentences, near misses by sound, places outside the
county, two townships, destination over residence, false hits inside longer words; and the tool and
the offline rules reading them the same way."""

from __future__ import annotations

import pytest

from local_agent.agent import offline_rules as rules
from local_agent.agent.tools import TurnTools
from local_agent.context.projection import SafeTurn, parse_user_text
from local_agent.context.session_budget import render_contents
from local_agent.context.townships import TOWNSHIPS
from local_agent.context.window import ContextWindow
from local_agent.language import townships as lang
from local_agent.language.townships import PlaceReading, read_area, read_places
from local_agent.replies.render import ACK_TEXT
from local_agent.stores.sqlite import SqliteStore


def reading(text: str) -> tuple[str, str]:
    r = read_places(text)
    return r.kind, r.township or "、".join(r.choices) or r.outside


@pytest.mark.parametrize(
    "text,expected",
    [
        ("花壇有什麼好吃的", ("township", "花壇鄉")),
        ("彰化縣員林市有市集嗎", ("township", "員林市")),
        ("阮欲去和美，有啥物好食？", ("township", "和美鎮")),
        ("我住田中，後天要去二林", ("township", "二林鎮")),
        ("從鹿港到溪湖要吃什麼", ("township", "溪湖鎮")),
        ("我家在北斗，想去田尾看花", ("township", "田尾鄉")),
        ("我阿嬤住員林", ("township", "員林市")),
        ("二林和芳苑有什麼活動", ("choice", "二林鎮、芳苑鄉")),
        ("鹿港、溪湖、二林哪裡好吃", ("choice", "鹿港鎮、溪湖鎮、二林鎮")),
    ],
)
def test_townships_named_in_a_sentence(text, expected):
    assert reading(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "咖啡和美食",
        "我想吃和美味的東西",
        "會員林先生推薦的店",
        "店員林小姐說很好吃",
        "大城市的餐廳比較貴",
        "田中央有一間廟",
        "稻田中有白鷺鷥",
        "北斗七星很漂亮",
        "大村莊裡的小吃",
        "彰化銀行旁邊有什麼吃的",
        "彰化縣有什麼好吃的",
    ],
)
def test_a_township_name_inside_a_longer_word_is_not_that_township(text):
    assert read_places(text).kind in ("none",), read_places(text)


def test_a_full_name_is_the_township_even_where_the_short_one_would_be_a_false_hit():
    assert reading("咖啡和美鎮美食") == ("township", "和美鎮")


@pytest.mark.parametrize(
    "text,heard,township",
    [
        ("原林有什麼好吃的", "原林", "員林市"),
        ("路港有什麼活動", "路港", "鹿港鎮"),
        ("花談有什麼好吃的", "花談", "花壇鄉"),
        ("西湖有什麼活動", "西湖", "溪湖鎮"),
        ("溪洲有什麼好吃的", "溪洲", "溪州鄉"),
        ("我住台北，要去路港玩", "路港", "鹿港鎮"),
    ],
)
def test_a_near_miss_by_sound_is_offered_for_confirmation(text, heard, township):
    assert read_places(text) == PlaceReading("confirm", township, heard=heard)


@pytest.mark.parametrize(
    "text", ["福星餐廳有什麼好吃的", "園林餐廳好吃嗎", "剛才那個鄉鎮有什麼活動", "那邊有什麼小吃"]
)
def test_ordinary_words_that_sound_like_a_township_are_not_offered(text):
    assert read_places(text).kind == "none"


@pytest.mark.parametrize(
    "text,place",
    [
        ("台中有什麼好吃的", "臺中市"),
        ("臺北有什麼活動", "臺北市"),
        ("南投埔里有什麼好吃的", "南投縣"),
        ("雲林西螺有市集嗎", "雲林縣"),
        ("新竹市的活動", "新竹市"),
        ("花蓮", "花蓮縣"),
    ],
)
def test_a_known_place_outside_the_county(text, place):
    assert read_places(text) == PlaceReading("outside", outside=place)


def test_a_changhua_township_wins_over_a_place_outside():
    assert reading("我從台中來，鹿港有什麼好吃的") == ("township", "鹿港鎮")


def test_every_township_reads_by_full_and_short_name_and_sounds_like_itself():
    assert lang.sounds(), "pypinyin's character dictionary was not found"
    for name in TOWNSHIPS:
        assert reading(f"{name}有什麼") == ("township", name)
        assert reading(f"{name[:2]}有什麼") == ("township", name)
        assert set(lang.vocabulary().readings) == {t[:2] for t in TOWNSHIPS}


@pytest.mark.parametrize(
    "area,kind",
    [
        ("員林", "township"),
        ("彰化縣員林市", "township"),
        ("原林", "confirm"),
        ("二林鎮、芳苑鄉", "choice"),
        ("二林 和 芳苑", "choice"),
        ("臺中市", "outside"),
        ("火星", "none"),
        ("花壇鄉我的電話0912", "none"),
        ("", "none"),
    ],
)
def test_read_area_reads_a_tool_argument(area, kind):
    assert read_area(area).kind == kind


@pytest.mark.parametrize(
    "text,yes,no",
    [
        ("是", True, False),
        ("對啊！", True, False),
        ("沒錯", True, False),
        ("不是", False, True),
        ("不對喔", False, False),
    ],
)
def test_yes_and_no(text, yes, no):
    assert (lang.is_yes(text), lang.is_no(text)) == (yes, no)


def test_zhuyin_is_recognised():
    assert lang.is_zhuyin("ㄏㄨㄚ ㄊㄢˊ")
    assert not lang.is_zhuyin("花壇")


# -- the tool validates the area it is given ---------------------------------------------------------


@pytest.fixture
def tools(tmp_path):
    store = SqliteStore(tmp_path / "t.sqlite3")
    yield TurnTools(preferences=store, audit=store, clock=lambda: 1_780_000_000.0, user_id="U1", scope_id="s")
    store.close()


def test_the_tool_asks_to_confirm_a_near_miss_and_never_searches_it(tools):
    result = tools.search_local_places("原林")
    assert result["code"] == "AREA_CONFIRM" and result["suggestion"] == "員林市"
    assert result["message"] == "您是說員林市嗎？" and result["choices"] == ["是", "不是"]
    assert tools.executions[-1].audit.proposed_arguments["area"] == "#unrecognised"


def test_the_tool_asks_which_of_two_townships(tools):
    result = tools.search_local_events("二林鎮、芳苑鄉", "", "2027-06-09", "")
    assert result["code"] == "AREA_CHOICE" and result["choices"] == ["二林鎮", "芳苑鄉"]
    assert (result["date_from"], result["date_to"]) == ("2027-06-09", "2027-06-09")  # waits with the question


def test_the_tool_answers_honestly_for_a_place_outside_the_county(tools):
    result = tools.search_local_places("台中")
    assert result["code"] == "OUTSIDE_COUNTY" and "目前只服務彰化縣的 26 個鄉鎮市" in result["message"]


# -- the offline rules --------------------------------------------------------------------------------


def proposal(current: str, *turns: SafeTurn) -> dict:
    return rules.propose(render_contents(ContextWindow(tuple(turns)), current))


def test_offline_rules_pass_what_was_heard_to_the_tool():
    assert proposal("原林有什麼好吃的")["function_call"]["args"]["area"] == "原林"
    assert proposal("台中有什麼好吃的")["function_call"]["args"]["area"] == "臺中市"
    assert proposal("二林和芳苑有什麼好吃的")["function_call"]["args"]["area"] == "二林鎮、芳苑鄉"
    assert proposal("我住田中，後天要去二林吃飯")["function_call"]["args"]["area"] == "二林鎮"


def test_yes_completes_the_confirmed_search_and_no_asks_again():
    asked = SafeTurn("places", "", confirm_area="員林市")
    assert proposal("是", asked)["function_call"]["args"]["area"] == "員林市"
    assert proposal("對啊", asked)["function_call"]["args"]["area"] == "員林市"
    assert proposal("不是", asked) == {"text": rules.ASK_TOWNSHIP}
    assert proposal("不是，是二林", asked)["function_call"]["args"]["area"] == "二林鎮"
    assert proposal("是", SafeTurn("places", "花壇鄉")) == {"text": ACK_TEXT}  # nothing asked: small talk


def test_a_projection_round_trips_through_its_text():
    for turn in (
        SafeTurn("places", "", confirm_area="員林市"),
        SafeTurn("events", "", "2027-06-09", "2027-06-09", "鹿港鎮"),
        SafeTurn("events", "", "2027-02-05", "2027-02-10"),
    ):
        assert parse_user_text(turn.user_text()) == turn
        assert SafeTurn.from_dict(turn.to_dict()) == turn
    assert SafeTurn("places", "花壇鄉").to_dict() == {"goal": "places", "area": "花壇鄉"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"goal": "places", "area": "", "date_from": "2027-06-09", "date_to": "2027-06-09"},
        {"goal": "events", "area": "", "date_from": "2027-06-09", "date_to": ""},
        {"goal": "events", "area": "", "date_from": "2027-06-10", "date_to": "2027-06-09"},
        {"goal": "events", "area": "", "date_from": "端午", "date_to": "端午"},
        {"goal": "events", "area": "", "date_from": "2027-02-30", "date_to": "2027-02-30"},
        {"goal": "places", "area": "花壇鄉", "confirm_area": "員林市"},
        {"goal": "places", "area": "", "confirm_area": "原林"},
        {"goal": "", "area": "", "confirm_area": "員林市"},
    ],
)
def test_a_projection_refuses_anything_but_validated_dates_and_townships(kwargs):
    with pytest.raises(ValueError):
        SafeTurn(**kwargs)


# -- sound-alikes in another tone ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,heard,township",
    [
        ("北豆有什麼好吃的", "北豆", "北斗鎮"),  # běi dòu for běi dǒu
        ("那北豆呢", "北豆", "北斗鎮"),
        ("大存有什麼吃的", "大存", "大村鄉"),  # dà cún for dà cūn
        ("秀誰有什麼活動", "秀誰", "秀水鄉"),  # xiù shuí for xiù shuǐ
        ("我想去芳院吃飯", "芳院", "芳苑鄉"),  # fāng yuàn, the same
        ("原林有什麼好吃的", "原林", "員林市"),  # both syllables exact still count
    ],
)
def test_the_right_syllables_in_another_tone_are_offered_for_confirmation(text, heard, township):
    assert read_places(text) == PlaceReading("confirm", township, heard=heard)


@pytest.mark.parametrize(
    "text",
    [
        "被逗笑了，有什麼好吃的",  # bèi dòu: neither syllable in 北斗's own tone
        "方圓十里有什麼好吃的",
        "這次一定要達成目標",
        "醫院分院旁邊有什麼吃的",
        "復興路有什麼好吃的",
        "早餐想吃稀粥",
        "今天中午吃什麼",  # 天中 sounds like 田中 in another tone
        "想吃甜味的點心",
        "喝美式咖啡的地方",
        "有素食和沒有蛋的嗎",
        "粉圓冰哪裡有",
        "我不信有好吃的",
        "搭乘公車去吃飯",
        "牛舌頭好吃嗎",
        "修水管的師傅推薦的店",
    ],
)
def test_ordinary_words_in_another_tone_are_not_offered(text):
    assert read_places(text).kind == "none", read_places(text)


def test_toneless_strips_only_tone_marks():
    assert lang.toneless("dǒu") == lang.toneless("dòu") == "dou"
    assert lang.toneless("lǜ") == "lü" != lang.toneless("lù")
    assert lang.toneless("cūn") == "cun" == lang.toneless("cun")


def test_the_pronunciation_table_keeps_only_township_syllables_in_any_tone():
    table = lang.sounds()
    assert table["豆"] == "dòu" and table["存"] == "cún" and table["抖"] == "dǒu"
    assert "我" not in table and "吃" not in table


# -- a place outside the county right before a township's name ---------------------------------------


@pytest.mark.parametrize(
    "text,place",
    [
        ("桃園的埔心有什麼好吃的", "桃園市"),
        ("桃園埔心有什麼好吃的", "桃園市"),
        ("台中市大村有什麼", "臺中市"),
        ("雲林縣二林有活動嗎", "雲林縣"),
    ],
)
def test_a_township_name_after_a_place_outside_is_that_place(text, place):
    assert read_places(text) == PlaceReading("outside", outside=place)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("埔心有什麼好吃的", ("township", "埔心鄉")),
        ("我從桃園來，埔心有什麼好吃的", ("township", "埔心鄉")),
        ("從台中到大村要吃什麼", ("township", "大村鄉")),
        ("台中彰化一日遊吃什麼", ("township", "彰化市")),
    ],
)
def test_a_township_apart_from_a_place_outside_is_still_the_township(text, expected):
    assert reading(text) == expected


# -- where the person is from and where they are now --------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("我是二林人，現在在員林，附近有什麼吃的", ("township", "員林市")),
        ("阮是鹿港人，人在溪湖，有啥物好食", ("township", "溪湖鎮")),
        ("我是彰化人，目前在北斗，想吃肉圓", ("township", "北斗鎮")),
        ("我是田中人，想找二林的活動", ("township", "二林鎮")),
        ("我是二林人", ("township", "二林鎮")),  # the only place named
        ("我住田中，後天要去二林", ("township", "二林鎮")),
        ("二林和員林人多嗎", ("choice", "二林鎮、員林市")),  # 人 without 是 is no residence
    ],
)
def test_residence_by_suffix_and_where_the_person_is_now(text, expected):
    assert reading(text) == expected


# -- a township's local product ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("彰化市哪裡有賣鹿港牛舌餅", ("township", "彰化市")),
        ("鹿港哪裡吃得到彰化肉圓", ("township", "鹿港鎮")),
        ("員林有沒有北斗肉圓", ("township", "員林市")),
        ("在和美買得到大城芋丸嗎", ("township", "和美鎮")),
        ("北斗肉圓在哪", ("township", "北斗鎮")),  # alone, the product's township is the place
        ("鹿港牛舌餅哪家好吃", ("township", "鹿港鎮")),
        ("鹿港牛舌餅和彰化肉圓哪裡買", ("choice", "鹿港鎮、彰化市")),  # only products: ask
        ("鹿港和彰化有什麼好吃的", ("choice", "鹿港鎮、彰化市")),
    ],
)
def test_a_township_before_its_product_gives_way_to_another_township(text, expected):
    assert reading(text) == expected


# -- company names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("搭員林客運去二林，二林有什麼好吃的", ("township", "二林鎮")),
        ("坐彰化客運到鹿港吃什麼", ("township", "鹿港鎮")),
        ("二林有什麼好吃的", ("township", "二林鎮")),
        ("員林有什麼好吃的", ("township", "員林市")),
    ],
)
def test_a_bus_company_is_not_its_township(text, expected):
    assert reading(text) == expected


def test_offline_rules_search_past_a_bus_company_and_a_product():
    assert proposal("搭員林客運去二林，二林有什麼好吃的")["function_call"]["args"]["area"] == "二林鎮"
    assert proposal("彰化市哪裡有賣鹿港牛舌餅")["function_call"]["args"]["area"] == "彰化市"
    assert proposal("鹿港哪裡吃得到彰化肉圓")["function_call"]["args"]["area"] == "鹿港鎮"
    assert proposal("我是二林人，現在在員林，附近有什麼吃的")["function_call"]["args"]["area"] == "員林市"
    assert "function_call" not in proposal("員林客運幾點有車")  # a transport question stays unanswered
    assert proposal("桃園的埔心有什麼好吃的")["function_call"]["args"]["area"] == "桃園市"


@pytest.mark.parametrize(
    "text,township",
    [
        ("員林，喔不是，是埔心有什麼好吃的", "埔心鄉"),
        ("不是員林，是埔心", "埔心鄉"),
        ("打錯了 不是二林 是二水", "二水鄉"),
        ("人在北斗，旁邊田尾有什麼活動", "田尾鄉"),
        ("埔鹽離溪湖很近吧？溪湖有什麼好吃的", "溪湖鎮"),
        ("去鹿港之前，員林有什麼早餐", "員林市"),
        ("社頭有溪湖那種羊肉爐嗎", "社頭鄉"),
        ("和美姊說埤頭最近有活動，是什麼活動啊", "埤頭鄉"),
    ],
)
def test_a_township_taken_back_or_outside_the_asking_clause_gives_way(text, township):
    reading = read_places(text)
    assert (reading.kind, reading.township) == ("township", township)


@pytest.mark.parametrize(
    "text,choices",
    [
        ("二林有什麼好吃的，芳苑呢", ("二林鎮", "芳苑鄉")),  # the later one asks nothing itself
        ("二水還是田中比較好吃？", ("二水鄉", "田中鎮")),
        ("溪湖和二林，哪裡有羊肉爐", ("溪湖鎮", "二林鎮")),
        ("是不是員林和鹿港都有活動", ("員林市", "鹿港鎮")),  # 是不是 asks, it takes nothing back
    ],
)
def test_two_townships_still_ask_which(text, choices):
    reading = read_places(text)
    assert (reading.kind, reading.choices) == ("choice", choices)


@pytest.mark.parametrize(
    "heard,township",
    [("富興", "福興鄉"), ("北鬥", "北斗鎮"), ("永晶", "永靖鄉"), ("脾頭", "埤頭鄉"), ("稀州", "溪州鄉")],
)
def test_a_township_whose_usual_reading_differs_is_still_confirmed(heard, township):
    reading = read_places(heard + "有什麼好吃的")
    assert (reading.kind, reading.township, reading.heard) == ("confirm", township, heard)
