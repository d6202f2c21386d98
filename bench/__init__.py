"""Benchmarks of LOCAL Day 15 (request size, per-turn overhead, webhook load). See bench/README.md.

Run one with ``python -m bench.<name>`` from the project root; each writes CSV + PNG under
``out/bench/`` and ends its output with one ``KEY <name>: ...`` line.
"""
