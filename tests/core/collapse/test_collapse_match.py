"""Rule matching: exact kind, string attribute, case-sensitive whole-string fnmatch."""

from __future__ import annotations

from perfline.core.collapse_match import entity_matches, select_candidates
from perfline.core.collapse_rules import NX_FRAMEWORK_FRAMES, CollapseRule
from tests.support.documents import entity


def stack(file: object, kind: str = "code_stack") -> dict[str, object]:
    return entity("s", kind, attributes={"file": file, "line": 1})


def test_double_star_needs_the_literal_directory_with_a_leading_slash() -> None:
    rules = [NX_FRAMEWORK_FRAMES]
    assert entity_matches(stack("/v/lib/site-packages/torch/nn/conv.py"), rules)
    assert entity_matches(stack("C:/py/site-packages/executorch/exir/x.py"), rules)
    assert not entity_matches(stack("site-packages/torch/x.py"), rules)
    assert not entity_matches(stack("/v/site-packages/torchvision/x.py"), rules)


def test_star_crosses_slashes_and_matching_is_case_sensitive() -> None:
    rule = [CollapseRule("code_stack", "file", ("/a*.py",))]
    assert entity_matches(stack("/a/b/c.py"), rule)
    assert not entity_matches(stack("/A/b/c.py"), rule)
    assert not entity_matches(stack("/a/b/c.pyc"), rule)


def test_question_mark_and_sequences() -> None:
    rule = [CollapseRule("code_stack", "file", ("f?.[ch]",))]
    assert entity_matches(stack("f1.c"), rule)
    assert entity_matches(stack("fx.h"), rule)
    assert not entity_matches(stack("f12.c"), rule)
    assert not entity_matches(stack("f1.py"), rule)


def test_kind_must_match_exactly_and_value_must_be_a_string() -> None:
    rule = [CollapseRule("code_stack", "file", ("*",))]
    assert not entity_matches(stack("/x.py", kind="code_line"), rule)
    assert not entity_matches(stack(None), rule)
    assert not entity_matches(stack(["/x.py"]), rule)
    assert not entity_matches(entity("s", "code_stack"), rule)
    assert entity_matches(stack(""), rule)


def test_any_glob_of_any_rule_selects_and_candidates_are_sorted() -> None:
    rules = [
        CollapseRule("nn_module", "type", ("torch.nn.*",)),
        CollapseRule("code_stack", "file", ("/nope", "/x*")),
    ]
    entities = [
        entity("z", "nn_module", attributes={"type": "torch.nn.Conv2d"}),
        entity("b", "code_stack", attributes={"file": "/x.py"}),
        entity("a", "nn_module", attributes={"type": "proj.Block"}),
        entity("c", "code_stack", attributes={"file": "/y.py"}),
    ]
    assert select_candidates(entities, rules) == ["b", "z"]
    assert select_candidates(entities, []) == []
