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
    "刪",
    "關掉",
    "關閉",
    "停掉",
    "停止",
    "作廢",
    "清空",
    "清一清",
    "重設",
    "重置",
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
# After a forgetting verb these say what was forgotten to be done: 「忘了帶」, 「忘記跟你說」.
FORGOT_TO: tuple[str, ...] = ("帶", "去", "說", "跟", "告訴", "問", "買", "拿", "講", "關", "叫", "給")
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
    "記住",
    "食菜",
    "食素",
)
# A delete verb with one of these, and no object, is an unclear request: ask before acting.
# (A short sentence, 「幫我刪掉」, 「忘了吧」, is a request by itself.)
REQUEST_MARKERS: tuple[str, ...] = ("把", "將", "全部", "通通", "統統", "所有")
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
    "留",
    "設定",
    "套用",
    "設成",
    "設為",
    "設定成",
    "設定為",
)
# Words that are not the remembering verb although they contain 記 (日記, 登記, 忘記 ...).
NOT_REMEMBER: tuple[str, ...] = ("忘記", "日記", "登記", "筆記", "標記", "記者", "書記", "記憶", "記號")
NEGATIONS: tuple[str, ...] = (
    "不要",
    "不用",
    "不必",
    "不需要",
    "別",
    "甭",
    "勿",
    "不可以",
    "不能",
    "免",
    "莫",
    "毋通",
    "毋免",
)
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
    "停止",
    "不想被你",
    "不要被你",
    "不想被",
    "不要被",
    "不希望被",
)
# Negations that only negate a delete verb: 「我不想取消吃素」, 「你不會忘記我吃素吧」 delete nothing
# (「會不會忘記」 asks, see ``ASKING``).
FORGET_NEGATIONS: tuple[str, ...] = ("不會", "不想", "不願意", "不打算", "沒有要", "沒要", "不希望")
# Filtering verbs: negated (「以後不要再幫我過濾素食」) they ask to stop applying the diet, which is
# confirmed first (it may mean only this search).
FILTER_VERBS: tuple[str, ...] = ("過濾", "篩選", "篩掉", "只找", "限定")
# A sentence ending so, about the diet, asks to drop it (「吃素那個不要了」): confirmed first.
DROP_ENDINGS: tuple[str, ...] = ("不要了", "不用了", "免了", "算了", "不需要了", "不必了", "作廢")
# Said with a diet, these ask to keep it as a lasting preference: 「以後找店家都幫我找素食的」.
LASTING_PREFERENCE: tuple[str, ...] = ("以後都", "以後找", "每次都", "每次找", "都幫我找", "一律", "固定幫我")
ASKING: tuple[str, ...] = ("會不會", "能不能", "可不可以", "要不要", "是不是", "有沒有")
# Polite request forms: a remembering verb after one of these asks to remember, even as a question.
POLITE_ASKING: tuple[str, ...] = (
    "能不能",
    "可不可以",
    "可以",
    "能",
    "幫我",
    "請你",
    "請",
    "麻煩你",
    "麻煩",
    "拜託",
)
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
KEPT_VERBS: tuple[str, ...] = ("記得", "記住", "記著", "記了", "存了", "保存", "存", "記錄", "記")
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
    "我設定的是",
    "我的設定是",
    "你留了什麼",
    "你留了我",
    "你存了我",
    "你記了我",
    "你保存了我",
    "你有留我",
    "留了我什麼",
    "存了我什麼",
    "我有設定",
    "我設定了",
    "之前設定的",
    "我的偏好你有",
    "你那邊有我",
    "有我什麼資料",
    "你都記了",
    "記了些什麼",
    "存了什麼",
    "記了什麼",
    "記不記得我",
    "記得多少",
    "記住啥",
    "記得啥",
    "說過我吃什麼",
    "跟你說過我吃",
)
# 「查我的偏好」, 「目前的設定」, 「你有我的資料嗎」: a kept thing asked about with nothing but these.
KEPT_TOPICS: tuple[str, ...] = ("飲食偏好", "偏好", "設定", "資料", "紀錄", "記錄")
KEPT_ASKING: tuple[str, ...] = (
    "給我看",
    "有哪些",
    "有什麼",
    "是什麼",
    "什麼",
    "列出",
    "顯示",
    "目前",
    "現在",
    "我的",
    "你有",
    "你那邊",
    "你這邊",
    "查",
    "看",
    "是",
    "的",
    "嗎",
    "?",
    "呢",
    "你知道我吃什麼",
    "你知道我吃素",
    "你還知道我吃",
)

# -- remembering ------------------------------------------------------------------------------------
# Taiwanese words for a diet, read as the Mandarin word (``diets.find_diet``).
DIET_SYNONYMS: dict[str, str] = {
    "食菜": "吃素",
    "食素": "吃素",
    "食全素": "吃全素",
    "呷菜": "吃素",
    "呷素": "吃素",
}
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
# A diet negated now: a lead, an optional middle and a vegetarian word (「沒有在吃素」, 「不想吃素」,
# 「不用特別找素的」), or one of the whole phrases.
NOT_VEGETARIAN_LEADS: tuple[str, ...] = (
    "不",
    "沒",
    "沒有",
    "不再",
    "不想",
    "不用",
    "不必",
    "不要",
    "不是",
    "毋",
    "莫",
)
NOT_VEGETARIAN_MIDDLES: tuple[str, ...] = ("在", "再", "想", "用", "特別找", "特別", "找", "要", "是")
VEGETARIAN_WORDS: tuple[str, ...] = ("吃素", "素食", "素的", "食素", "食菜", "吃全素", "全素", "吃齋")
NOT_VEGETARIAN: tuple[str, ...] = ("葷素不拘", "吃葷", "開葷", "破戒", "都可以吃")

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
    "好記吧",
    "好記住",
    "好記起來",
    "可以記",
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
    "不要了",
    "不要好了",
    "不用了謝謝",
    "不用謝謝",
    "不用啦",
    "不要啦",
    "不需要",
    "不用喔",
    "先不用",
    "不必了",
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
# A short answer made only of these characters, with one of CONSENT_YES_CORES in it, is a yes.
CONSENT_YES_CHARS = frozenset("好嗯可以對是啦吧呀喔的行要當然沒問題啊哦")
CONSENT_YES_CORES: tuple[str, ...] = ("好", "可以", "對", "是", "要", "行", "沒問題", "當然")
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
    "你真棒",
    "好棒",
    "很棒",
    "太棒了",
    "厲害",
    "好用",
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
    "伴手禮",
    "甜點",
    "茶飲",
    "飲料",
    "海產",
    "海鮮",
    "羊肉",
    "火鍋",
    "料理",
    "好料",
    "糕餅",
    "冰品",
    "剉冰",
    "素的",
    "找一家",
    "找一間",
    "再找一",
    "店家",
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
    "導覽",
    "參觀",
    "講座",
    "體驗",
    "親子",
    "燈會",
    "煙火",
    "看戲",
    "歌仔戲",
    "布袋戲",
)
# A follow-up asks the last question again about something new: 「員林呢」, 「那台中呢」, 「換鹿港」.
FOLLOW_UP_ENDINGS: tuple[str, ...] = ("呢", "咧", "勒", "哩")
FOLLOW_UP_STARTS: tuple[str, ...] = ("那", "阿那", "啊那", "換", "改")
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
# Asking for results not shown yet, after a search (「再找一家」「還有嗎」「換一家」): the search runs
# again with more=true and lists only what this conversation has not been shown.
MORE_WORDS: tuple[str, ...] = (
    "再找一家",
    "再找一間",
    "再找別家",
    "再來一家",
    "換一家",
    "換一間",
    "換別家",
    "下一家",
    "還有嗎",
    "還有別的",
    "還有別家",
    "還有其他",
    "別的呢",
    "其他的呢",
)
