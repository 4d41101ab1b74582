"""The texts handed out: bounded per file and in files, found by version under any path, and this front's own
writes replayed exactly instead of diffed."""

from __future__ import annotations

from pathlib import Path

from tether_lsp.mcp.history import History
from tether_lsp.server.byte_edits import ByteEdit, make_edit
from tether_lsp.server.positions import LineIndex


def test_older_texts_go_past_the_budget_but_the_newest_stays() -> None:
    history = History(budget=10, files=2)
    a = Path("/r/a.py")
    history.handed_out(a, "v1", b"123456")
    history.handed_out(a, "v2", b"abcdef")
    assert history.text(a, "v1") is None and history.text(a, "v2") == b"abcdef"
    history.handed_out(a, "v3", b"x" * 50)  # over the budget alone: kept, being the newest
    assert history.text(a, "v3") == b"x" * 50 and history.text(a, "v2") is None


def test_files_used_least_recently_are_forgotten_and_a_version_is_found_under_any_path() -> None:
    history = History(budget=1000, files=2)
    for name in ("a", "b", "c"):
        history.handed_out(Path(f"/r/{name}.py"), f"v{name}", name.encode())
    assert history.text(Path("/r/a.py"), "va") is None
    assert history.text(Path("/r/renamed.py"), "vb") == b"b"


def test_own_writes_are_replayed_and_anything_else_is_diffed() -> None:
    history = History(budget=1000, files=4)
    path = Path("/r/a.py")
    base = b"one\ntwo\nthree\n"
    history.handed_out(path, "v1", base)
    edit = make_edit(LineIndex(base), 4, 7, b"2")
    written = edit.apply(base)
    history.wrote(path, "v1", "v2", written, (edit,))
    assert history.edits(path, "v1", base, "v2", written) == [edit]
    outside = b"zero\n" + written
    diffed = history.edits(path, "v1", base, "v3", outside)
    text = base
    for step in diffed:
        text = step.apply(text)
    assert text == outside and len(diffed) == 2


def test_edits_this_front_did_not_make_are_asked_of_the_exact_edits_it_was_given() -> None:
    """Attached mode gives the history the editor's recorded edits; when they no longer reach a version, a line
    diff carries the edit and ``last_note`` says why."""
    base, now = b"one\ntwo\n", b"one\n2\n"
    # as the editor recorded them: "two" deleted, then "2" typed (a diff gives one replacement)
    recorded = [make_edit(LineIndex(base), 4, 7, b""), make_edit(LineIndex(b"one\n\n"), 4, 4, b"2")]
    asked: list[tuple[str, str]] = []

    def exact(path: Path, old: str, old_text: bytes, current: str, current_text: bytes) -> list[ByteEdit] | None:
        asked.append((old, current))
        return recorded if old == "v1" else None

    path = Path("/r/a.py")
    reached = History(budget=1000, files=4, exact=exact)
    assert reached.edits(path, "v1", base, "v2", now) == recorded and reached.last_note is None
    gone = History(budget=1000, files=4, exact=exact)
    diffed = gone.edits(path, "v0", base, "v2", now)
    assert asked == [("v1", "v2"), ("v0", "v2")]
    assert diffed != [] and gone.last_note is not None and "line diff" in gone.last_note
    assert len(History(budget=1000, files=4).edits(path, "v1", base, "v2", now)) == 1  # none given: a diff
