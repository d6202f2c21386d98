"""LOCAL: a LINE Official Account for Changhua County residents (Day 15: bounded context).

Importing this package pulls in no third-party module; the ADK and LINE sides import theirs
in their own modules, so the offline demo runs on a bare Python.
"""

__version__ = "0.15.0"
