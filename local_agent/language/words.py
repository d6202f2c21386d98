"""The intent vocabulary, as data. ``intents.py`` reads sentences with it; nothing here is code.

The words of the reading rules' classes (delete, remember, apply and show verbs, negations,
question markers, what is kept) live in ``data/lexicon.json`` (``lexicon.py``); the tuples here
named after them are views of it. Every word is in the reading form (``text.reading_form``): traditional characters, no spaces,
ASCII punctuation. Add a phrasing by adding a word; the tests and the conversation corpora say
whether it helped.
"""

from __future__ import annotations

from local_agent.language import lexicon

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

# Taiwanese written in Han characters (and a formal word or two: 本人, 茹素), read as the Mandarin words
# the vocabulary is written in, in
# this order (「你閣會記得我食啥物無」 reads as 「你還會記得我吃什麼嗎」). Only words with one clear
# everyday meaning; 食 alone stays (素食, 美食), and so do place words.
TAIWANESE: tuple[tuple[str, str], ...] = (
    ("阮兜", "我家"),
    ("本人", "我"),
    ("恁兜", "你家"),
    ("阮", "我"),
    ("恁", "你"),
    ("汝", "你"),
    ("啥物", "什麼"),
    ("佗位", "哪裡"),
    ("佗落", "哪裡"),
    ("食菜", "吃素"),
    ("呷菜", "吃素"),
    ("食素", "吃素"),
    ("呷素", "吃素"),
    ("食全素", "吃全素"),
    ("食什麼", "吃什麼"),
    ("呷什麼", "吃什麼"),
    ("好食", "好吃"),
    ("好呷", "好吃"),
    ("食飯", "吃飯"),
    ("呷飯", "吃飯"),
    ("欲食", "要吃"),
    ("欲呷", "要吃"),
    ("袂記得", "忘記"),
    ("毋通", "不要"),
    ("毋免", "不用"),
    ("莫閣", "不要再"),
    ("免閣", "不用再"),
    ("共我", "幫我"),
    ("予我", "給我"),
    ("代誌", "事情"),
    ("閣", "還"),
    ("欲", "要"),
    ("蹛", "住"),
    ("矣", "了"),
    ("毋愛", "不要"),
    ("毋是", "不是"),
    ("毋好", "不好"),
    ("揣", "找"),
    ("彼个", "那個"),
    ("彼個", "那個"),
    ("這个", "這個"),
    ("提掉", "拿掉"),
    ("拊掉", "擦掉"),
    ("吃速", "吃素"),
    ("吃菜", "吃素"),
    ("提走", "拿走"),
    ("食中晝", "吃午餐"),
    ("中晝", "午餐"),
    ("佇", "在"),
    ("今仔日", "今天"),
    ("明仔載", "明天"),
    ("早頓", "早餐"),
    ("食晝", "午餐"),
    ("暗頓", "晚餐"),
    ("啥貨", "什麼"),
    ("毋食", "不吃"),
    ("毋呷", "不吃"),
    ("共伊", "幫他"),
    ("記落來", "記下來"),
)
# A sentence ending so (after its particles) asks a question the Taiwanese way: 「有素食無」.
TAIWANESE_QUESTION_ENDINGS: tuple[str, ...] = ("無", "袂", "未")

# Symbols that say something, read as words before the other symbols are dropped (「素食偏好 ❌」).
SYMBOL_WORDS: dict[str, str] = {"❌": "取消", "✖": "取消", "🚫": "取消", "🗑": "刪掉"}

# -- forgetting ------------------------------------------------------------------------------------
# Verbs that ask to delete (longest first is not needed: any of them is a hit).
FORGET_VERBS: tuple[str, ...] = (
    *lexicon.words_of("delete_verb"),
    *lexicon.words_of("undo_phrase"),
    *(v for v in lexicon.words_of("stop_verb") if not v.startswith(("不", "別"))),
)
# Verbs of the speaker's own forgetting: 「我忘記我吃什麼了」 is not a request.
SELF_FORGET_VERBS: tuple[str, ...] = tuple(w for w in lexicon.words_of("forget_verb") if w.startswith("忘"))
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
FORGET_OBJECTS: tuple[str, ...] = lexicon.words_of("memory_object")
# 「確定刪掉了嗎」, 「有刪了沒」: whether it was deleted, answered with what is kept.
DONE_QUESTIONS: tuple[str, ...] = (
    "確定刪掉了嗎",
    "確定刪了嗎",
    "真的刪掉了嗎",
    "真的刪了嗎",
    "有刪掉嗎",
    "有刪嗎",
    "有刪了嗎",
    "刪掉了沒",
    "刪了沒",
    "刪除了沒",
    "有忘記了嗎",
    "忘記了沒",
    "真的忘記了嗎",
    "刪掉了吧?",
    "刪了吧?",
    "刪除了吧?",
    "已經刪了吧",
    "已經刪掉了吧",
    "已經沒記",
    "已經沒有記",
    "沒在記我",
)
# With the kept thing named, these ask to leave it as it is (「吃素的事不用改」): nothing changes.
KEEP_AS_IS: tuple[str, ...] = lexicon.words_of("keep_as_is")
# Said alone, these ask to stop remembering (「不記了」): asked about first.
BARE_STOPS: tuple[str, ...] = lexicon.words_of("bare_stop")
# With the kept thing named, these ask to stop it (「不要再推薦素食的了」): asked about first.
STOP_AGAIN: tuple[str, ...] = lexicon.words_of("stop_again")
# The data words among them: 「我不要這個設定了」 (a negation before one, 了 after) asks to drop it.
DATA_OBJECTS: tuple[str, ...] = ("偏好", "資料", "設定", "紀錄", "記錄", "同意", "授權")
DATA_DROP_LEADS: tuple[str, ...] = ("不要", "不用", "不需要", "不想要", "免")
# A delete verb with one of these, and no object, is an unclear request: ask before acting.
# (A short sentence, 「幫我刪掉」, 「忘了吧」, is a request by itself.)
REQUEST_MARKERS: tuple[str, ...] = ("把", "將", "全部", "通通", "統統", "所有")
# Remembering verbs; a negation right before one asks to *stop* remembering (「不用記了」).
REMEMBER_VERBS: tuple[str, ...] = lexicon.words_of("remember_verb")
# A change to a diet named right after it asks to remember that one (「我不要蛋奶素了，改全素」); never
# read as a negated remembering verb (「吃素的事不用改」 keeps it).
CHANGE_VERBS: tuple[str, ...] = ("改吃", "改", "換")
# Words that are not the remembering verb although they contain 記 (日記, 登記, 忘記 ...).
NOT_REMEMBER: tuple[str, ...] = ("忘記", *lexicon.words_of("not_a_verb"))
NEGATIONS: tuple[str, ...] = lexicon.words_of("negation_request")
# Between a negation and the verb it negates (「不要再幫我記」, 「你不要一直記著」, 「不要亂刪」).
NEGATION_FILLERS: tuple[str, ...] = (
    "幫我",
    "再",
    "還",
    "亂",
    "隨便",
    "一直",
    "老是",
    "總是",
    "你們",
    "你",
    "讓你們",
    "讓你",
    "給我",
    "幫",
    ",",
)
# Negations that ask someone else to stop: 「不想讓你記」, 「不要再記」.
STOP_LEADS: tuple[str, ...] = lexicon.words_of("stop_lead")
# Negations that only negate a delete verb: 「我不想取消吃素」, 「你不會忘記我吃素吧」 delete nothing
# (「會不會忘記」 asks, see ``ASKING``).
FORGET_NEGATIONS: tuple[str, ...] = lexicon.words_of("negation_of_delete")
# Filtering verbs: negated (「以後不要再幫我過濾素食」) they ask to stop applying the diet, which is
# confirmed first (it may mean only this search).
FILTER_VERBS: tuple[str, ...] = (*lexicon.words_of("apply_verb"), *lexicon.words_of("filter_loose"))
# A sentence ending so, about the diet, asks to drop it (「吃素那個不要了」): confirmed first.
DROP_ENDINGS: tuple[str, ...] = lexicon.words_of("drop")
# Said with a diet, these ask to keep it as a lasting preference: 「以後找店家都幫我找素食的」.
LASTING_PREFERENCE: tuple[str, ...] = (
    "以後都",
    "以後找",
    "以後幫我都",
    "以後幫我找",
    "之後都",
    "之後幫我都",
    "從現在開始都",
    "每次都",
    "每次找",
    "都幫我找",
    "一律",
    "固定幫我",
    "偏好是",
    "偏好為",
    "偏好改成",
    "偏好設",
)
# 「以後 … 都 …」 with a diet asks to keep it too (「以後推薦都用素食就好」).
FROM_NOW_ON: tuple[str, ...] = ("以後", "之後", "從今以後", "從現在起", "往後")
EVERY_TIME: tuple[str, ...] = ("都", "一律", "固定", "每次", "一直")
ASKING: tuple[str, ...] = ("會不會", "能不能", "可不可以", "要不要", "是不是", "有沒有")
# Polite request forms: a remembering verb after one of these asks to remember, even as a question.
POLITE_ASKING: tuple[str, ...] = (
    "幫他",
    "幫她",
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
    "幫忙",
)
# Anywhere before a remembering verb, these make it a request (「請你幫我記一下我吃素好嗎」).
REQUEST_LEADS: tuple[str, ...] = ("幫我", "請你", "請您", "麻煩", "拜託", "幫忙")
# A plea: with one, a delete put as a polite question is a request (「可以麻煩幫我刪除嗎」).
PLEAS: tuple[str, ...] = ("麻煩", "拜託")
# A polite question that asks someone to do what was just said: 「記一下好嗎」, 「刪除嗎」.
REQUEST_QUESTIONS: tuple[str, ...] = ("好不好", "好嗎", "可以嗎", "行嗎", "好否", "好麼", "嗎")
# In a delete's clause, these ask someone to do it (「請直接幫我刪除」, 「你把那個刪掉」).
ASKING_SOMEONE: tuple[str, ...] = ("請", "幫我", "麻煩", "給我", "你", "直接", "拜託", "吧", "啦")
# A delete said after these is supposed, not asked for: confirmed first.
SUPPOSING: tuple[str, ...] = ("如果", "假如", "萬一", "要是")
QUESTION_MARKERS: tuple[str, ...] = lexicon.words_of("question")

# -- asking what is kept ------------------------------------------------------------------------------
# 「你記得我什麼？」, 「你還記得我吃素嗎」, 「你存了我什麼資料」, 「我的偏好是什麼」.
KEPT_VERBS: tuple[str, ...] = (
    "以為",
    "設定",
    "套用",
    "記得",
    "記住",
    "記著",
    "記了",
    "記起來",
    "記下來",
    "存了",
    "保存",
    "存",
    "記錄",
    "記",
    "知道",
    "留了",
    "留",
)
# After a kept verb these ask what it is: 「你現在記的是什麼」, 「我之前叫你記什麼」.
KEPT_WHAT: tuple[str, ...] = (
    "什麼",
    "啥",
    "哪些",
    "哪一種",
    "哪種",
    "的是",
    "了什麼",
    "了哪些",
    "了啥",
    "了些什麼",
    "了些啥",
    "住什麼",
    "的東西",
    "了我",
)
# A sentence ending so after a question on what is kept is the speaker's own forgetting.
I_FORGOT: tuple[str, ...] = ("忘了", "忘記了")
# A question how to do something is no question about what is kept: 「怎麼設定偏好」.
HOW_TO: tuple[str, ...] = ("怎麼", "如何", "要怎樣", "怎樣")
# Before a remembering verb (with 幫我), these ask whether it was done: 「你有幫我記吃素嗎」.
ASKED_DONE: tuple[str, ...] = ("有幫我", "有沒有幫我", "是不是有幫我", "已經幫我", "有沒有")
# Asking to be shown, not asked: 「看一下你記住我的東西」, 「告訴我你存了什麼」.
SHOW_ME: tuple[str, ...] = tuple(w for w in lexicon.words_of("show_verb") if w not in ("看看", "看一看"))
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
    "我設定的",
    "我設的",
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
    "跟你講過我吃",
    "跟你說我吃",
    "跟你講我吃",
    "跟你說過我是",
    "跟你講過我是",
    # how long it is kept: 「我的資料你們會保存多久」 (what is kept says, with how to delete it)
    "保存多久",
    "保留多久",
    "存多久",
    "留多久",
    "記多久",
)
# 「查我的偏好」, 「目前的設定」, 「你有我的資料嗎」: a kept thing asked about with nothing but these.
KEPT_TOPICS: tuple[str, ...] = (
    "飲食偏好",
    "飲食設定",
    "飲食習慣",
    "個人資料",
    "個人設定",
    "偏好設定",
    "偏好",
    "設定",
    "資料",
    "紀錄",
    "記錄",
)
KEPT_ASKING: tuple[str, ...] = (
    "給我看",
    "確認一下",
    "確認",
    "檢查",
    "查一下",
    "看看",
    "幫我查",
    "幫我看",
    "請問",
    "告訴我",
    "一下",
    "查詢",
    "查看",
    "看一下",
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
LASTING_CHANGE: tuple[str, ...] = (
    "了",
    "不再",
    "沒在",
    "已經",
    "以後",
    "現在",
    "開始",
    "戒",
    "最近",
    "這陣子",
    "後來",
    "很久",
    "早就",
)
FOR_NOW: tuple[str, ...] = ("今天", "這次", "這餐", "這一餐", "今晚", "中午", "晚上", "早上", "明天", "偶爾")
# A diet negated now: a lead, an optional middle and a vegetarian word (「沒有在吃素」, 「不想吃素」,
# 「不用特別找素的」), or one of the whole phrases.
NOT_VEGETARIAN_LEADS: tuple[str, ...] = (
    "不能",
    "不可以",
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
    "無",
)
NOT_VEGETARIAN_MIDDLES: tuple[str, ...] = ("在", "再", "想", "用", "特別找", "特別", "找", "要", "是")
VEGETARIAN_WORDS: tuple[str, ...] = lexicon.words_of("vegetarian_word")
NOT_VEGETARIAN: tuple[str, ...] = (
    "戒素",
    "破素",
    "什麼都吃",
    "什麼都可以吃",
    "葷素不拘",
    "葷素都可",
    "葷素皆可",
    "葷素都行",
    "葷的",
    "葷食",
    "吃葷",
    "開葷",
    "破戒",
    "都可以吃",
    "吃肉",
    "要吃肉",
    "想吃肉",
)
# Before a meat word these make it vegetarian after all: 「我不吃肉」 is no 「吃肉」.
MEAT_NEGATIONS = "不沒別免無"

# -- consent answers ------------------------------------------------------------------------------
CONSENT_YES: tuple[str, ...] = (
    "確定",
    "確定忘記",
    "確定刪除",
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
# Said around a short answer, these add nothing to it (「好的，謝謝你」, 「好，麻煩你了」, 「可以，幫我記住」).
CONSENT_COURTESIES: tuple[str, ...] = (
    "不好意思",
    "謝謝你",
    "謝謝您",
    "謝謝",
    "多謝",
    "感謝",
    "感恩",
    "謝啦",
    "勞力",
    "麻煩你了",
    "麻煩您了",
    "麻煩了",
    "麻煩你",
    "麻煩",
    "辛苦了",
    "就這樣",
    "這樣就好",
    "那就",
    "幫我記住",
    "幫我記起來",
    "幫我記下來",
    "幫我記",
    "記起來",
    "記下來",
    "記住",
    "記吧",
    "拜託",
)
# A short answer with one of these (after the courtesies are taken out) declines: 「不用了，謝謝」.
CONSENT_NO_CORES: tuple[str, ...] = (
    "不同意",
    "不要",
    "不用",
    "不必",
    "不需要",
    "不行",
    "不好",
    "不可以",
    "免",
    "算了",
    "毋",
    "莫",
    "先不",
    "不是",
    "no",
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
# Who is to keep it, in a yes said with the keeping verb (「可以呀你就存起來」, 「好 幫我記下來」):
# taken out with the verb before the yes is read.
CONSENT_DOERS: tuple[str, ...] = ("幫我", "給我", "直接", "你就", "就", "你")
# A short answer made only of these characters, with one of CONSENT_YES_CORES in it, is a yes.
CONSENT_YES_CHARS = frozenset("好嗯可以對是啦吧呀喔的行要當然沒問題啊哦嘿著同意")
CONSENT_YES_CORES: tuple[str, ...] = (
    "好",
    "可以",
    "對",
    "是",
    "要",
    "行",
    "沒問題",
    "當然",
    "嘿",
    "著",
    "同意",
)
# Read as the core they stand for before courtesies are taken out (「OK的」, 「我同意，謝謝」).
CONSENT_SAME: dict[str, str] = {
    "okay": "好",
    "ok": "好",
    "yes": "好",
    "sure": "好",
    "我不同意": "不同意",
    "我同意": "同意",
    "我不要": "不要",
    "我要": "要",
}
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
# Taken off a greeting before it is looked up: 「你吃飽沒」, 「阿伯早安喔」.
GREETING_FILLERS: tuple[str, ...] = (
    "你",
    "您",
    "恁",
    "汝",
    "大家",
    "阿伯",
    "阿姨",
    "喔",
    "啊",
    "呀",
    "!",
    ",",
    "。",
)
GREETING_WORDS: tuple[str, ...] = (
    "吃飽沒",
    "吃飽了沒",
    "吃飽了嗎",
    "吃飯了沒",
    "呷飽未",
    "食飽未",
    "食飽矣未",
    "吃飽嗎",
    "食飽嗎",
    "呷飽嗎",
    "食飽矣嗎",
    "好久不見",
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
# A thank-you proper (「好」 or 「ok」 alone only acknowledge): 「好的，謝謝你」 is thanked.
GRATITUDE: tuple[str, ...] = ("謝", "感恩", "感謝", "勞力", "3q", "thank", "thx")
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
    "牛舌餅",
    "蚵仔煎",
    "麵線糊",
    "爌肉",
    "肉包",
    "麻糬",
    "肉羹",
    "碗粿",
    "肉粽",
    "有賣",
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
    "哪裡有賣",
    "哪裡買",
    "哪裡有得買",
    "買得到",
    "吃得到",
    "豆花",
    "下午茶",
    "蛋糕",
    "麵包",
    "滷味",
    "臭豆腐",
    "粥",
    "冰",
    "營業",
    "有開",
    "開門",
    # hunger asks for food: 「肚子好餓 有什麼推薦的」
    "肚子餓",
    "好餓",
    "很餓",
    "餓了",
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
    "鬧熱",
    "節目",
    "晚會",
    "園遊會",
    "嘉年華",
    "遊行",
    "踩街",
    "龍舟",
    "龍船",
    "划龍",
    "遶境",
    "繞境",
    "進香",
)
# Besides the search words, these make a clause ask about the place it names (「溪湖有什麼」).
ASKING_PLACE: tuple[str, ...] = ("有什麼", "有啥", "有沒有", "哪裡", "推薦", "有嗎")
# Verbs that ask to find something (with a township named, a search): 「幫我找員林的素食」.
FIND_VERBS: tuple[str, ...] = ("找", "查", "推薦", "介紹", "揣")
# Words that ask for a search in a sentence without a question (「幫我找」, 「想吃」): no remark.
SEARCH_ASKS: tuple[str, ...] = ("幫我", "找", "推薦", "介紹", "想吃", "想去", "要吃", "要去", "帶我")
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
# The last search again, wherever the sentence points (「剛才那個鄉鎮再查一次」).
AGAIN_WORDS: tuple[str, ...] = (
    "再查一次",
    "再找一次",
    "再查一遍",
    "再找一遍",
    "再搜尋一次",
    "再搜一次",
    "重新查",
    "重新找",
    "重查",
    "再幫我查",
    "再幫我找",
    "再查查",
    "再找看看",
    "再找找",
    "再查看看",
    "再搜看看",
    "重新搜尋",
)
# Bus companies: riding one (「搭員林客運去二林」) does not make a food or event question a transport one.
BUS_COMPANIES: tuple[str, ...] = (
    "員林客運",
    "彰化客運",
    "台中客運",
    "臺中客運",
    "統聯客運",
    "國光客運",
    "和欣客運",
)
# Asking for results not shown yet, after a search (「再找一家」「還有嗎」「換一家」): the search runs
# again with more=true and lists only what this conversation has not been shown.
MORE_WORDS: tuple[str, ...] = (
    # one more shop: 再 + a verb of finding or giving (or 換) + which one + its counter, in any of
    # their words (「再找別間」, 「再給我一間別的」, 「換另一家」)
    *(
        f"{lead}{which}{counter}"
        for lead in ("再找", "再給我", "再推薦", "再介紹", "再來", "換")
        for which in ("一", "別", "另一", "另外一")
        for counter in ("家", "間")
    ),
    "下一家",
    "下一間",
    "還有嗎",
    "還有別的",
    "還有別家",
    "還有別間",
    "還有其他",
    "別的呢",
    "其他的呢",
)
