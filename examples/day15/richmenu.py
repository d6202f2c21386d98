"""LOCAL's rich menu on a LINE channel: ``python -m examples.day15.richmenu install|show|remove``.

    install [--image PATH]  check the image (PNG or JPEG, exactly 2500×1686, at most 1 MB), create the
                            menu (``local_agent/line/richmenu.py``), upload the image, make it the
                            default for every user; then delete older LOCAL menus. If a step fails,
                            the menu just created is deleted again: nothing half-made stays.
    show                    the default menu and every LOCAL menu on the channel, with each area's action
    remove                  unset the default if it is a LOCAL menu, and delete every LOCAL menu

Reads ``LINE_CHANNEL_ACCESS_TOKEN`` and, for a fake LINE API on this machine, ``LINE_API_HOST``
(e.g. ``http://127.0.0.1:8080``: then the image goes there too, not to api-data.line.me), from the
environment, then ``.env`` in the current folder, as the service does; the first line on stderr says
which was read. Through
the line-bot-sdk (``MessagingApi``, ``MessagingApiBlob``). Exit 0 done, 1 LINE refused or could not be
reached (the message says what it answered), 2 bad input (no token, a bad host, an image LINE would
refuse) — nothing was sent then.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from local_agent.line.richmenu import NAME, ImageError, check_image, definition

IMAGE = Path(__file__).resolve().parent / "assets" / "richmenu.png"
API_HOST = "https://api.line.me"
DATA_HOST = "https://api-data.line.me"  # where the SDK sends rich-menu images
_LOOPBACK = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?/?$")


class Refused(Exception):
    """LINE answered with an error, or could not be reached."""


class BadInput(Exception):
    """Nothing was sent: the token, the host or the image is not usable."""


@dataclass
class Line:
    """The SDK clients for one channel."""

    api: Any
    blob: Any


def _hosts(env: Mapping[str, str]) -> tuple[str, str]:
    host = (env.get("LINE_API_HOST") or "").strip()
    if not host:
        return API_HOST, DATA_HOST
    if not (host.startswith("https://") or _LOOPBACK.match(host)):
        raise BadInput(
            "LINE_API_HOST must be https://..., or http:// on 127.0.0.1/localhost for a local fake"
        )
    host = host.rstrip("/")
    return host, host


def connect(env: Mapping[str, str]) -> Line:
    from linebot.v3.messaging import ApiClient, Configuration, MessagingApi, MessagingApiBlob

    token = (env.get("LINE_CHANNEL_ACCESS_TOKEN") or "").strip()
    if not token:
        raise BadInput(
            "LINE_CHANNEL_ACCESS_TOKEN is not set (in the environment or ./.env): "
            "the channel's long-lived access token is needed"
        )
    host, data_host = _hosts(env)

    class Client(ApiClient):
        """The SDK's client, with the image host replaceable (its blob calls name it themselves)."""

        def call_api(self, *args: Any, **kwargs: Any) -> Any:
            if kwargs.get("_host") == DATA_HOST:
                kwargs["_host"] = data_host
            return super().call_api(*args, **kwargs)

    client = Client(Configuration(access_token=token, host=host))
    return Line(MessagingApi(client), MessagingApiBlob(client))


@contextmanager
def line_errors() -> Iterator[None]:
    """LINE's error answers and network failures as :class:`Refused` with a readable message."""
    from linebot.v3.messaging import ApiException
    from urllib3.exceptions import HTTPError

    try:
        yield
    except ApiException as exc:
        raise Refused(f"LINE API error {exc.status}: {_message(exc.body) or exc.reason}") from None
    except (HTTPError, OSError) as exc:
        raise Refused(f"cannot reach the LINE API: {exc}") from None


def _message(body: object) -> str:
    try:
        data = json.loads(body) if isinstance(body, (str, bytes)) else {}
    except ValueError:
        return str(body)[:200]
    return str(data.get("message", "")) if isinstance(data, dict) else ""


def _ours(line: Line) -> list[Any]:
    with line_errors():
        return [m for m in line.api.get_rich_menu_list().richmenus if m.name == NAME]


def _default_id(line: Line) -> str | None:
    from linebot.v3.messaging import ApiException

    try:
        return str(line.api.get_default_rich_menu_id().rich_menu_id)
    except ApiException as exc:
        if exc.status == 404:
            return None  # no default rich menu
        raise


def install(line: Line, image: bytes, say: Callable[[str], None]) -> str:
    """Create, upload, set as default; on failure delete what was made. Returns the new id."""
    from linebot.v3.messaging import RichMenuRequest

    kind = check_image(image)
    request = RichMenuRequest.from_dict(definition())
    with line_errors():
        line.api.validate_rich_menu_object(request)
        menu_id = str(line.api.create_rich_menu(request).rich_menu_id)
    try:
        with line_errors():
            line.blob.set_rich_menu_image(menu_id, body=image, _headers={"Content-Type": kind})
            line.api.set_default_rich_menu(menu_id)
    except Refused:
        _undo(line, menu_id, say)
        raise
    older = [m.rich_menu_id for m in _ours(line) if m.rich_menu_id != menu_id]
    with line_errors():
        for old in older:
            line.api.delete_rich_menu(old)
    say(f"installed {NAME} ({menu_id}) as the default rich menu; deleted {len(older)} older LOCAL menu(s)")
    return menu_id


def _undo(line: Line, menu_id: str, say: Callable[[str], None]) -> None:
    try:
        with line_errors():
            line.api.delete_rich_menu(menu_id)
        say(f"deleted the half-made rich menu {menu_id} again")
    except Refused as exc:
        say(f"could not delete the half-made rich menu {menu_id} ({exc}); run remove")


def show(line: Line, say: Callable[[str], None]) -> None:
    with line_errors():
        default = _default_id(line)
        ours = _ours(line)
    say(f"default rich menu: {default or 'none'}")
    if not ours:
        say(f"no {NAME} on this channel")
    for menu in ours:
        mark = " (default)" if menu.rich_menu_id == default else ""
        say(
            f"{menu.rich_menu_id}{mark}: {menu.size.width}×{menu.size.height}, chat bar 「{menu.chat_bar_text}」"
        )
        for area in menu.areas:
            action = area.action.to_dict()
            say(
                f"  {action.get('label')}: {action.get('type')} {action.get('data') or action.get('uri', '')}"
            )


def remove(line: Line, say: Callable[[str], None]) -> None:
    with line_errors():
        default = _default_id(line)
        ours = [m.rich_menu_id for m in _ours(line)]
        if default in ours:
            line.api.cancel_default_rich_menu()
        for menu_id in ours:
            line.api.delete_rich_menu(menu_id)
    unset = "unset the default and " if default in ours else ""
    say(f"{unset}deleted {len(ours)} LOCAL rich menu(s)")


def run(argv: list[str] | None, env: Mapping[str, str], say: Callable[[str], None]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.richmenu", description=__doc__.splitlines()[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("install", help="create the menu, upload its image, make it the default")
    add.add_argument("--image", default=str(IMAGE), help="a PNG or JPEG, 2500×1686, at most 1 MB")
    sub.add_parser("show", help="the default menu and every LOCAL menu")
    sub.add_parser("remove", help="unset and delete every LOCAL menu")
    args = parser.parse_args(argv)
    try:
        image = _read_image(args.image) if args.command == "install" else b""
        line = connect(env)
        if args.command == "install":
            install(line, image, say)
        elif args.command == "show":
            show(line, say)
        else:
            remove(line, say)
    except BadInput as exc:
        print(f"richmenu {args.command}: {exc}", file=sys.stderr)
        return 2
    except Refused as exc:
        print(f"richmenu {args.command} failed: {exc}", file=sys.stderr)
        return 1
    return 0


def _read_image(path: str) -> bytes:
    try:
        data = Path(path).read_bytes()
        check_image(data)
    except OSError as exc:
        raise BadInput(f"cannot read the image {path}: {exc.strerror}") from None
    except ImageError as exc:
        raise BadInput(f"{path}: {exc}") from None
    return data


def main(argv: list[str] | None = None) -> int:
    from local_agent.settings import read_environment

    env = read_environment()
    print(env.source(), file=sys.stderr)
    return run(argv, env.values, print)


if __name__ == "__main__":
    sys.exit(main())
