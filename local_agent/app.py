"""The production ASGI app: ``uvicorn local_agent.app:app`` (``examples.day15.main:app`` re-exports it).

The app is built on first access, not at import, so importing this module never reads settings.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "app":
        from local_agent.line.webhook import create_app

        app = create_app()
        globals()["app"] = app
        return app
    raise AttributeError(name)
