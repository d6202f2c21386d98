"""The lexicon's tokens are found one first character at a time (``lexicon._words_in``): the same words
at the same places as one pattern of every rule word (``lexicon._any_word``) finds them."""

from __future__ import annotations

import random

from local_agent.language import lexicon


def _samples() -> list[str]:
    rng = random.Random(3)
    words = sorted(lexicon._rule_words())
    pieces = [*words, *"我你的了嗎,? 12abc"]
    joined = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(3000)]
    # (words cut short or run together: a word's start where another one ends, a longer one not quite there)
    cut = [
        "".join(rng.choice(words)[rng.randint(0, 1) :] for _ in range(rng.randint(2, 6))) for _ in range(3000)
    ]
    return joined + cut


def test_words_found_one_first_character_at_a_time_are_those_of_one_pattern() -> None:
    for text in _samples():
        expected = [(m.group(), m.start()) for m in lexicon._any_word().finditer(text)]
        assert lexicon._words_in(text) == expected, text
