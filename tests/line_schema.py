"""Validate bodies LOCAL sends to LINE against LINE's own OpenAPI description (tests/data/line-openapi).

``check(name, instance)`` raises ``jsonschema.ValidationError`` when ``instance`` does not conform to
``components/schemas/<name>``. The OpenAPI ``discriminator`` is honoured: where a schema is
polymorphic (``Message``, ``FlexComponent``, ``FlexContainer``, ``Action``...), the instance is also
validated against the schema its ``type`` maps to, so a button's URI action is checked as a
``URIAction`` and a bubble's texts as ``FlexText``. An unknown ``type`` is an error.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from jsonschema import validators

SCHEMA_FILE = Path(__file__).parent / "data" / "line-openapi" / "messaging-api.yml"
_IN_PROGRESS: set[tuple[int, str]] = set()  # (instance, target) pairs being checked right now


def _discriminator(
    validator: Any, discriminator: dict, instance: Any, schema: dict
) -> Iterator[jsonschema.ValidationError]:
    if not isinstance(instance, dict):
        return
    prop = discriminator.get("propertyName")
    mapping = discriminator.get("mapping") or {}
    value = instance.get(prop)
    if value not in mapping:
        yield jsonschema.ValidationError(f"{prop}={value!r} is not one of {sorted(mapping)}")
        return
    target = mapping[value]
    key = (id(instance), target)
    if key in _IN_PROGRESS:
        return  # the target's allOf refers back to this base schema: already being checked
    _IN_PROGRESS.add(key)
    try:
        yield from validator.descend(instance, {"$ref": target})
    finally:
        _IN_PROGRESS.discard(key)


def _format_checker() -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker()

    @checker.checks("uri", raises=ValueError)
    def _uri(value: object) -> bool:
        if not isinstance(value, str):
            return True
        scheme, sep, rest = value.partition(":")
        return bool(sep and scheme and rest and scheme.isascii() and " " not in value and value.isascii())

    return checker


@functools.cache
def _document() -> dict:
    with SCHEMA_FILE.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@functools.cache
def _validator_class() -> Any:
    base = validators.Draft7Validator
    return validators.extend(base, {"discriminator": _discriminator})


def validator_for(name: str) -> Any:
    document = _document()
    if name not in document["components"]["schemas"]:
        raise KeyError(f"no schema {name!r} in {SCHEMA_FILE.name}")
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    return _validator_class()(schema, format_checker=_format_checker())


def check(name: str, instance: Any) -> None:
    """Raise the first error of ``instance`` against ``components/schemas/<name>``."""
    validator = validator_for(name)
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    if error is not None:
        raise error


def check_messages(messages: list[dict]) -> None:
    """Each message object of a reply or push body, as a ``Message`` (its type's schema)."""
    for message in messages:
        check("Message", message)
