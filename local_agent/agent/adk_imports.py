"""ADK 2.9.1 retries an optional import on every turn; this makes the miss cost nothing.

``Runner.run_async`` and ``workflow.utils.build_node`` each run
``from google.adk.agents.remote_a2a_agent import RemoteA2aAgent`` inside ``try/except ImportError``
on every call. Without the ``a2a-sdk`` extra (LOCAL does not use A2A) that module loads its
bytecode, fails at its first ``a2a`` import and is removed from ``sys.modules`` again, so the
next call loads it again: two failed imports per turn, 0.7 ms each on the benchmark machine,
about a third of a bare ADK turn.

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
