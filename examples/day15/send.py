"""Send one signed text message to a running service, as LINE would: ``python -m examples.day15.send TEXT``.

    python -m examples.day15.send "花壇有什麼好吃的" --to http://127.0.0.1:8080/callback [--user U…]

Builds a webhook body with one text message event (a 1:1 chat with ``--user``, a fresh reply token and
event id), signs it with ``LINE_CHANNEL_SECRET`` (from the environment, then ``.env`` in the current
folder, as the service reads it; the first line on stderr says which) and POSTs it with the
``x-line-signature`` header. The service answers 200 at once and replies through the LINE API it is
configured with; with ``LINE_API_HOST`` pointing at ``python -m local_agent.testing.fake_line_api``
the reply is printed there. The secret is never printed.

Exit status: 0 the service answered 200; 1 it could not be reached or answered otherwise (the status and
the start of its answer are printed); 2 bad input (no secret, a ``--to`` that is not an http(s) URL, an
empty text).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from urllib.parse import urlsplit

from local_agent.testing.webhooks import signed, text_event

DEFAULT_TO = "http://127.0.0.1:8080/callback"
DEFAULT_USER = "U" + "0123456789abcdef" * 2  # a LINE user id: U and 32 hex digits
TIMEOUT_SECONDS = 10.0


class BadInput(Exception):
    """Nothing was sent."""


class NotAccepted(Exception):
    """The service could not be reached or did not answer 200."""


def post(text: str, to: str, user: str, secret: str) -> int:
    """POST one signed text event; the status (200), else :class:`NotAccepted` saying why."""
    import httpx

    data, headers = signed(secret, text_event(user, text))
    try:
        answer = httpx.post(to, content=data, headers=headers, timeout=TIMEOUT_SECONDS)
    except httpx.ConnectError:
        port = urlsplit(to).port or (443 if to.startswith("https") else 80)
        start = f".venv/bin/uvicorn examples.day15.main:app --port {port}"
        raise NotAccepted(f"nothing answers at {to}; is the service running? ({start})") from None
    except httpx.HTTPError as exc:
        raise NotAccepted(f"{to}: {type(exc).__name__}: {str(exc)[:200]}") from None
    if answer.status_code != 200:
        hint = " (is LINE_CHANNEL_SECRET the service's?)" if "signature" in answer.text else ""
        raise NotAccepted(f"{to} answered {answer.status_code}: {answer.text[:200]}{hint}")
    return answer.status_code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m examples.day15.send",
        description="Send one signed LINE text message event to a running service's /callback.",
    )
    parser.add_argument("text", help="what the user types, e.g. 花壇有什麼好吃的")
    parser.add_argument("--to", default=DEFAULT_TO, help=f"the service's webhook URL (default {DEFAULT_TO})")
    parser.add_argument("--user", default=DEFAULT_USER, help="the sender's LINE user id (a 1:1 chat)")
    return parser


def _checked(args: argparse.Namespace, secret: str) -> None:
    if not secret:
        raise BadInput(
            "LINE_CHANNEL_SECRET is not set (in the environment or ./.env): the service's channel secret "
            "signs the message"
        )
    if not args.to.startswith(("http://", "https://")):
        raise BadInput(f"--to must be an http:// or https:// URL, e.g. {DEFAULT_TO}")
    if not args.text.strip():
        raise BadInput("the text is empty")


def main(argv: Sequence[str] | None = None) -> int:
    from local_agent.settings import read_environment

    args = _parser().parse_args(argv)
    env = read_environment()
    print(env.source(), file=sys.stderr)
    try:
        _checked(args, env.get("LINE_CHANNEL_SECRET").strip())
        status = post(args.text, args.to, args.user, env.get("LINE_CHANNEL_SECRET").strip())
    except BadInput as exc:
        print(f"send: {exc}", file=sys.stderr)
        return 2
    except NotAccepted as exc:
        print(f"send: not accepted: {exc}", file=sys.stderr)
        return 1
    print(f"sent 1 text message from {args.user} to {args.to}: {status} OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
