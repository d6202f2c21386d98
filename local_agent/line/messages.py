"""Turn a channel-neutral :class:`~local_agent.replies.reply.Reply` into LINE messages, and back.

    to_line_messages(reply)        -> list[linebot.v3.messaging.Message]   (what the gateway sends)
    to_wire(reply)                 -> list[dict]                           (the JSON the SDK sends)
    summarize_wire_messages(dicts) -> list[dict]                           (the replay's compact form)

Layout of one turn, within LINE's limits (≤ 5 message objects per request):

* each text becomes a ``TextMessage`` (≤ 5000 UTF-16 units, already clipped by ``Reply``);
  texts that do not fit in the 5 slots are joined into the last text slot;
* the cards become one ``FlexMessage`` with a carousel of ≤ 12 bubbles, after the texts; sized for
  older eyes: the title ``xl`` bold, the subtitle and lines ``md`` (the subtitle dark grey, the lines
  the default near-black), each card action a full-width button in the footer (「地圖」 primary,
  「打電話」 secondary) opening its URI;
* the choices become a ``QuickReply`` (≤ 13 items, labels ≤ 20 characters: postback actions, or
  message actions for a choice that ``sends_text``, such as 是 / 不是) on the
  **last** message object: LINE only shows the quick reply of the last message it receives, so
  when the turn ends with the carousel, the carousel carries it.
"""

from __future__ import annotations

from collections.abc import Iterable

from linebot.v3.messaging import (
    FlexBox,
    FlexBubble,
    FlexButton,
    FlexCarousel,
    FlexMessage,
    FlexText,
    Message,
    MessageAction,
    PostbackAction,
    QuickReply,
    QuickReplyItem,
    TextMessage,
    URIAction,
)

from local_agent.replies.reply import (
    MAX_CARDS,
    MAX_CHOICE_LABEL,
    MAX_CHOICES,
    MAX_TEXT_UTF16,
    Card,
    CardAction,
    Choice,
    Reply,
    clip_utf16,
)

MAX_MESSAGES = 5  # message objects per reply/push request
MAX_ALT_TEXT = 400  # Flex altText, characters
MAX_POSTBACK_DATA = 300  # postback data, characters
MAX_DISPLAY_TEXT = 300  # postback displayText, characters
MAX_CARD_TITLE = 100  # our own bound, keeps one bubble well under LINE's 30 KB
MAX_CARD_LINE = 500
MAX_CARD_LINES = 10
MAX_CARD_ACTIONS = 3
MAX_ACTION_LABEL = 20  # LINE's limit for an action label
MAX_URI = 1000  # LINE's limit for a URI action's uri
TITLE_SIZE = "xl"  # at least "lg" for older eyes
TEXT_SIZE = "md"  # nothing smaller on a card
SUBTITLE_COLOR = "#555555"  # dark grey on white: contrast 7.5:1 (WCAG AAA)
CHOICES_ONLY_TEXT = "請選擇："  # shown when a turn has choices but nothing else to attach them to


def _clip_chars(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quick_reply(choices: Iterable[Choice]) -> QuickReply | None:
    items = []
    for choice in list(choices)[:MAX_CHOICES]:
        if len(choice.data) > MAX_POSTBACK_DATA:
            # truncating postback data would silently change what the service reads back
            raise ValueError(f"postback data is {len(choice.data)} characters, limit {MAX_POSTBACK_DATA}")
        label = _clip_chars(choice.label, MAX_CHOICE_LABEL) or "…"
        if choice.sends_text:
            items.append(QuickReplyItem(action=MessageAction(label=label, text=choice.data)))
            continue
        display = _clip_chars(choice.display_text or choice.label, MAX_DISPLAY_TEXT) or None
        items.append(
            QuickReplyItem(action=PostbackAction(label=label, data=choice.data, displayText=display))
        )
    return QuickReply(items=items) if items else None


def _button(action: CardAction, primary: bool) -> FlexButton | None:
    if not action.uri or len(action.uri) > MAX_URI:
        return None  # a clipped URI would open the wrong page
    label = _clip_chars(action.label, MAX_ACTION_LABEL) or "…"
    return FlexButton(
        action=URIAction(label=label, uri=action.uri),
        style="primary" if primary else "secondary",
        height="md",
        margin="sm",
    )


def _bubble(card: Card) -> FlexBubble:
    title = _clip_chars(card.title, MAX_CARD_TITLE) or "—"
    contents: list = [FlexText(text=title, weight="bold", size=TITLE_SIZE, wrap=True)]
    if card.subtitle:
        subtitle = _clip_chars(card.subtitle, MAX_CARD_LINE)
        contents.append(FlexText(text=subtitle, size=TEXT_SIZE, color=SUBTITLE_COLOR, wrap=True))
    for line in card.lines[:MAX_CARD_LINES]:
        if line:
            contents.append(
                FlexText(text=_clip_chars(line, MAX_CARD_LINE), size=TEXT_SIZE, wrap=True, margin="md")
            )
    buttons = [b for i, a in enumerate(card.actions[:MAX_CARD_ACTIONS]) if (b := _button(a, i == 0))]
    footer = FlexBox(layout="vertical", spacing="sm", contents=buttons) if buttons else None
    return FlexBubble(body=FlexBox(layout="vertical", spacing="sm", contents=contents), footer=footer)


def default_alt_text(cards: Iterable[Card]) -> str:
    """The Flex alt text when the reply has none: the card titles, clipped to 400 characters."""
    titles = [c.title for c in cards if c.title]
    return _clip_chars("、".join(titles) or "—", MAX_ALT_TEXT)


def to_line_messages(reply: Reply) -> list[Message]:
    """LINE messages for one turn: texts, then one Flex carousel; quick reply on the last message.

    Returns ``[]`` for a reply with nothing to show.
    """
    cards = list(reply.cards[:MAX_CARDS])
    texts = list(reply.texts)
    text_slots = MAX_MESSAGES - (1 if cards else 0)
    if len(texts) > text_slots:
        texts = texts[: text_slots - 1] + [clip_utf16("\n\n".join(texts[text_slots - 1 :]), MAX_TEXT_UTF16)]
    quick_reply = _quick_reply(reply.choices)
    if quick_reply is not None and not texts and not cards:
        texts = [clip_utf16(reply.alt_text or CHOICES_ONLY_TEXT, MAX_TEXT_UTF16)]

    messages: list[Message] = [TextMessage(text=t) for t in texts]
    if cards:
        alt_text = _clip_chars(reply.alt_text, MAX_ALT_TEXT) if reply.alt_text else default_alt_text(cards)
        carousel = FlexCarousel(contents=[_bubble(c) for c in cards])
        messages.append(FlexMessage(altText=alt_text, contents=carousel))
    if quick_reply is not None and messages:
        messages[-1].quick_reply = quick_reply
    return messages


def to_wire(reply: Reply) -> list[dict]:
    """The JSON message objects the SDK puts on the wire for ``reply``."""
    return [m.to_dict() for m in to_line_messages(reply)]


def _first_text(component: object) -> str | None:
    """The first text of a Flex component tree (a bubble's title, as we build them)."""
    if not isinstance(component, dict):
        return None
    if component.get("type") == "text" and isinstance(component.get("text"), str):
        return component["text"]
    for child in component.get("contents") or []:
        found = _first_text(child)
        if found is not None:
            return found
    return None


def _bubble_title(bubble: object) -> str:
    if not isinstance(bubble, dict):
        return ""
    for part in ("header", "body"):
        found = _first_text(bubble.get(part))
        if found is not None:
            return found
    return ""


def _bubble_buttons(bubble: object) -> list[str]:
    """The button labels of a bubble's footer (its card actions)."""
    footer = bubble.get("footer") if isinstance(bubble, dict) else None
    contents = footer.get("contents") if isinstance(footer, dict) else None
    return [
        str((c.get("action") or {}).get("label", ""))
        for c in contents or []
        if isinstance(c, dict) and c.get("type") == "button"
    ]


def _quick_reply_labels(message: dict) -> list[str]:
    items = (message.get("quickReply") or {}).get("items") or []
    return [str((item.get("action") or {}).get("label", "")) for item in items if isinstance(item, dict)]


def summarize_wire_messages(messages: Iterable[dict]) -> list[dict]:
    """Recorded wire messages -> the replay's compact form.

    ``{"type": "text", "text": ..., "quick_replies": [labels]}`` and
    ``{"type": "flex", "alt_text": ..., "titles": [bubble titles], "buttons": [[labels per bubble]],
    "quick_replies": [labels]}``; ``buttons`` is omitted when no bubble has one, ``quick_replies``
    when the message has none. Other types give ``{"type": ...}``.
    """
    out: list[dict] = []
    for message in messages:
        kind = message.get("type")
        if kind == "text":
            item: dict = {"type": "text", "text": message.get("text", "")}
        elif kind == "flex":
            contents = message.get("contents") or {}
            if contents.get("type") == "carousel":
                bubbles = contents.get("contents") or []
            else:
                bubbles = [contents]
            item = {
                "type": "flex",
                "alt_text": message.get("altText", ""),
                "titles": [_bubble_title(b) for b in bubbles],
            }
            buttons = [_bubble_buttons(b) for b in bubbles]
            if any(buttons):
                item["buttons"] = buttons
        else:
            item = {"type": kind}
        labels = _quick_reply_labels(message)
        if labels:
            item["quick_replies"] = labels
        out.append(item)
    return out
