"""ADK agent packages: ``adk web examples/day15/agents`` lists each folder with an ``agent.py``."""
