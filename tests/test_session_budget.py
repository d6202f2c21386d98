"""SessionBudget.prepare: measure the whole request, trim whole exchanges, then the summary.

pytest-asyncio is not installed: coroutines are driven with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.context.errors import (
    BudgetError,
    BudgetExceeded,
    CounterUnitMismatch,
    InvalidCounterResult,
    LocalError,
)
from local_agent.context.projection import SafeTurn
from local_agent.context.session_budget import (
    MEASURED_BY_BYTES,
    MEASURED_BY_BYTES_BOUND,
    MEASURED_BY_COUNT_TOKENS,
    BudgetResult,
    ByteMeasure,
    BytesBoundMeasure,
    Measurement,
    SessionBudget,
    build_envelope,
    canonical_json,
    render_contents,
)
from local_agent.context.window import ContextSummary, ContextWindow, trim_oldest

SYSTEM = "你是 LOCAL，彰化縣在地生活小幫手。只用工具回答店家與活動。"
TOOLS = [
    {
        "name": "search_local_places",
        "description": "找彰化縣某鄉鎮的店家",
        "parameters": {
            "type": "object",
            "properties": {"area": {"type": "string"}, "keyword": {"type": "string"}},
        },
    },
    {
        "name": "search_local_events",
        "description": "查彰化縣某鄉鎮的活動",
        "parameters": {"type": "object", "properties": {"area": {"type": "string"}}},
    },
]
ENVELOPE = build_envelope(SYSTEM, TOOLS)
CURRENT = "剛才那個鄉鎮，再找一家吃的。"

NON_PUBLIC_USER = "【歷史話題投影，非原句】未指定區域：詢問可用功能。不包含當次素別，不代表同意或服務完成。"
MODEL_MARKER = "【應用端投影，非模型原文】已走過該話題；最新資料與結果仍由本回合工具核對。"


def seed_window() -> ContextWindow:
    window = ContextWindow()
    for turn in (
        SafeTurn.from_tool("search_local_places", "花壇"),
        SafeTurn.from_tool("search_local_events", "花壇"),
        SafeTurn.from_tool("get_parking", "花壇"),
        SafeTurn.from_tool(None, None),
    ):
        window = window.append(turn)
    return window


def two_public_turns_with_summary() -> ContextWindow:
    return ContextWindow(
        (SafeTurn("events", "員林市"), SafeTurn("places", "鹿港鎮")), ContextSummary("places", "花壇鄉")
    )


def prepare(
    budget: SessionBudget, window: ContextWindow, measure=None, current: str = CURRENT
) -> BudgetResult:
    return asyncio.run(budget.prepare(window, current, ENVELOPE, measure or ByteMeasure()))


def size(window: ContextWindow, current: str = CURRENT) -> int:
    return ByteMeasure().sync({**ENVELOPE, "contents": render_contents(window, current)})


def pairs(contents: list[dict]) -> list[tuple[str, str]]:
    out = []
    for item in contents:
        assert len(item["parts"]) == 1
        out.append((item["role"], item["parts"][0]["text"]))
    return out


class FixedMeasure:
    def __init__(self, value: object, unit: str = "bytes") -> None:
        self.value, self.unit, self.calls = value, unit, 0

    async def __call__(self, request):
        self.calls += 1
        return self.value


# -- render ------------------------------------------------------------------------------------------


def test_render_contents_of_seed_turn_five_is_exactly_the_seven_spec_lines():
    assert pairs(render_contents(seed_window(), CURRENT)) == [
        ("user", '【應用端舊話題摘要，不是指令、同意或已完成狀態】{"area": "花壇鄉", "goal": "events"}'),
        ("model", "只作指代線索，新的問句與後端核對優先。"),
        ("user", NON_PUBLIC_USER),
        ("model", MODEL_MARKER),
        ("user", NON_PUBLIC_USER),
        ("model", MODEL_MARKER),
        ("user", "剛才那個鄉鎮，再找一家吃的。"),
    ]


def test_render_contents_of_empty_window_is_the_current_text_alone():
    assert pairs(render_contents(ContextWindow(), "花壇有什麼好吃的")) == [("user", "花壇有什麼好吃的")]


def test_render_contents_without_summary_has_no_summary_pair():
    window = ContextWindow((SafeTurn("places", "花壇鄉"),))
    assert pairs(render_contents(window, "再一家")) == [
        ("user", "【歷史話題投影，非原句】花壇鄉：找店家。不包含當次素別，不代表同意或服務完成。"),
        ("model", MODEL_MARKER),
        ("user", "再一家"),
    ]


# -- measure -----------------------------------------------------------------------------------------


def test_byte_measure_counts_utf8_bytes_of_canonical_json():
    request = {**ENVELOPE, "contents": render_contents(seed_window(), CURRENT)}
    expected = len(canonical_json(request).encode())
    assert asyncio.run(ByteMeasure()(request)) == expected
    assert ByteMeasure().sync(request) == expected
    assert ByteMeasure.unit == "bytes"
    # Chinese counts 3 bytes a character, not 1 and not a \\u escape.
    assert expected > len(canonical_json(request))


def test_canonical_json_sorts_keys_without_spaces_or_escapes():
    assert canonical_json({"b": 1, "a": "花壇"}) == '{"a":"花壇","b":1}'


def test_build_envelope_holds_rules_and_a_copy_of_the_tool_list():
    tools = list(TOOLS)
    envelope = build_envelope(SYSTEM, tools)
    assert envelope == {"system_instruction": SYSTEM, "tools": TOOLS}
    tools.append({"name": "extra"})
    assert len(envelope["tools"]) == 2


# -- prepare: fits -----------------------------------------------------------------------------------


def test_prepare_within_budget_keeps_everything_and_measures_the_whole_request():
    window = seed_window()
    result = prepare(SessionBudget(limit=100_000), window)
    assert result.kept == window
    assert result.request == {**ENVELOPE, "contents": render_contents(window, CURRENT)}
    assert result.contents == result.request["contents"]
    assert result.count == size(window) == len(canonical_json(result.request).encode())
    assert result.counts == (result.count,)
    assert result.unit == "bytes"
    assert result.dropped_turns == 0
    assert result.summary_dropped is False


def test_prepare_never_alters_rules_tools_or_current_question():
    result = prepare(SessionBudget(limit=size(ContextWindow())), two_public_turns_with_summary())
    assert result.request["system_instruction"] == SYSTEM
    assert result.request["tools"] == TOOLS
    assert set(result.request) == {"system_instruction", "tools", "contents"}
    assert pairs(result.contents) == [("user", CURRENT)]


def test_prepare_caps_a_longer_window_to_the_newest_two_exchanges():
    window = ContextWindow((SafeTurn("places", "花壇鄉"), SafeTurn("events", "員林市"), SafeTurn()))
    result = prepare(SessionBudget(limit=100_000), window)
    assert result.kept.turns == (SafeTurn("events", "員林市"), SafeTurn())
    assert result.kept.summary == ContextSummary("places", "花壇鄉")


# -- prepare: degradation order --------------------------------------------------------------------


def _stages() -> tuple[list[ContextWindow], list[int]]:
    stages = [two_public_turns_with_summary()]
    while (nxt := trim_oldest(stages[-1])) is not None:
        stages.append(nxt)
    sizes = [size(w) for w in stages]
    assert len(stages) == 4
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 4, sizes
    return stages, sizes


def test_budget_between_full_and_one_drop_drops_the_oldest_exchange_only():
    stages, sizes = _stages()
    for limit in (sizes[1], (sizes[0] + sizes[1]) // 2, sizes[0] - 1):
        result = prepare(SessionBudget(limit=limit), stages[0])
        assert result.kept == stages[1]
        assert result.kept.turns == (SafeTurn("places", "鹿港鎮"),)
        assert result.counts == (sizes[0], sizes[1])
        assert result.count == sizes[1] <= limit
        assert result.dropped_turns == 1
        assert result.summary_dropped is False


def test_budget_between_one_and_two_drops_drops_both_exchanges_but_keeps_summary():
    stages, sizes = _stages()
    limit = (sizes[1] + sizes[2]) // 2
    result = prepare(SessionBudget(limit=limit), stages[0])
    assert result.kept.turns == ()
    assert not result.kept.summary.is_empty
    assert result.counts == (sizes[0], sizes[1], sizes[2])
    assert result.dropped_turns == 2
    assert result.summary_dropped is False
    texts = [t for _, t in pairs(result.contents)]
    assert texts[0].startswith("【應用端舊話題摘要，不是指令、同意或已完成狀態】")
    assert texts[-1] == CURRENT


def test_budget_below_summary_size_drops_the_summary_last():
    stages, sizes = _stages()
    for limit in (sizes[3], (sizes[2] + sizes[3]) // 2):
        result = prepare(SessionBudget(limit=limit), stages[0])
        assert result.kept == ContextWindow()
        assert result.counts == tuple(sizes)
        assert result.count == sizes[3]
        assert result.dropped_turns == 2
        assert result.summary_dropped is True
        assert pairs(result.contents) == [("user", CURRENT)]


def test_summary_only_window_over_budget_drops_summary():
    window = ContextWindow((), ContextSummary("events", "花壇鄉"))
    result = prepare(SessionBudget(limit=size(ContextWindow())), window)
    assert result.summary_dropped is True
    assert result.dropped_turns == 0
    assert result.kept == ContextWindow()


def test_one_byte_budget_refuses_with_current_and_rules_exceed_input_budget():
    with pytest.raises(BudgetExceeded) as info:
        prepare(SessionBudget(limit=1), seed_window())
    err = info.value
    assert err.code == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET"
    assert isinstance(err, BudgetError) and isinstance(err, LocalError)
    assert err.limit == 1
    assert err.unit == "bytes"
    assert err.count == size(ContextWindow())  # measured on rules + tools + current alone
    assert str(err).startswith("CURRENT_AND_RULES_EXCEED_INPUT_BUDGET")
    assert CURRENT not in str(err) and "剛才" not in str(err)


def test_budget_one_below_minimal_request_refuses_and_exact_minimal_fits():
    minimal = size(ContextWindow())
    with pytest.raises(BudgetExceeded):
        prepare(SessionBudget(limit=minimal - 1), two_public_turns_with_summary())
    assert prepare(SessionBudget(limit=minimal), two_public_turns_with_summary()).count == minimal


# -- prepare: counter contract ---------------------------------------------------------------------


def test_unit_mismatch_bytes_budget_with_token_measure():
    measure = FixedMeasure(10, unit="tokens")
    with pytest.raises(CounterUnitMismatch) as info:
        prepare(SessionBudget(limit=100, unit="bytes"), seed_window(), measure)
    assert info.value.code == "COUNTER_UNIT_MISMATCH"
    assert info.value.expected == "bytes" and info.value.actual == "tokens"
    assert measure.calls == 0


def test_unit_mismatch_token_budget_with_byte_measure():
    with pytest.raises(CounterUnitMismatch) as info:
        prepare(SessionBudget(limit=8192, unit="tokens"), seed_window(), ByteMeasure())
    assert info.value.code == "COUNTER_UNIT_MISMATCH"


def test_measure_without_unit_is_a_unit_mismatch():
    async def bare(request):
        return 1

    with pytest.raises(CounterUnitMismatch) as info:
        prepare(SessionBudget(limit=100), seed_window(), bare)
    assert info.value.actual is None


def test_token_budget_with_token_measure_is_accepted():
    result = prepare(SessionBudget(limit=8192, unit="tokens"), seed_window(), FixedMeasure(42, unit="tokens"))
    assert result.unit == "tokens" and result.count == 42


@pytest.mark.parametrize(
    "value,type_name",
    [(12.0, "float"), (True, "bool"), (False, "bool"), ("12", "str"), (None, "NoneType")],
)
def test_non_int_count_is_an_invalid_counter_result(value, type_name):
    with pytest.raises(InvalidCounterResult) as info:
        prepare(SessionBudget(limit=100), seed_window(), FixedMeasure(value))
    assert info.value.code == "INVALID_COUNTER_RESULT"
    assert info.value.value_type == type_name
    assert info.value.negative is False


def test_negative_count_is_an_invalid_counter_result():
    with pytest.raises(InvalidCounterResult) as info:
        prepare(SessionBudget(limit=100), seed_window(), FixedMeasure(-1))
    assert info.value.code == "INVALID_COUNTER_RESULT"
    assert info.value.negative is True


def test_zero_count_fits_a_zero_budget():
    result = prepare(SessionBudget(limit=0), seed_window(), FixedMeasure(0))
    assert result.count == 0 and result.kept == seed_window()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"limit": -1},
        {"limit": True},
        {"limit": 1.5},
        {"limit": 10, "unit": "chars"},
        {"limit": 10, "max_turns": -1},
    ],
)
def test_session_budget_rejects_bad_configuration(kwargs):
    with pytest.raises(ValueError):
        SessionBudget(**kwargs)


def test_request_is_json_serializable_and_round_trips():
    result = prepare(SessionBudget(limit=100_000), seed_window())
    assert json.loads(canonical_json(result.request)) == result.request


# -- the bytes bound (countTokens only when the byte length cannot show the request fits) ------------


class TokenCounter:
    """A token counter that records its calls: ``per_content`` tokens per content."""

    unit = "tokens"
    measured_by = "countTokens"

    def __init__(self, per_content: int = 100, fail: BaseException | None = None) -> None:
        self.per_content, self.fail, self.calls = per_content, fail, 0

    async def __call__(self, request):
        self.calls += 1
        if self.fail is not None:
            raise self.fail
        return self.per_content * len(request["contents"])


def test_bytes_bound_within_the_limit_answers_without_calling_the_counter():
    counter = TokenCounter()
    limit = size(seed_window())
    measure = BytesBoundMeasure(counter, limit=limit)
    result = prepare(SessionBudget(limit=limit, unit="tokens"), seed_window(), measure)
    assert counter.calls == 0
    assert (result.count, result.unit, result.measured_by) == (limit, "tokens", MEASURED_BY_BYTES_BOUND)
    assert result.measured == (MEASURED_BY_BYTES_BOUND,) and result.dropped_turns == 0


def test_bytes_bound_with_a_factor_below_one_is_the_byte_length_divided_by_it_rounded_up():
    counter = TokenCounter()
    request = {**ENVELOPE, "contents": render_contents(seed_window(), CURRENT)}
    nbytes = size(seed_window())
    measure = BytesBoundMeasure(counter, limit=10 * nbytes, factor=0.3)
    figure = asyncio.run(measure.measured(request))
    assert figure == Measurement(math.ceil(nbytes / 0.3), MEASURED_BY_BYTES_BOUND)
    assert counter.calls == 0


def test_one_byte_above_the_bound_calls_the_counter_and_reports_its_figure():
    counter = TokenCounter(per_content=1)
    limit = size(seed_window()) - 1
    measure = BytesBoundMeasure(counter, limit=limit)
    result = prepare(SessionBudget(limit=limit, unit="tokens"), seed_window(), measure)
    assert counter.calls == 1
    assert (result.count, result.measured_by) == (7, MEASURED_BY_COUNT_TOKENS)


def test_over_the_bound_trimming_works_on_real_counts_oldest_exchange_first():
    counter = TokenCounter(per_content=100)  # seed turn five: 7 contents = 700 tokens
    measure = BytesBoundMeasure(counter, limit=650)
    result = prepare(SessionBudget(limit=650, unit="tokens"), seed_window(), measure)
    assert result.counts == (700, 500) and result.measured == (MEASURED_BY_COUNT_TOKENS,) * 2
    assert (result.dropped_turns, result.summary_dropped, result.count) == (1, False, 500)
    assert counter.calls == 2


def test_over_the_bound_when_nothing_fits_it_refuses_without_a_result():
    counter = TokenCounter(per_content=100)
    with pytest.raises(BudgetExceeded) as info:
        prepare(SessionBudget(limit=50, unit="tokens"), seed_window(), BytesBoundMeasure(counter, limit=50))
    assert info.value.code == "CURRENT_AND_RULES_EXCEED_INPUT_BUDGET" and info.value.count == 100
    assert counter.calls == 4  # two exchanges, then the summary, then rules + question alone


def test_factor_zero_counts_every_request():
    counter = TokenCounter(per_content=1)
    measure = BytesBoundMeasure(counter, limit=10**9, factor=0)
    result = prepare(SessionBudget(limit=10**9, unit="tokens"), seed_window(), measure)
    assert counter.calls == 1 and result.measured_by == MEASURED_BY_COUNT_TOKENS


def test_a_counter_that_fails_propagates_and_nothing_is_prepared():
    counter = TokenCounter(fail=TimeoutError())
    measure = BytesBoundMeasure(counter, limit=10)
    with pytest.raises(TimeoutError):
        prepare(SessionBudget(limit=10, unit="tokens"), seed_window(), measure)
    assert counter.calls == 1


@pytest.mark.parametrize("factor", [1.0001, 2, -0.1, float("nan"), float("inf"), True, "1"])
def test_a_factor_outside_zero_to_one_is_refused(factor):
    with pytest.raises(ValueError):
        BytesBoundMeasure(TokenCounter(), limit=8192, factor=factor)


def test_the_bound_wraps_only_a_token_measure_and_needs_a_non_negative_int_limit():
    with pytest.raises(ValueError):
        BytesBoundMeasure(ByteMeasure(), limit=8192)
    for limit in (-1, 1.5, None):
        with pytest.raises(ValueError):
            BytesBoundMeasure(TokenCounter(), limit=limit)


def test_plain_measures_report_how_they_measured():
    result = prepare(SessionBudget(limit=10**6), seed_window())
    assert result.measured_by == MEASURED_BY_BYTES and result.measured == (MEASURED_BY_BYTES,)
    result = prepare(SessionBudget(limit=10**6, unit="tokens"), seed_window(), TokenCounter(per_content=1))
    assert result.measured_by == MEASURED_BY_COUNT_TOKENS


@settings(max_examples=60, deadline=None)
@given(
    current=st.text(min_size=1, max_size=400),
    limit=st.integers(min_value=0, max_value=6000),
    factor=st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0]),
)
def test_the_bound_is_never_below_the_byte_length_and_the_counter_runs_exactly_when_it_exceeds_the_limit(
    current, limit, factor
):
    counter = TokenCounter(per_content=1)
    measure = BytesBoundMeasure(counter, limit=limit, factor=factor)
    request = {**ENVELOPE, "contents": render_contents(seed_window(), current)}
    nbytes = size(seed_window(), current)
    figure = asyncio.run(measure.measured(request))
    skipped = factor > 0 and math.ceil(nbytes / factor) <= limit
    assert counter.calls == (0 if skipped else 1)
    if skipped:
        assert figure.measured_by == MEASURED_BY_BYTES_BOUND and nbytes <= figure.count <= limit
    else:
        assert figure == Measurement(7, MEASURED_BY_COUNT_TOKENS)
