"""The reading rules, as a table: each rule a named record with its own examples.

A rule is a pattern over word classes (``lexicon.py``) read inside one clause of a sentence: the
classes of ``pattern`` must occur in that order (other words may come between), one word of
``needs`` (if given) anywhere in the clause, and no word of ``without``. A clause takes the reading
of the highest-priority rule that matches it; ``intents.read`` weighs the clauses' readings by policy
(act / ask / pass, see ``docs/design.md`` "Reading people's words").

Every rule carries the sentences it must match and the sentences it must not match;
``tests/test_rules.py`` runs them all in the quick suite, and ``validate`` refuses at import a rule
without examples or naming a class the lexicon does not have.

To add a phrasing: if its words are new, add them to ``data/lexicon.json`` with their classes; if
its shape is new, add a rule here with the sentence among its ``matches``. Nothing else changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from local_agent.language import lexicon
from local_agent.language.patterns import quick
from local_agent.language.text import reading_form

RuleReading = Literal[
    "delete",  # delete the kept preference
    "delete_that",  # a short delete naming nothing (「幫我刪了」): the kept thing when the sentence names it
    "delete_other",  # delete something the clause does not say is the kept preference (那個東西)
    "other_named",  # delete, cancel or turn off another thing the clause names (照片, 通知, 報名)
    "stop",  # stop applying or remembering the kept preference
    "remember",  # keep a diet
    "show",  # show what is kept
    "keep",  # do not delete (「不要忘記」, 「不要刪除我的偏好」)
    "forgot_before",  # a complaint that something was forgotten (「上次你忘了」, 「我媽說你忘記」)
    "exclusion",  # apart from a diet (「除開素食」): a search, nothing deleted
    "hesitant",  # the speaker has not decided (「刪除偏好的事我再想想」): ask, never act
    "unclear",  # something to be done to what is kept, unsaid what (「吃素那個你弄一下」): ask which
    "other_diet",  # someone else gives up their own diet (「他不要再吃素了」): nothing asked of the bot
    "self_forgot",  # the speaker's own forgetting (「我自己忘記了」): no request; asked about, never acted on
    "help",  # what the bot can do, asked (「你會做什麼啊」)
    "thanks",
    "goodbye",
    "compliment",
    "complaint",
    "health",
    "weather",
    "bot_question",
    "visited",
]
SMALL_TALK_READINGS: frozenset[str] = frozenset(
    {"thanks", "goodbye", "compliment", "complaint", "health", "weather", "bot_question", "visited"}
)
CLAUSE_BREAKS = quick("[,。!?;；.]+|然後|接著|順便|但是|但|可是|不過|以免|免得|所以")
_KEPT = ("memory_object", "diet")
KEPT_CLASSES = frozenset(_KEPT)  # the classes that name the kept thing (a diet, 偏好, 紀錄)
# The negation classes and the verb classes a negation can reach (``_Shape._in_scope``).
NEGATIONS = frozenset({"negation", "negation_request", "stop_lead", "negation_of_delete"})
# A diet word that begins so is said as eating or keeping to it (吃素, 食菜, 茹素, 持素): a verb a
# negation can reach.
EATING = ("吃", "食", "呷", "茹", "持")
VERBS = frozenset(
    {"remember_verb", "delete_verb", "forget_verb", "undo_phrase", "stop_verb", "apply_verb", "show_verb"}
)


class RuleError(ValueError):
    """A malformed rule: no examples, an unknown class, a duplicate name."""


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: tuple[str, ...]  # word classes in order ("a|b" is either; one word may fill two slots)
    reading: RuleReading
    priority: int  # the higher wins within a clause
    matches: tuple[str, ...]  # sentences one clause of which the rule must match
    not_matches: tuple[str, ...]  # sentences no clause of which it may match
    needs: tuple[str, ...] = ()  # one word of these classes somewhere in the clause
    without: tuple[str, ...] = ()  # no word of these classes in the clause
    max_chars: int = 0  # when not 0: only a clause this short (「幫我刪了」)
    side_by_side: bool = False  # each slot's word right after the word before it, nothing between

    def classes(self) -> Iterable[str]:
        for slot in self.pattern:
            yield from slot.split("|")
        yield from self.needs
        yield from self.without


RULES: tuple[Rule, ...] = (
    # -- not deleting, whatever verb is in the clause -------------------------------------------
    Rule(
        "negated_delete",
        ("negation", "delete_verb|undo_phrase"),
        "keep",
        90,
        matches=(
            "不要忘記喔",
            "不要刪除我的偏好喔",
            "別把我吃素的資料刪掉",
            "你不要忘了我吃素",
            "我不是要刪掉偏好啦",
        ),
        not_matches=("刪除我的偏好", "忘記我吃素", "不用了，刪掉吧", "不好意思，麻煩把我的偏好刪掉"),
    ),
    # A negation closed by 了 before the delete verb negates what came before it, not the delete
    # (speech typed without punctuation): the last negation before the delete verb decides, unless
    # a 了 closes it too.
    Rule(
        "delete_after_two_closes",
        ("clause_close", "negation", "clause_close", "delete_verb|undo_phrase"),
        "delete",
        97,
        matches=("我改吃葷了不用再記素食了請把偏好刪掉",),
        not_matches=("我不吃素了不要刪掉喔", "我改吃葷了不過不要把偏好刪掉"),
        needs=_KEPT,
    ),
    Rule(
        "negated_delete_after_a_close",
        ("clause_close", "negation", "delete_verb|undo_phrase"),
        "keep",
        96,
        matches=("我不吃素了不要刪掉喔", "不用再問了別把我的偏好刪除"),
        not_matches=("我沒有吃素了幫我刪除偏好", "不要刪除我的偏好喔"),
    ),
    Rule(
        "delete_after_a_closed_negation",
        ("negation", "clause_close", "delete_verb|undo_phrase"),
        "delete",
        95,
        matches=("我沒有吃素了幫我刪除偏好", "不用再記了把我的飲食設定刪掉"),
        not_matches=("我不吃素了不要刪掉喔", "別把我吃素的資料刪掉", "不要刪除了我的偏好"),
        needs=_KEPT,
    ),
    # 「幫她忘掉」 asks the bot to forget for her: a request of the speaker's, no remark that she forgot.
    Rule(
        "delete_for_someone",
        ("for_someone", "delete_verb|undo_phrase"),
        "delete",
        86,
        matches=("這是我媽的手機，她吃素的設定幫她忘掉", "我爸說不吃素了，幫他把素食偏好刪除"),
        not_matches=("阿嬤說你忘了她吃素", "幫她找吃素的店，她常常忘記吃藥"),
        needs=_KEPT,
    ),
    Rule(
        "someone_forgot",
        ("third_person", "forget_verb"),
        "forgot_before",
        85,
        matches=("我媽說你上次忘記她吃素", "阿嬤說你忘了她吃素", "他都忘記我吃素"),
        not_matches=(
            "幫我忘記我吃素",
            "把我的偏好忘掉",
            "媽媽說她蛋奶素的那個偏好請你取消掉",
            "我媽說把她吃素的忘掉好嗎",
            "阿嬤說她那個吃素的叫你忘掉",
        ),
        without=("request_tag", "asked_of_bot"),
    ),
    # 「今天忘記帶錢包」, 「阿伯老是忘了吃藥」: forgetting to do something, told
    Rule(
        "forgot_to_do",
        ("forgot_to_do",),
        "forgot_before",
        84,
        matches=("我今天又忘記帶錢包", "阿伯老是忘了吃藥"),
        not_matches=("幫我忘記我吃素", "把我的偏好忘掉"),
    ),
    Rule(
        "forgot_before",
        ("past_marker", "forget_verb"),
        "forgot_before",
        80,
        matches=("上次你忘了", "你之前忘記我吃素", "你又忘記我吃素了"),
        not_matches=(
            "忘了我吃素吧",
            "以後刪除我的偏好",
            "你好我想要把之前設定的素食取消",
            "每次都推素的，把吃素的記錄忘掉好不好",
        ),
        without=("negation", "request_tag"),
    ),
    Rule(
        "worried_forgotten",
        ("worry", "forget_verb"),
        "forgot_before",
        80,
        matches=("我怕你忘記了", "深怕你會忘了我吃全素", "我驚你袂記得"),
        not_matches=("忘記我吃素吧", "幫我忘記我吃素"),
        without=("request_tag", "disposal"),
    ),
    # 「換手機會不會把你記的素食清掉」: asked whether it will be deleted, a wish to keep it
    Rule(
        "will_it_be_deleted",
        ("will_it", "delete_verb|undo_phrase"),
        "keep",
        88,
        matches=("重灌的話會不會把吃素的設定刪掉", "換手機會不會把你記的素食也清掉"),
        not_matches=("刪除我的偏好", "會不會很麻煩 直接刪掉吧好嗎", "我怕你忘記我吃素"),
        without=("request_tag", "forget_verb"),
    ),
    # 「不要因為我吃素就刪掉」: a negation asked, then eating and a delete, unclosed: which one it
    # reaches is not plain (the eating, or the delete after it), so it is asked, never acted on
    Rule(
        "negation_over_eating_and_delete",
        ("negation_request", "diet", "delete_verb|undo_phrase"),
        "hesitant",
        60,
        matches=("不要因為我吃素就刪掉", "別看我吃全素就清掉"),
        not_matches=("我不要吃素了 刪掉", "刪除我的偏好", "別把我吃素的資料刪掉"),
        without=(
            "aspect",
            "clause_close",
            "disposal",
            "memory_object",
            "filter_loose",
            "other_verb",
            "lasting",
            "remember_verb",  # (「不要記素食那個清掉」: the negation is a stop of its own)
        ),
    ),
    # 「重灌之後吃素的設定還在嗎」: whether it is still there after something is deleted, a wish to keep it
    Rule(
        "still_there_after",
        ("delete_verb|undo_phrase", "still_there"),
        "keep",
        88,
        matches=("手機重置之後我吃素的設定還在嗎", "快取清掉以後 偏好還會在吧"),
        not_matches=("刪除我的偏好", "不是叫你刪了 怎麼還在", "吃素的還在嗎"),  # (that one is shown)
        without=("request_tag",),
    ),
    # 「換手機以後 我的素食設定還在嗎」: whether the kept thing is still there, what is kept asked
    Rule(
        "still_there_kept",
        ("diet|memory_object", "still_there"),
        "show",
        86,
        matches=("換了新手機 我吃素的設定還在嗎", "偏好還會在吧"),
        not_matches=("記住我吃素", "不是叫你刪了 怎麼還在"),
        without=("request_tag",),
    ),
    # 「我怕連你這邊記的也刪掉」: a worry that it goes along with something else deleted; a worry and then
    # a request (「我驚驚 你共我彼个紀錄刪掉啦」) is the request
    Rule(
        "worried_deleted_too",
        ("worry", "also", "delete_verb|undo_phrase"),
        "keep",
        88,
        matches=("孫子要清手機 我怕連你記的吃素也清掉", "我怕換手機你那邊的素食也刪掉"),
        not_matches=("我怕怕的 你把吃素的紀錄刪掉", "怕麻煩 直接刪掉吧好嗎", "我怕你忘記我吃素"),
        without=("request_tag", "forget_verb"),
    ),
    # 「我很怕你們會把我的飲食紀錄刪掉」, 「就怕會被刪掉吃素的設定」: a delete feared as what may happen,
    # not asked for
    Rule(
        "feared_to_happen",
        ("worry", "will_happen", "delete_verb|undo_phrase"),
        "keep",
        88,
        matches=("我很怕你們會把我的飲食紀錄刪掉", "就怕會被刪掉吃素的設定", "怕你會不小心把吃素的設定清掉"),
        not_matches=("我怕怕的 你把吃素的紀錄刪掉", "不用擔心 刪掉我的偏好", "你會把我的資料刪掉嗎"),
        without=("request_tag", "forget_verb"),  # (a forgetting feared is ``worried_forgotten``)
    ),
    Rule(
        "apart_from_diet",
        ("exclusion", "diet|memory_object"),
        "exclusion",
        80,
        matches=("除開素食，員林還有什麼好吃的", "除了素食有什麼"),
        not_matches=("刪除素食", "素食偏好除掉"),
    ),
    Rule(
        "diet_aside",
        ("diet|memory_object", "exclusion"),
        "exclusion",
        80,
        matches=("素食之外還有嗎", "吃素以外的店"),
        not_matches=("刪除素食以後", "員林以外"),
    ),
    Rule(
        "undecided",
        ("hesitation",),
        "hesitant",
        95,
        matches=("刪除素食偏好的事情我再想想", "要不要刪除偏好我考慮一下"),
        not_matches=("刪除我的偏好", "記住我吃素"),
    ),
    # 「刪掉還是留著比較好」: deleting and keeping offered as a choice, not yet made
    Rule(
        "delete_or_keep",
        ("delete_verb|undo_phrase", "either", "remember_verb"),
        "hesitant",
        92,
        matches=("素食那筆要刪掉還是留著比較好", "那個偏好取消或是保留呢"),
        not_matches=("刪除我的偏好", "還是刪掉好了", "還是幫我記住吃素", "不要刪 還是留著吧"),
        without=("negation",),  # (「不要刪 還是留著吧」 has chosen: keep it)
    ),
    Rule(
        "keep_or_delete",
        ("remember_verb", "either", "delete_verb|undo_phrase"),
        "hesitant",
        92,
        matches=("吃素的設定要繼續留著還是刪掉", "偏好保留或者清掉哪個好"),
        not_matches=("記住我吃素", "留著吧 還是不要刪"),
    ),
    Rule(
        "keep_as_is",
        ("keep_as_is",),
        "keep",
        90,
        matches=("吃素的事不用改，照原本的就好", "素食設定不要動"),
        not_matches=("把素食改掉", "刪除我的偏好"),
        needs=_KEPT,
    ),
    Rule(
        "refusal",
        ("negation_request",),
        "keep",
        35,
        matches=("我孫子說要刪掉偏好，但我不要", "不要"),
        not_matches=("不要刪除我的偏好",),
        max_chars=3,
    ),
    # -- stopping -------------------------------------------------------------------------------
    Rule(
        "stop_applying",
        ("stop_verb",),
        "stop",
        70,
        matches=(
            "素食偏好先暫停一下",
            "素食不要繼續套用",
            "停用我的偏好",
            "素食篩選關掉",
            "不要再用素食篩選了",
            "停止套用我的飲食偏好",
        ),
        not_matches=("今天暫停營業嗎", "記住我吃素"),
        needs=_KEPT,
    ),
    Rule(
        "negated_applying",
        ("negation", "apply_verb"),
        "stop",
        65,
        matches=("以後不要再幫我過濾素食", "不需要素食篩選", "我不想要素食篩選了"),
        not_matches=("幫我過濾素食", "素食篩選一下", "員林不要太遠的素食"),
        needs=_KEPT,
    ),
    # 「不要再幫我過濾了」: no more filtering, said alone: the only filter is the kept diet
    Rule(
        "no_more_filtering",
        ("stop_again", "apply_verb"),
        "stop",
        64,
        matches=("拜託不要再幫我篩選了", "以後別再過濾了啦"),
        not_matches=("幫我過濾素食", "這次不要再篩選了", "不要再找太遠的"),
        without=("temporary",),
    ),
    # 「以後可不可以不要再這樣篩了」: from now on, no filtering: the only filter is the kept diet
    Rule(
        "lasting_no_filtering",
        ("lasting", "negation|stop_again", "apply_verb"),
        "stop",
        63,
        matches=("以後都不要幫我篩了啦", "往後可不可以不要過濾了"),
        not_matches=("以後都幫我過濾素食", "這次不要篩", "以後不要找太遠的"),
        without=("temporary", "hesitation"),
    ),
    Rule(
        "negated_remembering",
        ("negation_request|stop_lead|negation_of_delete", "remember_verb"),
        "stop",
        60,
        matches=(
            "吃素的事不用記了",
            "不要再記我吃素",
            "你不要一直記著我吃素",
            "我不想讓你記得我吃素的事",
            "我不想再被記住吃素",
        ),
        not_matches=(
            "記住我吃素",
            "幫我記一下我吃素",
            "你還記不記得我",
            "日期不存在",
            "今天不吃辣就好 只是這一次 不用記",
        ),
        without=("temporary",),  # (「這一次不用記」: this search's filter is not to be kept; nothing to stop)
    ),
    # 「我沒有答應讓你記住我吃素」: a refusal of the keeping itself, not a remember request
    Rule(
        "refused_remembering",
        ("negation", "permission", "remember_verb"),
        "stop",
        62,
        matches=(
            "我從來沒有答應讓你記住我吃全素",
            "不同意你把我吃蛋奶素記下來",
            "我不允許你記錄我的飲食習慣",
        ),
        not_matches=("我同意你記住我吃素", "我答應過你要記住我吃素", "沒有不同意 記起來吧"),
    ),
    # 「我兒子說他不要再吃素了 我還是照舊」: someone else, named right before it, gives up their own diet,
    # and the speaker keeps theirs as before (照舊, in the sentence: without it, the clause is read as if
    # this rule were not here, since the account may be theirs, typed by kin)
    Rule(
        "their_diet_given_up",
        ("third_person", "negation|stop_again", "diet"),
        "other_diet",
        59,
        matches=("我先生說他不要再吃素了 我照舊", "她不吃全素了 我還是照舊", "阿明講他不再吃蛋奶素，我照舊"),
        not_matches=("我兒子說不要再給我素的", "叫他不要再找素的給我", "不要再吃素了", "不要再幫他找素的"),
        side_by_side=True,
    ),
    # 「我兒子停掉他的素食了 我照舊」: someone else stops their own diet (a third person's diet after the
    # verb), read, as above, only beside the speaker's own kept as before
    Rule(
        "their_diet_stopped",
        ("third_person", "stop_verb|delete_verb", "third_person", "diet"),
        "other_diet",
        72,
        matches=("我兒子停掉他的素食了 我照舊", "我先生取消他的蛋奶素了 我還是照舊"),
        not_matches=("幫她停掉她的素食", "我兒子停掉他的素食了", "麻煩幫我媽取消她的全素"),
        without=("for_someone", "asked_of_bot"),
    ),
    # 「我媳婦說她要停止吃素了 我照舊」: someone else says they stop their own diet (the stop verb between
    # the third person and the diet), read, as above, only beside the speaker's own kept as before
    Rule(
        "their_diet_ended",
        ("third_person", "stop_verb", "diet"),
        "other_diet",
        71,
        matches=("我媳婦說她要停止吃素了 我照舊", "阿明講他停掉蛋奶素，我猶原"),
        not_matches=("幫她停掉她的素食", "我媳婦說她要停止吃素了", "麻煩幫我媽停止全素"),
        without=("for_someone", "asked_of_bot"),
    ),
    # 「素食那筆還有保留的必要嗎」, 「還需要記著我吃全素嗎」: whether keeping what is kept is still needed,
    # asked: a stop put as a question, asked about by the policy
    Rule(
        "keeping_still_needed",
        ("remember_verb",),
        "stop",
        57,
        matches=("素食那筆還有保留的必要嗎", "還需要記著我吃全素嗎", "是否仍有留著之必要"),
        not_matches=("記住我吃素", "需要我記住什麼嗎", "不需要記住喔", "有需要幫你記下來嗎"),
        needs=("necessity",),
        without=("negation", "negation_request", "ask_can"),
    ),
    # 「不要再給我素食」, 「素的不要再推了」, 「別再給我素食餐廳」: no more of the kept thing (or its places,
    # not one shop named: 那家), said as a plea or a complaint with whatever verb (推, 給, 加): a stop,
    # asked about by the policy; 「今天不要再找素的」 is this search's only.
    Rule(
        "no_more_of_it",
        ("stop_again", "diet|memory_object|diet_place"),
        "stop",
        58,
        matches=(
            "拜託以後不要再推素食的給我",
            "搜尋不用再加我的偏好",
            "別再一直挑素的了",
            "不要再一直給我素食餐廳了",
        ),
        not_matches=(
            "今天不要再找素的了",
            "不要再忘記我吃素",
            "不要再給我辣的",
            "我吃素 記住它 以後不用再講吃素",
            "不要再去那家素食店了",
        ),
        without=("temporary", "remember_verb", "other_thing"),
    ),
    Rule(
        "it_no_more",
        ("diet|memory_object", "stop_again"),
        "stop",
        57,
        matches=("吃素那個別再推給我了", "素的別再出現了啦"),
        not_matches=(
            "素食的這次不要再找了",
            "吃素的不要再忘記喔",
            "素食店不要再太遠",
            "我吃素 你可以記住嗎 下次就不用再講",
            "那間素食店很難吃 以後不要再去了",
        ),
        without=("temporary", "remember_verb", "going"),
    ),
    Rule(
        "stop_remembering_alone",
        ("bare_stop",),
        "stop",
        61,
        matches=("不記了", "免記啦", "不用記"),
        not_matches=("我不記得了", "我記不起來我吃什麼"),
        max_chars=4,
    ),
    Rule(
        "speaker_forgot",
        ("self_forgetting",),
        "self_forgot",
        55,
        matches=("我之前有跟你說我吃哪一種素嗎，我自己忘記了", "我都忘了我設定過什麼", "我也忘記了"),
        not_matches=("幫我忘記我吃素", "我要你忘記我吃素", "忘記我的飲食偏好"),
        without=("delete_verb",),
    ),
    # -- deleting -------------------------------------------------------------------------------
    Rule(
        "delete_kept",
        ("delete_verb|undo_phrase",),
        "delete",
        50,
        matches=(
            "刪除我的偏好",
            "把我吃素的資料刪掉",
            "取消吃素",
            "忘記我的飲食偏好",
            "偏好歸零",
            "不好意思，麻煩把我的偏好刪掉",
        ),
        not_matches=("刪掉那張照片就好", "不要刪除我的偏好", "我媽說你忘記她吃素"),
        needs=_KEPT,
        without=("exclusion",),
    ),
    Rule(
        "delete_that",
        ("delete_verb|undo_phrase",),
        "delete_that",
        45,
        matches=("你剛剛記的那個吃素，幫我刪了", "請清除", "你把那個刪掉，然後幫我看芬園有啥好吃的"),
        not_matches=("刪掉那張照片就好", "不要刪喔", "幫我刪掉照片"),
        without=("memory_object", "diet", "negation", "other_thing"),  # (a short delete naming another thing)
        max_chars=6,
    ),
    # 「群組的通知可以關掉嗎」, 「我把舊手機清空了」: the thing deleted or turned off is named, and it is
    # not what is kept
    Rule(
        "another_thing_deleted",
        ("other_thing", "delete_verb|stop_verb|undo_phrase"),
        "other_named",
        42,
        matches=("手機的照片幫我刪掉", "群組通知可以關掉嗎", "我女兒說要把我的臉書帳號刪掉"),
        not_matches=("刪除我的偏好", "那個東西你可以幫我取消嗎", "把照片裡的素食偏好刪掉"),
        without=("memory_object", "diet"),
    ),
    # 「訂位已取消 鹿港有素食嗎」: another thing told as already undone, the diet only in what follows
    Rule(
        "another_thing_told_undone",
        ("other_thing", "aspect", "delete_verb|stop_verb|undo_phrase"),
        "other_named",
        58,
        matches=("原本的訂位已取消 員林有素食嗎", "吃藥的提醒已經關掉了 幫我找素的"),
        not_matches=("素食的設定已經取消了嗎", "刪除我的偏好"),
        side_by_side=True,
        without=("memory_object",),
    ),
    Rule(
        "deleting_another_thing",
        ("delete_verb|stop_verb|undo_phrase", "other_thing"),
        "other_named",
        42,
        matches=("取消訂閱電子報要怎麼弄", "刪掉那則訊息就好"),
        not_matches=("刪掉我吃素的設定", "取消吧"),
        without=("memory_object", "diet"),
    ),
    Rule(
        "delete_something",
        ("delete_verb",),
        "delete_other",
        40,
        matches=("刪掉那張舊的就好啦", "那個東西你可以幫我取消嗎"),
        not_matches=("刪除我的偏好", "不要刪除喔"),
        without=("memory_object", "diet", "negation"),
    ),
    # -- remembering and showing ----------------------------------------------------------------
    Rule(
        "remember_diet",
        ("remember_verb",),
        "remember",
        30,
        matches=("記住我吃素", "幫我記下來我吃全素", "請你記得我吃素"),
        not_matches=("不要記我吃素", "記得那家店在哪"),
        needs=("diet",),
        without=("negation_request", "question"),
    ),
    # 「我吃蛋奶素 你要記下來嗎」: the diet told first, then a remember verb, asked or not
    Rule(
        "diet_then_remember",
        ("diet", "remember_verb"),
        "remember",
        29,
        matches=("我吃蛋奶素 你要記起來嗎", "我阿公吃全素 可以叫你記", "我吃五辛素 可以幫我記嗎"),
        not_matches=("我吃素 不要記", "吃素的那個不用記了", "記住我吃素", "吃素的你記了哪一種"),
        without=("negation", "negation_request", "which", "bare_stop", "stop_lead"),
    ),
    # 「下回還記得我吃素嗎」, 「可否永遠記著我媽吃全素嗎」: whether the bot will, or can, keep a diet from now
    # on, asked: a wish to be kept (what it remembers now, asked with no time to come, is what is kept)
    Rule(
        "remember_asked_ahead",
        ("ahead|lasting|will_it|ask_can", "remember_verb"),
        "remember",
        28,
        matches=("下回還記得我吃素嗎", "可否永遠記著我媽吃全素嗎", "以後會不會記得我吃蛋奶素"),
        not_matches=(
            "你記得我吃素嗎",
            "你一直記著我吃素 好煩",
            "以後不要記我吃素",
            "可以幫我記明天買菜嗎",
            "下次記得我吃哪種素嗎",
        ),
        needs=("diet",),
        without=("negation_request", "negation", "which", "stop_lead", "bare_stop", "complaint"),
    ),
    # 「不要每次都給我素的」, 「好像也不用每次都這樣」: no longer every time, said of the diet or of how the
    # bot searches: a stop (not 「不用每次都問我」, which names neither)
    Rule(
        "not_each_time",
        ("negation", "each_time", "like_this|diet"),
        "stop",
        29,
        matches=("不要每次都給我素的", "其實也不必每次都這樣啦", "不用每一次都挑全素"),
        not_matches=(
            "不用每次都問我",
            "每次都這樣找很好",
            "我不是每次都吃素 今天要吃素",
            "記得每次都要找素的",
        ),
        without=("question", "identity", "remember_verb", "temporary"),
    ),
    # 「蛋奶素是我們家的習慣 你幫我注意著」: a diet, then asked to be watched out for: a wish to be kept
    Rule(
        "diet_watched_for",
        ("diet", "watch_out"),
        "remember",
        27,
        matches=("蛋奶素是我們家的習慣 你幫我注意著", "我吃鍋邊素 推薦的時候請多留意"),
        not_matches=("素食店要注意衛生", "幫我留意有沒有新的活動", "不要再幫我留意素食了"),
        without=("negation", "negation_request", "question", "stop_lead", "temporary"),
    ),
    # 「以後都不用照素食找了」: from now on, no diet: a stop
    Rule(
        "lasting_without_diet",
        ("lasting", "negation|drop", "diet"),
        "stop",
        29,
        matches=("以後都不用照素食找了", "往後找店一律不要全素的", "以後都不要照蛋奶素找"),
        not_matches=("以後都幫我過濾素食 不用每次講", "以後我都吃素 你記一下 不要再找有肉的"),
        without=("question", "hesitation"),
    ),
    # 「往後找店一律找全素的」: from now on, a diet every time, no verb of remembering
    Rule(
        "lasting_diet",
        ("lasting", "diet"),
        "remember",
        28,
        matches=("往後找店一律找全素的就好", "以後都照蛋奶素幫我篩", "from now on 只要 vegetarian"),
        not_matches=(
            "以後不要再幫我篩素食",
            "以後素食不用記了",
            "以後吃素的事再說吧 我考慮一下",
            "以後都給我素的嗎",
        ),
        # (a negation may follow, of another verb: 「以後都幫我過濾素食 不用每次講」; a stop said with
        # the same words outranks this rule)
        without=("stop_lead", "bare_stop", "stop_again", "drop", "question", "hesitation", "complaint"),
    ),
    # 「以後都照這樣幫我篩」: from now on, search the way just said: the diet named is to be kept
    Rule(
        "lasting_like_this",
        ("lasting", "like_this"),
        "remember",
        27,
        matches=("我吃蛋奶素 以後都照這樣幫我篩", "往後按這個找就對了"),
        not_matches=(
            "以後不要再這樣找了",
            "這樣找不到啦",
            "以後都這樣找我很煩",
        ),
        needs=("filter_loose", "apply_verb"),
        without=("negation", "stop_lead", "bare_stop", "stop_again", "drop", "hesitation", "complaint"),
    ),
    # 「告訴我你現在還記了我什麼」: asked to be told what was remembered
    Rule(
        "told_what_is_kept",
        ("show_verb", "remember_verb", "which"),
        "show",
        33,
        matches=("告訴我你現在還有記我什麼", "跟我說你存了哪些", "我是問你有幫我記什麼"),
        not_matches=("記住我吃素", "告訴我那家店叫什麼", "跟我說員林有什麼好吃的"),
        without=("negation_request",),
    ),
    # 「你記得她吃哪一種素」, 「你會記多久」, 「記不記得我吃啥」: which or what was remembered, asked;
    # nothing to keep
    Rule(
        "remembered_which",
        ("remember_verb|memory_object|a_not_a", "which"),
        "show",
        32,
        matches=(
            "你記得我爸吃哪一種素",
            "你到底記了我什麼資料",
            "吃素的設定你會記多久",
            "你記的是哪種素",
            "你還記得我阿嬤吃啥嗎",
            "你記不記得我吃哪一種",
        ),
        not_matches=("記住我吃素", "你記得那家店在哪嗎", "你可以記得我吃素嗎", "我記不得昨天吃什麼"),
        needs=(*_KEPT, "eats_what"),
    ),
    # 「你到底存了些什麼」: what was kept, asked with no kept thing named (the remember verb done, 了)
    Rule(
        "what_was_remembered",
        ("remember_verb", "aspect", "which"),
        "show",
        30,
        matches=("你到底存了些什麼", "想知道你記了哪些東西"),
        not_matches=("記住我吃素", "我忘了那家店叫什麼", "幫我記了嗎"),
        without=("negation_request", "negation"),
    ),
    Rule(
        "which_remembered",
        ("which", "remember_verb"),
        "show",
        31,
        matches=("我吃哪種素你還記得嗎", "我的什麼資料你有存", "阿嬤吃什麼 你還記得嗎"),
        not_matches=("記住我吃全素", "什麼時候可以幫我記我吃素", "哪裡好吃 記得告訴我喔"),
        needs=(*_KEPT, "eats_what"),  # (what someone eats asked: 「阿嬤吃什麼」)
        without=("negation_request",),
    ),
    Rule(
        "unclear_about_kept",
        ("vague_do",),
        "unclear",
        33,
        matches=("我吃素的設定你看著辦", "那個素食的偏好幫我弄一下"),
        not_matches=("幫我把吃素的設定刪掉", "員林的店幫我弄一下", "大家的偏好你看著辦"),
        needs=_KEPT,
        without=("third_person",),
    ),
    # 「那個素食的設定喔，你看著辦」: the kept thing said first, then a short comment on it
    Rule(
        "unclear_comment",
        ("vague_do",),
        "unclear",
        32,
        matches=("吃素那個設定喔，你看著辦", "我的偏好啊 弄一下"),
        not_matches=("員林的店幫我弄一下", "她的事你看著辦"),
        without=("third_person",),
        max_chars=6,
    ),
    Rule(
        "kept_shown",
        ("memory_object", "show_verb"),
        "show",
        56,
        matches=("我的設定給我看一下 我忘了設了什麼", "偏好列出來"),
        not_matches=("刪除我的偏好", "我都忘了我設定過什麼", "看一下員林的店"),
    ),
    Rule(
        "show_kept",
        ("show_verb", "memory_object"),
        "show",
        30,
        matches=("查看我的偏好", "給我看你記的資料", "顯示我的設定"),
        not_matches=("刪除我的偏好", "幫我查看員林的店"),
    ),
    # -- small talk -----------------------------------------------------------------------------
    Rule(
        "asks_for_help",
        ("help_question",),
        "help",
        22,
        matches=("你會做什麼啊，我女兒說你很好用", "請問你能做什麼"),
        not_matches=("你會做菜嗎", "員林有什麼好吃的"),
    ),
    Rule(
        "thanks_in_other_words",
        ("thanks_word",),
        "thanks",
        21,
        matches=("感謝你的幫忙", "你幫了大忙", "真是太感謝了", "辛苦你了"),
        not_matches=("員林有什麼好吃的",),
        without=("question",),
    ),
    Rule(
        "goodbye",
        ("goodbye",),
        "goodbye",
        20,
        matches=("掰掰", "好，先這樣，再見", "晚安喔"),
        not_matches=("員林有什麼好吃的",),
        without=("question",),
    ),
    Rule(
        "compliment",
        ("compliment",),
        "compliment",
        20,
        matches=("你好棒", "這個很好用", "辛苦了"),
        not_matches=("那家好吃嗎",),
        without=("question", "negation"),
    ),
    Rule(
        "complaint",
        ("complaint",),
        "complaint",
        20,
        matches=("你們很爛", "講的都不準", "你搞錯了啦"),
        not_matches=("謝謝你",),
    ),
    Rule(
        "health",
        ("health",),
        "health",
        20,
        matches=("我最近腰痠", "今天有點感冒", "好累喔", "上個月驗血糖有點高", "醫生說我不能吃太油"),
        not_matches=("今天天氣好",),
    ),
    Rule(
        "weather",
        ("weather",),
        "weather",
        20,
        matches=("今天好熱", "外面下雨了", "颱風要來了"),
        not_matches=("我最近腰痠", "今天天氣如何"),
        without=("question",),
    ),
    Rule(
        "bot_question",
        ("bot_question",),
        "bot_question",
        20,
        matches=("你是機器人嗎", "你是誰", "你是真人嗎"),
        not_matches=("你知道員林有什麼嗎",),
    ),
    Rule(
        "visited",
        ("visited",),
        "visited",
        20,
        matches=(
            "上次去那家很好吃",
            "我去過那家了",
            "那家不錯",
            "那攤的頭家很兇，我不會再去",
            "上星期去那間麵店，服務很差",
        ),
        not_matches=("員林有什麼好吃的",),
        without=("question",),
    ),
)


def validate(rules: Iterable[Rule]) -> tuple[Rule, ...]:
    """The rules as given, or RuleError: each has a name of its own, examples both ways, a
    pattern, and only the lexicon's classes."""
    seen: set[str] = set()
    checked = tuple(rules)
    for rule in checked:
        if rule.name in seen:
            raise RuleError(f"rule {rule.name!r} is named twice")
        seen.add(rule.name)
        if not rule.pattern:
            raise RuleError(f"rule {rule.name!r} has no pattern")
        if not rule.matches or not rule.not_matches:
            raise RuleError(f"rule {rule.name!r} needs sentences it matches and sentences it does not")
        unknown = sorted({c for c in rule.classes() if c not in lexicon.WORD_CLASSES})
        if unknown:
            raise RuleError(f"rule {rule.name!r} names unknown classes {unknown}")
    return checked


TABLE: tuple[Rule, ...] = tuple(sorted(validate(RULES), key=lambda r: -r.priority))


@dataclass(frozen=True)
class _Shape:
    """A rule's classes as sets, built once at import: what the clause must not hold, what it must
    hold, and each slot's classes."""

    rule: Rule
    without: frozenset[str]
    needs: frozenset[str]
    slots: tuple[frozenset[str], ...]
    reach: tuple[bool, ...]  # each slot: a verb slot after a negation slot (the negation's reach checked)

    @classmethod
    def of(cls, rule: Rule) -> _Shape:
        slots = tuple(frozenset(s.split("|")) for s in rule.pattern)
        reach = (False,) + tuple(
            not one.isdisjoint(NEGATIONS) and not two.isdisjoint(VERBS)
            for one, two in zip(slots, slots[1:], strict=False)
        )
        return cls(rule, frozenset(rule.without), frozenset(rule.needs), slots, reach)

    def fits(self, clause: tuple[lexicon.Token, ...], chars: int, present: frozenset[str]) -> bool:
        if self.rule.max_chars and chars > self.rule.max_chars:
            return False
        if present & self.without or (self.needs and not present & self.needs):
            return False
        if any(present.isdisjoint(slot) for slot in self.slots):
            return False  # a slot no word of the clause can fill
        return self._placed(clause, 0, 0, -1)

    def _placed(self, clause: tuple[lexicon.Token, ...], slot_at: int, start: int, last: int) -> bool:
        """The slots from ``slot_at`` on are filled by words of ``clause`` in order, from ``start``
        (``last``: the word that filled the slot before)."""
        if slot_at == len(self.slots):
            return True
        slot = self.slots[slot_at]
        if last >= 0 and not slot.isdisjoint(clause[last].classes):
            # one word of both classes fills both slots (不用記: a negation and a remembering verb)
            return self._placed(clause, slot_at + 1, start, last)
        for at in range(start, len(clause)):
            if slot.isdisjoint(clause[at].classes) or not self._in_scope(clause, slot_at, last, at):
                continue
            if self.rule.side_by_side and last >= 0 and clause[at].start != clause[last].end:
                continue
            if self._placed(clause, slot_at + 1, at + 1, at):
                return True
        return False

    def _in_scope(self, clause: tuple[lexicon.Token, ...], slot_at: int, negation: int, verb: int) -> bool:
        """A negation reaches only the first verb after it: 「不要記，取消」 negates the remembering, not
        the 取消 after it, and a negation that is a verb itself (不要記) reaches no other verb. Eating and
        knowing are verbs too (「沒辦法吃全素，記的全素取消掉」 negates the eating, 「毋知欲按怎」 the
        knowing), and so is being someone (「我又不是和尚，把素的刪掉」 denies being a monk), unless 把 / 將 put the object before the verb (「別把我吃素的資料刪掉」). The speaker
        starting anew (「說明書也沒有 我現在就要取消」), or a courtesy said after other words (「用不習慣
        麻煩刪掉」, not 「不用麻煩你刪」), ends the negation's reach."""
        if not self.reach[slot_at] or negation < 0:
            return True
        if not clause[negation].classes.isdisjoint(VERBS):
            return False  # 不要記 reaches its own verb only (the word filling both slots, above)
        for at in range(negation + 1, verb):
            token = clause[at]
            if _record_undone(token, clause, at, verb):
                continue  # 「千萬不要幫我素食的記錄刪除」: the record is what is deleted, not a remembering
            if not token.classes.isdisjoint(VERBS):
                return False
            if "disposal" in token.classes:
                return True  # the object and then its verb: nothing after 把 is negated apart
            if "courtesy" in token.classes and token.start > clause[negation].end:
                return False  # 「手機用不習慣 麻煩幫她刪掉」: a courtesy after other words asks anew
            if not token.classes.isdisjoint(("other_verb", "identity", "filter_loose", "fresh_subject")):
                return False  # (找 is a verb too: 「不用再幫我找素的啦 那個設定取消」 negates the finding)
            if _eating(token) and not _names_the_record(token, clause[at + 1]):
                return False
        return True


def _record_undone(token: lexicon.Token, clause: tuple[lexicon.Token, ...], at: int, verb: int) -> bool:
    """A word that is both a record and remembering (記錄, 紀錄) right before a delete verb names the
    thing deleted: a noun, no verb of its own for a negation to reach."""
    return at + 1 == verb and "memory_object" in token.classes and "delete_verb" in clause[verb].classes


def _names_the_record(diet: lexicon.Token, following: lexicon.Token) -> bool:
    """A diet word right before a record (「別幫我吃全素的紀錄清掉」: 的 at most between) names the
    record: no eating for a negation to reach."""
    return "memory_object" in following.classes and following.start - diet.end <= 1


def _eating(token: lexicon.Token) -> bool:
    """A diet word said as eating (吃素, 食菜), a verb a negation reaches; not one that modifies the
    object after it (「莫把吃素的那個刪去」: 吃素的 names the thing, the negation reaches 刪去)."""
    return "diet" in token.classes and token.word.startswith(EATING) and not token.word.endswith("的")


_SHAPES: tuple[_Shape, ...] = tuple(_Shape.of(rule) for rule in TABLE)


def _by_first_slot() -> dict[str, tuple[int, ...]]:
    """Each class, with the rules (by their place in the table) whose first slot it can fill: a
    clause is tried only on rules one of its words can start."""
    index: dict[str, list[int]] = {}
    for at, shape in enumerate(_SHAPES):
        for cls in shape.slots[0]:
            index.setdefault(cls, []).append(at)
    return {cls: tuple(ats) for cls, ats in index.items()}


_FIRST_SLOT = _by_first_slot()


def _present(clause: tuple[lexicon.Token, ...]) -> frozenset[str]:
    return frozenset().union(*(t.classes for t in clause))


@dataclass(frozen=True)
class ClauseReading:
    clause: str
    rule: Rule | None  # the highest-priority rule that matched, or None


def clauses(t: str) -> tuple[str, ...]:
    return tuple(c for c in CLAUSE_BREAKS.split(t) if c)


def read_clauses(t: str) -> tuple[ClauseReading, ...]:
    """Each clause of reading-form ``t`` with the rule that reads it."""
    out: list[ClauseReading] = []
    topic: frozenset[str] = frozenset()  # the classes of the clause before, when no rule read it
    asked = False  # the clause before asked something
    as_before = False  # a clause keeps something as before (照舊)
    noted: tuple[list[int], list[int], list[int]] = ([], [], [])  # kept as is, kept unsure, dropped (算了)
    for clause in clauses(t):
        found = lexicon.tokens(clause)
        present = _present(found)
        rule = _reread(clause, found, present, _first_rule(clause, found, present), topic, asked, out)
        out.append(ClauseReading(clause, rule))
        topic = present if rule is None else frozenset()
        asked = "question" in present
        as_before = as_before or "keep_as_is" in present
        _note_kept_or_dropped(len(out) - 1, rule, clause, found, present, noted)
    out = _settled(out, *noted)
    if not as_before and any(c.rule in _THEIR_DIETS for c in out):
        # (someone else's diet given up is read only beside the speaker's own kept as before)
        out = [_without_their_diet(c) if c.rule in _THEIR_DIETS else c for c in out]
    return tuple(out)


def _reread(
    clause: str,
    found: tuple[lexicon.Token, ...],
    present: frozenset[str],
    rule: Rule | None,
    topic: frozenset[str],
    asked: bool,
    out: list[ClauseReading],
) -> Rule | None:
    """The rule that reads ``clause`` given the clauses before it (``out``; ``topic``: the classes of
    the one before when no rule read it; ``asked``: it asked something), where the clause alone is read
    by ``rule``. A clause before that only described what was kept is read again in ``out``."""
    if rule is not None and rule.name == "delete_something" and _names_the_topic(topic, present):
        return _DELETE_KEPT
    if (
        rule is not None
        and rule.name == "delete_something"
        and (told := _kept_described(out, clause, found)) >= 0
    ):
        out[told] = ClauseReading(out[told].clause, None)  # (what was kept, told: no remember asked)
        return _DELETE_KEPT
    if rule is _DELETE_KEPT and (settled := _dropped_then_kept(clause, found)) is not None:
        return settled  # 「要不要把蛋奶素刪除嗯算了先留著」: typed as one clause
    if rule is _DELETE_KEPT and (_another_thing_put_first(found) or _kept_only_in_a_search(clause, found)):
        return _ANOTHER_DELETED
    if rule is None and "stop_verb" in present and _names_the_topic(topic, present):
        return _STOP_KEPT  # 「蛋奶素的設定，可以不要再套用嗎」: the record named, then its stop
    if rule is not None and rule.name == "delete_that" and _another_thing_topic(topic, present):
        return _ANOTHER_DELETED  # 「記憶卡滿了，要刪一刪」: what the clause before named is deleted
    if rule is _FORGOT_BEFORE and _past_inside_the_object(found):
        return _first_rule(clause, found, present, skipped=frozenset({_FORGOT_BEFORE}))
    if rule is not None and rule.name == "delete_that" and asked and clause in _BARE_FORGETTING:
        return _SPEAKER_FORGOT  # 「我有設定什麼嗎，忘了」: why the speaker asks, not a request
    return rule


def _dropped_then_kept(clause: str, found: tuple[lexicon.Token, ...]) -> Rule | None:
    """In one clause, a delete verb, then 算了 (not right after the verb: 「刪掉算了」 says "just do
    it"), then the kept thing kept where it is: kept (``_KEEP_AS_IS``) when that is all that is said
    after it, undecided (asked) when more is said after the keeping word; None otherwise."""
    verb = next((t for t in found if "delete_verb" in t.classes), None)
    drop = next(
        (n for n, t in enumerate(found) if t.word in _NEVER_MIND and verb and t.start > verb.end), None
    )
    kept = _keep_said(clause, found[drop + 1 :]) if drop is not None else ""
    return _KEEP_AS_IS if kept == "clean" else _UNDECIDED if kept == "unsure" else None


def _keep_said(clause: str, found: tuple[lexicon.Token, ...]) -> str:
    """How ``found`` (the words of ``clause``, or its end) keep the kept thing where it is: "clean" (a
    keep-as-is word, or 留著 / 保留 with only a particle after it), "unsure" (留著 with more said after it,
    「先留著 她還在吃」), or "" (no keeping word; one negated before, 沒必要留著; one followed by a
    negation, question or complaint, 留著也沒用)."""
    if any("keep_as_is" in t.classes for t in found):
        return "clean"
    at = next((n for n, t in enumerate(found) if t.word in _LEFT_IN_PLACE), None)
    if at is None or any("negation" in t.classes for t in found[:at]):
        return ""
    if any(not t.classes.isdisjoint(_UNSETTLING) for t in found[at + 1 :]):
        return ""
    rest = clause[found[at].end :].rstrip(_KEEP_PARTICLES)
    return "clean" if not rest or rest in _KEEP_ENDINGS else "unsure"


_KEEP_PARTICLES = "了吧啦喔呀啊嘛唷哦~!。"  # (「留著吧」, 「先留著喔」)
_KEEP_ENDINGS = frozenset({"好了", "就好", "就好了", "好"})
_UNSETTLING = frozenset({"negation", "question", "a_not_a", "hesitation", "complaint"})


def _note_kept_or_dropped(
    n: int,
    rule: Rule | None,
    clause: str,
    found: tuple[lexicon.Token, ...],
    present: frozenset[str],
    noted: tuple[list[int], list[int], list[int]],
) -> None:
    """Clause ``n`` noted in ``noted`` (kept as is, kept unsure, dropped): dropped when it says 算了 and
    no rule read it, or it keeps after it; kept as is when it keeps the kept thing as it is (照舊,
    留著好了, or a plain 留著 after a 算了); kept unsure when a 留著 after a 算了 has more said after it."""
    kept_as_is, unsure, dropped = noted
    never_mind = any(t.word in _NEVER_MIND for t in found)
    if not (never_mind or dropped):  # (most clauses: only a keep-as-is word can count)
        if "keep_as_is" in present:
            kept_as_is.append(n)
        return
    keep = _keep_said(clause, found)
    if never_mind and (rule is None or keep):
        dropped.append(n)
    if "keep_as_is" in present or (dropped and keep == "clean"):
        kept_as_is.append(n)
    elif dropped and keep == "unsure":
        unsure.append(n)


def _settled(
    out: list[ClauseReading], kept_as_is: list[int], unsure: list[int], dropped: list[int]
) -> list[ClauseReading]:
    """A delete weighed (``_weighed_at``) and kept as it is after it: every clause reads as keeping
    it; kept only with more said after the keeping word: the delete is read as undecided (asked)."""
    weighed = _weighed_at(out, dropped) if kept_as_is or unsure else None
    if weighed is None:
        return out
    decided = _decided_to_keep(out, kept_as_is, weighed)
    if decided is out and any(n > weighed for n in unsure) and out[weighed].rule is not _UNDECIDED:
        decided = [*out[:weighed], ClauseReading(out[weighed].clause, _UNDECIDED), *out[weighed + 1 :]]
    return decided


_NEVER_MIND = frozenset(lexicon.words_of("never_mind"))
_LEFT_IN_PLACE = frozenset(lexicon.words_of("left_in_place"))


def _kept_described(out: list[ClauseReading], clause: str, found: tuple[lexicon.Token, ...]) -> int:
    """「我先前請您記下的鍋邊素，如今想麻煩您撤銷」: the last clause a rule read before ``clause``, read as a
    remember, only describes what was kept (a remembering verb put before 的 or 之, and the clause
    ends with the kept thing), and ``clause`` ends with its delete verb (a courtesy at most after it,
    敬請刪除為荷), so the delete is of that: that clause's place, else -1 (「…的全素很準，我想刪除一個
    聯絡人」 deletes something else)."""
    verb = next((t for t in reversed(found) if "delete_verb" in t.classes), None)
    if verb is None or len(clause) - verb.end > 2:
        return -1
    at = next((n for n in range(len(out) - 1, -1, -1) if out[n].rule is not None), -1)
    rule = out[at].rule if at >= 0 else None
    if rule is None or rule.reading != "remember":
        return -1
    told = out[at].clause
    said = lexicon.tokens(told)
    verbs = [t.end for t in said if "remember_verb" in t.classes and told.startswith(("的", "之"), t.end)]
    if not verbs:
        return -1
    last = said[-1]  # (the kept thing ends the clause, after the verb: 「…記下的鍋邊素」)
    ends_kept = not last.classes.isdisjoint(KEPT_CLASSES) and len(told) - last.end <= 1
    return at if ends_kept and last.start >= verbs[0] else -1


def _weighed_at(out: list[ClauseReading], dropped: list[int]) -> int | None:
    """The clause where a delete was weighed: one the table read as undecided, or a delete a later
    clause drops (「要不要刪掉那個素的… 算了算了」, ``dropped``: the clauses with 算了 and no rule, or
    with a keeping after it); None when there is none."""
    undecided = (n for n, c in enumerate(out) if c.rule is not None and c.rule.reading == "hesitant")
    dropped_delete = (
        n
        for n, c in enumerate(out)
        if c.rule is not None and c.rule.reading in ("delete", "delete_that") and any(d > n for d in dropped)
    )
    first = next(undecided, None)
    return first if first is not None else next(dropped_delete, None)


def _decided_to_keep(out: list[ClauseReading], kept_as_is: list[int], weighed: int) -> list[ClauseReading]:
    """「我在考慮要不要把蛋奶素刪掉… 算了 留著就好」: a delete weighed (at ``weighed``), then kept as it is
    in a clause of its own after it (``kept_as_is``: the clauses with a keep-as-is word, read by no rule,
    as keeping the diet, or as the thought it over of 「後來想想 還是不動好了」): the choice is made, and
    those clauses read as keeping it."""
    readings = {None, "remember", "keep", "hesitant"}
    later = [n for n in kept_as_is if n > weighed and getattr(out[n].rule, "reading", None) in readings]
    if not later:
        return out
    return [
        ClauseReading(c.clause, _KEEP_AS_IS) if n == weighed or n in later else c for n, c in enumerate(out)
    ]


def _first_rule(
    clause: str,
    found: tuple[lexicon.Token, ...],
    present: frozenset[str],
    skipped: frozenset[Rule] = frozenset(),
) -> Rule | None:
    """The highest-priority rule that reads ``clause`` (its words ``found``, their classes ``present``),
    other than ``skipped``: only the rules one of its words can start are tried."""
    tried = sorted({at for cls in present for at in _FIRST_SLOT.get(cls, ())})
    fits = (_SHAPES[at].rule for at in tried if _SHAPES[at].fits(found, len(clause), present))
    return next((rule for rule in fits if rule not in skipped), None)


def _without_their_diet(read: ClauseReading) -> ClauseReading:
    """The clause read by the next rule that is none of someone else's diet (one of them may read it next)."""
    found = lexicon.tokens(read.clause)
    return ClauseReading(read.clause, _first_rule(read.clause, found, _present(found), skipped=_THEIR_DIETS))


def _past_inside_the_object(found: tuple[lexicon.Token, ...]) -> bool:
    """「把之前記的那個素食忘掉」: 把 comes before the past word, which tells when the thing put first was
    kept, not when anything was forgotten (「你上次把我吃素的事忘了」 is a forgetting told)."""
    put = next((t.start for t in found if "disposal" in t.classes), None)
    past = next((t.start for t in found if "past_marker" in t.classes), None)
    return put is not None and past is not None and put < past


def _names_the_topic(topic: frozenset[str], own: frozenset[str]) -> bool:
    """A bare delete or stop whose object was named as the topic of the clause before it (「你那個吃素的
    記錄，請幫我消掉」, 「蛋奶素的設定，可以不要再套用嗎」): the record named there with no verb of its
    own is what is deleted or stopped, as if said in one clause; so is a diet named alone there, not a
    third person's (「那個吃素的，幫我刪掉」); a delete of another thing named in its own clause stays that."""
    # (a third person's diet is named there only when it is given up: 「我媽說她不吃蛋奶素了，刪掉吧」)
    theirs_given_up = "third_person" in topic and not topic.isdisjoint(_GIVEN_UP)
    named = "memory_object" in topic or ("diet" in topic and ("third_person" not in topic or theirs_given_up))
    # (a filter word names the thing there: 「之前設定的素食篩選」 is the filter)
    return named and topic.isdisjoint(VERBS - {"apply_verb"}) and own.isdisjoint(_OTHER_THINGS)


# Said with a diet, these give it up (不要, 不再, 不要再).
_GIVEN_UP = frozenset({"negation", "stop_again"})


def _another_thing_topic(topic: frozenset[str], own: frozenset[str]) -> bool:
    """The clause before named another thing (照片, 記憶卡) and nothing of the kept thing, and the bare
    delete after it names nothing of its own: that thing is what is deleted."""
    named = not topic.isdisjoint(_THINGS)
    return named and topic.isdisjoint(KEPT_CLASSES) and own.isdisjoint(KEPT_CLASSES)


_THINGS = frozenset({"other_thing", "other_record"})  # another thing, or another thing's record
_OTHER_THINGS = _THINGS | {"third_person"}
_DELETE_KEPT = next(rule for rule in TABLE if rule.name == "delete_kept")
_ANOTHER_DELETED = next(rule for rule in TABLE if rule.name == "another_thing_deleted")
_DELETING = frozenset({"delete_verb", "undo_phrase", "stop_verb", "drop"})


def _another_thing_put_first(found: tuple[lexicon.Token, ...]) -> bool:
    """「把行車紀錄器的檔案刪光 員林有素食便當嗎」 typed without a pause: 把 puts another thing before the
    delete verb, the kept thing is named only after it, and nothing after it is deleted or stopped: the
    other thing is what is deleted; the diet belongs to what follows."""
    put = next((at for at, t in enumerate(found) if "disposal" in t.classes), None)
    if put is None:
        return False
    verb = next(
        (at for at in range(put + 1, len(found)) if not found[at].classes.isdisjoint(_DELETING)), None
    )
    if verb is None:
        return False
    first, after = found[:verb], found[verb + 1 :]
    return (
        any(not t.classes.isdisjoint(_THINGS) for t in found[put + 1 : verb])
        and all(t.classes.isdisjoint(KEPT_CLASSES) for t in first)
        and all(t.classes.isdisjoint(_DELETING) for t in after)
    )


# Words that ask for a search (有什麼, 哪裡有, 找): what follows them is what is searched for.
_SEARCH_ASKED = quick("有什麼|有沒有|有啥|哪裡|哪間|哪家|找")


def _kept_only_in_a_search(clause: str, found: tuple[lexicon.Token, ...]) -> bool:
    """「眼鏡不知道放哪都忘記 埔鹽有什麼吃素的店」, 「照片太多叫我刪一刪 社頭有什麼素的麵店」 typed
    without a pause: another thing is named before the first delete verb (or something said before a
    forget verb), nothing kept is named before the last, a search is asked after it, and the diet is
    named only in that search: what is forgotten or deleted is something else; the diet is the
    search's (「刪掉 員林有什麼素食」 names nothing else: a delete)."""
    deleting = [at for at, t in enumerate(found) if not t.classes.isdisjoint(_DELETING)]
    kept = next((at for at, t in enumerate(found) if not t.classes.isdisjoint(KEPT_CLASSES)), None)
    if not deleting or kept is None or kept < deleting[-1]:
        return False
    verb = found[deleting[-1]]
    # (something named first: another thing, or what the speaker forgot, said before 忘記)
    first = found[: deleting[0]]
    named = any(t.classes & _THINGS for t in first) or (
        "forget_verb" in verb.classes and _own_forgetting(clause, verb)
    )
    return named and _SEARCH_ASKED.search(clause, verb.start + len(verb.word), found[kept].start) is not None


def _own_forgetting(clause: str, verb: lexicon.Token) -> bool:
    """「…都忘記」, 「我又忘記」: the speaker's own forgetting (a subject or an adverb of it right before
    the verb, not 幫我 / 替我, which ask the bot to forget), after something said first."""
    before = clause[: verb.start]
    return (
        len(before) >= 2
        and before[-1] in "我都又也"
        and not before.endswith(("幫我", "替我", "給我", "請我"))
    )


_STOP_KEPT = next(rule for rule in TABLE if rule.name == "stop_applying")
_KEEP_AS_IS = next(rule for rule in TABLE if rule.name == "keep_as_is")
_UNDECIDED = next(rule for rule in TABLE if rule.name == "undecided")
_SPEAKER_FORGOT = next(rule for rule in TABLE if rule.name == "speaker_forgot")
_THEIR_DIETS = frozenset(rule for rule in TABLE if rule.reading == "other_diet")
_FORGOT_BEFORE = next(rule for rule in TABLE if rule.name == "forgot_before")
# A clause that is only a forgetting, said after a question: the speaker's own (「…嗎，忘了」).
_BARE_FORGETTING = frozenset({"忘了", "忘記了", "忘掉了", "不記得了", "記不得了"})


def readings(t: str) -> frozenset[str]:
    """The readings of every clause of reading-form ``t``."""
    return frozenset(c.rule.reading for c in read_clauses(t) if c.rule is not None)


def reads(rule: Rule, sentence: str) -> bool:
    """``rule`` is the reading the table gives some clause of ``sentence`` (any form: it is read
    into the reading form first). A rule's examples are checked with this: with the priorities of
    the whole table, not the rule alone."""
    return any(c.rule is rule for c in read_clauses(reading_form(sentence)))
