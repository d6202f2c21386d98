"""LOCAL's bounded context layer as an ADK plugin, for any ADK agent.

    from google.adk.apps import App
    from local_agent.plugin import BoundedContextPlugin

    app = App(name="weather", root_agent=agent, plugins=[BoundedContextPlugin(16384)])

The contract, what it promises and what it does not: ``docs/plugin.md``.
"""

from local_agent.context.errors import BudgetExceeded, StoreError
from local_agent.context.exchanges import ExchangeWindow, Summarize, latest_projection
from local_agent.context.journal import JournalRecord, JournalStorage, MemoryJournalStorage
from local_agent.plugin.bounded import (
    REQUEST_GREW_AFTER_PLUGIN,
    REVISION_FAILED,
    STALE_REVISION,
    STORE_ROW_INVALID,
    TOOL_RESPONSE_CUT,
    BoundedContextPlugin,
)
from local_agent.plugin.bounding import bound_request
from local_agent.plugin.config import (
    DEFAULT_BUDGET_BYTES,
    DEFAULT_MAX_EXCHANGES,
    DEFAULT_MAX_PROJECTION_CHARS,
    PLUGIN_NAME,
    SUMMARY_FAILED,
    SUMMARY_NOT_TEXT,
    SUMMARY_TOO_LONG,
    PluginConfigError,
    Revision,
)
from local_agent.plugin.cut import CUT_MARKER
from local_agent.plugin.exchange import (
    PROJECTION_FAILED,
    PROJECTION_NOT_TEXT,
    PROJECTION_REPEATS_USER_TEXT,
    PROJECTION_TOO_LONG,
    TEXT_PLACEHOLDER,
    FinishedExchange,
    Project,
    ToolCall,
    default_projection,
)
from local_agent.plugin.request import content_dict, request_envelope
from local_agent.plugin.sqlite_journal import SqliteJournalStorage

BUDGET_EXCEEDED = BudgetExceeded.code  # CURRENT_AND_RULES_EXCEED_INPUT_BUDGET

__all__ = [
    "BUDGET_EXCEEDED",
    "CUT_MARKER",
    "DEFAULT_BUDGET_BYTES",
    "DEFAULT_MAX_EXCHANGES",
    "DEFAULT_MAX_PROJECTION_CHARS",
    "PLUGIN_NAME",
    "PROJECTION_FAILED",
    "PROJECTION_NOT_TEXT",
    "PROJECTION_REPEATS_USER_TEXT",
    "PROJECTION_TOO_LONG",
    "REQUEST_GREW_AFTER_PLUGIN",
    "REVISION_FAILED",
    "STALE_REVISION",
    "STORE_ROW_INVALID",
    "SUMMARY_FAILED",
    "SUMMARY_NOT_TEXT",
    "SUMMARY_TOO_LONG",
    "TEXT_PLACEHOLDER",
    "TOOL_RESPONSE_CUT",
    "BoundedContextPlugin",
    "BudgetExceeded",
    "ExchangeWindow",
    "FinishedExchange",
    "JournalRecord",
    "JournalStorage",
    "MemoryJournalStorage",
    "PluginConfigError",
    "Project",
    "Revision",
    "SqliteJournalStorage",
    "StoreError",
    "Summarize",
    "ToolCall",
    "bound_request",
    "content_dict",
    "default_projection",
    "latest_projection",
    "request_envelope",
]
