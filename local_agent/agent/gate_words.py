"""The text gate's vocabulary, as data: what a model-written sentence may not say (docs/design.md §9).

``text_gate`` reads only these tables. Each entry is a refusal code with what it catches; the
fixed texts a refusal is replaced by are in ``text_gate``. Words are matched on the text with its
spaces removed; patterns are regular expressions over the same text. Keep the codes stable: they
are logged, counted in the turn snapshot and named in the README.
"""

from __future__ import annotations

# The longest model-written text that may reach the chat, in characters, and its lines. A LINE
# bubble of a few short lines: anything longer is an essay the tools did not write.
MAX_CHARS = 120
MAX_LINES = 4

# A claim right after one of these is a denial (「我沒辦法幫您預約」), not a claim. Only directly
# before it: 「沒問題，已儲存」 is a claim.
NEGATIONS = ("沒", "沒有", "沒辦法", "無法", "不能", "不", "不會", "未", "尚未", "還沒")

# Claims that something was done (English in lower case and without spaces: the text is matched
# lower-cased with its spaces removed; no bare "sent", which 「consent」 contains). Grouped
# by what the wording is about: a delete wording is
# answered with the forget confirmation, a remember wording with the consent prompt.
FORGET_CLAIMS = (
    "已刪除",
    "已經刪除",
    "刪除了",
    "刪掉了",
    "已刪掉",
    "已清除",
    "清除了",
    "清掉了",
    "已忘記",
    "忘記了",
    "忘掉了",
    "不會再記得",
    "已取消",
    "取消了",
    "已移除",
    "移除了",
    "deleted",
    "removed",
    "erased",
    "forgotten",
)
REMEMBER_CLAIMS = (
    "已記住",
    "記住了",
    "記下了",
    "已記下",
    "記起來了",
    "會記得",
    "已儲存",
    "儲存了",
    "存起來了",
    "已保存",
    "保存了",
    "已設定",
    "設定好了",
    "已更新",
    "已登記",
    "remembered",
    "saved",
    "noted",
)
OTHER_CLAIMS = (
    "已預約",
    "預約好了",
    "幫您預約",
    "幫你預約",
    "已訂",
    "訂好了",
    "幫您訂",
    "幫你訂",
    "已訂位",
    "已撥打",
    "已聯絡",
    "已通知",
    "通知了",
    "已傳送",
    "傳送了",
    "已寄出",
    "寄出了",
    "已發送",
    "發送了",
    "已送出",
    "送出了",
    "已轉告",
    "已報名",
    "報名好了",
    "已完成",
    "辦好了",
    "處理好了",
    "booked",
    "reserved",
    "i'vecalled",
    "ihavecalled",
    "notified",
    "i'vesent",
    "ihavesent",
    "wassent",
    "beensent",
)

# The same claims said with words in between (「已幫您刪除飲食偏好」, 「我已經把您的偏好刪除」): a
# done-marker, then at most CLAIM_GAP characters of the same clause with no negation in them, then
# an action verb; or an action verb directly followed by a done-ending (「記下來了」, 「存好了」).
# A verb right after a negation (「沒刪除了」) is no claim, as above.
CLAIM_GAP = 10
DONE_MARKERS = ("已經", "已", "剛剛", "剛才")  # 「而已」 ("only") is not one
CLAUSE_STOPS = "。！？!?；;，,、\n"
FORGET_VERBS = ("刪除", "刪掉", "刪了", "清除", "清掉", "忘記", "忘掉", "取消", "移除", "拿掉")
REMEMBER_VERBS = (
    "記住",
    "記下",
    "記錄",
    "記起來",
    "記好",
    "儲存",
    "存好",
    "存起來",
    "保存",
    "設定",
    "登記",
    "更新",
)
OTHER_VERBS = (
    "預約",
    "訂位",
    "訂好",
    "撥打",
    "打電話",
    "聯絡",
    "通知",
    "傳送",
    "寄出",
    "發送",
    "送出",
    "轉告",
    "報名",
    "完成",
    "處理好",
)
DONE_ENDINGS = ("了", "好了", "好囉", "好啦", "完成", "完畢", "來了", "在心裡")
# Promises to keep something about the person (memory LOCAL only has after a tapped consent).
PROMISES = (
    "幫您記著",
    "幫你記著",
    "會幫您留意",
    "會幫你留意",
    "以後會幫您",
    "以後都會幫您",
    "以後會幫你",
    "下次會幫您",
    "willremember",
    "i'llremember",
)

# Contact details and places (matched on the text without spaces; ``\b`` is avoided: between a Latin
# letter and a Chinese character there is no word boundary): not one of them comes from a tool the model has, so any is invented.
PHONE_PATTERNS = (
    r"(?:\+?886[\-－‐]?|0)[0-9０-９][0-9０-９\-－‐()（）]{6,}[0-9０-９]",  # 04-7123456, 0912-345-678, +886-4-…
    r"[0-9０-９]{3,4}[\-－‐][0-9０-９]{3,4}",  # 712-3456
    r"(?:電話|手機|專線|分機|來電|撥打|撥)[：:]?[0-9０-９]",
)
LINK_PATTERNS = (
    r"(?i)https?://",
    r"(?i)(?<![a-z0-9])www\.",
    r"(?i)(?<![@.a-z0-9\-])[a-z0-9\-]+\.(?:com|tw|org|net|gov|edu|io|cc|me|ly|app|info)(?![a-z0-9])",
    r"(?i)line\.me/|lin\.ee/",
)
EMAIL_PATTERNS = (r"(?i)[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}", r"[＠@][a-z0-9]")
ADDRESS_PATTERNS = (
    r"(?<![月0-9０-９])[0-9０-９一二三四五六七八九十百]{1,4}(?:號|巷|弄|樓)",
    r"(?:路|街|大道)[一二三四五六七八九十0-9０-９]{1,3}段",
    r"(?:路|街)[0-9０-９]{1,4}",
    r"[0-9０-９]{3}(?:彰化|台|臺)",  # a postal code before the county
)
HOURS_WORDS = (
    "營業時間",
    "開店時間",
    "營業到",
    "營業至",
    "開到",
    "幾點開",
    "幾點關",
    "打烊",
    "公休",
    "店休",
    "休息日",
    "門診時間",
    "看診時間",
    "開放時間",
    "24小時",
)
HOURS_PATTERNS = (
    r"[0-9０-９]{1,2}[:：][0-9０-９]{2}",
    r"(?:早上|上午|中午|下午|晚上|凌晨)[0-9０-９一二三四五六七八九十]{1,3}(?:點|時)",
    r"[0-9０-９]{1,2}(?:點|時)(?:到|至|~|～|-)",
)
PRICE_PATTERNS = (
    r"[0-9０-９]+(?:元|塊)",
    r"[一二三四五六七八九十百千兩]+(?:元|塊錢)",  # 一百元, 五十塊錢 (not 一塊去: "together")
    r"(?i)nt\$|新台幣|\$[0-9]",
)

# Another person's preference: a word for someone else next to a word about diets or preferences.
OTHER_PEOPLE = (
    "他",
    "她",
    "大家",
    "別人",
    "其他人",
    "其他使用者",
    "其他用戶",
    "群組裡",
    "成員",
    "朋友",
    "家人",
    "每個人",
    "每一位",
    "各位",
    "某某",
    "同學",
    "鄰居",
    "先生",
    "太太",
    "小姐",
)
PREFERENCE_WORDS = ("偏好", "吃素", "素食", "全素", "蛋奶素", "五辛素", "鍋邊素", "不吃牛", "飲食", "忌口")
