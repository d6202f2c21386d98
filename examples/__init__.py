"""Runnable examples of LOCAL. Each day's example lives in its own subpackage (``examples.day15``)."""
