"""``POST /callback``: the body read and verified (``line/webhook_body.py``), its events taken in by
the queue mode (``intake.py``), and the answer given at once.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse

from local_agent.line.webhook_body import Refused, WebhookBody
from local_agent.server.dispatcher import Dispatcher
from local_agent.server.inbox import DurableInbox
from local_agent.server.intake import admit, inbound_events, into_inbox, publish, run_live, submit
from local_agent.server.queue import PubsubPublisher


class Receiver:
    """``POST /callback``: verify, parse and hand events to the dispatcher, then answer at once."""

    def __init__(self, channel_secret: str, body_timeout: float) -> None:
        self.body = WebhookBody(channel_secret, body_timeout)

    async def callback(self, request: Request) -> JSONResponse:
        try:
            payload = await self.body.payload(request)
            state = request.app.state
            dispatcher: Dispatcher | None = getattr(state, "dispatcher", None)
            if dispatcher is None:
                raise Refused(503, "not started")
            events = inbound_events(payload)
            publisher: PubsubPublisher | None = state.publisher
            if publisher is not None:  # LOCAL_QUEUE=pubsub: durable, ordered per chat, any instance
                return await publish(events, publisher, state.shutdown)
            if events:
                admit(events, state.wiring.store, state.admission)
            inbox: DurableInbox | None = state.inbox
            if inbox is None:
                return submit(events, dispatcher, state.processor.process, state.admission)
            if events:
                events = await into_inbox(events, inbox, state.admission)
            return submit(events, dispatcher, run_live(state.inbox_turn), state.admission, durable=True)
        except Refused as refusal:
            return refusal.response()
