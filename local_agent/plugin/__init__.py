"""LOCAL's bounded context layer as an ADK plugin, for any ADK agent.

    from google.adk.apps import App
    from local_agent.plugin import BoundedContextPlugin

    app = App(name="weather", root_agent=agent,
              plugins=[BoundedContextPlugin(budget_bytes=16384, max_exchanges=2)])

The contract, what it promises and what it does not: ``docs/plugin.md``.
"""

from local_agent.context.errors import BudgetExceeded, StoreError
from local_agent.context.exchanges import ExchangeWindow, Summarize, latest_projection
from local_agent.plugin.bounded import (
    DEFAULT_BUDGET_BYTES,
    DEFAULT_MAX_EXCHANGES,
    DEFAULT_MAX_PROJECTION_CHARS,
    PLUGIN_NAME,
    REVISION_FAILED,
    STALE_REVISION,
    STORE_ROW_INVALID,
    SUMMARY_FAILED,
    SUMMARY_NOT_TEXT,
    SUMMARY_TOO_LONG,
    BoundedContextPlugin,
    PluginConfigError,
    Revision,
    content_dict,
    request_envelope,
)
from local_agent.plugin.exchange import (
    PROJECTION_FAILED,
    PROJECTION_NOT_TEXT,
    PROJECTION_REPEATS_USER_TEXT,
    PROJECTION_TOO_LONG,
    FinishedExchange,
    Project,
    ToolCall,
    default_projection,
)
from local_agent.plugin.store import MemoryWindowStore, SqliteWindowStore, StoredWindow, WindowStore

BUDGET_EXCEEDED = BudgetExceeded.code  # CURRENT_AND_RULES_EXCEED_INPUT_BUDGET

__all__ = [
    "BUDGET_EXCEEDED",
    "DEFAULT_BUDGET_BYTES",
    "DEFAULT_MAX_EXCHANGES",
    "DEFAULT_MAX_PROJECTION_CHARS",
    "PLUGIN_NAME",
    "PROJECTION_FAILED",
    "PROJECTION_NOT_TEXT",
    "PROJECTION_REPEATS_USER_TEXT",
    "PROJECTION_TOO_LONG",
    "REVISION_FAILED",
    "STALE_REVISION",
    "STORE_ROW_INVALID",
    "SUMMARY_FAILED",
    "SUMMARY_NOT_TEXT",
    "SUMMARY_TOO_LONG",
    "BoundedContextPlugin",
    "BudgetExceeded",
    "ExchangeWindow",
    "FinishedExchange",
    "MemoryWindowStore",
    "PluginConfigError",
    "Project",
    "Revision",
    "SqliteWindowStore",
    "StoreError",
    "StoredWindow",
    "Summarize",
    "ToolCall",
    "WindowStore",
    "content_dict",
    "default_projection",
    "latest_projection",
    "request_envelope",
]
