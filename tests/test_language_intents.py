"""The language layer's intents: what each phrasing is read as, the diet said now, the labels of
places of another kind, and input nobody can read."""

from __future__ import annotations

import pytest

from local_agent.language import diets, intents
from local_agent.language.text import has_words, reading_form
from local_agent.listings import catalogue

CLEAR_DELETES = [
    "好，那你把我吃素的事情忘記掉",
    "把我吃素的資料刪掉",
    "你把我的偏好忘記",
    "我吃素的事不用記了",
    "取消吃素",
    "忘記我吃素",
    "忘記我的飲食偏好",
    "請刪除我的偏好",
    "將我的飲食偏好刪除",
    "不想讓你記得我吃素",
    "你不用再記得我吃素了",
    "以後不要記我吃素",
    "不要記住我",
    "我的偏好忘掉吧",
    "把吃素那個設定拿掉",
    "删除我的偏好",  # simplified
    "忘 記 我 的 偏 好",  # voice input spaces
    "把我吃素的資料刪掉🙏",
    "不想被你記住吃素",
    "可以把我吃素的資料刪掉嗎？",  # the kept thing put with 把 asks it done, however politely
]
UNCLEAR_DELETES = [
    "全部刪掉",
    "忘了吧",
    "幫我刪掉",
    "取消",
    "你把它刪了",
    "以後找店不要再幫我過濾素食",  # stop filtering: maybe only this search, so asked first
    "你不用再記我吃什麼了",
    "那個偏好不要了",
]
ASKING_DELETES = [
    "你會不會忘記我的飲食偏好？",
    "能不能忘記我吃素？",
    "可以刪除我的偏好嗎",
]
NEGATED_DELETES = [
    "不要忘記我的飲食偏好喔",
    "不要刪除我的飲食偏好",
    "別清除我的偏好",
    "不用幫我刪除偏好",
    "別把我的偏好刪掉",
    "你不會忘記我吃素吧",
    "我不想取消吃素",
    "我不會刪除我的偏好",
]


@pytest.mark.parametrize("text", CLEAR_DELETES)
def test_a_clear_delete_request_in_any_order_forgets(text):
    assert intents.read(text).intent == "forget"


@pytest.mark.parametrize("text", UNCLEAR_DELETES + ASKING_DELETES)
def test_an_unclear_or_asking_delete_request_is_confirmed_first(text):
    assert intents.read(text).intent == "forget_confirm"


@pytest.mark.parametrize("text", NEGATED_DELETES)
def test_a_negated_delete_request_is_declined(text):
    assert intents.read(text).intent == "forget_declined"


@pytest.mark.parametrize(
    "text", ["我忘記我吃什麼了", "記得那家素食店在哪嗎", "我忘記帶錢包，花壇有什麼吃的", "鹿港的活動取消了嗎"]
)
def test_sentences_that_only_contain_the_words_are_no_delete_request(text):
    assert intents.read(text).intent not in ("forget", "forget_confirm", "forget_declined")


@pytest.mark.parametrize(
    "text,diet",
    [
        ("我吃素，請你記住", "vegetarian"),
        ("你記一下，阿伯吃素", "vegetarian"),
        ("幫我記起來我吃全素", "vegan"),
        ("記住我吃素", "vegetarian"),
        ("請記得我吃蛋奶素喔", "lacto_ovo"),
        ("我吃五辛素，幫我記著", "five_pungent"),
        ("记住我吃素", "vegetarian"),
    ],
)
def test_a_remember_request_in_any_order_names_its_diet(text, diet):
    assert intents.read(text) == intents.Reading("remember", diet=diet)


@pytest.mark.parametrize(
    "text,named",
    [("記住我吃早齋", "早齋"), ("記住我不吃牛肉", "不吃牛"), ("幫我記住我初一十五吃素", "初一十五")],
)
def test_a_diet_that_cannot_be_remembered_is_named_as_unsupported(text, named):
    assert intents.read(text) == intents.Reading("remember", unsupported=named)


@pytest.mark.parametrize(
    "text", ["你記得我什麼？", "你還記得我吃素嗎", "你記得我吃什麼嗎？", "我的偏好是什麼", "你存了我什麼資料"]
)
def test_asking_what_is_kept(text):
    assert intents.read(text).intent == "show_kept"


@pytest.mark.parametrize("text", ["我記得花壇有素食店", "記得那家素食店在哪嗎", "你記得上次那家店嗎"])
def test_remembering_something_else_is_not_asking_what_is_kept(text):
    assert intents.read(text).intent not in ("show_kept", "remember")


@pytest.mark.parametrize(
    "text,answer",
    [
        ("好啦好啦就記下來吧", "consent_yes"),  # a yes said with the keeping the prompt asked for
        ("可以呀你就存起來", "consent_yes"),
        ("好啊你記住吧", "consent_yes"),
        ("可以留著", "consent_yes"),
        ("好 不要記", "consent_no"),  # a negated keeping verb is a no
        ("你就記吧", None),  # no yes in it: not taken as one
        ("記下來", None),
        ("你好", None),
    ],
)
def test_a_yes_said_with_the_keeping_verb_is_a_yes_and_a_verb_alone_is_not(text, answer):
    assert intents.consent_answer(intents.bare(reading_form(text))) == answer


@pytest.mark.parametrize(
    "text,intent",
    [
        ("同意", "consent_yes"),
        ("好", "consent_yes"),
        ("可以", "consent_yes"),
        ("好喔！", "consent_yes"),
        ("ＯＫ", "consent_yes"),
        ("不同意", "consent_no"),
        ("不要", "consent_no"),
        ("不用了", "consent_no"),
        ("考慮一下", "consent_unclear"),
        ("謝謝", "thanks"),
        ("好，謝謝你喔", "consent_yes"),  # a yes when a prompt is live, else thanked (see test_commands)
        ("好的，謝謝", "consent_yes"),
        ("可以，幫我記住", "consent_yes"),
        ("OK的", "consent_yes"),
        ("嘿啊", "consent_yes"),
        ("我同意，謝謝", "consent_yes"),
        ("不用了，謝謝", "consent_no"),
        ("毋免啦", "consent_no"),
        ("不好意思", "unknown"),
        ("感恩感恩🙏", "thanks"),
        ("掰掰", "small_talk"),
        ("你好", "greeting"),
        ("你吃飽沒", "greeting"),
        ("你食飽未", "greeting"),
        ("你閣會記得我食啥物無", "show_kept"),
        ("恁有記阮食菜無", "show_kept"),
        ("你知道我吃什麼嗎", "show_kept"),
        ("我之前叫你記什麼", "show_kept"),
        ("查一下我的偏好", "show_kept"),
        ("我有給你什麼個人資料嗎", "show_kept"),
        ("我吃素你有記起來嗎", "show_kept"),
        ("你知道員林有什麼好吃的嗎", "search"),
        ("怎麼設定我的偏好", "help"),
        ("全素的不要了 幫我消除🙏", "forget"),
        ("不要再用我的素食偏好找了", "forget_confirm"),
        ("別再幫我套素食", "forget_confirm"),
        ("我不想讓你們知道我吃素", "forget_confirm"),
        ("收回我的同意", "forget"),
        ("我後悔同意了", "forget"),
        ("我不同意了，刪掉", "forget"),
        ("阮毋愛你記阮食菜", "forget"),
        ("吃素的記錄拿走", "forget"),
        ("我不要這個設定了", "forget_confirm"),
        ("我不用吃素了", "diet_change"),
        ("那個東西你可以幫我取消嗎", "forget_confirm"),
        ("不要再推薦素食的了", "forget_confirm"),
        ("你就當我沒說過吃素", "forget"),
        ("剛才按錯同意了", "forget"),
        ("同意是我孫子按的，我不要", "forget_confirm"),
        ("員林的活動取消了嗎", "search"),  # a cancelled event, no delete
        ("請問如何刪除我的資料？請直接幫我刪除", "forget"),
        ("老實說我也忘記什麼時候叫你記的了，反正我現在不吃素，你那邊記的通通刪掉", "forget"),
        ("全素那個不用記了，田中有哪些早餐店", "forget"),
        ("吼 怎麼都素的 不要再記我吃素了", "forget"),
        ("我吃速的那個幫我刪掉", "forget"),
        ("嗯那個素食的設定喔幫我取銷", "forget"),
        ("醫生說我不能再吃素了", "diet_change"),
        ("飲食設定恢復預設", "forget"),
        ("素食偏好 ❌", "forget"),
        ("Please delete my diet preference", "forget"),
        ("reset", "forget_confirm"),
        ("不記了", "forget_confirm"),
        ("確定刪掉了嗎", "show_kept"),
        ("刪掉了吧？", "show_kept"),
        ("你記的東西都刪了吧", "forget"),
        ("你把吃素這個偏好移掉", "forget"),
        ("素食設定幫我清光", "forget"),
        ("我想去走走", "search"),  # an outing, no delete
        ("欸怎麼還在套素食 我不是說過不用了嗎 刪掉", "forget"),
        ("我只是初一十五吃全素而已 平常不用 你不要一直記著", "forget"),
        ("我設定的飲食是哪一種", "show_kept"),
        ("我不要蛋奶素了，改全素", "remember"),
        ("今天改吃全素，社頭有什麼", "search"),
        ("吃素的事不用改，照原本的就好", "forget_declined"),
        ("不需要素食篩選", "forget_confirm"),
        ("偏好：無", "forget"),
        ("把偏好設為無", "forget"),
        ("我把LINE的聊天紀錄刪掉了，你還記得我吃素嗎", "forget_confirm"),
        ("這禮拜六想帶爸媽去鹿港走走，有推薦的餐廳嗎？", "search"),
        ("我今仔日無食菜", "diet_change"),
        ("把吃素改回來", "forget_confirm"),
        ("恢復成沒有設定", "forget"),
        ("你記的那些東西通通不要", "forget_confirm"),
        ("以後推薦都用素食就好", "remember"),
        ("以後都這樣嗎", "unknown"),
        ("吃素那個不要了，謝謝", "forget_confirm"),
        ("要如何讓你記住我吃素", "help"),
        ("今天破戒一下，員林有什麼好吃的", "search"),
        ("請把我設定成吃蛋奶素", "remember"),
        ("以後幫我都找素的", "remember"),
        ("我的偏好是素食", "remember"),
        ("阮食全素，共阮記起來", "remember"),
        ("我改吃蛋奶素了，幫我更新", "remember"),
        ("我上次有跟你講我吃素對吧", "show_kept"),
        ("你那邊現在是設定全素嗎", "show_kept"),
        ("確認一下我的偏好", "show_kept"),
        ("現在幫我套用的是什麼", "show_kept"),
        ("你是不是以為我吃素", "show_kept"),
        ("我食菜，你共我記咧", "remember"),
        ("以後找吃的不用再管我吃素了", "forget_confirm"),
        ("搭員林客運去二林，二林有什麼好吃的", "search"),
        ("二林有什麼好吃的，哪裡可以停車", "unsupported"),
        ("阿伯早安喔", "greeting"),
        ("說明", "help"),
        ("？", "help"),
        ("我現在沒有吃素了", "diet_change"),
        ("今天不吃素", "diet_change"),
        ("阮欲去和美，有啥物好食？", "search"),
        ("花壇附近哪裡可以停車", "unsupported"),
        ("我先生上個月中風住院", "small_talk"),
    ],
)
def test_short_answers_small_talk_and_searches(text, intent):
    assert intents.read(text).intent == intent


@pytest.mark.parametrize("text", ["😀", "🙏🙏🙏", "ㄏㄚˇ", "ㄅㄆㄇ", "……", "!!!", "\u200b😀\u200b"])
def test_nothing_to_read_is_unreadable(text):
    assert not has_words(text)
    assert intents.read(text).intent == "unreadable"


@pytest.mark.parametrize("text", ["", "   ", "\u3000\n"])
def test_empty_is_help(text):
    assert intents.read(text).intent == "help"


def test_a_long_message_is_read_without_failing():
    assert intents.read("花" * 5000).intent == "unknown"
    assert intents.read("😀" * 5000).intent == "unknown"  # too long for a short command: the turn answers
    assert intents.read("花壇有什麼好吃的" + "啊" * 4990).intent == "search"


def test_the_reading_form_folds_full_width_simplified_spaces_and_emoji():
    assert reading_form("ＯＫ！删除 我的偏好😀\u200b") == "ok!刪除我的偏好"  # Latin lower-cased


@pytest.mark.parametrize(
    "text,said",
    [
        ("我現在沒有吃素了，二林有什麼吃的", diets.DietSaid(catalogue.ANY, True)),
        ("我不吃素了", diets.DietSaid(catalogue.ANY, True)),
        ("今天不吃素，二林有什麼吃的", diets.DietSaid(catalogue.ANY, False)),
        ("二林有什麼全素的", diets.DietSaid("vegan", False)),
        ("二林有什麼吃的", diets.DietSaid(None, False)),
    ],
)
def test_the_diet_said_now(text, said):
    assert diets.diet_said(text) == said


@pytest.mark.parametrize(
    "asked,kinds,note",
    [
        ("vegetarian", ["five_pungent", "vegetarian"], "五辛素，含蔥蒜"),
        ("vegan", ["five_pungent", "vegan"], "五辛素，含蔥蒜"),
        ("vegetarian", ["lacto_ovo"], "蛋奶素，含蛋奶"),
        ("vegetarian", ["lacto_ovo", "vegetarian"], ""),
        ("five_pungent", ["five_pungent", "vegetarian"], ""),
        ("any", ["five_pungent"], ""),
    ],
)
def test_a_place_of_another_kind_than_asked_is_labelled(asked, kinds, note):
    assert diets.kind_note(asked, kinds) == note


def test_no_beef_is_not_a_lasting_preference_but_still_a_search_filter():
    assert not diets.rememberable("no_beef") and diets.rememberable("vegetarian")
    assert catalogue.find_dietary_type("不吃牛") == "no_beef"


@pytest.mark.parametrize(
    "text,intent",
    [
        ("以後別再幫我套用全素了", "forget"),  # a negated 套用 stops the remembering
        ("幫我把偏好刪一刪", "forget"),
        ("取消記住吃素", "forget"),
        ("你把我吃素那筆刪一下", "forget"),
        ("我食菜的事你莫記了", "forget"),  # Taiwanese: 食菜 is 吃素, 莫 is 不要
        ("拜託幫我記住吃全素", "remember"),
        ("可不可以記得我吃蛋奶素", "remember"),  # a polite question still asks to remember
        ("把我的飲食設定為全素", "remember"),
        ("你有記我吃什麼嗎", "show_kept"),
        ("我的設定是什麼", "show_kept"),
        ("你留了我什麼資料", "show_kept"),
        ("嗯嗯好", "consent_yes"),
        ("好啦好啦", "consent_yes"),
        ("溪湖有沒有全素的", "search"),  # a diet named is about food
        ("鹿港有什麼海產", "search"),
    ],
)
def test_more_phrasings(text, intent):
    assert intents.read(text).intent == intent


@pytest.mark.parametrize("text", ["員林呢", "那台中呢？", "換鹿港", "阿那二林咧"])
def test_a_follow_up_about_something_new(text):
    assert intents.is_follow_up(text)


@pytest.mark.parametrize("text", ["員林有什麼好吃的", "我住員林"])
def test_a_whole_question_is_no_follow_up(text):
    assert not intents.is_follow_up(text)


@pytest.mark.parametrize(
    "text,intent",
    [
        ("吃素的設定幫我關掉", "forget"),
        ("停止記住我吃全素", "forget"),
        ("我吃素的資料不要留", "forget"),
        ("吃素那個不要了", "forget_confirm"),  # no verb: asked first
        ("把我的記錄清一清", "forget"),
        ("以後不用特別找素的了", "forget_confirm"),  # stop looking for it: asked first
        ("以後找店家都幫我找全素的", "remember"),
        ("設定我吃蛋奶素", "remember"),
        ("查我的偏好", "show_kept"),
        ("目前的設定是？", "show_kept"),
        ("你有我的資料嗎", "show_kept"),
        ("你還記不記得我", "show_kept"),
        ("好，記吧", "consent_yes"),
        ("不用了謝謝", "consent_no"),
        ("我沒有在吃素了", "diet_change"),
        ("不要忘記我吃素，二林有什麼吃的", "search"),  # negated forget with a search: the search
        ("花壇有沒有素食", "search"),  # A-not-A asks, it does not negate
    ],
)
def test_phrasings_beyond_the_corpus(text, intent):
    assert intents.read(text).intent == intent


@pytest.mark.parametrize(
    "text,code",
    [("是不是吃素的店", "vegetarian"), ("有沒有素食", "vegetarian"), ("我不想吃素", catalogue.ANY)],
)
def test_a_not_a_questions_do_not_negate_a_diet(text, code):
    assert diets.diet_said(text).code == code


@pytest.mark.parametrize(
    "text,code",
    [
        ("這餐不用素，和美哪裡有羊肉爐", catalogue.ANY),
        ("帶孫子去吃，他要吃肉，彰化市有什麼", catalogue.ANY),
        ("今天葷素都可以，永靖有什麼好吃", catalogue.ANY),
        ("我不吃肉，員林有什麼", None),  # no meat is no 「吃肉」: nothing negated, no diet named
        ("今天可以吃蛋奶，田中有什麼", "lacto_ovo"),
    ],
)
def test_a_diet_said_now_in_everyday_words(text, code):
    assert diets.diet_said(text).code == code


@pytest.mark.parametrize(
    "text,goal",
    [
        ("這禮拜六想帶爸媽去鹿港走走，有推薦的餐廳嗎？老人家牙口不好", "places"),
        ("吃完飯想去走走，鹿港有什麼活動", "events"),
        ("鹿港有什麼活動和好吃的", "events"),  # one clause: events as before
    ],
)
def test_the_asking_clause_decides_between_food_and_events(text, goal):
    assert intents.search_goal(text) == goal


def test_a_space_between_clauses_separates_them_and_one_inside_a_word_is_dropped():
    assert reading_form("全素那個不用了啦 我現在什麼都吃") == "全素那個不用了啦,我現在什麼都吃"
    assert reading_form("忘 記 我 的 偏 好") == "忘記我的偏好"
    assert reading_form("不想讓 你記得吃素的事情") == "不想讓你記得吃素的事情"
    assert reading_form("素食偏好 ❌") == "素食偏好取消"


@pytest.mark.parametrize(
    ("text", "intent", "talk"),
    [
        ("不好意思，麻煩你把我吃全素的設定刪除好嗎", "forget", None),  # a plea put as a question
        ("可以刪除我的偏好嗎", "forget_confirm", None),  # a question whether: asked
        ("可以麻煩你教我怎麼刪除偏好嗎", "forget_confirm", None),  # a how-to: never deleted
        ("我不是要取消偏好喔，二林有素食的店嗎", "search", None),  # not meant: the search
        ("我吃鍋邊素，你記一下好不好", "remember", None),  # a polite question asking it kept
        ("阮阿公食菜 共伊記落來好無", "remember", None),
        ("我吃素你有記起來嗎", "show_kept", None),  # asks what was done
        ("我吃全素的資料你們會留多久", "show_kept", None),
        ("醫生說我膽固醇高，油的要少吃", "small_talk", "health"),
        ("上星期去溪湖那間羊肉店服務很差，不會再去", "small_talk", "visited"),
        ("上星期去溪湖吃羊肉，鹿港有什麼好吃的", "search", None),
        ("這家不要 刪掉 換一間", "search", None),  # the shop shown, another asked for
        ("刪掉我的偏好 換一家", "forget", None),
    ],
)
def test_kinds_read_by_their_words(text, intent, talk):
    said = intents.read(text)
    assert (said.intent, said.talk) == (intent, talk)


@pytest.mark.parametrize("kin", ["我外婆", "我外公", "我阿姨", "我姑姑", "我舅舅", "我伯母", "我岳母"])
def test_a_diet_said_of_a_relative_is_theirs_not_the_speakers(kin):
    from local_agent import language

    diet = language.read(f"{kin}只吃蛋奶素").diet
    assert (diet.whose, diet.named, diet.own) == ("named", "lacto_ovo", frozenset())
    assert language.read("我只吃蛋奶素").diet.own == frozenset({"lacto_ovo"})
