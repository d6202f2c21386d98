"""The date reader against Duckling's Chinese day-level future cases (``bench/data/duckling_zh_dates.jsonl``,
run at Duckling's reference day): no case read as a disjoint window, and EXACT never below the figure
reached. ``python -m bench.date_corpus --show`` prints the four counts and every case not EXACT."""

from __future__ import annotations

from datetime import date

from bench import date_corpus


def test_the_corpus_is_the_duckling_cases_with_its_licence_beside_it():
    cases = date_corpus.load()
    assert len(cases) == 146 and len({c.text for c in cases}) == len(cases)
    licence = (date_corpus.CORPUS.parent / "DUCKLING_LICENSE").read_text(encoding="utf-8")
    assert "Copyright (c) 2016-present, Facebook, Inc." in licence and "BSD License" in licence
    assert date_corpus.REFERENCE_DAY == date(2013, 2, 12) and date_corpus.REFERENCE_DAY.weekday() == 1
    # every case whose expectation is Taiwan's (or ours) rather than the corpus's says so beside it
    assert all(c.note for c in cases if c.expect == "past")


def test_no_case_is_wrong_and_exact_does_not_drop():
    results = date_corpus.run()
    found = date_corpus.counts(results)
    wrong = [(r.case.text, r.read) for r in results if r.score == "WRONG"]
    assert wrong == []
    assert found["EXACT"] >= date_corpus.EXACT_FLOOR, found
    assert sum(found.values()) == len(results)


def test_the_scores_mean_what_they_say():
    exact = date_corpus.Case("明天", "window", date(2013, 2, 13), date(2013, 2, 13), "")
    overlap = date_corpus.Case("下禮拜", "window", date(2013, 2, 20), date(2013, 2, 28), "")
    wrong = date_corpus.Case("明天", "window", date(2013, 3, 1), date(2013, 3, 1), "")
    none = date_corpus.Case("你好", "window", date(2013, 3, 1), date(2013, 3, 1), "")
    past = date_corpus.Case("這週一", "past", None, None, "Taiwan: yesterday")
    scored = [date_corpus.score(c).score for c in (exact, overlap, wrong, none, past)]
    assert scored == ["EXACT", "OVERLAP", "WRONG", "NONE", "EXACT"]


def test_the_benchmark_prints_the_four_counts(tmp_path, capsys):
    assert date_corpus.main(["--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "KEY date_corpus: cases=146; exact=" in out and (tmp_path / "date_corpus.csv").is_file()
