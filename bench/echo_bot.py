"""A minimal LINE echo bot on the same SDK and framework as LOCAL, as a load-test baseline.

FastAPI + line-bot-sdk v3 ``WebhookParser`` (signature check + parse) + ``AsyncMessagingApi``,
replying inline (inside the request, before answering 200) with the text it received — the
shape of the SDK's own async echo example. No store, no model, no dedupe, no background work.

    python -m bench.echo_bot --port 8001 --line-url http://127.0.0.1:PORT   # (FakeLineApi)
"""

from __future__ import annotations

import argparse
import sys
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from linebot.v3 import WebhookParser
from linebot.v3.exceptions import InvalidSignatureError
from linebot.v3.messaging import (
    AsyncApiClient,
    AsyncMessagingApi,
    Configuration,
    ReplyMessageRequest,
    TextMessage,
)
from linebot.v3.webhooks import MessageEvent, TextMessageContent


def create_echo_app(channel_secret: str, access_token: str, line_api_host: str | None = None) -> FastAPI:
    parser = WebhookParser(channel_secret)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        client = AsyncApiClient(Configuration(access_token=access_token, host=line_api_host))
        app.state.api = AsyncMessagingApi(client)
        try:
            yield
        finally:
            await client.close()

    app = FastAPI(title="echo baseline", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)

    @app.post("/callback")
    async def callback(request: Request) -> JSONResponse:
        signature = request.headers.get("x-line-signature", "")
        body = (await request.body()).decode("utf-8", "replace")
        try:
            events = parser.parse(body, signature)
        except InvalidSignatureError:
            return JSONResponse({"error": "invalid signature"}, status_code=400)
        api: AsyncMessagingApi = request.app.state.api
        for event in events:
            if isinstance(event, MessageEvent) and isinstance(event.message, TextMessageContent):
                await api.reply_message(
                    ReplyMessageRequest(
                        reply_token=event.reply_token, messages=[TextMessage(text=event.message.text)]
                    )
                )
        return JSONResponse({"status": "ok"})

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return app


def main(argv: list[str] | None = None) -> int:
    import uvicorn

    from bench._common import SECRET, TOKEN

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--line-url", required=True, help="base URL of the (fake) LINE API")
    args = parser.parse_args(argv)
    app = create_echo_app(SECRET, TOKEN, args.line_url)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
