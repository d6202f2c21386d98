"""Admission: bounds derived from measured turns, per-scope fairness, close, exact lost count."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.server.admission import Admission


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make(clock: Clock | None = None, **overrides: float) -> Admission:
    options: dict = dict(
        concurrency=4, drain_seconds=6.0, ceiling=2000, per_scope_ceiling=10, turn_estimate=1.0
    )
    options.update(overrides)
    return Admission(**options, clock=clock or Clock())


def test_before_any_measurement_the_bound_assumes_concurrent_turns_overlap() -> None:
    admission = make()
    assert admission.limits() == (24, 6)  # 6 s x 4 turns at once / 1 s ; 6 s / 1 s per turn of one chat
    assert make(turn_estimate=3.0).limits() == (8, 2)
    assert make(turn_estimate=30.0).limits() == (4, 1)  # never below concurrency


def test_with_the_inbox_the_bound_is_the_memory_ceiling_and_a_cold_burst_gets_in() -> None:
    admission = make(durable=True, ceiling=600, turn_estimate=30.0)
    assert admission.limits() == (600, 10)
    # a township office's broadcast: 100 people x 5 messages within a second, on a fresh process
    for person in range(100):
        for _ in range(5):
            assert admission.admit([f"chat{person}"]) is None
    assert admission.pending == 500 and admission.rejected == 0
    assert admission.room() == 100
    # per-chat fairness still holds: one chat flooding beyond its share is refused
    for _ in range(5):
        assert admission.admit(["chat0"]) is None
    assert admission.admit(["chat0"]) == "scope busy"
    assert admission.admit(["late"] * 95) is None
    assert admission.admit(["later"]) == "busy"  # the hard ceiling


def test_resumed_events_take_their_places_by_force_and_still_balance() -> None:
    admission = make(durable=True, ceiling=3)
    assert admission.admit(["a", "b", "c"]) is None
    assert admission.admit(["d"]) == "busy"
    assert admission.admit(["d", "d"], force=True) is None
    assert admission.pending == 5 and admission.room() == 0
    for scope in ("a", "b", "c", "d", "d"):
        admission.finish(scope, 0.1)
    assert admission.pending == 0 and admission.lost == 0 and admission.accepted == 5


def test_the_global_bound_follows_the_measured_busy_rate_not_a_fixed_number() -> None:
    clock = Clock()
    admission = make(clock)
    scopes = [f"s{i}" for i in range(20)]
    assert admission.admit(scopes) is None
    for scope in scopes:  # 20 turns finish 0.5 s apart while work is queued: 2 turns/s
        clock.now += 0.5
        admission.finish(scope, 2.0)
    total, per_scope = admission.limits()
    assert total == 12  # 6 s x 2 turns/s
    assert per_scope == 3  # 6 s / 2 s p90


def test_the_bound_never_falls_below_concurrency_and_never_exceeds_the_ceiling() -> None:
    clock = Clock()
    slow = make(clock, turn_estimate=100.0)
    assert slow.limits()[0] == 4
    assert slow.limits()[1] == 1
    fast = make(turn_estimate=0.01, ceiling=50)
    assert fast.limits()[0] == 50


def test_a_full_backlog_refuses_the_whole_body_and_counts_it() -> None:
    admission = make(turn_estimate=6.0)  # bound: max(4, 6 / 6) = 4
    assert admission.admit(["a", "b", "c"]) is None
    assert admission.admit(["d", "e"]) == "busy"
    assert admission.pending == 3 and admission.rejected == 2
    assert admission.admit(["d"]) is None


def test_one_flooding_chat_is_refused_while_others_still_get_in() -> None:
    admission = make(per_scope_ceiling=3)
    for _ in range(3):
        assert admission.admit(["flood"]) is None
    assert admission.admit(["flood"]) == "scope busy"
    assert admission.admit(["other"]) is None
    assert admission.admit(["other", "flood"]) == "scope busy"  # a body is judged whole
    admission.finish("flood", 0.1)
    assert admission.admit(["flood"]) is None


def test_a_body_larger_than_a_bound_is_still_accepted_when_nothing_is_pending() -> None:
    admission = make(per_scope_ceiling=2, turn_estimate=6.0)
    assert admission.admit(["a"] * 8) is None  # refused forever otherwise: LINE would give up on it
    assert admission.admit(["b"]) == "busy"


def test_after_close_everything_is_refused() -> None:
    admission = make()
    admission.close()
    assert admission.admit(["a"]) == "shutting down"
    assert admission.accepted == 0


def test_lost_counts_accepted_turns_that_did_not_finish_even_after_they_were_cancelled() -> None:
    admission = make()
    assert admission.admit(["a", "a", "b"]) is None
    admission.finish("a", 0.1)
    admission.abandon("a")  # cancelled by the drain's deadline
    admission.abandon("b")
    assert admission.pending == 0
    assert admission.lost == 2


def test_release_gives_back_a_place_that_was_never_handed_over() -> None:
    admission = make()
    assert admission.admit(["a", "b"]) is None
    admission.release("b")
    assert admission.pending == 1 and admission.accepted == 1 and admission.lost == 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["admit", "finish", "abandon"]), st.lists(st.sampled_from("abc"), max_size=4)
        ),
        max_size=60,
    )
)
def test_counts_always_balance(steps: list[tuple[str, list[str]]]) -> None:
    clock = Clock()
    admission = make(clock, per_scope_ceiling=3, turn_estimate=2.0)
    held: list[str] = []
    abandoned = 0
    for action, scopes in steps:
        clock.now += 0.25
        if action == "admit" and scopes:
            if admission.admit(scopes) is None:
                held.extend(scopes)
        elif held:
            scope = held.pop(0)
            if action == "finish":
                admission.finish(scope, 0.5)
            else:
                admission.abandon(scope)
                abandoned += 1
        assert admission.pending == len(held)
        assert admission.accepted == admission.finished + abandoned + len(held)
        assert admission.lost == abandoned + len(held)
        assert admission.report()["pending"] == len(held)
