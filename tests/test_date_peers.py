"""The date reader against two public peers' cases that ``bench.date_corpus`` does not hold (Duckling's
corpus read at day level, JioNLP's time-parser tests): at or above the floor reached, no WRONG that is
not justified, every past case said to be past, and the licences beside the data."""

from __future__ import annotations

import json

from bench import date_corpus, date_peers


def test_each_peer_is_at_or_above_the_floor_with_no_unjustified_wrong():
    for peer in date_peers.PEERS:
        results = date_peers.run(peer)
        wrong = [
            (c.case.text, s.read)
            for c, s in results
            if s.score == "WRONG" and c.case.text not in date_peers.JUSTIFIED
        ]
        assert wrong == [], peer
        assert date_peers.share(results) >= date_peers.FLOOR, (
            peer,
            date_corpus.counts([s for _, s in results]),
        )


def test_every_past_case_is_said_to_be_past():
    for peer in date_peers.PEERS:
        past = [(c, s) for c, s in date_peers.run(peer) if c.case.expect == "past"]
        assert past and all(s.score == "EXACT" for _, s in past), [
            (c.case.text, s.read) for c, s in past if s.score != "EXACT"
        ]


def test_the_cases_are_new_carry_their_day_and_their_licences_sit_beside_them():
    held = {c.text for c in date_corpus.load()}
    for peer, path in date_peers.PEERS.items():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert (
            rows and not {r["text"] for r in rows} & held and all(r["today"] and r["peer"] for r in rows)
        ), peer
        # a Taiwan expectation that differs from the peer's says so beside the case
        assert all(
            r.get("note")
            for r in rows
            if r["expect"] == "window" and r["peer"].endswith("(ret_future)") is False and "note" in r
        )
    assert "BSD License" in (date_corpus.CORPUS.parent / "DUCKLING_LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in (date_corpus.CORPUS.parent / "JIONLP_LICENSE").read_text(encoding="utf-8")


def test_the_benchmark_prints_each_peer(tmp_path, capsys):
    assert date_peers.main(["--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "KEY date_peers duckling: cases=" in out and "KEY date_peers jionlp: cases=" in out
