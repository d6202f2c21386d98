"""The rule table: every rule's own examples (quick), and a malformed entry refused."""

from __future__ import annotations

import pytest

from local_agent.language import lexicon, rules
from local_agent.language.rules import Rule, RuleError


@pytest.mark.parametrize("rule", rules.TABLE, ids=lambda r: r.name)
def test_every_rule_reads_its_own_examples_and_not_the_others(rule: Rule) -> None:
    missed = [s for s in rule.matches if not rules.reads(rule, s)]
    wrong = [s for s in rule.not_matches if rules.reads(rule, s)]
    assert (missed, wrong) == ([], []), f"{rule.name}: not read {missed}, read by mistake {wrong}"


def _rule(**changes: object) -> Rule:
    base = dict(
        name="x",
        pattern=("delete_verb",),
        reading="delete",
        priority=1,
        matches=("刪掉",),
        not_matches=("好",),
    )
    base.update(changes)
    return Rule(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"matches": ()}, "needs sentences"),
        ({"not_matches": ()}, "needs sentences"),
        ({"pattern": ("delete_verbs",)}, "unknown classes ['delete_verbs']"),
        ({"needs": ("nope",)}, "unknown classes ['nope']"),
        ({"without": ("negation|nope",)}, "unknown classes"),
        ({"pattern": ()}, "no pattern"),
    ],
)
def test_a_malformed_rule_is_refused_by_name(changes: dict[str, object], says: str) -> None:
    with pytest.raises(RuleError, match=says.replace("[", r"\[").replace("]", r"\]")):
        rules.validate([_rule(**changes)])


def test_two_rules_of_one_name_are_refused() -> None:
    with pytest.raises(RuleError, match="named twice"):
        rules.validate([_rule(), _rule()])


def test_the_shipped_table_is_valid_and_ordered_by_priority() -> None:
    assert rules.validate(rules.RULES) == rules.RULES
    assert [r.priority for r in rules.TABLE] == sorted((r.priority for r in rules.TABLE), reverse=True)


def test_the_lexicon_interface() -> None:
    assert {"delete_verb", "stop_verb", "remember_verb", "apply_verb", "show_verb", "memory_object"} <= set(
        lexicon.WORD_CLASSES
    )
    assert {"diet", "negation", "question", "aspect", "third_person"} <= set(lexicon.WORD_CLASSES)
    deletes = lexicon.words_of("delete_verb")
    assert {"刪除", "刪掉", "忘記", "清空", "歸零", "取消", "移除", "丟掉", "撤掉"} <= set(deletes)
    assert [len(w) for w in deletes] == sorted((len(w) for w in deletes), reverse=True)
    assert "除開" not in deletes and "exclusion" in lexicon.classes_of("除開")
    assert {"素", "吃素", "全素", "蛋奶素", "五辛素", "鍋邊素", "不吃牛", "食菜"} <= set(
        lexicon.words_of("diet")
    )
    assert lexicon.classes_of("套用") >= {"remember_verb", "apply_verb"}
    assert lexicon.classes_of("沒聽過的字") == frozenset()
    with pytest.raises(lexicon.LexiconError):
        lexicon.words_of("delete_verbs")


def test_tokens_take_the_longest_word_at_each_position() -> None:
    found = [(t.word, t.start) for t in lexicon.tokens("不要再用素食篩選了")]
    assert found[0] == ("不要再用", 0) and ("素食", 4) in found and ("篩選", 6) in found


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"words": {"刪掉": ["delete_verbs"]}}', "unknown classes"),
        ('{"words": {"刪掉": []}}', "non-empty list"),
        ('{"word": {}}', "no 'words' object"),
        ("{not json", "not readable as JSON"),
        ('{"lists": {"x": ""}, "words": {}}', "'lists' maps"),  # a list class needs its meaning
        ('{"lists": {"x": "a list"}, "words": {}}', "no word"),  # and a word
        ('{"maps": [], "words": {}}', "'maps' names each map"),
        ('{"maps": {"m": {"pairs": [["a", "b"]]}}, "words": {}}', "map 'm' needs an 'about'"),
        ('{"maps": {"m": {"about": "x", "pairs": [["a"]]}}, "words": {}}', "map 'm' needs"),
        (
            '{"maps": {"m": {"about": "x", "pairs": [["a", "b"], ["a", "c"]]}}, "words": {}}',
            "maps a word twice",
        ),
    ],
)
def test_a_malformed_lexicon_file_is_refused_by_word(tmp_path, text: str, says: str) -> None:
    path = tmp_path / "lexicon.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(lexicon.LexiconError, match=says):
        lexicon.load(path)


def test_the_shipped_lexicon_loads_and_every_word_has_known_classes() -> None:
    table = lexicon.load(lexicon.DATA)
    known = {*lexicon.WORD_CLASSES, *lexicon.list_meanings()}
    assert len(table) > 1000 and all(classes <= known for classes in table.values())
    assert set(lexicon.list_meanings()).isdisjoint(lexicon.WORD_CLASSES)


def test_a_list_word_is_never_a_token_and_hides_no_rule_word() -> None:
    # 幫我 is a list word (a request lead); 幫我忘記 a delete verb. A list word in front of a rule word
    # leaves the rule word whole, and a token carries rule classes only.
    assert "request_leads" in lexicon.classes_of("幫我")
    found = lexicon.tokens("拜託幫我刪掉吃素")
    assert [t.word for t in found] == ["刪掉", "吃素"]
    assert all(t.classes <= set(lexicon.WORD_CLASSES) for t in found)
    assert lexicon.words_of("request_leads")[0] in ("請你", "請您", "幫我", "麻煩", "拜託", "幫忙")


def test_each_word_list_of_the_code_is_a_view_of_the_lexicon() -> None:
    # The tables of words.py and the text gate's words are the lexicon's list classes, not lists of
    # their own: a word is added in one file.
    import ast
    from pathlib import Path

    from local_agent.agent import gate_words
    from local_agent.language import words

    for module in (words, gate_words):
        tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
        literal = [
            (node.target if isinstance(node, ast.AnnAssign) else node.targets[0]).id  # type: ignore[union-attr]
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            and isinstance(node.value, ast.Tuple)
            and node.value.elts
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts)
        ]
        own = [name for name in literal if not name.endswith("_PATTERNS") and name != "REMEMBERABLE"]
        assert own == [], f"{module.__name__} keeps word lists of its own: {own}"
        # nor tables of words (a dict of words, pairs of words): those are the lexicon's maps
        tables = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) for k in node.keys)
        ]
        tables += [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Tuple)
            and any(
                isinstance(e, ast.Tuple) and all(isinstance(x, ast.Constant) for x in e.elts)
                for e in node.elts
            )
        ]
        assert tables == [], f"{module.__name__} keeps word tables at lines {[t.lineno for t in tables]}"
    assert lexicon.pairs_of("taiwanese")[0] == ("阮兜", "我家") and words.TAIWANESE == lexicon.pairs_of(
        "taiwanese"
    )
    with pytest.raises(lexicon.LexiconError):
        lexicon.pairs_of("no_such_map")
