"""Day 15: the bounded context layer, shown offline.

``python3 -m examples.day15.demo --out out/day15/first-run`` runs the contract checks, the spec's
five-turn conversation, a 50-turn sweep, the 1-byte budget refusal and the revocation drill on a
bare Python 3.11 (standard library only). See ``examples/day15/README.md``.
"""
