"""The ASGI entry: ``uvicorn examples.day15.main:app``. Settings come from the environment."""

from __future__ import annotations

from local_agent.line.webhook import create_app


def __getattr__(name: str):
    # Build the app on first access, not at import, so importing this module never reads settings.
    if name == "app":
        global app
        app = create_app()
        return app
    raise AttributeError(name)
