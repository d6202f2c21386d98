"""The intent vocabulary's names. ``intents.py`` reads sentences with it; nothing here is code.

Every word lives once in ``data/lexicon.json`` (``lexicon.py``): the reading rules' classes (delete,
remember, apply and show verbs, negations, question markers, what is kept) and the list classes
these tuples are views of (``KEPT_PHRASES`` is ``words_of("kept_phrases")``, longest first). What
stays here is not a word list: character tables (simplified → traditional, Taiwanese → Mandarin,
symbols), the diet codes that can be kept, and the particle and character sets. Every word is in
the reading form (``text.reading_form``): traditional characters, no spaces, ASCII punctuation. Add a
phrasing by adding a word to the lexicon; the tests and the conversation corpora say whether it
helped.
"""

from __future__ import annotations

from local_agent.language import lexicon
from local_agent.language.lexicon import words_of

# Simplified characters people mix in, read as the traditional ones the vocabulary is written in
# (only characters the vocabulary needs), and Taiwanese written in Han characters read as the
# Mandarin words, in the lexicon's order: the lexicon file's maps.
SIMPLIFIED_TO_TRADITIONAL: dict[str, str] = dict(lexicon.pairs_of("simplified"))
TAIWANESE: tuple[tuple[str, str], ...] = lexicon.pairs_of("taiwanese")
# Thai words as they read once their marks are dropped, mapped the same way (a caregiver's).
THAI_WORDS: tuple[tuple[str, str], ...] = lexicon.pairs_of("thai_words")
# A sentence ending so (after its particles) asks a question the Taiwanese way: 「有素食無」.
TAIWANESE_QUESTION_ENDINGS: tuple[str, ...] = words_of("taiwanese_question_endings")

# Symbols that say something, read as words before the other symbols are dropped (「素食偏好 ❌」).
SYMBOL_WORDS: dict[str, str] = dict(lexicon.pairs_of("symbols"))
# English words as the Chinese words the rules read (negations, a filler, commands), as whole words;
# the caregivers' languages (Indonesian, Vietnamese, Tagalog) the same way.
ENGLISH_WORDS: dict[str, str] = dict(
    (*lexicon.pairs_of("english_words"), *lexicon.pairs_of("caregiver_words"))
)
# Punctuation said aloud and written out by dictation (逗號, 句號), read as the mark.
SPOKEN_PUNCTUATION: dict[str, str] = dict(lexicon.pairs_of("spoken_punctuation"))
NETSPEAK: dict[str, str] = dict(lexicon.pairs_of("netspeak"))
ZHUYIN_WORDS: dict[str, str] = dict(lexicon.pairs_of("zhuyin_words"))
ZHUYIN_PARTICLES: dict[str, str] = dict(lexicon.pairs_of("zhuyin_particles"))
# Before a correction word these make it take back what came before (「鹿港喔不是福興」); one character each.
INTERJECTIONS: str = "".join(words_of("interjections"))
# After a question word these say "any" or "all" (什麼都, 什麼就全部): the question word asks nothing.
ANY_WORDS: tuple[str, ...] = words_of("any_words")
# In a sentence naming a diet, these say it is no longer eaten (已經不吃, 沒在吃了).
EATS_NO_MORE: tuple[str, ...] = words_of("eats_no_more")
SPEAKER_WORDS: tuple[str, ...] = words_of("speaker_words")

# -- forgetting ------------------------------------------------------------------------------------
# Verbs that ask to delete (longest first is not needed: any of them is a hit).
FORGET_VERBS: tuple[str, ...] = (
    *lexicon.words_of("delete_verb"),
    *lexicon.words_of("undo_phrase"),
    *(v for v in lexicon.words_of("stop_verb") if not v.startswith(("不", "別"))),
)
# Verbs of the speaker's own forgetting: 「我忘記我吃什麼了」 is not a request.
SELF_FORGET_VERBS: tuple[str, ...] = tuple(w for w in lexicon.words_of("forget_verb") if w.startswith("忘"))
SELF_FORGET_LEADS: tuple[str, ...] = words_of("self_forget_leads")
# After a forgetting verb these say what was forgotten to be done: 「忘了帶」, 「忘記跟你說」.
FORGOT_TO: tuple[str, ...] = words_of("forgot_to")
# What a delete request is about. A dietary word counts too (``catalogue.DIETARY_WORDS``).
FORGET_OBJECTS: tuple[str, ...] = lexicon.words_of("memory_object")
# 「確定刪掉了嗎」, 「有刪了沒」: whether it was deleted, answered with what is kept.
DONE_QUESTIONS: tuple[str, ...] = words_of("done_questions")
# Said alone, these ask to stop remembering (「不記了」): asked about first.
BARE_STOPS: tuple[str, ...] = lexicon.words_of("bare_stop")
# With the kept thing named, these ask to stop it (「不要再推薦素食的了」): asked about first.
STOP_AGAIN: tuple[str, ...] = lexicon.words_of("stop_again")
# The data words among them: 「我不要這個設定了」 (a negation before one, 了 after) asks to drop it.
DATA_OBJECTS: tuple[str, ...] = words_of("data_objects")
DATA_DROP_LEADS: tuple[str, ...] = words_of("data_drop_leads")
# A delete verb with one of these, and no object, is an unclear request: ask before acting.
# (A short sentence, 「幫我刪掉」, 「忘了吧」, is a request by itself.)
REQUEST_MARKERS: tuple[str, ...] = words_of("request_markers")
# Remembering verbs; a negation right before one asks to *stop* remembering (「不用記了」).
REMEMBER_VERBS: tuple[str, ...] = lexicon.words_of("remember_verb")
# A change to a diet named right after it asks to remember that one (「我不要蛋奶素了，改全素」); never
# read as a negated remembering verb (「吃素的事不用改」 keeps it).
CHANGE_VERBS: tuple[str, ...] = words_of("change_verbs")
# Words with a verb's character that are no verb (刪除鍵 is a key, 日記 a diary).
NOT_A_VERB: tuple[str, ...] = lexicon.words_of("not_a_verb")
# Words that are not the remembering verb although they contain 記 (日記, 登記, 忘記 ...).
NOT_REMEMBER: tuple[str, ...] = ("忘記", *NOT_A_VERB)
NEGATIONS: tuple[str, ...] = lexicon.words_of("negation_request")
# Between a negation and the verb it negates (「不要再幫我記」, 「你不要一直記著」, 「不要亂刪」).
NEGATION_FILLERS: tuple[str, ...] = words_of("negation_fillers")
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
LASTING_PREFERENCE: tuple[str, ...] = words_of("lasting_preference")
# 「以後 … 都 …」 with a diet asks to keep it too (「以後推薦都用素食就好」).
FROM_NOW_ON: tuple[str, ...] = words_of("from_now_on")
EVERY_TIME: tuple[str, ...] = words_of("every_time")
ASKING: tuple[str, ...] = words_of("asking")
# Polite request forms: a remembering verb after one of these asks to remember, even as a question.
POLITE_ASKING: tuple[str, ...] = words_of("polite_asking")
# Anywhere before a remembering verb, these make it a request (「請你幫我記一下我吃素好嗎」).
REQUEST_LEADS: tuple[str, ...] = words_of("request_leads")
ASKED_OF_THE_BOT: tuple[str, ...] = words_of("asked_of_the_bot")
# Right after a third person, the wish is theirs (「他想把他的設定刪掉」): their delete, not the bot's.
THEIR_WISH: tuple[str, ...] = words_of("their_wish")
# Told the bot it is none of its concern (「你不用管」): a delete beside it naming no diet is not asked of it.
NOT_FOR_THE_BOT: tuple[str, ...] = words_of("not_for_the_bot")
# The bot's own record, named (偏好, 設定): a delete of it is its concern, whatever else is said.
THE_PREFERENCE: tuple[str, ...] = words_of("the_preference")
# The speaker asking the bot to act for someone (「麻煩幫她刪掉」): their own request, not words passed on.
ASKED_FOR_SOMEONE: tuple[str, ...] = words_of("asked_for_someone")
# A plea: with one, a delete put as a polite question is a request (「可以麻煩幫我刪除嗎」).
PLEAS: tuple[str, ...] = words_of("pleas")
# A polite question that asks someone to do what was just said: 「記一下好嗎」, 「刪除嗎」.
REQUEST_QUESTIONS: tuple[str, ...] = words_of("request_questions")
# In a delete's clause, these ask someone to do it (「請直接幫我刪除」, 「你把那個刪掉」).
ASKING_SOMEONE: tuple[str, ...] = words_of("asking_someone")
# A delete said after these is supposed, not asked for: confirmed first.
SUPPOSING: tuple[str, ...] = words_of("supposing")
# Said with these, the speaker is not sure (「好像也不用記了吧」): a delete or stop is asked about first.
HEDGES: tuple[str, ...] = words_of("hedges")
QUESTION_MARKERS: tuple[str, ...] = lexicon.words_of("question")

# -- asking what is kept ------------------------------------------------------------------------------
# 「你記得我什麼？」, 「你還記得我吃素嗎」, 「你存了我什麼資料」, 「我的偏好是什麼」.
KEPT_VERBS: tuple[str, ...] = words_of("kept_verbs")
# After a kept verb these ask what it is: 「你現在記的是什麼」, 「我之前叫你記什麼」.
KEPT_WHAT: tuple[str, ...] = words_of("kept_what")
# A sentence ending so after a question on what is kept is the speaker's own forgetting.
I_FORGOT: tuple[str, ...] = words_of("i_forgot")
# A question how to do something is no question about what is kept: 「怎麼設定偏好」.
HOW_TO: tuple[str, ...] = words_of("how_to")
# Before a remembering verb (with 幫我), these ask whether it was done: 「你有幫我記吃素嗎」.
ASKED_DONE: tuple[str, ...] = words_of("asked_done")
# Asking to be shown, not asked: 「看一下你記住我的東西」, 「告訴我你存了什麼」.
SHOW_ME: tuple[str, ...] = tuple(w for w in lexicon.words_of("show_verb") if w not in ("看看", "看一看"))
KEPT_ABOUT_ME: tuple[str, ...] = words_of("kept_about_me")
KEPT_PHRASES: tuple[str, ...] = words_of("kept_phrases")
# 「查我的偏好」, 「目前的設定」, 「你有我的資料嗎」: a kept thing asked about with nothing but these.
KEPT_TOPICS: tuple[str, ...] = words_of("kept_topics")
KEPT_ASKING: tuple[str, ...] = words_of("kept_asking")

# -- remembering ------------------------------------------------------------------------------------
# A lasting preference the service cannot keep. Named in a remember request, it gets an honest answer.
UNSUPPORTED_DIETS: tuple[str, ...] = words_of("unsupported_diets")
# Dietary codes that can be remembered (``catalogue.DIETARY_TYPES`` less what only fits one search).
REMEMBERABLE: tuple[str, ...] = ("vegetarian", "vegan", "lacto_ovo", "five_pungent", "pot_side")

# -- a diet said now --------------------------------------------------------------------------------
# A negated diet with one of these is a lasting change (offer to forget); otherwise for this turn.
LASTING_CHANGE: tuple[str, ...] = words_of("lasting_change")
NOW_WORDS: tuple[str, ...] = words_of("now_words")
FOR_NOW: tuple[str, ...] = words_of("for_now")
# A diet negated now: a lead, an optional middle and a vegetarian word (「沒有在吃素」, 「不想吃素」,
# 「不用特別找素的」), or one of the whole phrases.
NOT_VEGETARIAN_LEADS: tuple[str, ...] = words_of("not_vegetarian_leads")
NOT_VEGETARIAN_MIDDLES: tuple[str, ...] = words_of("not_vegetarian_middles")
VEGETARIAN_WORDS: tuple[str, ...] = lexicon.words_of("vegetarian_word")
# Before 「都可以吃」 these explain the diet named (「五辛素，蔥啊蒜啊都可以吃」): no diet negated.
ALLOWED_INGREDIENTS: tuple[str, ...] = words_of("allowed_ingredients")
NOT_VEGETARIAN: tuple[str, ...] = words_of("not_vegetarian")
MEAT_DISHES: tuple[str, ...] = words_of("meat_dishes")
MINDING_VERBS: tuple[str, ...] = words_of("minding_verbs")
# Before a meat word these make it vegetarian after all: 「我不吃肉」 is no 「吃肉」.
MEAT_NEGATIONS = "不沒別免無"

# -- consent answers ------------------------------------------------------------------------------
CONSENT_YES: tuple[str, ...] = words_of("consent_yes")
CONSENT_NO: tuple[str, ...] = words_of("consent_no")
# Said around a short answer, these add nothing to it (「好的，謝謝你」, 「好，麻煩你了」, 「可以，幫我記住」).
CONSENT_COURTESIES: tuple[str, ...] = words_of("consent_courtesies")
# A short answer with one of these (after the courtesies are taken out) declines: 「不用了，謝謝」.
CONSENT_NO_CORES: tuple[str, ...] = words_of("consent_no_cores")
# Short answers that are neither: while a consent prompt is live they get a hint to tap.
CONSENT_UNCLEAR: tuple[str, ...] = words_of("consent_unclear")
# Who is to keep it, in a yes said with the keeping verb (「可以呀你就存起來」, 「好 幫我記下來」):
# taken out with the verb before the yes is read.
CONSENT_DOERS: tuple[str, ...] = words_of("consent_doers")
# A short answer made only of these characters, with one of CONSENT_YES_CORES in it, is a yes.
CONSENT_YES_CHARS = frozenset("好嗯可以對是啦吧呀喔哇的行要當然沒問題啊哦嘿著同意應允")
CONSENT_YES_CORES: tuple[str, ...] = words_of("consent_yes_cores")
# Read as the core they stand for before courtesies are taken out (「OK的」, 「我同意，謝謝」).
CONSENT_SAME: dict[str, str] = dict(lexicon.pairs_of("consent_same"))
# Words only a consent answer uses: said with no live prompt, they get a pointer instead of small talk.
CONSENT_ONLY: tuple[str, ...] = words_of("consent_only")

# -- help, greetings, thanks ----------------------------------------------------------------------------
HELP_WORDS: tuple[str, ...] = words_of("help_words")
# Taken off a greeting before it is looked up: 「你吃飽沒」, 「阿伯早安喔」.
GREETING_FILLERS: tuple[str, ...] = words_of("greeting_fillers")
GREETING_WORDS: tuple[str, ...] = words_of("greeting_words")
THANKS_WORDS: tuple[str, ...] = words_of("thanks_words")
# A thank-you proper (「好」 or 「ok」 alone only acknowledge): 「好的，謝謝你」 is thanked.
GRATITUDE: tuple[str, ...] = words_of("gratitude")
# What may surround a thank-you without making it more than small talk (「好，謝謝你喔」).
SMALL_TALK_FILLERS: tuple[str, ...] = words_of("small_talk_fillers")
TRAILING_PARTICLES = "!.。~、,呀啊喔哦唷啦耶囉嘛齁捏"

# -- searches --------------------------------------------------------------------------------------
# Words that make a sentence a place search, an event search, or a question the tools cannot answer.
# Taiwanese-flavoured forms are here too: 「有啥物好食？」, 「欲去佗位𨑨迌」.
PLACE_WORDS: tuple[str, ...] = words_of("place_words")
EVENT_WORDS: tuple[str, ...] = words_of("event_words")
# Besides the search words, these make a clause ask about the place it names (「溪湖有什麼」).
ASKING_PLACE: tuple[str, ...] = words_of("asking_place")
# Verbs that ask to find something (with a township named, a search): 「幫我找員林的素食」.
FIND_VERBS: tuple[str, ...] = words_of("find_verbs")
# Words that ask for a search in a sentence without a question (「幫我找」, 「想吃」): no remark.
SEARCH_ASKS: tuple[str, ...] = words_of("search_asks")
# A follow-up asks the last question again about something new: 「員林呢」, 「那台中呢」, 「換鹿港」.
FOLLOW_UP_ENDINGS: tuple[str, ...] = words_of("follow_up_endings")
FOLLOW_UP_STARTS: tuple[str, ...] = words_of("follow_up_starts")
UNSUPPORTED_WORDS: tuple[str, ...] = words_of("unsupported_words")
# A remember of one of these is about something the service never keeps (「記住我的電話」).
OTHER_RECORDS: tuple[str, ...] = words_of("other_records")
# A question added by the way after these (「順便問一下有公車嗎」) is not the request.
BY_THE_WAY: tuple[str, ...] = words_of("by_the_way")
# The last search again, wherever the sentence points (「剛才那個鄉鎮再查一次」).
AGAIN_WORDS: tuple[str, ...] = words_of("again_words")
# Bus companies: riding one (「搭員林客運去二林」) does not make a food or event question a transport one.
BUS_COMPANIES: tuple[str, ...] = words_of("bus_companies")
# Asking for results not shown yet, after a search (「再找一家」「還有嗎」「換一家」): the search runs
# again with more=true and lists only what this conversation has not been shown.
MORE_WORDS: tuple[str, ...] = words_of("more_words")
