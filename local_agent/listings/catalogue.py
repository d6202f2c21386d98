"""A TEACHING SNAPSHOT of places and events in Changhua County — NOT live data.

Every shop and event below is invented teaching data in a plausible local style. None of it is
a real business listing, none of it is kept up to date, and it carries no phone numbers or real
addresses (only hints such as 「花壇火車站附近」). Whatever shows a record to a user must also
show :data:`SNAPSHOT_NOTICE`; every exported record carries ``"snapshot": True``.

Dietary tags on a :class:`Place` say *who can eat there*: ``{"vegetarian", "lacto_ovo"}`` means
a vegetarian or a lacto-ovo vegetarian finds food there. See :func:`dietary_matches` for the rule
a search uses.

Standard library only: this module runs on a bare Python 3.11.
"""

from __future__ import annotations

from dataclasses import dataclass

from local_agent.context.townships import canonical_township

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

# Words meaning "no restriction" for normalize_dietary_type.
ANY_WORDS: frozenset[str] = frozenset({ANY, "不限", "不拘", "都可以", "葷素不拘"})

# Places a vegetarian can use besides those tagged "vegetarian" itself.
_VEGETARIAN_SUBTYPES: frozenset[str] = frozenset({"vegan", "lacto_ovo", "five_pungent"})
# The vegetarian family (no meat served). 鍋邊素 is not in it: a pot-side place also cooks meat.
VEGETARIAN_FAMILY: frozenset[str] = frozenset({"vegetarian"}) | _VEGETARIAN_SUBTYPES

# A dietary word right after one of these is negated: 不吃素, 非素食. The first three also negate
# across one character: 不是全素, 不要素的, 沒吃素.
_NEGATORS: tuple[str, ...] = ("不", "沒", "没", "非")
_FAR_NEGATORS: tuple[str, ...] = ("不", "沒", "没")

_LABEL_TO_CODE: dict[str, str] = {label: code for code, label in DIETARY_TYPES.items()}
_WORDS_BY_LENGTH: tuple[str, ...] = tuple(sorted(DIETARY_WORDS, key=lambda w: (-len(w), w)))


def _negated(text: str, start: int, word: str) -> bool:
    if word.startswith(_NEGATORS):
        return False  # 不吃牛 is itself the dietary word
    before = text[:start]
    if len(before) >= 3 and before[-2] in _FAR_NEGATORS and before[-3] == before[-1]:
        return False  # 有沒有素食 / 是不是吃素: a question, not a negation
    return before.endswith(_NEGATORS) or (len(before) >= 2 and before[-2] in _FAR_NEGATORS)


def find_dietary_type(text: str) -> str | None:
    """The dietary code a user's ``text`` mentions, else ``None``.

    Longer words claim their characters first (全素 → vegan, not the 素 of vegetarian; 蛋奶素 →
    lacto_ovo); of what remains, the earliest mention wins. A negated mention (我不吃素) counts as
    no mention.
    """
    if not isinstance(text, str) or not text:
        return None
    lowered = text.lower()
    taken = [False] * len(lowered)
    hits: list[tuple[int, str]] = []
    for word in _WORDS_BY_LENGTH:
        start = lowered.find(word)
        while start != -1:
            end = start + len(word)
            if not any(taken[start:end]):
                for i in range(start, end):
                    taken[i] = True
                if not _negated(lowered, start, word):
                    hits.append((start, DIETARY_WORDS[word]))
            start = lowered.find(word, start + 1)
    return min(hits)[1] if hits else None


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


@dataclass(frozen=True)
class Event:
    id: str
    name: str
    township: str
    venue: str
    when: str
    category: str
    note: str


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


def _place(
    pid: str, name: str, township: str, category: str, dietary: tuple[str, ...], address_hint: str, note: str
) -> Place:
    return Place(pid, name, township, category, frozenset(dietary), address_hint, note)


# Invented teaching data. Not real businesses; no phone numbers, no real addresses.
PLACES: tuple[Place, ...] = (
    # 花壇鄉
    _place(
        "p001",
        "花壇和米素食",
        "花壇鄉",
        "素食",
        ("vegetarian", "lacto_ovo"),
        "花壇火車站附近",
        "米食與蔬菜便當，可選蛋奶素",
    ),
    _place("p002", "花壇老街肉圓", "花壇鄉", "肉圓", (), "花壇市場旁", "炸肉圓配大骨湯，含豬肉"),
    _place(
        "p003",
        "茉莉花茶小舖",
        "花壇鄉",
        "茶飲",
        ("vegan",),
        "花壇鄉茉莉花田一帶",
        "茉莉花茶與花茶凍，植物性原料",
    ),
    _place(
        "p004",
        "花壇家常麵館",
        "花壇鄉",
        "麵食",
        ("pot_side", "no_beef"),
        "花壇鄉公所附近",
        "有素湯麵，但與葷食同鍋；不賣牛肉",
    ),
    # 彰化市
    _place("p005", "彰化站前肉圓", "彰化市", "肉圓", (), "彰化火車站前商圈", "清蒸與油炸肉圓都有"),
    _place(
        "p006", "彰化爌肉飯小館", "彰化市", "小吃", ("no_beef",), "彰化市中山路一帶", "爌肉飯與滷味，不賣牛肉"
    ),
    _place(
        "p007",
        "彰化蔬食便當坊",
        "彰化市",
        "素食",
        ("vegetarian", "lacto_ovo"),
        "彰化市區市場附近",
        "蔬食便當，部分菜色含蛋",
    ),
    _place(
        "p008", "彰化全素麵食館", "彰化市", "素食", ("vegan",), "彰化市民生路一帶", "全素麵食與小菜，不含蛋奶"
    ),
    _place("p009", "彰化早餐小棧", "彰化市", "早餐", (), "彰化市住宅區巷口", "蛋餅、漢堡、牛肉堡"),
    # 鹿港鎮
    _place("p010", "鹿港老街蚵仔煎", "鹿港鎮", "小吃", (), "鹿港老街入口附近", "現煎蚵仔煎，海鮮為主"),
    _place(
        "p011", "鹿港麵線糊小攤", "鹿港鎮", "小吃", ("no_beef",), "鹿港天后宮周邊", "麵線糊配肉包，不賣牛肉"
    ),
    _place(
        "p012",
        "鹿港糕餅伴手禮",
        "鹿港鎮",
        "伴手禮",
        ("lacto_ovo",),
        "鹿港中山路老街段",
        "傳統糕餅，部分含蛋奶",
    ),
    _place(
        "p013",
        "鹿港五辛素小館",
        "鹿港鎮",
        "素食",
        ("vegetarian", "five_pungent"),
        "鹿港鎮公所附近",
        "素食快炒，含蔥蒜",
    ),
    # 員林市
    _place("p014", "員林肉圓小館", "員林市", "肉圓", (), "員林火車站附近", "炸肉圓與四神湯"),
    _place(
        "p015", "員林蜜餞伴手禮", "員林市", "伴手禮", ("vegan",), "員林市區老街", "蜜餞與果乾，植物性原料"
    ),
    _place(
        "p016",
        "員林蔬食自助餐",
        "員林市",
        "素食",
        ("vegetarian", "lacto_ovo", "five_pungent"),
        "員林公園附近",
        "自助餐型式，有蛋奶與蔥蒜菜色並分區標示",
    ),
    _place("p017", "員林牛肉湯", "員林市", "小吃", (), "員林市區夜市一帶", "溫體牛肉湯，以牛肉為主"),
    # 田中鎮
    _place(
        "p018",
        "田中米食小館",
        "田中鎮",
        "小吃",
        ("pot_side",),
        "田中火車站附近",
        "米糕與筒仔米糕，素米糕與葷食同鍋",
    ),
    _place(
        "p019",
        "田中素食便當",
        "田中鎮",
        "素食",
        ("vegetarian", "lacto_ovo"),
        "田中鎮市場旁",
        "素食便當，部分菜色含蛋",
    ),
    _place(
        "p020", "田中古早味豆花", "田中鎮", "甜點", ("vegan",), "田中鎮中路一帶", "豆花與粉圓，植物性配料"
    ),
    # 北斗鎮
    _place("p021", "北斗肉圓小館", "北斗鎮", "肉圓", (), "北斗老街附近", "小顆炸肉圓，北斗風味"),
    _place("p022", "北斗素肉圓", "北斗鎮", "素食", ("vegan",), "北斗鎮市場旁", "素肉圓，內餡為筍丁與香菇"),
    _place("p023", "北斗碗粿小攤", "北斗鎮", "小吃", ("no_beef",), "北斗鎮公所附近", "碗粿與肉羹，不賣牛肉"),
    # 二林鎮
    _place(
        "p024", "二林葡萄果汁攤", "二林鎮", "飲料", ("vegan",), "二林鎮葡萄產區路旁", "現榨葡萄汁，季節供應"
    ),
    _place("p025", "二林羊肉爐", "二林鎮", "小吃", ("no_beef",), "二林鎮市區", "羊肉爐與薑母鴨，不賣牛肉"),
    _place(
        "p026",
        "二林蔬食麵館",
        "二林鎮",
        "素食",
        ("vegetarian", "five_pungent"),
        "二林鎮市場附近",
        "素食麵與滷味，含蔥蒜",
    ),
    # 溪湖鎮
    _place(
        "p027", "溪湖羊肉炒麵", "溪湖鎮", "小吃", ("no_beef",), "溪湖鎮市區", "羊肉炒麵與羊肉湯，不賣牛肉"
    ),
    _place(
        "p028",
        "溪湖素食小吃",
        "溪湖鎮",
        "素食",
        ("vegetarian", "lacto_ovo"),
        "溪湖鎮市場旁",
        "素食小吃與湯麵",
    ),
    _place(
        "p029",
        "溪湖糖廠冰品",
        "溪湖鎮",
        "甜點",
        ("vegetarian", "lacto_ovo"),
        "溪湖糖廠周邊",
        "冰棒與牛奶冰，含奶",
    ),
    # 和美鎮
    _place(
        "p030",
        "和美古早味麵店",
        "和美鎮",
        "麵食",
        ("pot_side", "no_beef"),
        "和美鎮市區",
        "陽春麵與素湯麵，同鍋烹煮；不賣牛肉",
    ),
    _place("p031", "和美蔬食坊", "和美鎮", "素食", ("vegan",), "和美鎮公所附近", "全素簡餐，不含蛋奶"),
    _place("p032", "和美碗粿", "和美鎮", "小吃", (), "和美鎮市場旁", "碗粿與肉羹湯"),
    # 社頭鄉
    _place(
        "p033",
        "社頭芭樂果園小舖",
        "社頭鄉",
        "伴手禮",
        ("vegan",),
        "社頭鄉果園一帶",
        "芭樂與芭樂乾，植物性原料",
    ),
    _place(
        "p034",
        "社頭素食便當",
        "社頭鄉",
        "素食",
        ("vegetarian", "lacto_ovo"),
        "社頭火車站附近",
        "素食便當，部分菜色含蛋",
    ),
    _place("p035", "社頭豬腳麵線", "社頭鄉", "麵食", ("no_beef",), "社頭鄉市區", "豬腳麵線，不賣牛肉"),
    # 芬園鄉
    _place(
        "p036", "芬園米粉小吃", "芬園鄉", "小吃", ("no_beef",), "芬園鄉市場附近", "炒米粉與貢丸湯，不賣牛肉"
    ),
    _place(
        "p037", "芬園荔枝冰", "芬園鄉", "甜點", ("vegan",), "芬園鄉荔枝產區路旁", "荔枝冰與果汁，季節供應"
    ),
    _place("p038", "芬園鍋邊素麵", "芬園鄉", "麵食", ("pot_side",), "芬園鄉公所附近", "素麵與葷食同鍋烹煮"),
    # 大村鄉
    _place("p039", "大村葡萄冰", "大村鄉", "甜點", ("vegan",), "大村鄉葡萄園一帶", "葡萄冰沙，季節供應"),
    _place("p040", "大村雞肉飯", "大村鄉", "小吃", ("no_beef",), "大村鄉市區", "雞肉飯與味噌湯，不賣牛肉"),
    # 田尾鄉
    _place(
        "p041",
        "田尾花園咖啡",
        "田尾鄉",
        "咖啡",
        ("vegetarian", "lacto_ovo"),
        "田尾公路花園一帶",
        "咖啡與鬆餅，含蛋奶",
    ),
    _place(
        "p042", "田尾素食簡餐", "田尾鄉", "素食", ("vegetarian", "vegan"), "田尾鄉市區", "全素簡餐與花草茶"
    ),
    # 芳苑鄉
    _place("p043", "芳苑蚵仔小吃", "芳苑鄉", "小吃", (), "芳苑鄉海邊一帶", "蚵仔煎與蚵仔湯"),
    # 永靖鄉
    _place(
        "p044",
        "永靖素食麵館",
        "永靖鄉",
        "素食",
        ("vegetarian", "five_pungent"),
        "永靖鄉市區",
        "素食麵與小菜，含蔥蒜",
    ),
)

# Invented teaching data. Recurring descriptions only, no dates: a snapshot cannot promise a day.
# There is deliberately no event for 八卦山步道.
EVENTS: tuple[Event, ...] = (
    # 花壇鄉
    Event(
        "e001", "花壇茉莉花田導覽", "花壇鄉", "花壇鄉茉莉花田", "夏季週末上午", "導覽", "認識茉莉花栽種與採收"
    ),
    Event(
        "e002",
        "花壇假日農夫市集",
        "花壇鄉",
        "花壇火車站前廣場",
        "每月第一個週六上午",
        "市集",
        "在地蔬果與手作小物",
    ),
    Event(
        "e003",
        "花壇社區素食料理教室",
        "花壇鄉",
        "花壇鄉社區活動中心",
        "每月第三個週日下午",
        "體驗",
        "用在地蔬菜做家常素食",
    ),
    # 彰化市
    Event(
        "e004", "彰化扇形車庫參觀", "彰化市", "彰化扇形車庫", "週二至週日白天", "參觀", "看火車頭轉車台運作"
    ),
    Event(
        "e005", "彰化老街散步導覽", "彰化市", "彰化火車站前集合", "每週六上午", "導覽", "走訪市區老街與廟宇"
    ),
    Event(
        "e006",
        "彰化假日文創市集",
        "彰化市",
        "彰化市區公園",
        "每月第二個週日下午",
        "市集",
        "文創小物與手作甜點",
    ),
    Event(
        "e007",
        "彰化圖書館親子故事時間",
        "彰化市",
        "彰化市區圖書館",
        "每週六下午",
        "親子",
        "繪本共讀，適合學齡前兒童",
    ),
    # 鹿港鎮
    Event("e008", "鹿港老街文化導覽", "鹿港鎮", "鹿港老街入口", "每週日上午", "導覽", "老街、古厝與廟宇巡禮"),
    Event(
        "e009", "鹿港端午龍舟體驗", "鹿港鎮", "鹿港溪畔", "每年端午節前後", "節慶", "龍舟划槳體驗與民俗活動"
    ),
    Event("e010", "鹿港香包手作體驗", "鹿港鎮", "鹿港老街工坊", "週末下午", "體驗", "手縫香包，適合親子"),
    # 員林市
    Event("e011", "員林假日市集", "員林市", "員林公園", "每月最後一個週六", "市集", "小農蔬果與二手好物"),
    Event(
        "e012",
        "員林公園音樂會",
        "員林市",
        "員林公園露天舞台",
        "春秋兩季週六傍晚",
        "表演",
        "在地樂團與合唱團演出",
    ),
    # 田中鎮
    Event(
        "e013", "田中稻田單車遊", "田中鎮", "田中火車站集合", "稻作收成季週末上午", "戶外", "騎單車看稻田風景"
    ),
    Event("e014", "田中晨跑練習團", "田中鎮", "田中鎮運動公園", "每週三清晨", "運動", "輕鬆配速，新手可參加"),
    # 北斗鎮
    Event("e015", "北斗老街巡禮", "北斗鎮", "北斗老街", "每月第二個週六上午", "導覽", "老街建築與肉圓故事"),
    Event(
        "e016", "北斗河濱公園市集", "北斗鎮", "北斗河濱公園", "每月第四個週日下午", "市集", "在地農產與小吃"
    ),
    # 二林鎮
    Event(
        "e017", "二林葡萄採果體驗", "二林鎮", "二林鎮葡萄園", "葡萄產季週末", "體驗", "採葡萄與認識釀酒葡萄"
    ),
    Event(
        "e018",
        "二林社區藝文講座",
        "二林鎮",
        "二林鎮社區活動中心",
        "每月第一個週五晚上",
        "講座",
        "在地歷史與農村生活分享",
    ),
    # 溪湖鎮
    Event("e019", "溪湖糖廠五分車體驗", "溪湖鎮", "溪湖糖廠", "週末與假日", "體驗", "搭乘觀光小火車"),
    Event(
        "e020", "溪湖夜市美食走讀", "溪湖鎮", "溪湖鎮市區夜市", "每週五晚上", "導覽", "邊走邊吃，認識在地小吃"
    ),
    # 和美鎮
    Event(
        "e021", "和美書院古蹟導覽", "和美鎮", "和美鎮古書院", "每月第三個週六上午", "導覽", "認識清代書院建築"
    ),
    Event("e022", "和美傳統工藝體驗", "和美鎮", "和美鎮社區工坊", "週日下午", "體驗", "紡織與編織小物手作"),
    # 社頭鄉
    Event(
        "e023", "社頭織襪產業參觀", "社頭鄉", "社頭鄉織襪工坊", "平日上午預約", "參觀", "看襪子從紗線到成品"
    ),
    # 芬園鄉
    Event(
        "e024", "芬園荔枝採果體驗", "芬園鄉", "芬園鄉荔枝園", "荔枝產季週末", "體驗", "採荔枝與認識果樹照顧"
    ),
    # 田尾鄉
    Event("e025", "田尾公路花園花卉市集", "田尾鄉", "田尾公路花園", "每週末", "市集", "盆栽、花苗與園藝講解"),
    # 大村鄉
    Event("e026", "大村葡萄季", "大村鄉", "大村鄉葡萄園區", "夏季週末", "節慶", "葡萄品嚐與農事體驗"),
)

COVERED_TOWNSHIPS: tuple[str, ...] = tuple(
    sorted({p.township for p in PLACES} | {e.township for e in EVENTS})
)


# ---------------------------------------------------------------------------------------------
# Search and export
# ---------------------------------------------------------------------------------------------


def _contains(keyword: str, *fields: str) -> bool:
    needle = keyword.casefold()
    return any(needle in field.casefold() for field in fields)


def search_places(township: str, dietary_type: str, keyword: str, limit: int = 10) -> list[Place]:
    """Places in ``township`` that suit ``dietary_type`` and mention ``keyword``, ordered by id.

    ``township`` should be a canonical full name (a short name is tolerated). ``dietary_type`` is a
    code or :data:`ANY` (a label or word is normalised; blank means any; unknown gives no result).
    ``keyword`` ``""`` means no filter, else a case-insensitive substring of name, category or
    note.
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
        for p in PLACES
        if p.township == full
        and dietary_matches(p, code)
        and (not needle or _contains(needle, p.name, p.category, p.note))
    ]
    return sorted(found, key=lambda p: p.id)[:limit]


def search_events(township: str, keyword: str, limit: int = 10) -> list[Event]:
    """Events in ``township`` that mention ``keyword`` (name, venue, category or note), by id."""
    full = canonical_township(township) or township
    if limit <= 0:
        return []
    needle = (keyword or "").strip()
    found = [
        e
        for e in EVENTS
        if e.township == full and (not needle or _contains(needle, e.name, e.venue, e.category, e.note))
    ]
    return sorted(found, key=lambda e: e.id)[:limit]


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
        "snapshot": True,
    }


__all__ = [
    "ANY",
    "ANY_WORDS",
    "COVERED_TOWNSHIPS",
    "DIETARY_TYPES",
    "DIETARY_WORDS",
    "EVENTS",
    "INVALID",
    "PLACES",
    "SNAPSHOT_LABEL",
    "SNAPSHOT_NOTICE",
    "VEGETARIAN_FAMILY",
    "Event",
    "Place",
    "dietary_label",
    "dietary_matches",
    "event_to_dict",
    "find_dietary_type",
    "normalize_dietary_type",
    "place_to_dict",
    "search_events",
    "search_places",
]


# Words the offline model may use as a search keyword, and that the audit may store as they are:
# the catalogue's own categories. Anything else a model proposes is audited only as a hash.
KEYWORD_VOCABULARY: frozenset[str] = frozenset({p.category for p in PLACES} | {e.category for e in EVENTS})
