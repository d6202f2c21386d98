"""The production ASGI app: ``uvicorn local_agent.app:app`` (``examples.day15.main:app`` re-exports it).

The app is built on first access, not at import, so importing this module never reads settings. A
setting that is missing or not valid ends the process there with exit status 2 and one line per
problem on stderr (``settings.exit_on_settings_error``), not a traceback; so does a listings folder
the service would refuse (``listings.problems.exit_on_listings_error``), checked here before the
server starts rather than inside its lifespan.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "app":
        from local_agent.listings.loader import listings_from
        from local_agent.listings.problems import ListingsError, exit_on_listings_error
        from local_agent.server.app import create_app
        from local_agent.settings import SettingsError, exit_on_settings_error, load_settings

        try:
            settings = load_settings()
            listings_from(settings.local_listings_dir)
            app = create_app(settings)
        except SettingsError as exc:
            exit_on_settings_error(exc, "LOCAL")
        except ListingsError as exc:
            exit_on_listings_error(exc, "LOCAL")
        globals()["app"] = app
        return app
    raise AttributeError(name)
