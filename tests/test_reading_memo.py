"""The memo of one reading: each pure question asked of a text once per ``language.read``, and nothing
of the message kept after it (``language/memo.py``)."""

from __future__ import annotations

import threading

from local_agent import language
from local_agent.language import memo, text


def test_a_memoised_function_runs_once_per_text_within_a_reading_and_every_time_outside() -> None:
    calls: list[str] = []

    @memo.memoised
    def length(t: str) -> int:
        calls.append(t)
        return len(t)

    assert (length("員林"), length("員林")) == (2, 2) and calls == ["員林", "員林"]
    calls.clear()
    with memo.one_reading():
        assert [length("員林"), length("員林"), length("鹿港鎮")] == [2, 2, 3]
        with memo.one_reading():  # nested: the outer reading's memo
            length("員林")
    assert calls == ["員林", "鹿港鎮"]
    length("員林")
    assert calls == ["員林", "鹿港鎮", "員林"]  # the reading ended: asked again


def test_nothing_of_a_message_outlives_its_reading() -> None:
    said = "我阿姨只吃蛋奶素，二林明天有什麼活動"
    language.read(said, 1_796_000_000.0)
    assert memo._MEMO.get() is None
    held = [w for w, _ in text._FINDERS.values()]
    assert all(said not in "".join(words) for words in held)  # only the modules' word lists


def test_each_thread_reads_with_its_own_memo() -> None:
    seen: dict[str, object] = {}

    def reader(name: str) -> None:
        with memo.one_reading():
            seen[name] = memo._MEMO.get()

    threads = [threading.Thread(target=reader, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["a"] is not seen["b"] and memo._MEMO.get() is None


def test_a_reading_inside_a_reading_gives_the_same_utterance() -> None:
    with memo.one_reading():
        inside = language.read("鹿港這週末有什麼活動", 1_796_000_000.0)
    assert inside == language.read("鹿港這週末有什麼活動", 1_796_000_000.0)
