"""The text gate's own words, as data (docs/design.md §9).

The verbs, negations, question words, diets and third persons are the lexicon's rule classes
(``language.lexicon``), shared with the commands; the gate's own words are the lexicon's ``gate_``
list classes, named here (each word once in ``data/lexicon.json``): the
words around a verb that make it a claim (done-markers and -endings, helping and disposal markers,
the speaker, offers and pointers), actions outside the service, promises, and the patterns of facts
(contacts, addresses, hours, prices, numbers). Words are matched on the text lower-cased with its
spaces removed; patterns are regular expressions over the same text. The refusal codes and the
fixed texts are in ``text_gate``; keep the codes stable: they are logged, counted in the turn
snapshot and named in the README.
"""

from __future__ import annotations

from local_agent.language.lexicon import words_of

# The longest model-written text that may reach the chat, in characters, and its lines. A LINE
# bubble of a few short lines: anything longer is an essay the tools did not write.
MAX_CHARS = 120
MAX_LINES = 4

# -- claims -----------------------------------------------------------------------------------------
# The verbs are the lexicon's (``language.lexicon``: delete, stop, remember, apply and show verbs);
# these are only the gate's own words around them. A verb is a claim when it is said
#   * after a done-marker in its clause with no negation nearer to it (「我已經把您的偏好歸零囉」), or
#   * with a done-ending right after it (「清空了」, 「記下來囉」, 「設定好了」), or
#   * after a helping or disposal marker (「幫您」, 「把」) in a clause that is not a question, or
#     by the bot itself (「我」, 「我們」) in such a clause (「好的，我把偏好刪除」).
# A verb with a negation nearer than any done-marker (「還沒有幫您刪除」, 「目前已經無法預約」) is a
# denial; a verb in a question with no done-marker or -ending (「要我幫您刪除嗎？」) is a question back;
# a verb inside 「」 names a button or a command (「請按「確定忘記」」) and says nothing was done.
# The lexicon's own aspect words are read as done-markers unless they are helping markers or endings.
DONE_MARKERS: tuple[str, ...] = words_of("gate_done_markers")
# 「而已」 ("only"): its 已 is no done-marker.
NOT_DONE_MARKERS: tuple[str, ...] = words_of("gate_not_done_markers")
DONE_ENDINGS: tuple[str, ...] = words_of("gate_done_endings")
CLAUSE_STOPS = "。！？!?；;，,、\n"
# Right after a verb and its done-ending these make it a question about what was done, not a claim
# (「看看記了什麼」, 「刪了嗎」); a done-marker before the verb still claims (「已經刪除了嗎」).
ASKED_AFTER: tuple[str, ...] = words_of("gate_asked_after")
# After a helping marker anywhere in the clause (「幫您把偏好刪除了」), or right after a negated
# remember or apply verb (「以後不記了」: a stop), these say it was done.
STOPPED_ENDINGS: tuple[str, ...] = words_of("gate_stopped_endings")
HELPING: tuple[str, ...] = words_of("gate_helping")
SPEAKER: tuple[str, ...] = words_of("gate_speaker")
# Before the verb, these make it an offer or a condition, not an act: 「我只能幫您記住、刪除或查看」,
# 「我會先問您同意才記住」. A done-marker or -ending still makes it a claim.
OFFERS: tuple[str, ...] = words_of("gate_offers")
# Words read whole so that no part of them is taken for a negation, a marker or the speaker:
# 「特別」 holds no 「別」, 「要我幫您刪除嗎」 is an offer, 「沒問題」 negates nothing.
FILLERS: tuple[str, ...] = words_of("gate_fillers")
# Said in one of these the verb points the person to a button or a command (「您可以請我記下來」).
POINTERS: tuple[str, ...] = words_of("gate_pointers")
# The gate's own negations, besides the lexicon's: a verb after the nearest of them is denied.
NEGATIONS: tuple[str, ...] = words_of("gate_negations")
# Actions outside the service (booking, calling, sending): no command has them, so no lexicon class.
OTHER_VERBS: tuple[str, ...] = words_of("gate_other_verbs")
# English claims, matched lower-cased without spaces (no bare "sent", which 「consent」 contains):
# past forms the lexicon's English verbs do not make with an ending (forgotten, saved, booked ...).
ENGLISH_CLAIMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("forget", words_of("gate_claims_forget_en")),
    ("remember", words_of("gate_claims_remember_en")),
    ("", words_of("gate_claims_done_en")),
)
# Promises to keep (or no longer keep) something about the person: LOCAL keeps a diet only after a
# tapped consent and forgets it only after a tapped confirmation.
PROMISES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("forget", words_of("gate_promises_forget")),
    ("remember", words_of("gate_promises_remember")),
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
ADDRESS_WORDS: tuple[str, ...] = words_of("gate_address_words")
HOURS_WORDS: tuple[str, ...] = words_of("gate_hours_words")
HOURS_PATTERNS = (
    r"[0-9０-９]{1,2}[:：][0-9０-９]{2}",
    r"(?:早上|上午|中午|下午|晚上|凌晨)[0-9０-９一二三四五六七八九十]{1,3}(?:點|時)",
    r"[0-9０-９]{1,2}(?:點|時)(?:到|至|~|～|-)",
    r"[一二三四五六七八九十]{1,3}點(?:到|至|半|以後|之後|以前|之前|開|關|左右|營業)",
)
PRICE_WORDS: tuple[str, ...] = words_of("gate_price_words")
PRICE_PATTERNS = (
    r"[0-9０-９]+(?:元|塊)",
    r"[一二三四五六七八九十百千兩]+(?:元|塊錢)",  # 一百元, 五十塊錢 (not 一塊去: "together")
    r"(?i)nt\$|新台幣|\$[0-9]",
)

# -- numbers ----------------------------------------------------------------------------------------
# Any other digit is a fact the tools did not give (a count, a distance, a rating, a duration), and so
# is a number word before a measure (「三家」, 「五公里」, 「兩百公尺」; a lone 一 is not: 「一起」, 「一家人」).
# A date or a year is what the person asks about, not a fact of a place: 「您是說12月5日嗎？」, 「13月」
# in the answer to an impossible date, 「1901 到 2100 年」 in the calendar's range; these are read out
# before the digits are looked for.
DATE_PATTERNS = (
    r"[0-9０-９]{4}(?:到|至|-|~|～)[0-9０-９]{4}年",
    r"[0-9０-９]{1,4}年(?:[0-9０-９]{1,2}月)?(?:[0-9０-９]{1,2}[日號])?",
    r"[0-9０-９]{1,2}月(?:[0-9０-９]{1,2}[日號])?",
    r"[0-9０-９]{1,2}[日]",
)
NUMBER_PATTERNS = (
    r"[0-9０-９]",
    r"[兩二三四五六七八九十百千萬][一二三四五六七八九十百千萬兩]*(?:家|間|個|位|種|公里|公尺|分鐘|小時|顆星|星|人|次|歲|條|攤|樣|道|成|折)",
    r"一[一二三四五六七八九十百千萬兩]+(?:家|間|個|位|種|公里|公尺|分鐘|小時|顆星|星|人|次|歲)",
    r"百分之",
    r"第[一二三四五六七八九十]+(?:名|家|間)",
)

# -- people and diets ---------------------------------------------------------------------------------
# Another person's preference: a word for someone else (these and the lexicon's third persons) next
# to a diet (the lexicon's diet words) or one of these preference words, in one sentence.
PREFERENCE_WORDS: tuple[str, ...] = words_of("gate_preference_words")
OTHER_PEOPLE: tuple[str, ...] = words_of("gate_other_people")
# Words for someone else that say nothing about a person's diet: a shop and its staff (「店家有素食嗎」).
NOT_OTHER_PEOPLE: tuple[str, ...] = words_of("gate_not_other_people")
# Where a text names a diet: in a group or room never; in a 1:1 chat only one the person's message named
# (with no one else in it), and only in a question: a sentence ending with one of these or holding one
# of the lexicon's question words.
QUESTION_ENDINGS: tuple[str, ...] = words_of("gate_question_endings")
SENTENCE_STOPS = "。！？!?；;\n"
