"""Golden cases for Python's line-based members: statements, functions and classes (decorators, docstrings and
comment lines going with them), decorators and clauses; blank-line rhythm, ``pass`` in an emptied block, tabs,
CRLF and non-ASCII text."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.actions.model import ActionRefused

from .python_support import act, has_error, result

MODULE = """import os


def first():
    x = 1
    return x


def second():
    pass


class Box:
    size = 1

    @property
    def area(self):
        return 1

    def volume(self):
        return 2
"""

REMOVE = [
    ("x = 1\ny = 2\nz = 3\n", ["y = 2"], "x = 1\nz = 3\n"),
    ("x = 1\ny = 2\nz = 3\n", ["x = 1"], "y = 2\nz = 3\n"),
    ("x = 1\ny = 2\nz = 3\n", ["z = 3"], "x = 1\ny = 2\n"),
    # with no final newline, the removed last lines take the line break before them: the text ends as it did
    ("x = 1\ny = 2\nz = 3", ["z = 3"], "x = 1\ny = 2"),
    ("x = 1\ny = 2\nz = 3", ["y = 2", "z = 3"], "x = 1"),
    ("x = 1\r\ny = 2", ["y = 2"], "x = 1"),
    ("if a:\n    x = 1\n    y = 2", ["y = 2"], "if a:\n    x = 1"),
    ("def f():\n    pass\n\n\ndef g():\n    pass", ["def g"], "def f():\n    pass"),
    ("if True: pass\nelse: pass", ["else:"], "if True: pass"),
    ("try: pass\nexcept: pass\nfinally: pass", ["finally:"], "try: pass\nexcept: pass"),
    ("while é: pass\nelse: pass  # 🎉", ["else:"], "while é: pass"),
    ("x = 1\ny = 2\nz = 3\n", ["x = 1", "z = 3"], "y = 2\n"),
    ("x = 1\ny = 2\nz = 3\n", ["x = 1", "y = 2"], "z = 3\n"),
    ("def f():\n    x = 1\n", ["x = 1"], "def f():\n    pass\n"),
    ("def f():\n    x = 1\n    y = 2\n", ["x = 1", "y = 2"], "def f():\n    pass\n"),
    ("if a:\n    x = 1\nelse:\n    y = 2\n", ["y = 2"], "if a:\n    x = 1\nelse:\n    pass\n"),
    ("def f(): return 1\n", ["return 1"], "def f(): pass\n"),
    ("x = 1; y = 2\n", ["x = 1"], "y = 2\n"),
    ("x = 1; y = 2\n", ["y = 2"], "x = 1\n"),
    ("x = 1; y = 2; z = 3\n", ["z = 3"], "x = 1; y = 2\n"),
    ("x = 1; y = 2; z = 3\n", ["y = 2"], "x = 1; z = 3\n"),
    ("if a: x = 1; y = 2\n", ["y = 2"], "if a: x = 1\n"),
    ("if a:\n    x = 1; y = 2\n    z = 3\n", ["y = 2"], "if a:\n    x = 1\n    z = 3\n"),
    ("if a:\n    x = 1\n    y = 2; z = 3\n", ["y = 2"], "if a:\n    x = 1\n    z = 3\n"),
    # comment lines above and at the end go with the statement; a blank line parts them
    ("x = 1\n# about y\ny = 2  # end\nz = 3\n", ["y = 2"], "x = 1\nz = 3\n"),
    ("x = 1\n# not about y\n\ny = 2\nz = 3\n", ["y = 2"], "x = 1\n# not about y\n\nz = 3\n"),
    ("def f():\n    # about x\n    x = 1\n    y = 2\n", ["x = 1"], "def f():\n    y = 2\n"),
    ("# about x\nx = 1\ny = 2\n", ["x = 1"], "y = 2\n"),
    (
        "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nx = 1\ny = 2\n",
        ["x = 1"],
        "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\ny = 2\n",
    ),
    # functions and classes: the larger gap stays
    (MODULE, ["def second"], MODULE.replace("def second():\n    pass\n\n\n", "")),
    (MODULE, ["def first"], MODULE.replace("def first():\n    x = 1\n    return x\n\n\n", "")),
    (MODULE, ["class Box"], MODULE.replace("\n\nclass Box:" + MODULE.split("class Box:")[1], "")),
    (MODULE, ["import os"], MODULE.replace("import os\n\n\n", "")),
    (MODULE, ["def area"], MODULE.replace("    @property\n    def area(self):\n        return 1\n\n", "")),
    (MODULE, ["def volume"], MODULE.replace("\n    def volume(self):\n        return 2\n", "")),
    (MODULE, ["size = 1"], MODULE.replace("    size = 1\n\n", "")),
    ("x = 1\n\n\ndef f():\n    pass\ny = 2\n", ["def f"], "x = 1\n\n\ny = 2\n"),
    ("import a\nimport b\n\n\ndef f():\n    pass\n", ["import b"], "import a\n\n\ndef f():\n    pass\n"),
    ("@a\n@b\ndef f():\n    pass\n", ["@a"], "@b\ndef f():\n    pass\n"),
    ("@a\n@b\ndef f():\n    pass\n", ["@b"], "@a\ndef f():\n    pass\n"),
    ("@a\ndef f():\n    pass\n", ["@a"], "def f():\n    pass\n"),
    ("# about f\n@a\n@b\ndef f():\n    pass\n", ["@a"], "# about f\n@b\ndef f():\n    pass\n"),
    ("x = 1\n# about f\n@a\ndef f():\n    pass\n", ["def f"], "x = 1\n"),
    ("def f():\n    '''Doc.'''\n    return 1\n", ["'''Doc.'''"], "def f():\n    return 1\n"),
    # clauses
    ("if a:\n    x\nelif b:\n    y\nelse:\n    z\n", ["elif b"], "if a:\n    x\nelse:\n    z\n"),
    ("if a:\n    x\nelif b:\n    y\nelse:\n    z\n", ["else:"], "if a:\n    x\nelif b:\n    y\n"),
    ("try:\n    x\nexcept A:\n    y\nexcept B:\n    z\n", ["except A"], "try:\n    x\nexcept B:\n    z\n"),
    ("try:\n    x\nexcept A:\n    y\nfinally:\n    z\n", ["except A"], "try:\n    x\nfinally:\n    z\n"),
    ("for i in s:\n    x\nelse:\n    y\n", ["else:"], "for i in s:\n    x\n"),
    ("match v:\n    case 1:\n        x\n    case _:\n        y\n", ["case 1"], "match v:\n    case _:\n        y\n"),
    # tabs, CRLF, non-ASCII
    ("if a:\n\tx = 1\n\ty = 2\n", ["x = 1"], "if a:\n\ty = 2\n"),
    ("if a:\n\tx = 1\n", ["x = 1"], "if a:\n\tpass\n"),
    ("x = 1\r\ny = 2\r\nz = 3\r\n", ["y = 2"], "x = 1\r\nz = 3\r\n"),
    ("def f():\r\n    x = 1\r\n\r\n\r\ndef g():\r\n    pass\r\n", ["def g"], "def f():\r\n    x = 1\r\n"),
    ("é = 'ü'\n日本 = '🎉'\nz = 3\n", ["日本"], "é = 'ü'\nz = 3\n"),
]


@pytest.mark.parametrize(("before", "markers", "expected"), REMOVE)
def test_remove(before: str, markers: list[str], expected: str) -> None:
    out = act(before, "remove", *markers)
    assert out == expected
    assert not has_error(out.encode())


def test_removing_every_statement_of_a_module_leaves_nothing() -> None:
    assert act("x = 1\ny = 2\n", "remove", "x = 1", "y = 2") == ""


CLONE = [
    ("x = 1\ny = 2\n", ["x = 1"], True, "x = 1\nx = 1\ny = 2\n", ["x = 1"]),
    ("x = 1\ny = 2\n", ["y = 2"], False, "x = 1\ny = 2\ny = 2\n", ["y = 2"]),
    ("x = 1\ny = 2", ["y = 2"], True, "x = 1\ny = 2\ny = 2", ["y = 2"]),
    ("def f():\n    pass\n", ["def f"], True, "def f():\n    pass\n\n\ndef f():\n    pass\n", ["def f():\n    pass"]),
    (
        "def f():\n    pass\n\ndef g():\n    pass\n",
        ["def f"],
        True,
        "def f():\n    pass\n\ndef f():\n    pass\n\ndef g():\n    pass\n",
        ["def f():\n    pass"],
    ),
    (
        "class A:\n    def f(self):\n        pass\n",
        ["def f"],
        True,
        "class A:\n    def f(self):\n        pass\n\n    def f(self):\n        pass\n",
        ["def f(self):\n        pass"],
    ),
    (
        "def f():\n    pass\n\ndef g():\n    pass\n",
        ["def g"],
        True,
        "def f():\n    pass\n\ndef g():\n    pass\n\ndef g():\n    pass\n",
        ["def g():\n    pass"],
    ),
    (
        "class A:\n    x = 1\n    def f(self):\n        pass\n",
        ["def f"],
        True,
        "class A:\n    x = 1\n    def f(self):\n        pass\n    def f(self):\n        pass\n",
        ["def f(self):\n        pass"],
    ),
    ("if a: x = 1\n", ["x = 1"], True, "if a: x = 1; x = 1\n", ["x = 1"]),
    ("@a\ndef f():\n    pass\n", ["@a"], True, "@a\n@a\ndef f():\n    pass\n", ["@a"]),
    (
        "if a:\n    x\nelif b:\n    y\n",
        ["elif b"],
        True,
        "if a:\n    x\nelif b:\n    y\nelif b:\n    y\n",
        ["elif b:\n    y"],
    ),
    ("x = 1\r\ny = 2\r\n", ["x = 1"], True, "x = 1\r\nx = 1\r\ny = 2\r\n", ["x = 1"]),
    (
        "def f():\r\n    x = 1  # c\r\n",
        ["def f"],
        True,
        "def f():\r\n    x = 1  # c\r\n\r\n\r\ndef f():\r\n    x = 1  # c\r\n",
        ["def f():\r\n    x = 1  # c"],
    ),
]


@pytest.mark.parametrize(("before", "markers", "after", "expected", "produced"), CLONE)
def test_clone(before: str, markers: list[str], after: bool, expected: str, produced: list[str]) -> None:
    out, spans = result(before, "clone", *markers, after=after)
    assert out == expected
    assert spans == produced


SWAP_MOVE = [
    ("x = 1\ny = 2\n", "swap", ["x = 1", "y = 2"], {}, "y = 2\nx = 1\n", ["y = 2", "x = 1"]),
    (
        "def f():\n    x = 1\ny = 2\n",
        "swap",
        ["x = 1", "y = 2"],
        {},
        "def f():\n    y = 2\nx = 1\n",
        ["y = 2", "x = 1"],
    ),
    (
        "if a:\n    if b:\n        x = [\n            1,\n        ]\ny = 2\n",
        "swap",
        ["x = [", "y = 2"],
        {},
        "if a:\n    if b:\n        y = 2\nx = [\n    1,\n]\n",
        ["y = 2", "x = [\n    1,\n]"],
    ),
    (
        'def f():\n    s = """\n  keep\n"""\ny = 2\n',
        "swap",
        ["s = ", "y = 2"],
        {},
        'def f():\n    y = 2\ns = """\n  keep\n"""\n',
        ["y = 2", 's = """\n  keep\n"""'],
    ),
    ("if a:\n\tx = 1\ny = 2\n", "swap", ["x = 1", "y = 2"], {}, "if a:\n\ty = 2\nx = 1\n", ["y = 2", "x = 1"]),
    ("x = 1\ny = 2\nz = 3\n", "move", ["x = 1", "z = 3"], {}, "y = 2\nz = 3\nx = 1\n", ["x = 1"]),
    ("x = 1\ny = 2\nz = 3\n", "move_by", ["z = 3"], {"step": -1}, "x = 1\nz = 3\ny = 2\n", ["z = 3"]),
    (
        "x = 1\n\n\ndef f():\n    pass\n",
        "move_by",
        ["x = 1"],
        {"step": 1},
        "def f():\n    pass\n\n\nx = 1\n",
        ["x = 1"],
    ),
    (
        "def f():\n    x = 1\n    y = 2\n\n\nz = 3\n",
        "move",
        ["x = 1", "z = 3"],
        {},
        "def f():\n    y = 2\n\n\nz = 3\nx = 1\n",
        ["x = 1"],
    ),
    (
        "def f():\n    x = 1\n\n\nz = 3\n",
        "move",
        ["x = 1", "z = 3"],
        {"after": False},
        "def f():\n    pass\n\n\nx = 1\nz = 3\n",
        ["x = 1"],
    ),
    ("x = 1\ny = 2\n", "move", ["x = 1", "y = 2"], {"keep": True}, "x = 1\ny = 2\nx = 1\n", ["x = 1"]),
    # at either end of a container, the gap the neighbours use (this file parts its functions with one line)
    (
        "def é():\n    pass\n\ndef g():\n    pass\n",
        "move",
        ["def é", "def g"],
        {"keep": True},
        "def é():\n    pass\n\ndef g():\n    pass\n\ndef é():\n    pass\n",
        ["def é():\n    pass"],
    ),
    (
        "def é():\n    pass\n\ndef g():\n    pass\n",
        "move",
        ["def g", "def é"],
        {"keep": True, "after": False},
        "def g():\n    pass\n\ndef é():\n    pass\n\ndef g():\n    pass\n",
        ["def g():\n    pass"],
    ),
    ("x = 1\ny = 2\n", "insert", ["x = 1"], {}, "x = 1\n\ny = 2\n", [""]),
    # an empty line opened above a definition is one line, not a definition's blank-line gap as well
    (
        "class MyClass:\n    def my_funk():\n        pass\n",
        "insert",
        ["def my_funk"],
        {"after": False},
        "class MyClass:\n    \n    def my_funk():\n        pass\n",
        [""],
    ),
    (
        "x = 1\n\n\ndef f():\n    pass\n",
        "insert",
        ["def f"],
        {"after": False},
        "x = 1\n\n\n\ndef f():\n    pass\n",
        [""],
    ),
    ("def f():\n    x = 1\n", "insert", ["x = 1"], {"after": False}, "def f():\n    \n    x = 1\n", [""]),
]


@pytest.mark.parametrize(("before", "action", "markers", "options", "expected", "produced"), SWAP_MOVE)
def test_swap_move_insert(
    before: str, action: str, markers: list[str], options: dict[str, object], expected: str, produced: list[str]
) -> None:
    out, spans = result(before, action, *markers, **options)  # type: ignore[arg-type]
    assert out == expected
    assert spans == produced
    assert not has_error(out.encode()) or action == "insert"


REFUSED = [
    ("try:\n    x\nexcept A:\n    y\n", "remove", ["except A"], "targets"),
    ("try:\n    x\nexcept A:\n    y\nelse:\n    z\nfinally:\n    w\n", "remove", ["except A"], "targets"),
    ("if a:\n    x\nelse:\n    y\n", "clone", ["else:"], "destination"),
    ("if a:\n    x\nelif b:\n    y\nelse:\n    z\n", "swap", ["elif b", "else:"], "targets[1]"),
    ("@d\ndef f():\n    x = 1\n", "swap", ["@d", "x = 1"], "targets[1]"),
    ("def f():\n    x = 1\n", "swap", ["def f", "x = 1"], "targets[1]"),
    ("if a: x = 1\ndef g():\n    pass\n", "move", ["def g", "x = 1"], "destination"),
    ("x = 1\ny = 2\n", "move_by", ["y = 2"], "targets[0]"),
    ("match v:\n    case 1:\n        x\n", "remove", ["case 1"], "targets"),
    ("match v:\n    case 1:\n        x = 1\n", "swap", ["case 1", "x = 1"], "targets[1]"),
]


@pytest.mark.parametrize(("before", "action", "markers", "field"), REFUSED)
def test_refused(before: str, action: str, markers: list[str], field: str) -> None:
    with pytest.raises(ActionRefused) as refused:
        act(before, action, *markers, step=1)
    assert refused.value.field == field


@pytest.mark.parametrize(
    ("before", "marker", "which"),
    [
        ("try:\n    x\nexcept A:\n    y\nfinally:\n    z\n", "finally:", "one finally"),
        ("if a:\n    x\nelse:\n    y\n", "else:", "one else"),
        ("try:\n    x\nexcept A:\n    y\nelse:\n    z\n", "else:", "one else"),
    ],
)
def test_cloning_an_else_or_finally_clause_is_refused_naming_it(before: str, marker: str, which: str) -> None:
    with pytest.raises(ActionRefused) as refused:
        act(before, "clone", marker)
    assert (refused.value.field, refused.value.reason.endswith(which)) == ("destination", True)
