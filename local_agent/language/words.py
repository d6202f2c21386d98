"""The intent vocabulary, as data. ``intents.py`` reads sentences with it; nothing here is code.

Every word is in the reading form (``text.reading_form``): traditional characters, no spaces,
ASCII punctuation. Add a phrasing by adding a word; the tests and the conversation corpora say
whether it helped.
"""

from __future__ import annotations

# Simplified characters people mix in (a phone set to simplified input, a pasted text), mapped to
# the traditional ones the vocabulary is written in. Only characters the vocabulary needs.
SIMPLIFIED_TO_TRADITIONAL: dict[str, str] = {
    "删": "刪",
    "记": "記",
    "忆": "憶",
    "饮": "飲",
    "资": "資",
    "请": "請",
    "帮": "幫",
    "谢": "謝",
    "别": "別",
    "说": "說",
    "么": "麼",
    "问": "問",
    "吗": "嗎",
    "试": "試",
    "还": "還",
    "录": "錄",
    "设": "設",
    "让": "讓",
    "们": "們",
    "会": "會",
    "这": "這",
    "个": "個",
    "东": "東",
    "时": "時",
    "间": "間",
    "欢": "歡",
    "见": "見",
    "动": "動",
}

# -- forgetting ------------------------------------------------------------------------------------
# Verbs that ask to delete (longest first is not needed: any of them is a hit).
FORGET_VERBS: tuple[str, ...] = (
    "忘記",
    "忘掉",
    "忘了",
    "忘光",
    "刪除",
    "刪掉",
    "刪了",
    "清除",
    "清掉",
    "移除",
    "拿掉",
    "取消",
    "消掉",
    "撤銷",
    "撤回",
    "抹掉",
    "去掉",
)
# Verbs of the speaker's own forgetting: 「我忘記我吃什麼了」 is not a request.
SELF_FORGET_VERBS: tuple[str, ...] = ("忘記", "忘掉", "忘了", "忘光")
SELF_FORGET_LEADS: tuple[str, ...] = (
    "我",
    "我都",
    "我也",
    "我又",
    "我還",
    "我已經",
    "我常常",
    "我有點",
    "我差點",
)
# What a delete request is about. A dietary word counts too (``catalogue.DIETARY_WORDS``).
FORGET_OBJECTS: tuple[str, ...] = (
    "偏好",
    "飲食",
    "素別",
    "吃素",
    "素食",
    "記住的",
    "記得的",
    "記的",
    "資料",
    "設定",
    "紀錄",
    "記錄",
    "我的事",
    "那件事",
    "這件事",
)
# A delete verb with one of these, and no object, is an unclear request: ask before acting.
REQUEST_MARKERS: tuple[str, ...] = ("把", "將", "幫我", "請你", "你", "全部", "都", "吧", "通通", "統統")
# Remembering verbs; a negation right before one asks to *stop* remembering (「不用記了」).
REMEMBER_VERBS: tuple[str, ...] = (
    "記起來",
    "記下來",
    "記一下",
    "記住",
    "記得",
    "記下",
    "記著",
    "記好",
    "記錄",
    "記",
    "存起來",
    "保存",
    "存",
    "留著",
)
# Words that are not the remembering verb although they contain 記 (日記, 登記, 忘記 ...).
NOT_REMEMBER: tuple[str, ...] = ("忘記", "日記", "登記", "筆記", "標記", "記者", "書記", "記憶", "記號")
NEGATIONS: tuple[str, ...] = ("不要", "不用", "不必", "不需要", "別", "甭", "勿", "不可以", "不能", "免")
# Negations that ask someone else to stop: 「不想讓你記」, 「不要再記」.
STOP_LEADS: tuple[str, ...] = (
    "不想讓你",
    "不要讓你",
    "不希望你",
    "不想要你",
    "不要你",
    "不用你",
    "不需要你",
    "不要再",
    "不用再",
    "別再",
    "不必再",
    "不需要再",
    "以後不要",
    "以後不用",
    "以後別",
)
ASKING: tuple[str, ...] = ("會不會", "能不能", "可不可以", "要不要", "是不是", "有沒有")
QUESTION_MARKERS: tuple[str, ...] = (
    *ASKING,
    "可以",
    "嗎",
    "?",
    "怎麼",
    "如何",
    "呢",
    "什麼",
    "啥",
    "哪些",
    "多少",
)

# -- asking what is kept ------------------------------------------------------------------------------
# 「你記得我什麼？」, 「你還記得我吃素嗎」, 「你存了我什麼資料」, 「我的偏好是什麼」.
KEPT_VERBS: tuple[str, ...] = ("記得", "記住", "記著", "記了", "存了", "保存", "存", "記錄")
KEPT_ABOUT_ME: tuple[str, ...] = (
    "我什麼",
    "我啥",
    "我哪些",
    "我的",
    "我吃",
    "我是",
    "我有",
    "我嗎",
    "我喔",
    "我?",
)
KEPT_PHRASES: tuple[str, ...] = (
    "我的偏好是什麼",
    "我的飲食偏好是什麼",
    "我的偏好是啥",
    "我設定了什麼",
    "你記了我什麼",
    "你有我的什麼資料",
    "你有我什麼資料",
    "你存了我什麼",
    "你保存了什麼",
    "你記得什麼",
    "記住了什麼",
    "你知道我吃什麼",
    "你知道我吃素",
    "你還知道我吃",
)

# -- remembering ------------------------------------------------------------------------------------
# A lasting preference the service cannot keep. Named in a remember request, it gets an honest answer.
UNSUPPORTED_DIETS: tuple[str, ...] = (
    "早齋",
    "早素",
    "初一十五",
    "初一、十五",
    "不吃牛",
    "不食牛",
    "不吃豬",
    "不吃海鮮",
    "不吃蛋",
    "不吃辣",
    "過敏",
    "清真",
    "低鹽",
    "少油",
    "洗腎",
    "糖尿病",
)
# Dietary codes that can be remembered (``catalogue.DIETARY_TYPES`` less what only fits one search).
REMEMBERABLE: tuple[str, ...] = ("vegetarian", "vegan", "lacto_ovo", "five_pungent", "pot_side")

# -- a diet said now --------------------------------------------------------------------------------
# A negated diet with one of these is a lasting change (offer to forget); otherwise for this turn.
LASTING_CHANGE: tuple[str, ...] = ("了", "不再", "沒在", "已經", "以後", "現在", "開始", "戒")
FOR_NOW: tuple[str, ...] = ("今天", "這次", "這餐", "這一餐", "今晚", "中午", "晚上", "早上", "明天", "偶爾")
NOT_VEGETARIAN: tuple[str, ...] = (
    "不吃素",
    "沒吃素",
    "沒有吃素",
    "沒在吃素",
    "不再吃素",
    "不是吃素",
    "不用素",
    "不要素",
    "不用吃素",
    "不必吃素",
    "葷素不拘",
    "吃葷",
    "開葷",
    "破戒",
    "都可以吃",
)

# -- consent answers ------------------------------------------------------------------------------
CONSENT_YES: tuple[str, ...] = (
    "同意",
    "我同意",
    "好",
    "好的",
    "好啊",
    "好喔",
    "好呀",
    "好哇",
    "可以",
    "可以啊",
    "可以喔",
    "可",
    "要",
    "要啊",
    "對",
    "是",
    "是的",
    "沒問題",
    "ok",
    "okay",
    "yes",
    "y",
    "行",
    "嗯",
    "嗯嗯",
    "記吧",
    "記住吧",
    "好記住",
    "麻煩你",
)
CONSENT_NO: tuple[str, ...] = (
    "不同意",
    "我不同意",
    "不要",
    "不用",
    "不用了",
    "不好",
    "不可以",
    "不行",
    "免了",
    "免",
    "算了",
    "不必",
    "no",
    "n",
    "先不要",
    "不用記",
    "不要記",
    "不要記住",
)
# Short answers that are neither: while a consent prompt is live they get a hint to tap.
CONSENT_UNCLEAR: tuple[str, ...] = (
    "看看",
    "再說",
    "不知道",
    "隨便",
    "考慮一下",
    "考慮看看",
    "想一下",
    "我想想",
    "等等",
    "等一下",
    "應該可以",
    "好像可以",
    "可能",
    "還好",
    "都行",
    "不確定",
)
# Words only a consent answer uses: said with no live prompt, they get a pointer instead of small talk.
CONSENT_ONLY: tuple[str, ...] = ("同意", "我同意", "不同意", "我不同意")

# -- help, greetings, thanks ----------------------------------------------------------------------------
HELP_WORDS: tuple[str, ...] = (
    "help",
    "幫助",
    "說明",
    "使用說明",
    "你會做什麼",
    "你可以做什麼",
    "你能做什麼",
    "怎麼用",
    "要怎麼用",
    "怎麼使用",
    "功能",
    "?",
    "??",
    "???",
)
GREETING_WORDS: tuple[str, ...] = (
    "hi",
    "hello",
    "hey",
    "你好",
    "您好",
    "哈囉",
    "嗨",
    "早安",
    "午安",
    "晚安",
    "安安",
    "在嗎",
    "你好你好",
    "大家好",
    "早",
    "早啊",
    "哈嘍",
)
THANKS_WORDS: tuple[str, ...] = (
    "謝謝",
    "多謝",
    "感謝",
    "感恩",
    "謝啦",
    "3q",
    "thanks",
    "thankyou",
    "thx",
    "勞力",
    "辛苦了",
    "讚",
    "太好了",
    "掰掰",
    "拜拜",
    "再見",
    "bye",
    "收到",
    "了解",
    "知道了",
    "好的",
    "好",
    "ok",
)
# What may surround a thank-you without making it more than small talk (「好，謝謝你喔」).
SMALL_TALK_FILLERS: tuple[str, ...] = (
    "非常",
    "真的",
    "大家",
    "那就",
    "先這樣",
    "那",
    "你",
    "您",
    "們",
    "喔",
    "哦",
    "啦",
    "啊",
    "呀",
    "唷",
    "耶",
    "囉",
    "了",
    "很",
    "的",
    "嗯",
    "哈",
    "!",
    ".",
    ",",
    "。",
    "、",
    "~",
)
TRAILING_PARTICLES = "!.。~、,呀啊喔哦唷啦耶囉嘛"

# -- searches --------------------------------------------------------------------------------------
# Words that make a sentence a place search, an event search, or a question the tools cannot answer.
# Taiwanese-flavoured forms are here too: 「有啥物好食？」, 「欲去佗位𨑨迌」.
PLACE_WORDS: tuple[str, ...] = (
    "吃",
    "餐",
    "店",
    "飯",
    "麵",
    "小吃",
    "美食",
    "素食",
    "蔬食",
    "早餐",
    "午餐",
    "晚餐",
    "肉圓",
    "便當",
    "咖啡",
    "點心",
    "館",
    "好食",
    "食飯",
    "通食",
    "食啥",
    "呷",
    "欲食",
    "食物",
    "食堂",
    "食素",
    "食菜",
)
EVENT_WORDS: tuple[str, ...] = (
    "活動",
    "展覽",
    "市集",
    "表演",
    "節慶",
    "祭",
    "廟會",
    "步道",
    "好玩",
    "走走",
    "演出",
    "音樂會",
    "𨑨迌",
    "七逃",
    "迌",
    "好耍",
    "熱鬧",
)
UNSUPPORTED_WORDS: tuple[str, ...] = (
    "停車",
    "公車",
    "客運",
    "接駁",
    "計程車",
    "火車時刻",
    "廁所",
    "洗手間",
    "坐車",
    "搭車",
)
