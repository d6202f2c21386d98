"""The production ASGI app: ``uvicorn local_agent.app:app`` (``examples.day15.main:app`` re-exports it).

The app is built on first access, not at import, so importing this module never reads settings. A
setting that is missing or not valid ends the process there with exit status 2 and one line per
problem on stderr (``settings.exit_on_settings_error``), not a traceback.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "app":
        from local_agent.line.webhook import create_app
        from local_agent.settings import SettingsError, exit_on_settings_error

        try:
            app = create_app()
        except SettingsError as exc:
            exit_on_settings_error(exc, "LOCAL")
        globals()["app"] = app
        return app
    raise AttributeError(name)
