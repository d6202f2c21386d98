"""Replies written by code from tool results (the model never rewrites them)."""

from __future__ import annotations

from typing import Any

from local_agent.context.projection import PENDING_CODES, WAITING_CODES
from local_agent.language.diets import kind_note
from local_agent.listings import catalogue
from local_agent.listings.dates import DateWindow, parse_iso_date
from local_agent.listings.meta import NO_DATE_LINE
from local_agent.replies import navigation
from local_agent.replies.links import place_map_url, tel_uri
from local_agent.replies.reply import MAX_CARDS, Card, CardAction, Choice, Reply

MAP_LABEL = "地圖"
CALL_LABEL = "打電話"
OTHER_TOWN_LABEL = "換個鄉鎮"
REMEMBER_LABEL = "記住我吃素"
OTHER_GOAL_LABEL = {"events": "這裡的活動", "places": "這裡的美食"}
# 「再找一家」 when the conversation no longer carries what was shown (the window moved on, or nothing
# was shown): the list is not presented as new (docs/design.md, "Asking for more").
MAY_REPEAT = "前面列過哪些我已經沒有紀錄，以下可能和之前重複"

HELP_INTRO = (
    "您好，我是 LOCAL 彰化在地小幫手。\n"
    "・問「花壇有什麼好吃的？」找店家\n"
    "・問「鹿港這週有什麼活動？」查活動\n"
    "・說「記住我吃素」，同意後找店家會先套用\n"
    "・說「忘記我的飲食偏好」就會刪除"
)
# The help text's last line comes from the listings' own ``listings.toml`` (``ListingsMeta.help_line``);
# this is the shipped snapshot's (tests/test_listings_meta.py holds the two equal).
SHIPPED_HELP_LINE = "資料：LOCAL 教學範例（虛構資料），2026-11-30 更新。" + catalogue.SNAPSHOT_NOTICE


def help_text(data_line: str = SHIPPED_HELP_LINE) -> str:
    """The help text, ending with the line that says whose listings these are and how current."""
    return f"{HELP_INTRO}\n{data_line}"


HELP_TEXT = help_text()
JOIN_TEXT = (
    "大家好，我是 LOCAL 彰化在地小幫手。\n"
    "要找我，請先 @LOCAL 再說，例如「@LOCAL 花壇有什麼好吃的？」；沒有 @ 我的訊息，我不會回。\n"
    "我不保存聊天內容；飲食偏好只在和我的一對一聊天裡設定，群組裡不會使用。"
)
# Answers to a non-text message in a 1:1 chat (``line/events.py``): what LOCAL can read instead.
MEDIA_TEXTS = {
    "audio": "我還聽不懂語音訊息。請用打字，或按鍵盤上的麥克風用說的變成文字再送出，我就看得懂。",
    "sticker": "收到您的貼圖！想找吃的或活動，請直接告訴我，例如「花壇有什麼好吃的？」",
    "location": "我看不出這個位置在哪個鄉鎮。請直接說鄉鎮名稱，例如「花壇有什麼好吃的？」",
}
MEDIA_TEXT_OTHER = "我還看不懂圖片、影片或檔案。請用文字告訴我想找什麼，例如「花壇有什麼好吃的？」"
# Tool results that answer the person rather than fail: the pending questions and 「目前只服務彰化縣…」.
ANSWER_CODES = WAITING_CODES
# Code-made answers of the commands (``turns/commands.py``, ``turns/kept.py``).
FORGET_YES = "local:forget:yes"
FORGET_NO = "local:forget:no"
IN_PRIVATE_ONLY = (
    "飲食偏好只在您和我的一對一聊天裡設定或刪除，群組裡不會使用、也不會顯示任何人的偏好。"
    "請點我的頭像，在一對一聊天裡說「記住我吃素」。"
)
THANKS_TEXT = "不客氣！想找吃的或活動，隨時跟我說。"
ACK_TEXT = "好的！想找吃的或活動，隨時跟我說，例如「花壇有什麼好吃的？」"
UNREADABLE_TEXT = "這則訊息我看不懂。請用中文字告訴我想找什麼，例如「花壇有什麼好吃的？」"
# Short answers to small talk (``language/rules.py``'s small-talk readings): no search, no question.
SMALL_TALK_TEXTS: dict[str, str] = {
    "thanks": THANKS_TEXT,
    "goodbye": "好的，再見！保重身體，想找吃的或活動再跟我說。",
    "compliment": "謝謝您的鼓勵！想找吃的或活動，隨時跟我說。",
    "complaint": "抱歉讓您不滿意。可以再告訴我鄉鎮和想找的，例如「花壇有什麼好吃的」，我再幫您找一次。",
    "health": "請多保重身體，不舒服要記得看醫生。想找附近吃的或活動，也可以跟我說。",
    "weather": "出門記得留意天氣、多喝水。想找吃的或活動，隨時跟我說。",
    "bot_question": (
        "我是 LOCAL，彰化縣的在地小幫手，是電腦程式，不是真人。我可以幫您找各鄉鎮的店家和活動，"
        "也可以在您同意後記住飲食偏好。"
    ),
    "visited": "謝謝您分享！想再找其他店家或活動，跟我說鄉鎮就可以。",
    "chat": "謝謝您跟我聊這些。我可以幫您找彰化縣各鄉鎮的店家和活動，例如「花壇有什麼好吃的？」",
}
# The question when a sentence touches the kept preference but what it asks is unclear.
PREFERENCE_QUESTION = "要我記住、刪除，還是看看記了什麼？"
PREFERENCE_DELETE_TEXT = "刪除我的飲食偏好"
PREFERENCE_SHOW_TEXT = "你記得我什麼"
PREFERENCE_HOW_TEXT = "怎麼設定飲食偏好"
POLITE_FAILURE = "抱歉，系統剛剛忙不過來，這一句沒有處理到。請稍後再說一次。"
BUDGET_REFUSAL = "這一段話太長了，我沒辦法一次處理。請分成短一點的句子再說一次。"


def _place_card(item: dict[str, Any], asked: str = catalogue.ANY) -> Card:
    diets = "、".join(catalogue.dietary_label(d) for d in item.get("dietary", [])) or "一般"
    differs = kind_note(asked, item.get("dietary", []))
    first = f"飲食：{diets}" + (f"（注意：這家是{differs}）" if differs else "")
    lines = tuple(x for x in (first, str(item.get("address_hint", "")), str(item.get("note", ""))) if x)
    category = str(item.get("category", ""))
    return Card(
        title=str(item["name"]),
        subtitle=f"{item['township']}・{category}" + (f"・{differs}" if differs else ""),
        lines=lines,
        kind="place",
        actions=_actions(
            place_map_url(str(item["name"]), str(item.get("address_hint", "")), str(item["township"])),
            tel_uri(str(item.get("phone") or "")),
        ),
    )


def _kinds_differing(items: list[dict[str, Any]], asked: str) -> str:
    """「其中 1 家是五辛素，含蔥蒜。」 when some places are of another kind than asked."""
    notes = [n for n in (kind_note(asked, i.get("dietary", [])) for i in items) if n]
    if not notes:
        return ""
    kinds = "；".join(dict.fromkeys(notes))
    return f"其中 {len(notes)} 家不完全是{catalogue.dietary_label(asked)}：{kinds}，請看卡片上的標示。"


def _actions(map_url: str | None, call: str | None = None) -> tuple[CardAction, ...]:
    """「地圖」 when there is a map link, 「打電話」 when the listing has a phone."""
    found = ((MAP_LABEL, map_url), (CALL_LABEL, call))
    return tuple(CardAction(label, uri) for label, uri in found if uri)


def _event_dates(item: dict[str, Any]) -> str:
    """「日期：12/5（六）至 12/6（日）」 for a dated event, 「常態活動：每週六上午」 for a standing one."""
    start, end = str(item.get("start_date") or ""), str(item.get("end_date") or "")
    if not start:
        return f"常態活動：{item.get('when', '')}"
    return "日期：" + DateWindow(parse_iso_date(start), parse_iso_date(end or start)).label()


def _event_card(item: dict[str, Any]) -> Card:
    when = str(item.get("when", ""))
    first = _event_dates(item) if "standing" in item else when
    second = when if "standing" in item and not item["standing"] else ""
    fields = (first, second, str(item.get("venue", "")), str(item.get("note", "")))
    lines = tuple(x for x in fields if x)
    venue = str(item.get("venue", ""))
    return Card(
        title=str(item["name"]),
        subtitle=f"{item['township']}・{item.get('category', '')}",
        lines=lines,
        kind="event",
        actions=_actions(place_map_url(venue, "", str(item["township"])) if venue else None),
    )


def render_tool_result(result: dict[str, Any]) -> Reply:
    if result.get("status") != "ok":
        # A township question (「請問是哪個鄉鎮？」「您是說員林市嗎？」) and the answer about a place
        # outside the county are answers, not failures. Their choices are sent back as text.
        code = result.get("code")
        choices = tuple(Choice(str(c), str(c), str(c), sends_text=True) for c in result.get("choices") or ())
        return Reply(
            texts=(str(result.get("message") or "請再說一次。"),),
            choices=(choices if code in PENDING_CODES else ()) or _picker_of(result),
            error_code=None if code in ANSWER_CODES else code,
        )
    items = list(result.get("items") or [])
    area = result["area"]
    if result.get("tool") == "search_local_places":
        diet = result.get("dietary_type", catalogue.ANY)
        text = _may_repeat(result, items, _places_text(result, items, area, diet))
        cards = tuple(_place_card(i, diet) for i in items[:MAX_CARDS])
        alt = f"{area}店家：" + "、".join(c.title for c in cards)
    else:
        text = _may_repeat(result, items, _events_text(result, items))
        cards = tuple(_event_card(i) for i in items[:MAX_CARDS])
        alt = f"{area}活動：" + "、".join(c.title for c in cards)
    # The listings' notice, once: the line above never repeats it, even when nothing was found.
    text += "\n" + str(result.get("notice") or NO_DATE_LINE)
    return Reply(texts=(text,), cards=cards, choices=next_steps(result), alt_text=alt[:400] if cards else "")


def _picker_of(result: dict[str, Any]) -> tuple[Choice, ...]:
    goal, towns = result.get("picker"), result.get("townships")
    if goal not in navigation.GOAL_WORDS or not isinstance(towns, list):
        return ()
    return navigation.picker(str(goal), [str(t) for t in towns])[1]


def next_steps(result: dict[str, Any]) -> tuple[Choice, ...]:
    """Quick replies after a result: 「再找一家」 while more remain, the other kind of listing in
    this township, another township, and 「記住我吃素」 in a 1:1 chat with no kept diet."""
    area = str(result["area"])
    goal = "places" if result.get("tool") == "search_local_places" else "events"
    choices: list[Choice] = []
    if result.get("more_left"):
        label = navigation.MORE_LABELS[goal]
        choices.append(Choice(label, navigation.more(goal), label))
    if result.get("other_goal"):
        other = "events" if goal == "places" else "places"
        choices.append(navigation.town_choice(other, area, OTHER_GOAL_LABEL[other]))
    choices.append(Choice(OTHER_TOWN_LABEL, navigation.pick(goal), OTHER_TOWN_LABEL))
    if goal == "places" and result.get("suggest_memory"):
        diet = str(result.get("dietary_type") or catalogue.ANY)
        diet = diet if diet in catalogue.VEGETARIAN_FAMILY else "vegetarian"
        label = remember_label(diet)
        choices.append(Choice(label, navigation.remember(diet), label))
    return tuple(choices)


def remember_label(diet: str) -> str:
    """「記住我吃素」, 「記住我吃全素」, 「記住我不吃牛」: the button that asks to remember ``diet``."""
    if diet == "vegetarian":
        return REMEMBER_LABEL
    label = catalogue.dietary_label(diet)
    return f"記住我{label}" if label.startswith("不") else f"記住我吃{label}"


def _may_repeat(result: dict[str, Any], items: list[dict[str, Any]], line: str) -> str:
    """「再找一家」 with no earlier ids left in the conversation: the line says the list may repeat."""
    if result.get("more") and items and not result.get("shown_before"):
        return f"{line.removesuffix('：')}（{MAY_REPEAT}）："
    return line


def _places_text(result: dict[str, Any], items: list[dict[str, Any]], area: str, diet: str) -> str:
    cond = "" if diet == catalogue.ANY else f"（{catalogue.dietary_label(diet)}）"
    if result.get("preference_origin") == "consented_memory" and cond:
        cond = f"（{catalogue.dietary_label(diet)}，已套用您同意記住的偏好）"
    if result.get("memory_set_aside"):
        cond = "（這次不套用您記住的飲食偏好）"
    before = int(result.get("shown_before") or 0)
    if result.get("more") and before:
        if not items:
            if result.get("more_left"):
                return f"{area}{cond}已經列出 {before} 家了。請加上想吃的種類，或換個鄉鎮再找。"
            return f"{area}{cond}符合的店家都列過了（共 {before} 家），沒有別家了。"
        return f"{area}{cond}再列出 {len(items)} 家（前面列過 {before} 家）："
    if not items:
        if cond:
            return f"{area}{cond}：沒有找到符合的店家。"
        return f"{area}沒有找到符合的店家。"
    text = f"{area}{cond}找到 {len(items)} 家店家："
    differing = _kinds_differing(items, diet)
    return f"{text}\n{differing}" if differing else text


def _events_text(result: dict[str, Any], items: list[dict[str, Any]]) -> str:
    """The reply line: which dates were searched, how many dated and how many standing events."""
    area, label = result["area"], result.get("dates_label")
    before = int(result.get("shown_before") or 0)
    if result.get("more") and before:
        if not items:
            if result.get("more_left"):
                return f"{area}已經列出 {before} 個活動了。請加上想找的種類，或換個鄉鎮再找。"
            return f"{area}符合的活動都列過了（共 {before} 個），沒有別的了。"
        return f"{area}再列出 {len(items)} 個活動（前面列過 {before} 個）："
    if not label:
        if not items:
            return f"{area}沒有找到對應的活動。"
        return f"{area}找到 {len(items)} 個活動："
    standing = sum(1 for i in items if i.get("standing"))
    dated = len(items) - standing
    searched = f"{area}（查詢日期：{label}）"
    if not items:
        return f"{searched}：沒有找到對應的活動。"
    if not standing:
        return f"{searched}找到 {dated} 個活動："
    if not dated:
        return f"{searched}沒有這段日期的活動；以下 {standing} 個是常態活動，請看說明的時間："
    return f"{searched}找到 {dated} 個活動，另有 {standing} 個常態活動："


def forget_choices() -> tuple[Choice, ...]:
    """The two buttons of a forget confirmation."""
    return (Choice("確定忘記", FORGET_YES, "確定忘記"), Choice("不用", FORGET_NO, "不用"))


def preference_choices(diet_label: str | None) -> tuple[Choice, ...]:
    """The three buttons of the preference question: remember (the diet the sentence named, else
    how to set one), delete, show what is kept. Each sends its words as the person's own message,
    so a typed 「刪除我的飲食偏好」 works the same."""
    remember = f"記住我吃{diet_label}" if diet_label else PREFERENCE_HOW_TEXT
    return (
        Choice("記住", remember, sends_text=True),
        Choice("刪除", PREFERENCE_DELETE_TEXT, sends_text=True),
        Choice("看看記了什麼", PREFERENCE_SHOW_TEXT, sends_text=True),
    )


def consent_choices(agree_data: str, decline_data: str) -> tuple[Choice, ...]:
    """The two consent buttons; their data are signed consent tokens (``turns/consent.py``)."""
    return (
        Choice("同意", agree_data, "同意"),
        Choice("不同意", decline_data, "不同意"),
    )
