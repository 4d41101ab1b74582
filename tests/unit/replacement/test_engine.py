"""Replacement analysis, table-driven: a completion under an Ansible ``shell:`` replacing its children, every rule
for finding the unit a completion redefines, confidence and the settings that bound it (docs/replacement.md), and
the mistakes a naive analysis makes: the edit must start on the blank cursor line, the unit's column comes from
the cursor, a bare ``def`` keeps the old decorators, a new item among its siblings or a header being typed is
inserted, and an identical completion changes nothing.

Documents are written with ``‸`` where the cursor is.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tether_lsp.handlers.replacement.engine import analyze
from tether_lsp.handlers.replacement.model import Analysis, Options
from tether_lsp.server.syntax import parse_text

CURSOR = "‸"


def run(doc: str, completion: str, language: str = "yaml", **options: object) -> tuple[Analysis, bytes]:
    at = doc.index(CURSOR)
    text = doc.replace(CURSOR, "").encode("utf-8")
    cursor = len(doc[:at].encode("utf-8"))
    tree = parse_text(language, text)
    return analyze(text, tree, language, cursor, completion, replace(Options(), **options)), text  # type: ignore[arg-type]


def replaced(result: tuple[Analysis, bytes]) -> str:
    analysis, text = result
    assert analysis.replace_span is not None, analysis.reason
    return text[analysis.replace_span[0] : analysis.replace_span[1]].decode()


def applied(result: tuple[Analysis, bytes]) -> str:
    analysis, text = result
    a, b = analysis.edit_span
    return (text[:a] + analysis.new_text.encode() + text[b:]).decode()


SHELL_TASK = """- hosts: all
  tasks:
    - name: Get cpu count for worker
      shell:
‸
        command: >-
          "{{ old command that should be deleted }}"
        register: old_result
      when: ready
"""
SHELL_COMPLETION = '        command: >-\n          "{{ working_dir }}/oc get nodes"\n        register: r'


def test_a_blank_line_under_shell_replaces_its_children() -> None:
    result = run(SHELL_TASK, SHELL_COMPLETION)
    analysis, text = result
    assert analysis.mode == "replace"
    assert analysis.strategy == "positional-children"
    assert replaced(result) == (
        '        command: >-\n          "{{ old command that should be deleted }}"\n        register: old_result'
    )
    assert analysis.replaced_lines == 3
    assert analysis.confidence == 1.0
    assert analysis.show_visual_diff is True
    assert analysis.unit is not None
    assert (analysis.unit.type, analysis.unit.identifier, analysis.unit.column) == (
        "yaml-key-value-block",
        "command",
        8,
    )
    # the edit starts on the blank cursor line and absorbs it, so Tab applies it with the cursor anywhere
    assert text[analysis.edit_span[0] - 1 : analysis.edit_span[0]] == b"\n"
    assert applied(result) == SHELL_TASK.replace(CURSOR + "\n", "").replace(
        '        command: >-\n          "{{ old command that should be deleted }}"\n        register: old_result',
        SHELL_COMPLETION,
    )


@pytest.mark.parametrize(
    ("value", "old"),
    [
        ("        - one\n        - two\n", "        - one\n        - two"),  # a sequence
        ('        "just a scalar"\n', '        "just a scalar"'),  # a scalar: whatever the value below the key is
    ],
)
def test_positional_children_of_any_kind(value: str, old: str) -> None:
    doc = f"job:\n  steps:\n    shell:\n‸\n{value}    when: x\n"
    result = run(doc, "        cmd: echo hi")
    assert result[0].strategy == "positional-children"
    assert replaced(result) == old


def test_a_pair_without_value_falls_through_to_siblings() -> None:
    result = run("a:\n  shell:\n‸\n  other: 1\n", "  shell: echo hi")
    assert result[0].strategy == "sibling-key"
    assert replaced(result) == "  shell:"


@pytest.mark.parametrize(
    ("old_key", "new_key"),
    [("shell", "shell"), ("ansible.builtin.shell", "shell"), ("shell", "ansible.builtin.shell")],
)
def test_sibling_keys_match_with_collection_prefixes(old_key: str, new_key: str) -> None:
    doc = f"- name: t\n  {old_key}: echo old\n  register: r\n‸\n"
    result = run(doc, f"  {new_key}: echo new")
    assert result[0].mode == "replace"
    assert result[0].strategy == "sibling-key"
    assert replaced(result) == f"  {old_key}: echo old"


TASKS = """tasks:
  - name: install
    apt: name=nginx
  - name: start
    service: name=nginx state=started
‸
"""


def test_list_items_are_matched_by_name() -> None:
    result = run(TASKS, "  - name: install\n    apt: name=nginx state=latest")
    assert result[0].strategy == "sibling-item"
    assert replaced(result) == "  - name: install\n    apt: name=nginx"


def test_a_new_task_after_a_task_is_inserted() -> None:
    analysis, _ = run(TASKS, "  - name: reload\n    service: name=nginx state=reloaded")
    assert analysis.mode == "insert"
    assert analysis.reason == "unit 'name=reload' not found in scope"


def test_a_new_scalar_item_is_inserted() -> None:
    analysis, _ = run("packages:\n  - git\n  - curl\n‸\n", "  - vim")
    assert analysis.mode == "insert"


def test_the_first_pair_of_an_item_keeps_its_dash() -> None:
    result = run("- name: old title\n  shell: x\n  ‸\n", "name: new title")
    assert replaced(result) == "name: old title"
    assert applied(result) == "- name: new title\n  shell: x\n  \n"


CLASS = """import os


class Store:
    def load(self, path):
        return open(path).read()

    @property
    def size(self):
        return 1

    ‸
"""


def test_a_method_redefinition_from_an_auto_indented_cursor() -> None:
    """FIM text starts at the cursor column: the unit's column comes from the cursor line, not the completion."""
    result = run(CLASS, "def load(self, path):\n        with open(path) as f:\n            return f.read()", "python")
    analysis = result[0]
    assert analysis.mode == "replace"
    assert analysis.strategy == "sibling-definition"
    assert replaced(result) == "    def load(self, path):\n        return open(path).read()"
    assert analysis.unit is not None
    assert analysis.unit.column == 4
    assert analysis.confidence == 1.0  # 0.95 + 0.1 (same column) + 0.05 (2 lines), capped
    # the old unit is above the cursor: the edit is exactly replaceRange, the cursor line stays
    assert analysis.edit_span == analysis.replace_span
    assert "    def load(self, path):\n        with open(path) as f:\n" in applied(result)


def test_a_bare_def_over_a_decorated_one_keeps_the_decorators() -> None:
    result = run(CLASS, "def size(self):\n        return 2", "python")
    assert replaced(result) == "    def size(self):\n        return 1"
    assert "    @property\n    def size(self):\n        return 2" in applied(result)


def test_a_decorated_completion_replaces_the_decorators_too() -> None:
    result = run(CLASS, "@cached_property\n    def size(self):\n        return 2", "python")
    assert replaced(result) == "    @property\n    def size(self):\n        return 1"
    assert applied(result).count("def size") == 1


def test_functions_and_classes_match_by_kind_and_name() -> None:
    doc = "def Store():\n    pass\n\n\nclass Store:\n    pass\n\n‸\n"
    result = run(doc, "class Store:\n    x = 1", "python")
    assert replaced(result) == "class Store:\n    pass"
    result = run(doc, "def Store():\n    return 1", "python")
    assert replaced(result) == "def Store():\n    pass"


def test_an_old_unit_below_the_cursor_is_found() -> None:
    doc = "import os\n‸\n\ndef load(path):\n    return 1\n"
    result = run(doc, "def load(path):\n    return 2", "python")
    assert replaced(result) == "def load(path):\n    return 1"
    # forward, and the blank lines between `import os` and the function are a separator: they stay
    assert applied(result) == "import os\n\n\ndef load(path):\n    return 2\n"


METHODS = """class Shapes:
    def area(self):
        return 1
    ‸
    def side(self):
        return 2

    def name(self):
        return "s"
"""


def test_the_blank_line_between_two_methods_is_kept() -> None:
    """The cursor on the one blank line separating two methods: accepting the next one's redefinition keeps it,
    without the spaces typed on it."""
    result = run(METHODS, "def side(self):\n        return 3", "python")
    assert replaced(result) == "    def side(self):\n        return 2"
    assert applied(result) == METHODS.replace("    ‸", "").replace("return 2", "return 3")


def test_a_line_added_to_type_on_is_absorbed_the_separator_kept() -> None:
    """One blank line more than the methods' separation: the cursor line goes, one blank line stays."""
    doc = METHODS.replace("    ‸\n", "\n    ‸\n")
    result = run(doc, "def side(self):\n        return 3", "python")
    assert applied(result) == METHODS.replace("    ‸", "").replace("return 2", "return 3")


@pytest.mark.parametrize(
    ("doc", "completion", "expected"),
    [
        # a blank line right under the block's header was made to type on: it goes
        (
            "class A:\n    ‸\n    def f(self):\n        return 1\n",
            "def f(self):\n        return 2",
            "class A:\n    def f(self):\n        return 2\n",
        ),
        # two blank lines between top-level functions, the cursor on one of them: both stay
        (
            "def a():\n    pass\n\n‸\ndef b():\n    return 1\n\n\ndef c():\n    pass\n",
            "def b():\n    return 2",
            "def a():\n    pass\n\n\ndef b():\n    return 2\n\n\ndef c():\n    pass\n",
        ),
        # YAML siblings separated by a blank line, the cursor on it
        ("a:\n  x: 1\n‸\n  y:\n    k: 1\n\n  z: 3\n", "  y:\n    k: 2", "a:\n  x: 1\n\n  y:\n    k: 2\n\n  z: 3\n"),
    ],
)
def test_blank_lines_around_the_replaced_unit_are_kept(doc: str, completion: str, expected: str) -> None:
    result = run(doc, completion, "yaml" if doc.startswith("a:") else "python")
    assert result[0].mode == "replace", result[0].reason
    assert applied(result) == expected


TWO_METHODS = """class Shapes:
    def area(self):
        return 1

    def side(self):
        return 2
"""


@pytest.mark.parametrize(
    ("doc", "completion"),
    [
        # a line opened above the last method (`O` on its `def`, Ctrl+Shift+Enter): the editor indented it
        (TWO_METHODS.replace("\n\n    def side", "\n\n    ‸\n    def side"), "def side(self):\n        return 3"),
        # the same line without its indentation: the model writes it
        (TWO_METHODS.replace("\n\n    def side", "\n\n‸\n    def side"), "    def side(self):\n        return 3"),
        # a line opened above the separator
        (TWO_METHODS.replace("\n\n    def side", "\n    ‸\n\n    def side"), "def side(self):\n        return 3"),
    ],
)
def test_the_line_opened_for_the_completion_is_consumed_the_separator_kept(doc: str, completion: str) -> None:
    """The method rewritten from a line the user opened above it comes back one blank line under the
    method before it, as before; neither the opened line nor its indentation is left behind."""
    result = run(doc, completion, "python")
    assert result[0].mode == "replace", result[0].reason
    assert replaced(result) == "    def side(self):\n        return 2"
    assert applied(result) == TWO_METHODS.replace("return 2", "return 3")


@pytest.mark.parametrize(
    ("doc", "completion", "expected"),
    [
        # the last top-level function, a line opened above it: the two blank lines of the module stay
        (
            "import os\n\n\n‸\ndef load():\n    return 1\n",
            "def load():\n    return 2",
            "import os\n\n\ndef load():\n    return 2\n",
        ),
        # the separation shown above the method before: one blank line (no sibling after it to compare with)
        (
            "class A:\n    x = 1\n\n    def f(self):\n        pass\n\n    ‸\n    def g(self):\n        pass\n",
            "def g(self):\n        return 1",
            "class A:\n    x = 1\n\n    def f(self):\n        pass\n\n    def g(self):\n        return 1\n",
        ),
        # a function defined inside a function: one blank line before it (as Black writes it); the opened line goes
        (
            "def f():\n    x = 1\n\n    ‸\n    def g():\n        return x\n\n    return g\n",
            "def g():\n        return x + 1",
            "def f():\n    x = 1\n\n    def g():\n        return x + 1\n\n    return g\n",
        ),
        # ... and the cursor on that blank line: it is the separator, kept
        (
            "def f():\n    x = 1\n‸\n    def g():\n        return x\n\n    return g\n",
            "    def g():\n        return x + 1",
            "def f():\n    x = 1\n\n    def g():\n        return x + 1\n\n    return g\n",
        ),
        # the last of two methods, the cursor on the one blank line between them: a separator, kept
        (
            TWO_METHODS.replace("\n\n    def side", "\n‸\n    def side"),
            "    def side(self):\n        return 3",
            TWO_METHODS.replace("return 2", "return 3"),
        ),
    ],
)
def test_the_separator_is_what_the_block_shows_else_the_usual_one(doc: str, completion: str, expected: str) -> None:
    result = run(doc, completion, "python")
    assert result[0].mode == "replace", result[0].reason
    assert applied(result) == expected


THREE_METHODS = TWO_METHODS + "\n    def name(self):\n        return 's'\n"


def parses(text: str) -> bool:
    return not parse_text("python", text.encode()).root_node.has_error


@pytest.mark.parametrize(
    "completion",
    [
        "def side(self):\n    return 3",  # all of it written as if the class body were at column 0
        "def side(self):\n        return 3",  # the first line at the cursor, the body where the old one is
    ],
)
def test_a_rewrite_typed_left_of_the_class_body_is_re_indented_into_it(completion: str) -> None:
    """On a line with no indentation inside a class body (Ctrl+Shift+Enter), the model writes the method
    below at column 0. Inserted as it is, it would be a top-level `def` that ends the class early; moved to the
    body's column it is the new version of that method, and the file still parses."""
    doc = THREE_METHODS.replace("\n\n    def side", "\n\n‸\n    def side")
    result = run(doc, completion, "python")
    analysis = result[0]
    assert analysis.mode == "replace" and analysis.warning is None
    assert analysis.reason.startswith("re-indented to column 4"), analysis.reason
    assert applied(result) == THREE_METHODS.replace("return 2", "return 3")
    assert parses(applied(result))


def test_a_new_method_typed_left_of_the_class_body_is_inserted_into_it() -> None:
    doc = THREE_METHODS.replace("\n\n    def side", "\n\n‸\n    def side")
    result = run(doc, "def grow(self):\n    return 4", "python")
    assert (result[0].mode, result[0].warning) == ("insert", None)
    assert applied(result) == doc.replace("‸", "    def grow(self):\n        return 4")
    assert parses(applied(result))


def test_a_completion_that_would_end_the_block_early_carries_a_warning() -> None:
    """Placed at the body's column it does not parse either: an insert, and a warning that says why."""
    doc = THREE_METHODS.replace("\n\n    def side", "\n\n‸\n    def side")
    result = run(doc, "else:\n    pass", "python")
    assert result[0].mode == "insert"
    assert result[0].warning is not None and "would end the enclosing block early" in result[0].warning
    assert result[0].reason == result[0].warning


@pytest.mark.parametrize(
    "doc",
    [
        TWO_METHODS + "‸",  # after the class: a top-level function is what the line says
        TWO_METHODS + "‸\n\ndef other():\n    pass\n",
    ],
)
def test_a_top_level_function_after_a_block_is_left_alone(doc: str) -> None:
    result = run(doc, "def other2():\n    return 1", "python")
    assert (result[0].mode, result[0].warning) == ("insert", None)
    assert not result[0].reason.startswith("re-indented")
    assert applied(result) == doc.replace("‸", "def other2():\n    return 1")


def test_a_completion_inside_brackets_is_not_moved() -> None:
    """The lines after the cursor are the bracket's, not a block: the completion goes where it was typed."""
    result = run("x = call(\n‸\n    1,\n)\n", "def f():\n    pass", "python")
    assert (result[0].reason, result[0].warning) == ("cursor is inside brackets", None)


@pytest.mark.parametrize(
    ("doc", "completion", "language", "reason"),
    [
        ("a:\n  sta‸tus: x\n", "rt: 1", "yaml", "cursor is inside a word"),  # the cursor in the middle of a key
        ('a:\n  b: "unclosed ‸\n', 'x"', "yaml", "syntax error before the cursor on its line"),
        ("x = call(1,\n‸\n)\n", "def f():\n    pass", "python", "cursor is inside brackets"),
        ('s = """doc\n‸\n"""\n', "def f():\n    pass", "python", "cursor is inside a string"),
        ("a: [1,\n‸\n]\n", "b: 2", "yaml", "cursor is inside a flow sequence"),
        ("def load_‸", "(path):\n    pass", "python", "syntax error before the cursor on its line"),
    ],
)
def test_incomplete_cursor_positions_insert(doc: str, completion: str, language: str, reason: str) -> None:
    analysis, _ = run(doc, completion, language)
    assert (analysis.mode, analysis.reason) == ("insert", reason)


def test_an_expression_or_statement_completion_is_inserted() -> None:
    doc = "def f(x):\n    if x:\n        return 1\n    ‸\n"
    for completion in ("return x + 1", "if x > 2:\n        return 2", "x.append(3)"):
        analysis, _ = run(doc, completion, "python")
        assert (analysis.mode, analysis.reason) == ("insert", "no logical unit")


def test_continuing_the_line_inserts_with_the_typed_word() -> None:
    analysis, text = run("def f():\n    retu‸\n", "rn 42", "python")
    assert (analysis.mode, analysis.reason) == ("insert", "completion continues the line")
    assert text[analysis.edit_span[0] : analysis.edit_span[1]] == b"retu"
    assert analysis.new_text == "return 42"


def test_an_identical_completion_is_a_no_op() -> None:
    analysis, _ = run(
        SHELL_TASK,
        '        command: >-\n          "{{ old command that should be deleted }}"\n        register: old_result\n',
    )
    assert (analysis.mode, analysis.reason) == ("insert", "identical")


def test_confidence_and_min_confidence() -> None:
    doc = "root:\n  shell: old\n  register: r\n‸\n"
    analysis, _ = run(doc, "    shell: new")  # column 4 vs the old key's column 2: a deeper scope, none there
    assert analysis.mode == "insert"
    analysis, _ = run("tasks:\n  - name: a\n    x: 1\n  ‸\n", "  - name: a")  # a list item, 1 line, column 4 != 2
    assert analysis.mode == "insert"
    single = "root:\n  shell: old\n  ‸\n"
    analysis, _ = run(single, "shell: new")
    assert (analysis.mode, analysis.confidence, analysis.show_visual_diff) == ("replace", 1.0, True)
    analysis, _ = run(single, "shell: new", min_confidence=1.0)
    assert analysis.mode == "replace"
    analysis, _ = run(single, "shell: new", visual_diff_min_confidence=1.0)
    assert analysis.show_visual_diff is False  # one line, confidence 1.0 is not > 1.0


def test_a_positional_unit_at_another_column_loses_confidence() -> None:
    deeper = "\n".join("  " + line for line in SHELL_COMPLETION.split("\n"))  # column 10, children at 8
    analysis, _ = run(SHELL_TASK, deeper)
    assert (analysis.mode, analysis.confidence) == ("replace", 0.75)  # 0.9 - 0.2 + 0.05
    analysis, _ = run(SHELL_TASK, deeper, min_confidence=0.8)
    assert (analysis.mode, analysis.reason) == ("insert", "confidence 0.75 below minConfidence 0.8")


def test_replacements_can_be_disabled() -> None:
    analysis, _ = run(SHELL_TASK, SHELL_COMPLETION, enable_replacements=False)
    assert (analysis.mode, analysis.reason, analysis.confidence) == ("insert", "disabled", 0.0)


def test_crlf_documents() -> None:
    doc = SHELL_TASK.replace("\n", "\r\n")
    result = run(doc, SHELL_COMPLETION.replace("\n", "\r\n"))
    assert result[0].mode == "replace"
    assert replaced(result).endswith("register: old_result")
    assert "\r\n" in replaced(result)


def test_non_ascii_before_the_cursor() -> None:
    doc = "- name: café 東京 🚀\n  shell:\n‸\n    command: old\n"
    result = run(doc, "    command: nouveau é")
    assert replaced(result) == "    command: old"


def test_multi_document_yaml_stays_in_its_document() -> None:
    doc = "a:\n  shell: first\n---\nb:\n  shell: second\n  ‸\n"
    result = run(doc, "shell: third")
    assert replaced(result) == "  shell: second"


def test_a_comment_at_the_end_of_a_block_does_not_swallow_the_next_sibling() -> None:
    doc = "job:\n  shell:\n‸\n    cmd: x\n    # trailing note\n  when: y\n"
    result = run(doc, "    cmd: z")
    assert "when" not in replaced(result)


def test_a_header_being_typed_is_not_replaced() -> None:
    doc = "def helper(:\n‸\n\ndef other():\n    pass\n"
    analysis, _ = run(doc, "    return 1", "python")
    assert analysis.mode == "insert"
    doc = "def helper():\n    pass\n\ndef other(\n‸\n"
    analysis, _ = run(doc, "def other():\n    pass", "python")
    assert analysis.mode == "insert"


def test_a_replacement_that_would_break_the_file_is_an_insert() -> None:
    doc = "def total(items):\n    return sum(items)\n\n‸\n"
    analysis, _ = run(doc, "def total(items):\n    return (sum(items)\n\nx = [", "python")
    assert (analysis.mode, analysis.reason) == ("insert", "replacement would add syntax errors")


def test_tabs_in_yaml_are_not_replaced() -> None:
    analysis, _ = run("a:\n\tshell: x\n‸\n", "\tshell: y")
    assert analysis.mode == "insert"


# Scope by indentation: each case is a small excerpt of a real rewrite that used to be inserted
# with "unit … not found in scope"; the cursor line belongs to the block whose indentation it continues.
SCOPE_BY_INDENTATION = [
    pytest.param(  # click's TextWrapper: the blank line right under the class header, before the first method
        "class TextWrapper(textwrap.TextWrapper):\n\n    ‸\n    def _cutdown(self, ucstr, space_left):\n"
        "        l = 0\n\n    def extra_indent(self, indent):\n        pass\n",
        "def _cutdown(self, ucstr, space_left):\n        return 0",
        "    def _cutdown(self, ucstr, space_left):\n        l = 0",
        id="under-a-class-header",
    ),
    pytest.param(  # click's tests: a command defined first thing in a test function
        "def test_option_normalization(runner):\n    ‸\n    @click.command()\n    def cli(foo):\n"
        "        click.echo(foo)\n\n    result = runner.invoke(cli, [])\n",
        "@click.command()\n    @click.option('--foo')\n    def cli(foo):\n        click.echo(foo)",
        "    @click.command()\n    def cli(foo):\n        click.echo(foo)",
        id="nested-in-a-function",
    ),
    pytest.param(  # click's make_pass_decorator: a function defined in a function defined in a function
        "def make_pass_decorator(object_type):\n    def decorator(f):\n        ‸\n        def new_func(*args):\n"
        "            return f(*args)\n        return update_wrapper(new_func, f)\n    return decorator\n",
        "def new_func(*args, **kwargs):\n            return f(*args, **kwargs)",
        "        def new_func(*args):\n            return f(*args)",
        id="two-levels-deep",
    ),
    pytest.param(  # click's tests: a class defined inside a test function, cursor at the end of that function
        "def test_ensure_context_objects(runner):\n    class Foo(object):\n        def __init__(self):\n"
        "            self.title = 'default'\n\n    pass_foo = click.make_pass_decorator(Foo, ensure=True)\n    ‸\n",
        "class Foo:\n        title = 'default'",
        "    class Foo(object):\n        def __init__(self):\n            self.title = 'default'",
        id="class-in-a-function-from-its-end",
    ),
    pytest.param(  # click's _compat: definitions under `if not PY2:` (an if block is a scope like any other)
        "if not PY2:\n    ‸\n    def _is_binary_reader(stream, default=False):\n        return default\n",
        "def _is_binary_reader(stream, default=False):\n        try:\n            return True\n"
        "        except Exception:\n            return default",
        "    def _is_binary_reader(stream, default=False):\n        return default",
        id="under-an-if-header",
    ),
    pytest.param(  # requests' utils: a comment line between a header and the definition
        'if sys.platform == "win32":\n    # provide a proxy_bypass version on Windows without DNS lookups\n    ‸\n'
        "    def proxy_bypass_registry(host):\n        return False\n",
        "def proxy_bypass_registry(host):\n        try:\n            import winreg\n        except ImportError:\n"
        "            return False",
        "    def proxy_bypass_registry(host):\n        return False",
        id="comment-under-an-if-header",
    ),
]


@pytest.mark.parametrize(("doc", "completion", "old"), SCOPE_BY_INDENTATION)
def test_the_cursor_line_belongs_to_the_block_its_indentation_continues(doc: str, completion: str, old: str) -> None:
    result = run(doc, completion, "python")
    assert result[0].mode == "replace", result[0].reason
    assert replaced(result) == old
    assert applied(result).count(completion.split("(")[0].split("\n")[-1].strip()) == 1


@pytest.mark.parametrize(
    ("doc", "completion", "old"),
    [
        pytest.param(
            "tasks:\n  ‸\n  - name: one\n    run: a\n  - name: two\n    run: b\n",
            "- name: two\n    run: z",
            "  - name: two\n    run: b",
            id="list-item-under-its-key",
        ),
        pytest.param(
            "root:\n  a: 1\n  # a comment line\n  ‸\n  web:\n    image: a\n",
            "web:\n    image: b",
            "  web:\n    image: a",
            id="after-a-comment-line",
        ),
    ],
)
def test_yaml_cursor_lines_follow_indentation_too(doc: str, completion: str, old: str) -> None:
    result = run(doc, completion)
    assert result[0].mode == "replace", result[0].reason
    assert replaced(result) == old


def test_a_deeper_cursor_line_still_does_not_match_a_shallower_definition() -> None:
    """Indentation decides: a cursor at a method's column never replaces a top-level function of that name."""
    doc = "def load():\n    return 1\n\n\nclass Store:\n    x = 1\n    ‸\n"
    result = run(doc, "def load(self):\n        return 2", "python")
    assert result[0].mode == "insert"
    assert result[0].reason == "unit 'load' not found in scope"


def test_a_broken_namesake_is_skipped_for_the_next_one() -> None:
    doc = "def load(:\n    pass\n\ndef load(path):\n    return 1\n\n‸\n"
    result = run(doc, "def load(path):\n    return 2", "python")
    assert replaced(result) == "def load(path):\n    return 1"


def test_the_nearest_namesake_above_wins_over_one_below() -> None:
    doc = "def load(a):\n    return 1\n\n‸\n\ndef load(b):\n    return 3\n"
    assert replaced(run(doc, "def load(c):\n    return 2", "python")) == "def load(a):\n    return 1"
    doc = "def other():\n    pass\n\n‸\n\ndef load(b):\n    return 3\n\ndef load(d):\n    return 4\n"
    assert replaced(run(doc, "def load(c):\n    return 2", "python")) == "def load(b):\n    return 3"


def test_a_definition_on_the_cursor_line_is_not_the_one_replaced() -> None:
    doc = "‸def load(path):\n    return 1\n\ndef load(x):\n    return 3\n"
    assert replaced(run(doc, "def load(y):\n    return 2\n", "python")) == "def load(x):\n    return 3"


def test_a_definition_ending_on_the_cursor_line_is_not_the_one_replaced() -> None:
    doc = "def load(x):\n    return 3\n\ndef load(path):\n‸    return 1\n"
    analysis, _ = result = run(doc, "def load(y):\n    return 2\n", "python")
    assert analysis.mode == "replace", analysis.reason
    assert replaced(result) == "def load(x):\n    return 3"


def test_two_replaced_lines_show_the_visual_diff_whatever_the_confidence() -> None:
    doc = "def load(path):\n    return 1\n\n‸\n"
    analysis, _ = run(doc, "def load(path):\n    return 2", "python", visual_diff_min_confidence=1.0)
    assert (analysis.replaced_lines, analysis.show_visual_diff) == (2, True)
    analysis, _ = run(
        doc, "def load(path):\n    return 2", "python", visual_diff_min_confidence=1.0, visual_diff_min_lines=3
    )
    assert analysis.show_visual_diff is False


def test_a_list_item_whose_first_line_is_a_lone_dash() -> None:
    doc = "items:\n  - name: a\n    v: 1\n  - name: b\n    v: 1\n‸\n"
    result = run(doc, "  -\n    name: b\n    v: 2")
    assert result[0].mode == "replace", result[0].reason
    assert replaced(result) == "  - name: b\n    v: 1"


def test_a_crlf_completion_loses_only_its_last_line_break() -> None:
    doc = "def load(path):\r\n    return 1\r\n\r\n‸\r\n"
    result = run(doc, "def load(path):\r\n    return 2\r\n", "python")
    assert result[0].new_text == "def load(path):\r\n    return 2"
    assert replaced(result) == "def load(path):\r\n    return 1"


def test_a_blank_line_inside_the_old_definition_replaces_it_from_its_start() -> None:
    doc = "def load(path):\n    x = 1\n‸\n    return x\n"
    analysis, _ = result = run(doc, "def load(path):\n    return 2", "python")
    assert replaced(result) == "def load(path):\n    x = 1\n\n    return x"
    assert analysis.edit_span == analysis.replace_span
    assert applied(result) == "def load(path):\n    return 2\n"
