"""What the plugin holds for one invocation while it runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.genai import types

from local_agent.context.exchange_journal import ExchangeRead


@dataclass
class Turn:
    person: str  # the journal scope id of the person (a hash of plugin name and user id)
    session: str  # the conversation's key inside the person's record (a hash of app and session id)
    read: ExchangeRead | None  # None: the revision could not be read, or an AgentTool child run
    child: bool = False  # an AgentTool child run: bounded, but no window read or written
    refused: bool = False
    # A resumed invocation (a long-running tool's answer): the function response it resumed with.
    resumed: types.Content | None = None
    enums: dict[str, dict[str, tuple[Any, ...]]] = field(default_factory=dict)  # tool → arg → enum
