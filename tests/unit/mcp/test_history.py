"""The texts handed out: bounded per file and in files, found by version under any path, and this front's own
writes replayed exactly instead of diffed."""

from __future__ import annotations

from pathlib import Path

from tether_lsp.mcp.history import History
from tether_lsp.server.documents import make_edit
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
