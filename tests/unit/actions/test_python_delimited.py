"""Golden cases for Python's comma-delimited members: each removes, clones, swaps or moves exactly the comma,
the line and the whitespace a person would, in one-line and multi-line forms."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.actions.model import ActionRefused

from .python_support import act, has_error, result

REMOVE = [
    # arguments, one line
    ("f(a, b, c)\n", ["a"], "f(b, c)\n"),
    ("f(a, b, c)\n", ["b"], "f(a, c)\n"),
    ("f(a, b, c)\n", ["c"], "f(a, b)\n"),
    ("f(a)\n", ["a"], "f()\n"),
    ("f(a, b)\n", ["a", "b"], "f()\n"),
    ("f(a, b, c)\n", ["b", "c"], "f(a)\n"),
    ("f(a, b, c)\n", ["a", "c"], "f(b)\n"),
    ("f(a, b, c, d)\n", ["a", "c"], "f(b, d)\n"),
    ("f(a,b,c)\n", ["b"], "f(a,c)\n"),
    ("f(a, b,)\n", ["b"], "f(a,)\n"),
    ("f(a, *rest, key=1, **kw)\n", ["key"], "f(a, *rest, **kw)\n"),
    ("f(a, *rest, key=1, **kw)\n", ["**kw"], "f(a, *rest, key=1)\n"),
    ("f(a, *rest, key=1, **kw)\n", ["*rest"], "f(a, key=1, **kw)\n"),
    # arguments, multi-line
    ("f(\n    a,\n    b,\n)\n", ["a"], "f(\n    b,\n)\n"),
    ("f(\n    a,\n    b,\n)\n", ["b"], "f(\n    a,\n)\n"),
    ("f(\n    a,\n    b\n)\n", ["b"], "f(\n    a\n)\n"),
    ("f(\n    a,\n    b\n)\n", ["a"], "f(\n    b\n)\n"),
    ("f(\n    a,\n    b,\n    c,\n)\n", ["b"], "f(\n    a,\n    c,\n)\n"),
    ("f(\n    a,\n)\n", ["a"], "f()\n"),
    ("f(\n    a,  # about a\n    b,  # about b\n)\n", ["a"], "f(\n    b,  # about b\n)\n"),
    ("f(\n    a,  # on a\n    y  # on y\n)\n", ["y"], "f(\n    a  # on a\n)\n"),
    ("f(\n    a,\n    # about b\n    b,\n)\n", ["a"], "f(\n    # about b\n    b,\n)\n"),
    ("f(a,\n  b)\n", ["b"], "f(a)\n"),
    ("f(a,\n  b)\n", ["a"], "f(b)\n"),
    ("f(a,\n  b,\n  c)\n", ["b"], "f(a,\n  c)\n"),
    ("f(\n    a, b,\n    c,\n)\n", ["b"], "f(\n    a,\n    c,\n)\n"),
    ("f(\n    a, b,\n    c,\n)\n", ["a"], "f(\n    b,\n    c,\n)\n"),
    ("f(\n    a,\n    b,\n    c,\n)\n", ["a", "b"], "f(\n    c,\n)\n"),
    ("f(\n    a,\n    b,\n    c\n)\n", ["b", "c"], "f(\n    a\n)\n"),
    # parameters
    ("def f(a, b=1, *args, c: int = 2, **kw): pass\n", ["b=1"], "def f(a, *args, c: int = 2, **kw): pass\n"),
    ("def f(a, *, b): pass\n", ["b"], "def f(a): pass\n"),
    ("def f(a, *, b, **kw): pass\n", ["b"], "def f(a, **kw): pass\n"),
    ("def f(a, /, b): pass\n", ["a"], "def f(b): pass\n"),
    ("def f(self): pass\n", ["self"], "def f(): pass\n"),
    ("g = lambda x, y: x\n", ["y"], "g = lambda x: x\n"),
    ("g = lambda x: 1\n", ["x"], "g = lambda: 1\n"),
    # elements
    ("x = [1, 2, 3]\n", ["2"], "x = [1, 3]\n"),
    ("x = [1]\n", ["1"], "x = []\n"),
    ("x = {1, 2}\n", ["1"], "x = {2}\n"),
    ("x = (1, 2)\n", ["2"], "x = (1,)\n"),
    ("x = (1, 2)\n", ["1"], "x = (2,)\n"),
    ("x = (1, 2, 3)\n", ["1", "3"], "x = (2,)\n"),
    ("x = (1,)\n", ["1"], "x = ()\n"),
    ("x = (1, 2,)\n", ["2"], "x = (1,)\n"),
    ("x = (\n    1,\n    2\n)\n", ["2"], "x = (\n    1,\n)\n"),
    ("x = (\n    1,\n    2\n)\n", ["1"], "x = (\n    2,\n)\n"),
    ("x = 1, 2\n", ["2"], "x = 1,\n"),
    ("x = 1, 2, 3\n", ["2"], "x = 1, 3\n"),
    ("a, b = t\n", ["b"], "a, = t\n"),
    # a loop's bare target left with one name is written without a comma; in brackets it stays a tuple
    ("for key, value in m.items():\n    pass\n", ["key"], "for value in m.items():\n    pass\n"),
    ("for key, value in m.items():\n    pass\n", ["value"], "for key in m.items():\n    pass\n"),
    ("for é, 日本, c in d:\n    pass\n", ["é", "c"], "for 日本 in d:\n    pass\n"),
    ("for a, b, c in d:\n    pass\n", ["b"], "for a, c in d:\n    pass\n"),
    ("xs = [kk for kk, vv in m]\n", ["vv"], "xs = [kk for kk in m]\n"),
    (
        "async def f():\n    async for aa, bb in c:\n        pass\n",
        ["aa"],
        "async def f():\n    async for bb in c:\n        pass\n",
    ),
    ("for (a, b) in d:\n    pass\n", ["b"], "for (a,) in d:\n    pass\n"),
    ("del a, b\n", ["b"], "del a\n"),
    ("def f():\n    global x, y\n", ["y"], "def f():\n    global x\n"),
    ("def f():\n    nonlocal x, y\n", ["x"], "def f():\n    nonlocal y\n"),
    ("x = [\n    1,\n    2,\n]\n", ["2"], "x = [\n    1,\n]\n"),
    # dict entries
    ("d = {'a': 1, **rest, 'b': 2}\n", ["**rest"], "d = {'a': 1, 'b': 2}\n"),
    ("d = {'a': 1, 'b': 2}\n", ["'b'"], "d = {'a': 1}\n"),
    ("d = {\n    'a': 1,\n    'b': 2,\n}\n", ["'a'"], "d = {\n    'b': 2,\n}\n"),
    # imports, subscripts, with items
    ("from m import (a, b, c)\n", ["b"], "from m import (a, c)\n"),
    ("from m import a, b as c\n", ["a"], "from m import b as c\n"),
    ("from m import (\n    a,\n    b,\n)\n", ["b"], "from m import (\n    a,\n)\n"),
    ("import a.b, c as d\n", ["c as d"], "import a.b\n"),
    ("x[1:2, ::3]\n", ["::3"], "x[1:2]\n"),
    ("with a as b, c: pass\n", ["a as b"], "with c: pass\n"),
    ("with (\n    a as b,\n    c,\n):\n    pass\n", ["c"], "with (\n    a as b,\n):\n    pass\n"),
    # non-ASCII, CRLF, tabs
    ("f('é', '日本', '🎉')\n", ["'日本'"], "f('é', '🎉')\n"),
    ("f(\r\n    a,\r\n    b,\r\n)\r\n", ["a"], "f(\r\n    b,\r\n)\r\n"),
    ("f(\r\n    a,\r\n    b\r\n)\r\n", ["b"], "f(\r\n    a\r\n)\r\n"),
    ("if x:\n\tf(\n\t\ta,\n\t\tb,\n\t)\n", ["b"], "if x:\n\tf(\n\t\ta,\n\t)\n"),
]


@pytest.mark.parametrize(("before", "markers", "expected"), REMOVE)
def test_remove(before: str, markers: list[str], expected: str) -> None:
    out = act(before, "remove", *markers)
    assert out == expected
    assert not has_error(out.encode())


REFUSED_REMOVALS = [
    ("x = 1,\n", "1", "bare tuple"),
    ("from m import a\n", "a", "import statement"),
    ("import a\n", "a", "import statement"),
    ("x[1]\n", "1", "index"),
    ("with a: pass\n", "a", "with statement"),
    ("for a, in t: pass\n", "a", "target"),
    ("s = {1}\n", "1", "{} is a dict"),
    ("global x\n", "x", "remove the statement"),
    ("def f(q=1, *r, p): pass\n", "*r", "without a default"),
]


@pytest.mark.parametrize(("before", "marker", "why"), REFUSED_REMOVALS)
def test_removal_that_would_break_the_code_is_refused(before: str, marker: str, why: str) -> None:
    with pytest.raises(ActionRefused) as refused:
        act(before, "remove", marker)
    assert refused.value.field == "targets"
    assert why in refused.value.reason


CLONE = [
    ("f(a, b)\n", ["a"], True, "f(a, a, b)\n", ["a"]),
    ("f(a, b)\n", ["b"], True, "f(a, b, b)\n", ["b"]),
    ("f(a, b)\n", ["a"], False, "f(a, a, b)\n", ["a"]),
    ("f(a,b)\n", ["b"], True, "f(a,b,b)\n", ["b"]),
    ("x = (a,)\n", ["a"], True, "x = (a, a,)\n", ["a"]),
    ("f(\n    a,\n    b,\n)\n", ["a"], True, "f(\n    a,\n    a,\n    b,\n)\n", ["a"]),
    ("f(\n    a,\n    b\n)\n", ["b"], True, "f(\n    a,\n    b,\n    b\n)\n", ["b"]),
    ("f(\n    a,\n    b\n)\n", ["b"], False, "f(\n    a,\n    b,\n    b\n)\n", ["b"]),
    ("f(\n    k=[1, 2],\n)\n", ["k="], True, "f(\n    k=[1, 2],\n    k=[1, 2],\n)\n", ["k=[1, 2]"]),
    ("f(a, b)\n", ["a", "b"], True, "f(a, a, b, b)\n", ["a", "b"]),
    ("f('日本', b)\n", ["'日本'"], True, "f('日本', '日本', b)\n", ["'日本'"]),
    # the spacing after the original's comma stays after it, so removing the copy gives the original back
    ("f(a,   b)\n", ["a"], True, "f(a,   a, b)\n", ["a"]),
    ("f(x,\n  b)\n", ["x"], True, "f(x, x,\n  b)\n", ["x"]),
]


@pytest.mark.parametrize(("before", "markers", "after", "expected", "produced"), CLONE)
def test_clone(before: str, markers: list[str], after: bool, expected: str, produced: list[str]) -> None:
    out, spans = result(before, "clone", *markers, after=after)
    assert out == expected
    assert spans == produced


SWAP_MOVE = [
    ("f(a, b, c)\n", "swap", ["a", "c"], {}, "f(c, b, a)\n", ["c", "a"]),
    ("f(a, bb, c)\n", "swap", ["a", "bb"], {}, "f(bb, a, c)\n", ["bb", "a"]),
    ("f(x, [1, 2])\n", "swap", ["1", "x"], {}, "f(1, [x, 2])\n", ["1", "x"]),
    ("f(a, b, c)\n", "move", ["a", "c"], {}, "f(b, c, a)\n", ["a"]),
    ("f(a, b, c)\n", "move", ["c", "a"], {"after": False}, "f(c, a, b)\n", ["c"]),
    ("f(a, b, c)\n", "move", ["a", "b", "c"], {}, "f(c, a, b)\n", ["a", "b"]),
    ("f(a, b)\ng(c)\n", "move", ["a", "c"], {}, "f(b)\ng(c, a)\n", ["a"]),
    ("f(a, b)\ng(c)\n", "move", ["b", "c"], {"after": False}, "f(a)\ng(b, c)\n", ["b"]),
    ("f(a, b)\ng(c)\n", "move", ["a", "c"], {"keep": True}, "f(a, b)\ng(c, a)\n", ["a"]),
    ("f(a, b)\ng(c)\n", "move", ["a", "b", "c"], {}, "f()\ng(c, a, b)\n", ["a", "b"]),
    ("f(a, b, c)\n", "move_by", ["a"], {"step": 1}, "f(b, a, c)\n", ["a"]),
    ("f(a, b, c)\n", "move_by", ["c"], {"step": -1}, "f(a, c, b)\n", ["c"]),
    ("f(\n    a,\n    b,\n)\n", "move_by", ["a"], {"step": 1}, "f(\n    b,\n    a,\n)\n", ["a"]),
    ("f(a, b)\n", "insert", ["a"], {}, "f(a, , b)\n", [""]),
    ("f(\n    a,\n)\n", "insert", ["a"], {"after": False}, "f(\n    ,\n    a,\n)\n", [""]),
]


@pytest.mark.parametrize(("before", "action", "markers", "options", "expected", "produced"), SWAP_MOVE)
def test_swap_move_insert(
    before: str, action: str, markers: list[str], options: dict[str, object], expected: str, produced: list[str]
) -> None:
    out, spans = result(before, action, *markers, **options)  # type: ignore[arg-type]
    assert out == expected
    assert spans == produced


REFUSED = [
    ("def f(a):\n    g(b)\n", "swap", ["a", "b"], "targets[1]"),
    ("f(a)\nx = 1\n", "swap", ["a", "x = 1"], "targets[1]"),
    ("f(k=1)\nx = [2]\n", "swap", ["k=1", "2"], "targets[1]"),
    ("d = {1: 2}\nx = [3]\n", "swap", ["1: 2", "3"], "targets[1]"),
    ("f(a, g(b))\n", "swap", ["a", "g(b)"], None),
    ("f(a, g(b))\n", "swap", ["g(b)", "b"], "targets[1]"),
    ("f(a, b)\n", "move_by", ["a"], "targets[0]"),
]


@pytest.mark.parametrize(("before", "action", "markers", "field"), REFUSED)
def test_refused(before: str, action: str, markers: list[str], field: str | None) -> None:
    if field is None:
        assert not has_error(act(before, action, *markers).encode())
        return
    with pytest.raises(ActionRefused) as refused:
        act(before, action, *markers, step=-1)
    assert refused.value.field == field
