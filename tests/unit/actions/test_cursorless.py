"""Tether's actions against Cursorless's own Python fixtures (tests/data/cursorless, converted by
scripts/cursorless_fixtures.py): the share of cases giving Cursorless's exact final text must not fall, and
every difference carries a judgement of which behaviour is better (``--report`` prints them all)."""

from __future__ import annotations

import json
import subprocess
from functools import cache

import pytest
import yaml

from scripts import cursorless_fixtures as fixtures

#: Measured: 149 of the 180 cases where Tether has a member for the target give Cursorless's exact text.
EXACT = 149
MEASURED = 180


@cache
def results() -> list[tuple[fixtures.Case, str, str]]:
    return fixtures.verdicts(fixtures.load_cases())


def _listed(rows: list[tuple[fixtures.Case, str, str]]) -> str:
    return "\n".join(f"{c['id']}:\n  expected {c['expected']!r}\n  got      {got!r}" for c, _, got in rows)


def test_the_agreement_with_cursorless_does_not_fall() -> None:
    rows = results()
    exact = sum(v == "exact" for _, v, _ in rows)
    measured = sum(v != "no member" for _, v, _ in rows)
    differ = [r for r in rows if r[1] == "different"]
    assert exact / measured >= EXACT / MEASURED, f"{exact}/{measured} exact; the differences:\n{_listed(differ)}"


def test_every_difference_is_judged_and_every_judgement_is_a_difference() -> None:
    judged = json.loads(fixtures.JUDGEMENTS.read_text())
    differ = {c["id"] for c, v, _ in results() if v == "different"}
    new = [r for r in results() if r[0]["id"] in differ - set(judged["cases"])]
    assert not new, f"judge these in tests/data/cursorless/judgements.json:\n{_listed(new)}"
    fixed = set(judged["cases"]) - differ
    assert not fixed, f"now agree with Cursorless: drop them from judgements.json and raise EXACT: {sorted(fixed)}"
    assert set(judged["cases"].values()) == set(judged["categories"])


def test_the_cases_name_real_ranges_and_change_the_text() -> None:
    data = json.loads(fixtures.CASES.read_text())
    assert data["converted"] == len(data["cases"]) == len({c["id"] for c in data["cases"]})
    for case in data["cases"]:
        size = len(case["text"].encode())
        assert all(0 <= s <= e <= size for s, e in case["targets"] + case["destination"]), case["id"]
        assert case["expected"] != case["text"], case["id"]
    assert (fixtures.DATA / "LICENSE").read_text().startswith("MIT License")


CHUCK_ARGUMENT = """
languageId: python
command:
  version: 7
  spokenForm: chuck arg blue vest
  action:
    name: remove
    target:
      type: primitive
      modifiers:
        - type: containingScope
          scopeType: {type: argumentOrParameter}
      mark: {type: decoratedSymbol, symbolColor: blue, character: v}
initialState:
  documentContents: "def f(é, invert=False):\\n    pass\\n"
  selections:
    - anchor: {line: 0, character: 0}
      active: {line: 0, character: 0}
  marks:
    blue.v:
      start: {line: 0, character: 9}
      end: {line: 0, character: 15}
finalState:
  documentContents: "def f(é):\\n    pass\\n"
"""


def test_a_recorded_fixture_becomes_a_case_on_the_hat_s_scope_in_bytes() -> None:
    case = fixtures.convert_recorded(yaml.safe_load(CHUCK_ARGUMENT))
    text = case["text"].encode()
    (start, end), *_ = case["targets"]
    assert text[start:end] == b"invert=False"  # 'é' is two bytes, one UTF-16 unit
    assert (case["action"], case["after"], case["destination"]) == ("remove", True, [])
    assert fixtures.tether_result(case) == case["expected"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (("name: remove", "name: clearAndSetSelection"), "clear (Tether has no clear action)"),
        (("type: argumentOrParameter", "type: value"), "scope value: a part of a member"),
        (("character: v}", "character: q}"), "hat not in the recorded marks"),
        (("type: containingScope", "type: everyScope"), "modifier everyScope"),
    ],
)
def test_a_fixture_tether_cannot_act_on_is_skipped_with_its_reason(change: tuple[str, str], reason: str) -> None:
    with pytest.raises(fixtures.Skip, match=reason.replace("(", r"\(").replace(")", r"\)")):
        fixtures.convert_recorded(yaml.safe_load(CHUCK_ARGUMENT.replace(*change)))


SCOPE_FILE = """foo(
    aaa,
    bbb
)
---

[#1 Content] =
[#1 Domain] = 1:4-1:7
      >---<
1|     aaa,

[#1 Removal] = 1:4-2:4
      >----
1|     aaa,
2|     bbb
   ----<

[#1 Insertion delimiter] = ",\\n"


[#2 Content] =
[#2 Domain] = 2:4-2:7
      >---<
2|     bbb

[#2 Removal] = 1:7-2:7
         >-
1|     aaa,
2|     bbb
   -------<

[#2 Insertion delimiter] = ",\\n"
"""


def test_a_scope_file_gives_a_removal_and_a_clone_per_scope() -> None:
    out = {
        key: case for key, case in fixtures.convert_scope_file("argument/x.scope", SCOPE_FILE) if isinstance(case, dict)
    }
    assert sorted(out) == [
        "argument/x.scope#1",
        "argument/x.scope#1 clone",
        "argument/x.scope#2",
        "argument/x.scope#2 clone",
    ]
    assert out["argument/x.scope#1"]["expected"] == "foo(\n    bbb\n)"
    assert out["argument/x.scope#2"]["expected"] == "foo(\n    aaa\n)"
    assert out["argument/x.scope#2 clone"]["expected"] == "foo(\n    aaa,\n    bbb,\n    bbb\n)"
    assert out["argument/x.scope#1"]["targets"] == [[9, 12]]


def test_a_line_delimited_clone_goes_before_the_target_s_line_with_its_indentation() -> None:
    source = b"if x:\n    a = 1\n    b = 2\n"
    start = source.index(b"b = 2")
    assert fixtures.cloned(source, start, start + 5, "\n") == "if x:\n    a = 1\n    b = 2\n    b = 2\n"


@pytest.mark.skipif(not fixtures.MIRROR.exists(), reason="no Cursorless snapshot on this machine")
def test_converting_the_snapshot_again_gives_the_committed_cases() -> None:
    commit = json.loads(fixtures.CASES.read_text())["found"]["commit"]
    head = subprocess.run(["git", "-C", str(fixtures.MIRROR), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.stdout.strip() != commit:
        pytest.skip("the snapshot on this machine is another commit")
    cases, _, _ = fixtures.convert(fixtures.MIRROR)
    assert cases == json.loads(fixtures.CASES.read_text())["cases"]
