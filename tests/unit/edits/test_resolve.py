"""Resolving model edits, table-driven, on real document histories (the edits the server records)."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.edits.resolve import (
    EditRequest,
    Options,
    Resolution,
    Text,
    check_overlaps,
    resolve_all,
    resolve_span,
)
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import Encoding

BASE = """import os


def load(path):
    with open(path) as f:
        return f.read()


def total(items):
    s = 0
    for i in items:
        s += i
    return s
"""


def history(base: str, *versions: str) -> Document:
    doc = Document("file:///t.py", "python", 1, base)
    for k, text in enumerate(versions, start=2):
        doc.apply(k, [ContentChange(text)], Encoding.UTF16)
    return doc


def resolve(doc: Document, old: str, new: str, **options: object) -> tuple[Resolution, str]:
    base = doc.versions()[0]
    edits = list(doc.edits_since(base.version) or [])
    (result,) = resolve_all(base.text, doc.current.text, edits, [EditRequest("e", old, new)], Options(**options))  # type: ignore[arg-type]
    applied = doc.current.string
    if result.status == "resolved" and result.span is not None and result.new_text is not None:
        data = doc.current.text
        applied = (data[: result.span[0]] + result.new_text.encode() + data[result.span[1] :]).decode()
    return result, applied


OLD = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
NEW = "def total(items):\n    return sum(items)\n"


def test_an_exact_unique_match() -> None:
    result, applied = resolve(history(BASE), OLD, NEW)
    assert (result.status, result.match) == ("resolved", ("exact", 1.0))
    assert applied == BASE.replace(OLD, NEW)


def test_lines_inserted_above_by_the_user() -> None:
    doc = history(BASE, "# header\n# more\n" + BASE)
    result, applied = resolve(doc, OLD, NEW)
    assert result.status == "resolved"
    assert applied == "# header\n# more\n" + BASE.replace(OLD, NEW)


def test_the_model_dropped_the_indentation() -> None:
    quoted = "s = 0\nfor i in items:\n    s += i\n"  # as the model quoted it: at column 0
    base = "class C:\n    def f(items):\n        s = 0\n        for i in items:\n            s += i\n        return s\n"
    doc = history(base)
    result, applied = resolve(doc, quoted, "s = 1\nfor i in items:\n    s *= i\n")
    assert result.match == ("indentation", 1.0)
    assert "        s = 1\n        for i in items:\n            s *= i\n        return s" in applied


def test_trailing_whitespace_drift() -> None:
    doc = history(BASE.replace("    s = 0\n", "    s = 0   \n"))
    result, applied = resolve(doc, OLD, NEW)
    assert result.match == ("trailingWhitespace", 1.0)
    assert "return sum(items)" in applied


def test_a_user_edit_elsewhere_in_the_target_is_merged() -> None:
    doc = history(BASE, BASE.replace("def total(items):", "def total(items):  # the sum"))
    model = OLD.replace("        s += i", "        s += i * 2")
    result, applied = resolve(doc, OLD, model)
    assert result.status == "resolved"
    assert "merged with the user's edits" in result.notes
    assert "def total(items):  # the sum\n    s = 0\n    for i in items:\n        s += i * 2" in applied


def test_the_same_line_edited_by_both_is_a_conflict() -> None:
    doc = history(BASE, BASE.replace("        s += i", "        s -= i"))
    result, applied = resolve(doc, OLD, OLD.replace("        s += i", "        s += i * 2"))
    assert result.status == "conflict"
    assert applied == doc.current.string


def test_refuse_turns_any_user_edit_into_a_conflict() -> None:
    doc = history(BASE, BASE.replace("def total(items):", "def total(items):  # the sum"))
    result, _ = resolve(doc, OLD, NEW, on_user_edit="refuse")
    assert result.status == "conflict"


def test_an_ambiguous_duplicate_in_the_base() -> None:
    doc = history(BASE + "\n" + OLD)
    result, _ = resolve(doc, OLD, NEW)
    assert result.status == "ambiguous"
    assert len(result.candidates) == 2


def test_a_duplicate_pasted_after_the_model_saw_the_file_is_not_ambiguous() -> None:
    doc = history(BASE, BASE.replace("import os\n", "import os\n" + OLD))  # pasted above, after the model's version
    result, applied = resolve(doc, OLD, NEW)
    assert result.status == "resolved"
    assert applied == BASE.replace("import os\n", "import os\n" + OLD).replace(
        "\n\ndef total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n",
        "\n\n" + NEW,
    )


def test_a_deleted_target() -> None:
    doc = history(BASE, BASE.replace(OLD, ""))
    result, _ = resolve(doc, OLD, NEW)
    assert result.status == "deleted"


def test_a_moved_target_is_followed() -> None:
    moved = OLD + "\n\n" + BASE.replace(OLD, "")
    doc = history(BASE, BASE.replace(OLD, ""), moved)
    result, applied = resolve(doc, OLD, NEW)
    assert result.status == "resolved"
    assert applied.startswith(NEW)


def test_an_elided_target() -> None:
    quoted = "def total(items):\n    s = 0\n<truncated/>\n    return s\n"
    result, applied = resolve(history(BASE), quoted, NEW)
    assert result.match == ("truncated", 1.0)
    assert applied == BASE.replace(OLD, NEW)


def test_a_fuzzy_target_with_a_clear_lead() -> None:
    quoted = OLD.replace("for i in items:", "for item in items:")
    result, applied = resolve(history(BASE), quoted, NEW)
    assert result.match is not None
    assert result.match[0] == "fuzzy"
    assert result.match[1] >= 0.9
    assert applied == BASE.replace(OLD, NEW)
    result, _ = resolve(history(BASE), quoted, NEW, fuzzy=False)
    assert result.status == "notFound"


def test_crlf_documents_get_crlf() -> None:
    doc = history(BASE.replace("\n", "\r\n"))
    result, applied = resolve(doc, OLD, NEW)
    assert result.status == "resolved"
    assert result.new_text == NEW.replace("\n", "\r\n")
    assert applied == BASE.replace(OLD, NEW).replace("\n", "\r\n")


def test_non_ascii_offsets_are_bytes() -> None:
    base = "x = 'café 東京 🚀'\n" + BASE
    doc = history(base, "y = 'ü'\n" + base)
    result, applied = resolve(doc, "x = 'café 東京 🚀'", "x = 'bar 🎉'")
    assert result.status == "resolved"
    assert applied == "y = 'ü'\nx = 'bar 🎉'\n" + BASE


def test_a_line_typed_right_after_the_target_survives() -> None:
    doc = history(BASE, BASE + "print(total([1]))\n")
    result, applied = resolve(doc, OLD, NEW)
    assert result.status == "resolved"
    assert applied.endswith(NEW + "print(total([1]))\n")


def test_not_found_and_an_empty_old_text() -> None:
    result, _ = resolve(history(BASE), "def nowhere():\n    pass\n", NEW)
    assert result.status == "notFound"
    result, applied = resolve(history(""), "", "print('new')\n")
    assert (result.status, applied) == ("resolved", "print('new')\n")


def test_a_full_text_change_around_the_target_leaves_it_untouched() -> None:
    """Editors may send whole texts: the recorded edits are the changed lines, so the target between is intact."""
    doc = history(BASE, BASE.replace("import os", "import sys") + "print(total([1]))\n")
    result, applied = resolve(doc, "def load(path):\n", "def load(path: str):\n")
    assert (result.status, result.notes) == ("resolved", [])
    assert applied.startswith("import sys\n\n\ndef load(path: str):\n")


def test_a_line_hint_settles_a_repeated_old_text() -> None:
    base = "x = 0\nprint(x)\nx = 0\n"
    doc = history(base, "# top\n" + base)
    edits = list(doc.edits_since(doc.versions()[0].version) or [])
    (unhinted,) = resolve_all(base.encode(), doc.current.text, edits, [EditRequest("e", "x = 0", "x = 1")], Options())
    assert unhinted.status == "ambiguous" and len(unhinted.candidates) == 2
    request = EditRequest("e", "x = 0", "x = 1", line=2)
    (hinted,) = resolve_all(base.encode(), doc.current.text, edits, [request], Options())
    at = len("# top\nx = 0\nprint(x)\n")
    assert hinted.status == "resolved" and hinted.span == (at, at + len("x = 0"))


def test_a_span_of_the_base_is_carried_and_merged_like_a_located_target() -> None:
    doc = history(BASE, "# header\n" + BASE.replace("    s = 0\n", "    s = 0  # start\n"))
    base, current = Text(doc.versions()[0].text), Text(doc.current.text)
    edits = list(doc.edits_since(doc.versions()[0].version) or [])
    start = BASE.index("    for i in items:")
    end = start + len("    for i in items:")
    moved = resolve_span(base, current, edits, "e", (start, end), "    for i in reversed(items):", Options())
    assert moved.status == "resolved" and moved.match == ("span", 1.0)
    assert moved.span is not None and doc.current.text[moved.span[0] : moved.span[1]] == b"    for i in items:"
    whole = BASE.index("def total")
    merged = resolve_span(base, current, edits, "e", (whole, len(BASE)), NEW, Options())
    assert merged.status == "conflict"  # the user changed a line the replacement rewrites


def test_overlapping_targets_are_refused_naming_both_edits() -> None:
    results = [Resolution("a", "resolved", base_span=(0, 10)), Resolution("b", "resolved", base_span=(5, 12))]
    with pytest.raises(InvalidParams, match=r"edits\[0\] and edits\[1\] overlap"):
        check_overlaps(results)
    check_overlaps([Resolution("a", "resolved", base_span=(0, 5)), Resolution("b", "resolved", base_span=(5, 9))])
