"""Structure-aware markers (handlers/markers/structure.py), one case per failure class seen on real history.

A marker is written ``«...»`` around the old text; the expected new range is ``«...»`` in the new text.
Every case also runs the lines-only calculator, to show the line algorithm alone gets it wrong.
"""

from __future__ import annotations

import pytest

from tether_lsp.handlers.markers.calculator import Location, calculate, split_lines
from tether_lsp.handlers.markers.structure import Covered, Unit, covered, follow, language_of, share_a_line, snap, units
from tether_lsp.server.syntax import GrammarLimits


def marked(annotated: str) -> tuple[str, Location]:
    """The text without the «» marks and the 1-based location between them (end exclusive)."""
    start = annotated.index("«")
    end = annotated.index("»") - 1
    text = annotated.replace("«", "", 1).replace("»", "", 1)

    def point(offset: int) -> tuple[int, int]:
        line = text.count("\n", 0, offset) + 1
        return line, offset - (text.rfind("\n", 0, offset) + 1) + 1

    (l1, c1), (l2, c2) = point(start), point(end)
    return text, Location(l1, c1, l2, c2)


CASES = {
    "a one-line signature that wraps": (
        "class A:\n    «def run(self, a, b):\n        return a + b»\n\n    def other(self):\n        pass\n",
        "class A:\n    «def run(\n        self,\n        a,\n        b,\n    ):\n        return a + b»\n\n"
        "    def other(self):\n        pass\n",
    ),
    "a stub whose pass became a body": (
        "«def todo():\n    pass»\n\n\ndef after():\n    return 1\n",
        "«def todo():\n    total = 0\n    for k in range(10):\n        total += k\n    return total»\n\n\n"
        "def after():\n    return 1\n",
    ),
    "a return that became multi-line": (
        "«def info():\n    x = 1\n    return info_dict»\n\n\ndef z():\n    return {\n        'a': 1,\n    }\n",
        "«def info():\n    x = 1\n    return {\n        'x': x,\n    }»\n\n\ndef z():\n    return {\n        'a': 1,\n    }\n",
    ),
    "a method moved up and grown": (
        "class S:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n\n"
        "    «def send(self, request):\n        prepare(request)\n        return self.adapter.send(request)»\n",
        "class S:\n    «def send(self, request, **kwargs):\n        prepare(request)\n        hooks(request)\n"
        "        log(request, kwargs)\n        return self.adapter.send(request, **kwargs)»\n\n"
        "    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n",
    ),
    "a decorator added above": (
        "import pytest\n\n\n«def test_x():\n    assert f() == 1»\n",
        "import pytest\n\n\n«@pytest.mark.parametrize('v', [1, 2])\ndef test_x(v):\n    assert f() == v»\n",
    ),
    "a similar neighbour inside a big change": (
        "class R:\n    «def __repr__(self):\n        return '<R>'»\n\n    def path_url(self):\n        return self.url\n",
        "class R:\n    def path_url(self):\n        url = []\n        url.append(self.path)\n        return ''.join(url)\n\n"
        "    def extra(self):\n        pass\n\n    «def __repr__(self):\n        return f'<R [{self.method}]>'»\n",
    ),
    "a namesake in another class at the mapped place": (
        "class Base:\n    def invoke(self):\n        return 0\n\n\nclass Command(Base):\n"
        "    «def invoke(self, ctx):\n        return ctx.run(self)»\n",
        "class Base:\n    def invoke(self):\n        return 0\n\n    def extra(self):\n        return 1\n\n\n"
        "class Group(Base):\n    def add(self, cmd):\n        self.cmds.append(cmd)\n\n\n"
        "class Command(Base):\n    def __init__(self):\n        self.x = 1\n\n"
        "    «def invoke(self, ctx):\n        return ctx.run(self, strict=True)»\n",
    ),
    "a method whose class was renamed": (
        "class Old:\n    «def run(self):\n        return 1»\n",
        "class New:\n    «def run(self):\n        step()\n        return 1»\n",
    ),
    "a YAML pair whose list grew": (
        "name: ci\n«steps:\n  - run: make»\nenv:\n  A: 1\n",
        "name: ci\n«steps:\n  - run: make\n  - run: make test\n  - run: make docs»\nenv:\n  A: 1\n",
    ),
}


#: Cases the line algorithm alone also gets right (on real files it often did not).
LINES_SUFFICE = {
    "a one-line signature that wraps",
    "a similar neighbour inside a big change",
    "a method whose class was renamed",
    "a namesake in another class at the mapped place",
    "a stub whose pass became a body",  # a Change at the block's edge stays in it (test_calculator)
    "a return that became multi-line",
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_marker_on_a_unit_stays_on_it(case: str) -> None:
    old_annotated, new_annotated = CASES[case]
    old, loc = marked(old_annotated)
    new, expected = marked(new_annotated)
    language = "yaml" if "YAML" in case else "python"
    got = follow(old, new, {"m": loc}, language)["m"]
    assert got.location == expected
    assert got.content_changed
    if case not in LINES_SUFFICE:
        assert calculate(old, new, {"m": loc})["m"].location != expected  # lines alone get it wrong


def test_a_moved_unit_is_reported_moved_and_a_deleted_one_missing() -> None:
    old, loc = marked("«def gone():\n    return 1»\n\n\ndef stay():\n    return 2\n")
    got = follow(old, "def stay():\n    return 2\n", {"m": loc}, "python")["m"]
    assert got.location is None and got.reason == "codeBlockDeleted"
    old, loc = marked("«def a():\n    return 1»\n\n\ndef b():\n    return 2\n")
    new, expected = marked("def b():\n    return 2\n\n\n«def a():\n    return 1»\n")
    got = follow(old, new, {"m": loc}, "python")["m"]
    assert got.location == expected and not got.content_changed


def test_a_marker_on_part_of_a_unit_keeps_the_line_algorithm() -> None:
    old, loc = marked("def f():\n    «x = 1»\n    return x\n")
    new = "def f():\n    # set x\n    x = 1\n    return x\n"
    assert follow(old, new, {"m": loc}, "python") == calculate(old, new, {"m": loc})


def test_a_marker_ending_at_the_next_line_start_keeps_that_shape() -> None:
    old = "def f():\n    pass\n\nx = 1\n"
    loc = Location(1, 1, 3, 1)  # from "def" to the start of the blank line after the function
    new = "def f():\n    y = 2\n    return y\n\nx = 1\n"
    assert follow(old, new, {"m": loc}, "python")["m"].location == Location(1, 1, 4, 1)


def test_without_a_grammar_or_over_the_limits_the_lines_decide() -> None:
    old, loc = marked("«def todo():\n    pass»\n")
    new = "def todo():\n    a = 1\n    return a\n"
    assert follow(old, new, {"m": loc}, None) == calculate(old, new, {"m": loc})
    deep = "k: " + "[" * 300 + "]" * 300 + "\n"
    assert units("python", "x = 1\n") is not None
    assert follow(deep, deep + "z: 1\n", {"m": Location(1, 1, 1, 4)}, "yaml")["m"].location == Location(1, 1, 1, 4)


def test_units_name_definitions_blocks_and_yaml_entries_with_their_path() -> None:
    python = units("python", "class C:\n    @staticmethod\n    def m():\n        if x:\n            pass\n")
    assert python is not None
    assert [(u.kind, u.name, u.path, u.first, u.own_first, u.last) for u in python] == [
        ("class", "C", (), 0, 0, 4),
        ("function", "m", ("C",), 1, 2, 4),
        ("if_statement", "if x:", ("C", "m"), 3, 3, 4),
    ]
    yaml = units("yaml", "jobs:\n  - name: build\n    run: make\n")
    assert yaml is not None
    assert [(u.kind, u.name, u.path) for u in yaml] == [
        ("yaml-pair", "jobs", ()),
        ("yaml-item", "- name: build", ("jobs",)),
        ("yaml-pair", "name", ("jobs", "- name: build")),
        ("yaml-pair", "run", ("jobs", "- name: build")),
    ]
    assert split_lines("a\nb") == ["a", "b"]


def test_snap_prefers_the_qualified_name_anywhere_to_a_namesake_at_the_mapped_place() -> None:
    """The mapping landed in ``Base.invoke`` (say, after a big rewrite); ``Command.invoke`` still exists."""
    new = "class Base:\n    def invoke(self):\n        return 0\n\n\nclass Command(Base):\n    def invoke(self):\n        return 1\n"
    found = units("python", new)
    assert found is not None
    command_invoke = next(u for u in found if u.path == ("Command",))
    was = Covered(command_invoke, True, True, False)
    on_base = Location(2, 1, 3, 17)
    got = snap(was, found, split_lines(new), on_base)
    assert got is not None and got[1] == command_invoke and got[0] == Location(7, 1, 8, 17)
    orphan = Covered(command_invoke._replace(path=("Gone",)), True, True, False)  # no such qualified name
    got = snap(orphan, found, split_lines(new), on_base)
    assert got is not None and got[1].path == ("Base",)  # then the namesake holding the mapped line
    assert snap(orphan, found, split_lines(new), None) is None  # and nothing without a mapping


COVERED_TEXT = "import x\n\n@deco\ndef f(a):\n    return a\n\nclass C:\n    def m(self):\n        pass\n"


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        (Location(3, 1, 5, 13), ("f", True, True, False)),  # decorators, def, body to the end of the line
        (Location(4, 1, 5, 13), ("f", False, True, False)),  # the def without its decorator
        (Location(3, 1, 6, 1), ("f", True, True, True)),  # to the start of the next line
        (Location(3, 1, 5, 12), None),  # stops one character short of the unit's end
        (Location(3, 2, 5, 13), None),  # starts after the decorator's first character
        (Location(7, 1, 9, 13), ("C", True, True, False)),  # the class, not its last method
        (Location(8, 1, 9, 13), ("m", True, True, False)),  # the method from column 1
        (Location(8, 5, 9, 13), ("m", True, False, False)),  # ... or from its first character
        (Location(8, 6, 9, 13), None),  # ... but not from inside it
        (Location(5, 1, 5, 13), None),  # a body line alone is no unit
        (Location(1, 1, 1, 9), None),  # nor an import
    ],
)
def test_covered_recognises_exactly_a_units_lines(loc: Location, expected: tuple[str, bool, bool, bool] | None) -> None:
    found = units("python", COVERED_TEXT)
    assert found is not None
    got = covered(found, split_lines(COVERED_TEXT), loc)
    shape = None if got is None else (got.unit.name, got.decorated, got.from_line_start, got.to_next_line)
    assert shape == expected


RENAMED = "def new_name():\n    a = 1\n    b = 2\n    return a + b\n\n\nx = 1\ny = 2\nz = 3\n"


@pytest.mark.parametrize(
    ("mapped", "snapped"),
    [
        (Location(1, 1, 4, 17), True),  # the mapping is the unit
        (Location(3, 1, 5, 1), True),  # rows 2..4: 2 of 3 mapped lines in the unit
        (Location(3, 1, 6, 1), True),  # rows 2..5: 2 of 4, exactly half
        (Location(3, 1, 7, 1), False),  # rows 2..6: 2 of 5, under half
        (Location(4, 1, 9, 6), False),  # rows 3..8: 1 of 6
        (Location(7, 1, 8, 6), False),  # no unit of that kind holds the mapped first line
    ],
)
def test_a_renamed_unit_is_taken_when_it_holds_at_least_half_the_mapped_lines(mapped: Location, snapped: bool) -> None:
    found = units("python", RENAMED)
    assert found is not None
    was = Covered(Unit("function", "old_name", (), 0, 0, 2, 0, 0), True, True, False)
    got = snap(was, found, split_lines(RENAMED), mapped)
    assert (got is not None) == snapped
    if got is not None:
        assert got[0] == Location(1, 1, 4, 17)


def test_a_snapped_range_keeps_the_markers_shape() -> None:
    text = "class C:\n    @property\n    def m(self):\n        return 1\n"
    found = units("python", text)
    assert found is not None
    (m,) = [u for u in found if u.name == "m"]
    lines = split_lines(text)
    assert snap(Covered(m, True, False, False), found, lines, None) == (Location(2, 5, 4, 17), m)
    assert snap(Covered(m, False, False, False), found, lines, None) == (Location(3, 5, 4, 17), m)
    assert snap(Covered(m, False, True, False), found, lines, None) == (Location(3, 1, 4, 17), m)
    # to the next line's start, unless the unit ends the text's last line
    assert snap(Covered(m, True, True, True), found, [*lines, "x"], None) == (Location(2, 1, 5, 1), m)
    assert snap(Covered(m, True, True, True), found, lines[:4], None) == (Location(2, 1, 4, 17), m)


def test_follow_snaps_each_marker_on_its_own_and_says_what_happened() -> None:
    old = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    new = "def b():\n    return 2\n\n\ndef a():\n    x = 0\n    return 1\n"
    locs = {"body": Location(2, 5, 2, 13), "a": Location(1, 1, 2, 13), "b": Location(5, 1, 6, 13)}
    got = follow(old, new, locs, "python")
    assert got["body"] == calculate(old, new, locs)["body"]  # not a unit: the line algorithm's answer
    assert got["a"].location == Location(5, 1, 7, 13) and got["a"].content_changed
    assert got["b"].location == Location(1, 1, 2, 13) and not got["b"].content_changed
    assert got["a"].reason is None and not got["a"].entirely_deleted
    touching = follow(old, old.replace("return 1", "return 10"), {"a": Location(1, 1, 2, 13)}, "python")["a"]
    assert touching.location == Location(1, 1, 2, 14) and not touching.moved


def test_last_row_and_header_ignore_trailing_blanks() -> None:
    found = units("yaml", "a:\n  - x\n  - y   \n\n\nb: 1\n")
    assert found is not None
    assert [(u.kind, u.name, u.first, u.last) for u in found][:3] == [
        ("yaml-pair", "a", 0, 2),
        ("yaml-item", "- x", 1, 1),
        ("yaml-item", "- y", 2, 2),
    ]
    python = units("python", "if x:\n    pass\n")
    assert python is not None and python[0].name == "if x:" and python[0].last == 1


def test_language_of_a_path_or_uri() -> None:
    assert language_of("file:///w/a.py") == "python"
    assert language_of("deploy/site.yml") == "yaml"
    assert language_of("notes.txt") is None


def test_ranges_overlap_when_they_share_a_line() -> None:
    assert share_a_line(Location(1, 1, 3, 1), Location(3, 5, 4, 1))
    assert share_a_line(Location(3, 5, 4, 1), Location(1, 1, 3, 1))
    assert not share_a_line(Location(1, 1, 2, 9), Location(3, 1, 4, 1))
    assert not share_a_line(Location(3, 1, 4, 1), Location(1, 1, 2, 9))


def test_a_marker_that_cannot_be_snapped_does_not_stop_the_next_one() -> None:
    old = "def gone():\n    return 1\n\n\ndef kept():\n    return 2\n"
    new = "x = [\n    1,\n]\n\n\n@cache\ndef kept():\n    return 2\n"
    locs = {"gone": Location(1, 1, 2, 13), "kept": Location(5, 1, 6, 13)}
    got = follow(old, new, locs, "python")
    assert got["gone"].location is None
    assert got["kept"].location == Location(6, 1, 8, 13)  # with the decorator it gained: snapped
    assert calculate(old, new, locs)["kept"].location != got["kept"].location


def test_the_grammar_limits_in_force_are_honoured() -> None:
    """Texts over ``tether.limits.maxTreeBytes`` (as configured, not only the default) keep the line algorithm."""
    old_annotated, new_annotated = CASES["a decorator added above"]
    old, loc = marked(old_annotated)
    new, expected = marked(new_annotated)
    assert follow(old, new, {"m": loc}, "python", GrammarLimits(max_tree_bytes=1_000))["m"].location == expected
    tight = GrammarLimits(max_tree_bytes=len(old.encode()) - 1)
    assert follow(old, new, {"m": loc}, "python", tight) == calculate(old, new, {"m": loc})
    assert units("python", old, tight) is None


def test_a_renamed_inner_function_is_taken_before_the_function_around_it() -> None:
    """The shortest unit holding the mapped lines wins (the sort once put the outermost first)."""
    old = "def outer():\n    def inner():\n        return 1\n    return inner\n"
    new = "def outer():\n    def renamed():\n        return 1\n    return renamed\n"
    inner = next(u for u in units("python", old) or [] if u.name == "inner")
    found = units("python", new)
    assert found is not None
    snapped = snap(Covered(inner, True, True, False), found, split_lines(new), Location(2, 1, 3, 17))
    assert snapped is not None
    assert snapped[1].name == "renamed"
    assert snapped[0] == Location(2, 1, 3, 17)


def test_a_marker_on_a_blocks_header_line_alone_covers_no_unit() -> None:
    text = "if x:\n    y = 1\nz = 2\n"
    found = units("python", text)
    assert found is not None
    assert covered(found, split_lines(text), Location(1, 1, 1, 6)) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- a\n-\n  b: 1\n\n", [("- a", 0, 0), ("-", 1, 2), ("b", 2, 2)]),  # the item's node ends after "\n\n"
        ("- a\n-\n  b\n\n\n", [("- a", 0, 0), ("-", 1, 2)]),
    ],
)
def test_trailing_blank_lines_of_a_yaml_item_are_not_the_units(text: str, expected: list[tuple[str, int, int]]) -> None:
    found = units("yaml", text)
    assert found is not None
    assert [(u.name, u.first, u.last) for u in found] == expected


def test_a_marker_ending_at_the_start_of_the_last_line_keeps_that_shape() -> None:
    text = "def f():\n    pass\n"  # lines: "def f():", "    pass", ""
    found = units("python", text)
    assert found is not None
    snapped = snap(Covered(found[0], True, True, True), found, split_lines(text), Location(1, 1, 3, 1))
    assert snapped is not None and snapped[0] == Location(1, 1, 3, 1)


def test_a_yaml_pair_without_a_key_is_a_unit_with_an_empty_name() -> None:
    found = units("yaml", ": v\nb: 1\n")
    assert found is not None
    assert [(u.name, u.first) for u in found] == [("", 0), ("b", 1)]


def test_a_block_header_on_the_last_line_without_newline_is_whole() -> None:
    found = units("python", "x = 1\nif x: pass")
    assert found is not None
    assert [u.name for u in found] == ["if x: pass"]
