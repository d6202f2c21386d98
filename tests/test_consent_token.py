"""turns/consent.py: the signed consent token."""

from __future__ import annotations

from local_agent.context.journal import ScopeKey
from local_agent.turns.consent import EXPIRED, FORGED, MALFORMED, STALE, ConsentTokens

A = ScopeKey.for_user("U" + "a" * 32, "Udest")
B = ScopeKey.for_user("U" + "b" * 32, "Udest")
NOW = 1_800_000_000.0


def test_a_token_checks_for_its_own_scope_revision_and_time() -> None:
    tokens = ConsentTokens("secret")
    data = tokens.issue(A, agree=True, dietary_type="vegan", revision=3, now=NOW)
    check = tokens.check(A, data, revision=3, now=NOW + 600)
    assert check.ok and (check.agree, check.dietary_type) == (True, "vegan")
    assert A.user_id not in data and len(data) <= 300


def test_each_refusal_has_its_reason() -> None:
    tokens = ConsentTokens("secret")
    data = tokens.issue(A, agree=True, dietary_type="vegan", revision=3, now=NOW)
    assert tokens.check(B, data, revision=3, now=NOW).reason == FORGED  # someone else
    group = ScopeKey("Udest", "group", "C1", A.user_id)
    assert tokens.check(group, data, revision=3, now=NOW).reason == FORGED  # another chat
    assert tokens.check(A, data, revision=4, now=NOW).reason == STALE
    assert tokens.check(A, data, revision=3, now=NOW + 602).reason == EXPIRED
    assert tokens.check(A, data.replace(":vegan:", ":vegetarian:"), revision=3, now=NOW).reason == FORGED
    assert tokens.check(A, data[:-1], revision=3, now=NOW).reason == MALFORMED
    assert tokens.check(A, "local:consent:yes:vegan", revision=3, now=NOW).reason == MALFORMED


def test_the_key_comes_from_the_channel_secret() -> None:
    data = ConsentTokens("secret").issue(A, agree=True, dietary_type="vegan", revision=0, now=NOW)
    assert ConsentTokens("secret").check(A, data, revision=0, now=NOW).ok  # survives a restart
    assert ConsentTokens("other").check(A, data, revision=0, now=NOW).reason == FORGED
    assert ConsentTokens().check(A, data, revision=0, now=NOW).reason == FORGED


def test_the_design_quotes_the_token_form_and_its_key_purpose() -> None:
    from pathlib import Path

    from local_agent.turns import consent

    design = (Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    form = f"{consent.PREFIX}{consent.VERSION}:<yes|no>:<diet>:<revision>:<expires>:<mac>"
    assert form in design and f"`{consent.PURPOSE}`" in design
    data = ConsentTokens("secret").issue(A, agree=True, dietary_type="vegan", revision=0, now=NOW)
    assert data.count(":") == form.count(":")
