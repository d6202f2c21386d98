"""The one canonical JSON form: what the bytes measure counts and what the stores persist.

Sorted keys, no spaces, UTF-8 as is (no ``\\u`` escapes), so a figure in bytes is the same
wherever it is computed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def canonical_json(value: Mapping[str, Any]) -> str:
    """Sorted keys, no spaces, non-ASCII kept as is."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def canonical_size(value: Mapping[str, Any]) -> int:
    """UTF-8 byte length of ``canonical_json(value)``."""
    return len(canonical_json(value).encode("utf-8"))
