"""wrap / unwrap (handlers/actions/wrap.py, unwrap.py): golden before/after texts, refusals, and properties on
real code (the standard library): the result parses with no error, the wrapper's body has the original
statements' ``ast``, and wrap then unwrap gives the original ``ast`` back."""

from __future__ import annotations

from typing import Any

import pytest
from tree_sitter import Node, Tree

from tether_lsp.handlers.actions.model import ActionRefused, Outcome, applied
from tether_lsp.handlers.actions.unwrap import unwrap
from tether_lsp.handlers.actions.wrap import wrap
from tether_lsp.server.syntax import parse_text


def parsed(text: str | bytes) -> tuple[bytes, Tree]:
    raw = text.encode() if isinstance(text, str) else text
    return raw, parse_text("python", raw)


def nodes(tree: Tree) -> list[Node]:
    out, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        out.append(node)
        stack += node.children
    return sorted(out, key=lambda n: (n.start_byte, -n.end_byte))


def find(tree: Tree, source: bytes, text: str, kind: str | None = None, nth: int = 0) -> Node:
    """The ``nth`` node (outermost first at one place) whose text is ``text`` (and type ``kind``)."""
    want = text.encode()
    hits = [n for n in nodes(tree) if source[n.start_byte : n.end_byte] == want and kind in (None, n.type)]
    assert hits, f"no node {text!r} ({kind})"
    return hits[nth]


def result(source: bytes, outcome: Outcome) -> tuple[str, list[str]]:
    out = applied(source, outcome.replaces)
    return out.decode(), [out[s:e].decode() for s, e in outcome.produced]


def wrapped(before: str, targets: list[str | tuple[str, ...]], wrapper: str, **options: Any) -> tuple[str, list[str]]:
    source, tree = parsed(before)
    found = [find(tree, source, t) if isinstance(t, str) else find(tree, source, *t) for t in targets]  # type: ignore[arg-type]
    return result(source, wrap(source, tree, found, wrapper, **options))


def unwrapped(before: str, target: str, kind: str | None = None) -> tuple[str, list[str]]:
    source, tree = parsed(before)
    return result(source, unwrap(source, tree, find(tree, source, target, kind)))


# --- wrap: statements --------------------------------------------------------------------------------------

WRAP_CASES = [
    pytest.param(
        "x = 1\n", ["x = 1"], "try", "try:\n    x = 1\nexcept Exception:\n    raise\n", ["Exception"], id="try-top"
    ),
    pytest.param("x = 1\n", ["x = 1"], "if", "if condition:\n    x = 1\n", ["condition"], id="if-top"),
    pytest.param("x = 1\n", ["x = 1"], "with", "with context:\n    x = 1\n", ["context"], id="with-top"),
    pytest.param(
        "x = 1", ["x = 1"], "try", "try:\n    x = 1\nexcept Exception:\n    raise", ["Exception"], id="no-final-newline"
    ),
    pytest.param(
        "def f():\n    a = 1\n    b = 2\n    c = 3\n",
        ["a = 1", "b = 2"],
        "if",
        "def f():\n    if condition:\n        a = 1\n        b = 2\n    c = 3\n",
        ["condition"],
        id="two-consecutive",
    ),
    pytest.param(
        "def f():\n    a = 1\n    b = 2\n    c = 3\n",
        ["c = 3", "a = 1"],
        "if",
        "def f():\n    if condition:\n        a = 1\n    b = 2\n    if condition:\n        c = 3\n",
        ["condition", "condition"],
        id="two-apart-each-wrapped",
    ),
    pytest.param(
        "def f():\n    a = 1\n    # why\n\n    b = 2\n",
        ["a = 1", "b = 2"],
        "try",
        "def f():\n    try:\n        a = 1\n        # why\n\n        b = 2\n    except Exception:\n        raise\n",
        ["Exception"],
        id="comment-and-blank-between",
    ),
    pytest.param(
        "if x:\n\ta = 1  # note\n\tb = 2\n",
        ["a = 1"],
        "try",
        "if x:\n\ttry:\n\t\ta = 1  # note\n\texcept Exception:\n\t\traise\n\tb = 2\n",
        ["Exception"],
        id="tabs-and-tail-comment",
    ),
    pytest.param(
        "class C:\n  def m(self):\n    return 1\n",
        ["return 1"],
        "with",
        "class C:\n  def m(self):\n    with context:\n      return 1\n",
        ["context"],
        id="two-space-unit",
    ),
    pytest.param(
        'def f():\n    s = """one\n  two\nthree"""\n    return s\n',
        ['s = """one\n  two\nthree"""'],
        "if",
        'def f():\n    if condition:\n        s = """one\n  two\nthree"""\n    return s\n',
        ["condition"],
        id="triple-quoted-content-kept",
    ),
    pytest.param(
        "x = f(\n    1,\n  2)\n",
        ["x = f(\n    1,\n  2)"],
        "if",
        "if condition:\n    x = f(\n        1,\n      2)\n",
        ["condition"],
        id="continuation-lines-shift-together",
    ),
    pytest.param(
        "café = '東京 🚀'\r\nprint(café)\r\n",
        ["café = '東京 🚀'"],
        "try",
        "try:\r\n    café = '東京 🚀'\r\nexcept Exception:\r\n    raise\r\nprint(café)\r\n",
        ["Exception"],
        id="crlf-non-ascii",
    ),
    pytest.param(
        "@dec\ndef f():\n    pass\n",
        [("f", "identifier")],
        "if",
        "if condition:\n    @dec\n    def f():\n        pass\n",
        ["condition"],
        id="decorated-definition-whole",
    ),
    pytest.param(
        "def g():\n    print(a, b)\n",
        [("a", "identifier")],
        "try",
        "def g():\n    try:\n        print(a, b)\n    except Exception:\n        raise\n",
        ["Exception"],
        id="expression-climbs-to-statement",
    ),
    pytest.param(
        "if x:\n    a()\n    b()\n",
        [("a()\n    b()", "block")],
        "with",
        "if x:\n    with context:\n        a()\n        b()\n",
        ["context"],
        id="block-means-its-statements",
    ),
    pytest.param(
        "a = 1; b = 2\n",
        ["a = 1", "b = 2"],
        "if",
        "if condition:\n    a = 1; b = 2\n",
        ["condition"],
        id="whole-line-of-simple-statements",
    ),
    pytest.param(
        "if x:\n    pass\n",
        ["if x:\n    pass"],
        "if",
        "if condition:\n    if x:\n        pass\n",
        ["condition"],
        id="compound-statement",
    ),
    pytest.param("x = 1\n", ["x = 1"], "if", "if a and b:\n    x = 1\n", ["a and b"], id="placeholder-given"),
]


@pytest.mark.parametrize(("before", "targets", "wrapper", "after", "produced"), WRAP_CASES)
def test_wrap_statements(
    before: str, targets: list[str | tuple[str, ...]], wrapper: str, after: str, produced: list[str]
) -> None:
    options = {"placeholder": "a and b"} if after.startswith("if a and b") else {}
    assert wrapped(before, targets, wrapper, **options) == (after, produced)


def test_wrap_uses_the_indent_the_editor_gives() -> None:
    assert wrapped("x = 1\n", ["x = 1"], "if", indent=b"\t") == ("if condition:\n\tx = 1\n", ["condition"])


def test_wrap_at_top_level_takes_the_files_step() -> None:
    before = "def f():\n  pass\nx = 1\n"
    assert wrapped(before, ["x = 1"], "if")[0] == "def f():\n  pass\nif condition:\n  x = 1\n"


# --- wrap: expressions in a call ---------------------------------------------------------------------------

CALL_CASES = [
    pytest.param("x = a + 1\n", ["a + 1"], "x = function(a + 1)\n", ["function"], id="binary"),
    pytest.param(
        "x = g(a) + 1\n",
        [("a", "identifier"), "g(a)"],
        "x = function(g(function(a))) + 1\n",
        ["function", "function"],
        id="nested",
    ),
    pytest.param("f(x)\n", ["f(x)"], "function(f(x))\n", ["function"], id="expression-statement"),
    pytest.param(
        "y = [\n    1,\n    2,\n]\n",
        ["[\n    1,\n    2,\n]"],
        "y = function([\n    1,\n    2,\n])\n",
        ["function"],
        id="multi-line",
    ),
    pytest.param("x = not(a)\n", ["(a)"], "x = not function((a))\n", ["function"], id="keeps-tokens-apart"),
    pytest.param("x = a.b\n", [("a", "identifier")], "x = function(a).b\n", ["function"], id="attribute-object"),
    pytest.param(
        "x = (1, 2)\n", ["1", "2"], "x = (function(1), function(2))\n", ["function", "function"], id="two-elements"
    ),
    pytest.param("é = 'ü'\n", ["'ü'"], "é = function('ü')\n", ["function"], id="non-ascii"),
]


@pytest.mark.parametrize(("before", "targets", "after", "produced"), CALL_CASES)
def test_wrap_in_call(before: str, targets: list[str | tuple[str, ...]], after: str, produced: list[str]) -> None:
    assert wrapped(before, targets, "call") == (after, produced)


def test_wrap_in_a_named_call() -> None:
    assert wrapped("x = a\n", [("a", "identifier")], "call", placeholder="len") == ("x = len(a)\n", ["len"])


REFUSED_WRAPS = [
    pytest.param("def f(a, b=1):\n    pass\n", [("a", "identifier")], "try", "parameter", id="parameter"),
    pytest.param("@dec\ndef f():\n    pass\n", ["@dec"], "if", "decorator", id="decorator"),
    pytest.param("try:\n    a\nexcept E:\n    b\n", ["except E:\n    b"], "if", "except clause", id="except-clause"),
    pytest.param("if x:\n    a\nelse:\n    b\n", ["else:\n    b"], "if", "else clause", id="else-clause"),
    pytest.param("if x: a = 1\n", ["a = 1"], "if", "shares its line", id="one-line-block"),
    pytest.param("a = 1; b = 2\n", ["a = 1"], "if", "shares its line", id="semicolon"),
    pytest.param(
        "if x:\n    a = 1\n", ["if x:\n    a = 1", "a = 1"], "try", "inside another target", id="nested-targets"
    ),
    pytest.param("# just a comment\nx = 1\n", ["# just a comment"], "if", "only comments", id="comment-alone"),
    pytest.param("x = 1\n", [("x", "identifier")], "call", "assigned", id="assigned-name"),
    pytest.param("a, b = 1, 2\n", [("b", "identifier")], "call", "assigned", id="unpacked-name"),
    pytest.param("for i in y:\n    pass\n", [("i", "identifier")], "call", "assigned", id="loop-variable"),
    pytest.param("f(k=1)\n", [("k", "identifier")], "call", "keyword argument", id="keyword-name"),
    pytest.param("x = a.b\n", [("b", "identifier")], "call", "attribute", id="attribute-name"),
    pytest.param("x = 1\n", ["x = 1"], "call", "a call wraps an expression", id="assignment-statement"),
    pytest.param("f(*a)\n", ["*a"], "call", "a call wraps an expression", id="splat"),
    pytest.param("del x\n", [("x", "identifier")], "call", "del", id="deleted"),
    pytest.param("import os\n", [("os", "identifier")], "call", "imported", id="import-name"),
    pytest.param("f(x for x in y)\n", ["(x for x in y)"], "call", "shares its parentheses", id="sole-generator"),
    pytest.param("x = 'a' 'b'\n", ["'a'"], "call", "concatenated", id="string-part"),
    pytest.param("async def f():\n    await g()\n", [("await", "await")], "call", "expression", id="await-keyword"),
    pytest.param("f = lambda: 1\n", [("lambda", "lambda")], "call", "expression", id="lambda-keyword"),
]


@pytest.mark.parametrize(("before", "targets", "wrapper", "reason"), REFUSED_WRAPS)
def test_wrap_refuses(before: str, targets: list[str | tuple[str, ...]], wrapper: str, reason: str) -> None:
    with pytest.raises(ActionRefused) as refused:
        wrapped(before, targets, wrapper)
    assert reason in refused.value.reason
    assert refused.value.field.startswith("targets")


@pytest.mark.parametrize(
    ("wrapper", "placeholder", "field"),
    [
        ("loop", None, "wrapper"),
        ("if", "a +", "placeholder"),
        ("if", "a\nb", "placeholder"),
        ("if", " ", "placeholder"),
    ],
)
def test_wrap_refuses_bad_parameters(wrapper: str, placeholder: str | None, field: str) -> None:
    with pytest.raises(ActionRefused) as refused:
        wrapped("x = 1\n", ["x = 1"], wrapper, placeholder=placeholder)
    assert refused.value.field == field


def test_wrap_refuses_no_target() -> None:
    source, tree = parsed("x = 1\n")
    with pytest.raises(ActionRefused):
        wrap(source, tree, [], "if")


# --- unwrap ------------------------------------------------------------------------------------------------

UNWRAP_CASES = [
    pytest.param(
        "if c:\n    a = 1\n    b = 2\n", ("if c:\n    a = 1\n    b = 2",), "a = 1\nb = 2\n", ["a = 1\nb = 2"], id="if"
    ),
    pytest.param("if c:\n    a = 1\n", ("c", "identifier"), "a = 1\n", ["a = 1"], id="if-from-condition"),
    pytest.param(
        "with open(p) as f:\n    f.read()\n",
        ("p", "identifier"),
        "with p as f:\n    f.read()\n",
        ["p"],
        id="call-nearest-first",
    ),
    pytest.param("with open(p) as f:\n    f.read()\n", ("open(p) as f",), "f.read()\n", ["f.read()"], id="with"),
    pytest.param(
        "def f():\n    if c:\n        a = 1\n        # note\n\n        b = 2  # tail\n    return\n",
        ("a = 1",),
        "def f():\n    a = 1\n    # note\n\n    b = 2  # tail\n    return\n",
        ["a = 1\n    # note\n\n    b = 2  # tail"],
        id="nested-comments-blank",
    ),
    pytest.param(
        "if c:\n    s = '''one\n    two\n        three'''\n",
        ("c", "identifier"),
        "s = '''one\n    two\n        three'''\n",
        ["s = '''one\n    two\n        three'''"],
        id="string-lines-are-content",
    ),
    pytest.param("if c:\n\tif d:\n\t\tx = 1\n", ("d", "identifier"), "if c:\n\tx = 1\n", ["x = 1"], id="tabs"),
    pytest.param(
        "if c:\r\n    é = '東京'\r\n    f(é)\r\n",
        ("c", "identifier"),
        "é = '東京'\r\nf(é)\r\n",
        ["é = '東京'\r\nf(é)"],
        id="crlf-non-ascii",
    ),
    pytest.param("if c: a = 1\n", ("c", "identifier"), "a = 1\n", ["a = 1"], id="one-line-if"),
    pytest.param("if c:\n    a\nelif d:\n    b\nelse:\n    e\n", ("b", "identifier"), "b\n", ["b"], id="elif-branch"),
    pytest.param("if c:\n    a\nelse:\n    e\n", ("a", "identifier"), "a\n", ["a"], id="if-branch"),
    pytest.param("if c:\n    a\nelse:  # why\n    e\n", ("e", "identifier"), "e\n", ["e"], id="else-branch"),
    pytest.param(
        "try:\n    a\nexcept E:\n    b\nelse:\n    c\nfinally:\n    d\n",
        ("a", "identifier"),
        "a\nc\nd\n",
        ["a\nc\nd"],
        id="try-body-else-finally",
    ),
    pytest.param(
        "for i in x:\n    f(i)\nelse:\n    g()\n", ("x", "identifier"), "f(i)\ng()\n", ["f(i)\ng()"], id="for-else"
    ),
    pytest.param(
        "while x:\n    for i in y:\n        break\n    else:\n        g()\n",
        ("x", "identifier"),
        "for i in y:\n    break\nelse:\n    g()\n",
        ["for i in y:\n    break\nelse:\n    g()"],
        id="while-inner-break",
    ),
    pytest.param(
        "async def f():\n    async with a:\n        await b\n",
        ("a", "identifier"),
        "async def f():\n    await b\n",
        ["await b"],
        id="async-with",
    ),
    pytest.param("x = f(a)\n", ("f(a)",), "x = a\n", ["a"], id="call"),
    pytest.param("x = f(a,)\n", ("f", "identifier"), "x = a\n", ["a"], id="call-trailing-comma"),
    pytest.param(
        "x = f(a + b) * c\n", ("f(a + b)",), "x = (a + b) * c\n", ["a + b"], id="call-argument-needs-parentheses"
    ),
    pytest.param(
        "x = f(a\n  + b)\n", ("f", "identifier"), "x = (a\n  + b)\n", ["a\n  + b"], id="call-multi-line-argument"
    ),
    pytest.param(
        "y = [f(a\n  + b)]\n", ("f", "identifier"), "y = [a\n  + b]\n", ["a\n  + b"], id="call-multi-line-in-brackets"
    ),
    pytest.param("return f(x)if y else z\n", ("f", "identifier"), "return x if y else z\n", ["x"], id="call-spacing"),
    pytest.param(
        "s = sum(x for x in y)\n",
        ("sum", "identifier"),
        "s = (x for x in y)\n",
        ["(x for x in y)"],
        id="call-generator",
    ),
    pytest.param(
        "x = f(a and b) and c\n", ("f", "identifier"), "x = a and b and c\n", ["a and b"], id="call-left-boolean"
    ),
    pytest.param(
        "x = f(a or b) and c\n", ("f", "identifier"), "x = (a or b) and c\n", ["a or b"], id="call-lower-boolean"
    ),
    pytest.param(
        "x = c and f(a and b)\n", ("f", "identifier"), "x = c and (a and b)\n", ["a and b"], id="call-right-boolean"
    ),
    pytest.param("while x: y()\r\nz()\r\n", ("x", "identifier"), "y()\r\nz()\r\n", ["y()"], id="one-line-while-crlf"),
    pytest.param("x = (a + b) + c\n", ("(a + b)",), "x = a + b + c\n", ["a + b"], id="parentheses-left-operand"),
    pytest.param("return(x)\n", ("(x)",), "return x\n", ["x"], id="parentheses-keyword-spacing"),
    pytest.param(
        "x = [(a\n  + b)]\n", ("(a\n  + b)",), "x = [a\n  + b]\n", ["a\n  + b"], id="parentheses-multi-line-in-brackets"
    ),
    pytest.param("x = -(a ** 2)\n", ("(a ** 2)",), "x = -a ** 2\n", ["a ** 2"], id="parentheses-power-under-minus"),
    pytest.param(
        "if (x := 1):\n    pass\n",
        ("(x := 1)",),
        "if x := 1:\n    pass\n",
        ["x := 1"],
        id="parentheses-walrus-condition",
    ),
    pytest.param("y = (yield)\n", ("(yield)",), "y = yield\n", ["yield"], id="parentheses-yield-assigned"),
]


@pytest.mark.parametrize(("before", "target", "after", "produced"), UNWRAP_CASES)
def test_unwrap(before: str, target: tuple[str, ...], after: str, produced: list[str]) -> None:
    assert unwrapped(before, *target) == (after, produced)


REFUSED_UNWRAPS = [
    pytest.param("if c:\n    a\nelse:\n    b\n", ("c", "identifier"), "elif/else", id="if-with-else-from-condition"),
    pytest.param("try:\n    a\nexcept E:\n    b\n", ("b", "identifier"), "except", id="inside-except"),
    pytest.param("for i in x:\n    if i:\n        break\n", ("x", "identifier"), "break", id="loop-break"),
    pytest.param("while x:\n    continue\n", ("x", "identifier"), "continue", id="loop-continue"),
    pytest.param("def f():\n    return 1\n", ("1", "integer"), "no if, with", id="nothing-around"),
    pytest.param("if c:\n    def f():\n        return 1\n", ("1", "integer"), "no if, with", id="not-past-a-def"),
    pytest.param("f(a, b)\n", ("f", "identifier"), "2 arguments", id="two-arguments"),
    pytest.param("f()\n", ("f", "identifier"), "0 arguments", id="no-argument"),
    pytest.param("f(k=1)\n", ("f", "identifier"), "not a plain value", id="keyword"),
    pytest.param("f(*a)\n", ("f", "identifier"), "not a plain value", id="splat"),
    pytest.param("f(  # why\n    a)\n", ("f", "identifier"), "comment", id="comment-in-call"),
    pytest.param("x = (a + b) * c\n", ("(a + b)",), "needed", id="precedence"),
    pytest.param("x = a - (b - c)\n", ("(b - c)",), "needed", id="right-operand"),
    pytest.param("x = (a and b) and c\n", ("(a and b)",), "needed", id="boolean-tree-differs"),
    pytest.param("x = (a < b) < c\n", ("(a < b)",), "needed", id="comparison-chain"),
    pytest.param("x = (a\n  + b)\n", ("(a\n  + b)",), "needed", id="line-break-outside-brackets"),
    pytest.param("x = (1).real\n", ("(1)",), "needed", id="integer-attribute"),
    pytest.param("x = (-a) ** 2\n", ("(-a)",), "needed", id="power-left"),
    pytest.param("f((yield))\n", ("(yield)",), "needed", id="yield-argument"),
    pytest.param("(x := 1)\n", ("(x := 1)", "parenthesized_expression"), "needed", id="walrus-statement"),
    pytest.param("x = [i for i in (a if b else c)]\n", ("(a if b else c)",), "needed", id="comprehension-iterable"),
    pytest.param("x = (  # c\n    a)\n", ("(  # c\n    a)",), "comment", id="comment-in-parentheses"),
]


@pytest.mark.parametrize(("before", "target", "reason"), REFUSED_UNWRAPS)
def test_unwrap_refuses(before: str, target: tuple[str, ...], reason: str) -> None:
    with pytest.raises(ActionRefused) as refused:
        unwrapped(before, *target)
    assert reason in refused.value.reason
    assert refused.value.field == "targets[0]"
