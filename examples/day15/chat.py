"""A terminal chat with the real LOCAL app, for a newcomer without a LINE channel.

    python -m examples.day15.chat [--user U1] [--group G1] [--budget-bytes N]

Same in-process setup as the replay (``examples.day15.replay.ReplayDriver``): a fake LINE API on
127.0.0.1, the real FastAPI app, signed webhook requests. Type a line and press Enter; the
bot's reply is printed. Place and event cards (Flex carousels on LINE) are shown as text cards;
quick replies are shown as numbered choices — type the number to tap one. In a group
(``--group``) start a line with ``@LOCAL`` to address the bot; other lines are chatter it ignores.

    /debug           toggle showing what the model was sent and the tool calls (last turn, then every turn)
    /advance SECONDS move the service clock forward (e.g. /advance 901 to let the context expire)
    /menu [N]        the rich menu's areas; /menu 1 (or 1 right after /menu) taps 找美食 (a postback)
    /help            these commands
    /quit            leave (so does end of input, Ctrl-D)

The model is the offline stand-in for Gemini unless LOCAL_MODEL says otherwise; settings are
read from the environment, then ``.env`` in the current folder, as for the replay and the service (the
first line on stderr says which).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass
from typing import TextIO

from examples.day15.replay import (
    EventResult,
    ReplayDriver,
    StartupError,
    iso_instant,
    positive_int,
    quiet_broken_pipe,
)
from local_agent.line.richmenu import AREAS
from local_agent.replies.reply import Card

BOT = "LOCAL"
COMMANDS_HELP = (
    "指令：/debug 顯示送給模型的內容與工具呼叫（開／關），/advance 秒數 讓時間往前走，"
    "/menu 選單（/menu 1 點「找美食」），/help 說明，/quit 離開。輸入選項前的數字可以點選快速回覆。"
)


def _card_lines(card: Card) -> list[str]:
    """A card as text: title, subtitle, lines, then each button as 「［地圖］ URI」."""
    out = [f"  ┌ {card.title}"]
    if card.subtitle:
        out.append(f"  │ {card.subtitle}")
    out.extend(f"  │ {line}" for line in card.lines if line)
    out.extend(f"  │ ［{action.label}］ {action.uri}" for action in card.actions)
    out.append("  └")
    return out


def render(result: EventResult) -> list[str]:
    """What the user sees for one event, as terminal lines (the delivered LINE messages)."""
    out: list[str] = []
    reply = result.outcome.reply if result.outcome is not None else None
    for message in result.messages:
        kind = message.get("type")
        if kind == "text":
            text = str(message.get("text", ""))
            out.append(f"{BOT}> " + text.replace("\n", "\n       "))
        elif kind == "flex":
            # A Flex message is built only from the observed reply's cards.
            cards = reply.cards if reply is not None else ()
            out.append(f"{BOT}> [卡片 {len(cards)} 張]")
            for card in cards:
                out.extend(_card_lines(card))
        else:
            out.append(f"{BOT}> [{kind} 訊息]")
    if not result.messages:
        out.append(f"{BOT}> （這一句沒有回覆）")
    choices = [a.get("label", "") for a in result.quick_replies]
    if choices:
        out.append("  選項：" + "  ".join(f"{i}) {label}" for i, label in enumerate(choices, 1)))
    return out


def render_debug(result: EventResult | None) -> list[str]:
    if result is None:
        return ["[debug] 還沒有回合。"]
    out = []
    requests = result.model_requests
    if not requests:
        out.append("[debug] 這一回合沒有呼叫模型（指令或被預算擋下）。")
    for req in requests:
        out.append(
            f"[debug] 送給模型的內容（{req['count']} {req['unit']}，捨棄 {req['dropped_turns']} 回合，"
            f"{'摘要已捨棄' if req['summary_dropped'] else '摘要未捨棄'}）："
        )
        for c in req["contents"]:
            out.append(f"[debug]   {c['role']}: {c['text']}")
    for call in result.tool_calls:
        out.append("[debug] 工具呼叫：" + json.dumps(call, ensure_ascii=False))
    if result.error_code:
        out.append(f"[debug] error_code: {result.error_code}")
    if result.journal is not None:
        out.append("[debug] journal：" + json.dumps(result.journal, ensure_ascii=False))
    return out


def _say(stdout: TextIO, lines: list[str] | str) -> None:
    for line in [lines] if isinstance(lines, str) else lines:
        print(line, file=stdout, flush=True)


async def _next_line(stdin: TextIO, stdout: TextIO, interactive: bool) -> str | None:
    """The next line, stripped; None at end of input."""
    if interactive:
        print("你> ", end="", file=stdout, flush=True)
    line = await asyncio.to_thread(stdin.readline)
    return line.strip() if line else None


@dataclass
class _Session:
    """One terminal chat: the slash commands and the messages of one user (in a group or not)."""

    driver: ReplayDriver
    user: str
    group: str | None
    interactive: bool
    stdout: TextIO
    debug: bool = False
    last: EventResult | None = None
    menu_listed: bool = False  # the last line shown was the menu's list: a bare number taps that area

    def say(self, lines: list[str] | str) -> None:
        _say(self.stdout, lines)

    def command(self, text: str) -> bool:
        """Run ``/help``, ``/debug`` or ``/advance``; False when ``text`` is none of them."""
        if text == "/help":
            self.say(COMMANDS_HELP)
        elif text == "/debug":
            self.debug = not self.debug
            self.say(f"[debug] {'開' if self.debug else '關'}")
            if self.debug:
                self.say(render_debug(self.last))
        elif text.startswith("/advance"):
            self.advance(text)
        else:
            return False
        return True

    def advance(self, text: str) -> None:
        try:
            seconds = float(text.split(maxsplit=1)[1])
            if seconds < 0:
                raise ValueError
        except (IndexError, ValueError):
            self.say("用法：/advance 秒數，例如 /advance 901")
            return
        self.driver.advance(seconds)
        self.say(f"（時間往前走了 {seconds:g} 秒）")

    async def _send(self, text: str) -> EventResult:
        """In a group the bot answers only when mentioned: start the line with @LOCAL."""
        mention = bool(self.group) and text.startswith(f"@{BOT}")
        if mention:
            text = text[len(BOT) + 1 :].strip()
        result = await self.driver.send_text(self.user, text, self.group, mention=mention)
        if self.group and not mention:
            self.say(f"（沒有 @{BOT}，這是群組閒聊，機器人不回。）")
        return result

    async def message(self, text: str) -> None:
        """A number taps that quick reply of the last reply; anything else is sent as text."""
        previous = self.driver.last_result(self.user, self.group)
        choices = [a.get("label", "") for a in previous.quick_replies] if previous else []
        if not self.interactive:
            self.say(f"你> {text}")
        listed, self.menu_listed = self.menu_listed, False
        if text.split()[0] == "/menu":
            result = await self.menu(text)
            if result is None:
                return
        elif listed and text.isdigit() and 1 <= int(text) <= len(AREAS):
            result = await self.menu(f"/menu {text}")  # 「1」 after the list taps 1) 找美食
            if result is None:
                return
        elif text.isdigit() and 1 <= int(text) <= len(choices):
            label = choices[int(text) - 1]
            result = await self.driver.tap(self.user, label, self.group)
            self.say(f"（點選「{label}」）你> {result.display_text or label}")
        else:
            result = await self._send(text)
        self.last = result
        self.say(render(result))
        if self.debug:
            self.say(render_debug(result))

    async def menu(self, text: str) -> EventResult | None:
        """``/menu`` lists the rich menu's areas; ``/menu N`` taps area N (its postback)."""
        parts = text.split()
        if len(parts) == 1:
            self.say(
                "選單：" + "  ".join(f"{i}) {a.label}" for i, a in enumerate(AREAS, 1)) + "（輸入數字點選）"
            )
            self.menu_listed = True
            return None
        if not parts[1].isdigit() or not 1 <= int(parts[1]) <= len(AREAS):
            self.say(f"用法：/menu 1 到 {len(AREAS)}")
            return None
        area = AREAS[int(parts[1]) - 1]
        result = await self.driver.postback(self.user, area.data, self.group, display_text=area.label)
        self.say(f"（點選選單「{area.label}」）你> {area.label}")
        return result


async def chat(
    user: str,
    group: str | None,
    *,
    budget_bytes: int | None = None,
    now: float | None = None,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> int:
    interactive = stdin.isatty()
    where = f"群組 {group}（{user}，要找我請先打 @{BOT}）" if group else f"{user} 的一對一聊天"
    async with ReplayDriver.open(budget_bytes=budget_bytes, start_at=now) as driver:
        data = driver.app.state.wiring.pipeline.listings.meta.help_line
        _say(stdout, f"LOCAL 終端機聊天：{where}。離線模型是 Gemini 的替身。{data}輸入 /help 看指令。")
        session = _Session(driver, user, group, interactive, stdout)
        while (text := await _next_line(stdin, stdout, interactive)) is not None:
            if text == "/quit":
                break
            if text and not session.command(text):
                await session.message(text)
    _say(stdout, "再見！")
    return 0


def main(argv: list[str] | None = None) -> int:
    from local_agent.listings.problems import ListingsError
    from local_agent.settings import SettingsError, read_environment

    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.chat",
        description="Chat with the LOCAL app in the terminal (no LINE channel needed).",
    )
    parser.add_argument("--user", default="U1", help="your LINE user id in this chat (default U1)")
    parser.add_argument("--group", default=None, help="talk inside this group id instead of a 1:1 chat")
    parser.add_argument(
        "--budget-bytes",
        type=positive_int,
        default=None,
        metavar="N",
        help="override the input budget (UTF-8 bytes of the whole model request)",
    )
    parser.add_argument(
        "--now",
        type=iso_instant,
        default=None,
        metavar="ISO",
        help="fix the service clock at this instant, e.g. 2026-11-30T12:00:00+08:00 (offset required)",
    )
    args = parser.parse_args(argv)
    print(read_environment().source(), file=sys.stderr)
    try:
        return asyncio.run(chat(args.user, args.group, budget_bytes=args.budget_bytes, now=args.now))
    except SettingsError as exc:
        print("\n".join(exc.lines("chat")), file=sys.stderr)
        return 2
    except ListingsError as exc:
        print("\n".join(exc.lines("chat")), file=sys.stderr)
        return 2
    except StartupError as exc:
        print(f"chat: cannot start the app: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(quiet_broken_pipe())
