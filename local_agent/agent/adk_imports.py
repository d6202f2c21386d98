"""ADK retries an optional import on every turn; this makes the miss cost nothing.

ADK 2.13's ``workflow.utils.build_node`` (run for the agent on every ``Runner.run_async``) runs
``from google.adk.agents.remote_a2a_agent import RemoteA2aAgent`` inside ``try/except ImportError``.
Without the ``a2a-sdk`` extra (LOCAL does not use A2A) that module and the ``google.adk.a2a``
module it re-exports load their bytecode, fail at the first ``a2a`` import and are removed from
``sys.modules`` again, so the next turn loads both again (ADK 2.9.1 did this twice per turn, in
``Runner.run_async`` too; 2.13 once). ``bench.turn_overhead`` reports what the miss costs a bare
ADK turn.

Python's import system treats ``None`` in ``sys.modules`` as "this module cannot be imported"
and raises ``ModuleNotFoundError`` (an ``ImportError``) at once, which is exactly what ADK
already catches. ``skip_missing_a2a`` records that, once per process, only when the ``a2a``
package is really absent, so an installation that does have the extra is left alone.
"""

from __future__ import annotations

import importlib.util
import sys

A2A_AGENT_MODULE = "google.adk.agents.remote_a2a_agent"
A2A_PACKAGE = "a2a"


def skip_missing_a2a() -> bool:
    """Mark ADK's A2A agent module as unimportable when ``a2a`` is not installed.

    Returns whether the module is now marked (also when it already was)."""
    if sys.modules.get(A2A_AGENT_MODULE, False) is None:
        return True
    if A2A_AGENT_MODULE in sys.modules or importlib.util.find_spec(A2A_PACKAGE) is not None:
        return False  # already imported, or importable: nothing is retried
    sys.modules[A2A_AGENT_MODULE] = None  # type: ignore[assignment]  # None: "cannot be imported"
    return True


__all__ = ["A2A_AGENT_MODULE", "skip_missing_a2a"]
