"""The ASGI entry: ``uvicorn examples.day15.main:app``, the package's ``local_agent.app:app``.

Settings come from the environment, read when ``app`` is first accessed, never at import.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "app":
        from local_agent import app as production

        app = production.app
        globals()["app"] = app
        return app
    raise AttributeError(name)
