"""A small ADK agent that is not LOCAL (weather over a local table), with and without the plugin."""
