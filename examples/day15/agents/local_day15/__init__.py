"""LOCAL's production agent as an ADK agent package: ``adk run``, ``adk web`` and ``adk eval`` load
``root_agent`` from ``agent.py`` (ADK's own convention)."""

from . import agent

__all__ = ["agent"]
