"""``edit`` through the SDK's client: each status, all or none, the target named three ways, what is refused, and
the bytes on disk (line endings, byte-order mark) after a write."""

from __future__ import annotations

from pathlib import Path

from tests.mcpclient import McpClient

SOURCE = """import os


def load(path):
    return open(path).read()


def save(path, text):
    x = 0
    open(path, "w").write(text)
    x = 0
    return x
"""


def make(root: Path, name: str = "m.py", text: str = SOURCE) -> str:
    (root / name).write_bytes(text.encode("utf-8"))
    return name


def version(client: McpClient, path: str) -> str:
    return client.ok("read", {"path": path})["version"]


def test_applied_on_the_current_version_in_one_write(client: McpClient, root: Path) -> None:
    path = make(root)
    base = version(client, path)
    answer = client.ok(
        "edit",
        {
            "path": path,
            "base_version": base,
            "edits": [
                {"old_text": "return open(path).read()", "new_text": "return Path(path).read_text()"},
                {"old_text": "import os", "new_text": "from pathlib import Path"},
            ],
        },
    )
    assert answer["written"] and [r["status"] for r in answer["results"]] == ["applied", "applied"]
    text = (root / path).read_text()
    assert text.startswith("from pathlib import Path\n") and "return Path(path).read_text()" in text
    assert answer["version"] != base and answer["version"] == version(client, path)
    assert answer["results"][1]["range"] == {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 25}}
    assert answer["results"][0]["range"]["start"] == {"line": 5, "column": 5}


def test_rebased_onto_a_file_changed_outside_since(client: McpClient, root: Path) -> None:
    path = make(root)
    base = version(client, path)
    (root / path).write_text("# a header someone added\n\n" + SOURCE)
    answer = client.ok(
        "edit",
        {"path": path, "base_version": base, "edits": [{"old_text": "def load(path):", "new_text": "def load(p):"}]},
    )
    assert [r["status"] for r in answer["results"]] == ["rebased"]
    assert answer["results"][0]["range"]["start"]["line"] == 6
    assert (root / path).read_text() == "# a header someone added\n\n" + SOURCE.replace("def load(path)", "def load(p)")


def test_a_conflict_writes_nothing_and_shows_the_region_as_it_is(client: McpClient, root: Path) -> None:
    path = make(root)
    base = version(client, path)
    changed = SOURCE.replace("return open(path).read()", "return open(path, encoding='utf-8').read()")
    (root / path).write_text(changed)
    answer = client.ok(
        "edit",
        {
            "path": path,
            "base_version": base,
            "edits": [
                {"old_text": "import os", "new_text": "import sys"},
                {"old_text": "    return open(path).read()", "new_text": "    return read(path)"},
            ],
        },
    )
    assert not answer["written"]
    assert [r["status"] for r in answer["results"]] == ["rebased", "conflict"]
    assert answer["results"][1]["current_text"] == "    return open(path, encoding='utf-8').read()"
    assert (root / path).read_text() == changed


def test_a_repeated_old_text_is_ambiguous_unless_a_line_says_which(client: McpClient, root: Path) -> None:
    path = make(root)
    base = version(client, path)
    answer = client.ok(
        "edit", {"path": path, "base_version": base, "edits": [{"old_text": "x = 0", "new_text": "x = 1"}]}
    )
    assert answer["results"][0]["status"] == "ambiguous" and not answer["written"]
    assert [c["start"]["line"] for c in answer["results"][0]["candidates"]] == [9, 11]
    answer = client.ok(
        "edit", {"path": path, "base_version": base, "edits": [{"old_text": "x = 0", "new_text": "x = 1", "line": 10}]}
    )
    assert answer["results"][0]["status"] == "ambiguous"  # as near the one as the other
    answer = client.ok(
        "edit", {"path": path, "base_version": base, "edits": [{"old_text": "x = 0", "new_text": "x = 1", "line": 12}]}
    )
    assert answer["results"][0]["status"] == "applied"
    assert (root / path).read_text().splitlines()[8:11] == ["    x = 0", '    open(path, "w").write(text)', "    x = 1"]


def test_a_node_id_and_a_range_name_targets_of_the_base(client: McpClient, root: Path) -> None:
    path = make(root)
    outline = client.ok("outline", {"path": path})
    save = next(item for item in outline["items"] if item["name"] == "save")
    (root / path).write_text("import sys\n" + SOURCE)  # moved on: both targets are carried one line down
    answer = client.ok(
        "edit",
        {
            "path": path,
            "base_version": outline["version"],
            "edits": [
                {"node_id": save["node_id"], "new_text": "def save(path, text):\n    Path(path).write_text(text)"},
                {"range": {"start": {"line": 1, "column": 8}, "end": {"line": 1, "column": 10}}, "new_text": "pathlib"},
            ],
        },
    )
    assert [r["status"] for r in answer["results"]] == ["rebased", "rebased"]
    assert (root / path).read_text().endswith("\n\ndef save(path, text):\n    Path(path).write_text(text)\n")
    assert (root / path).read_text().startswith("import sys\nimport pathlib\n")


def test_syntax_errors_the_edit_introduced_are_listed(client: McpClient, root: Path) -> None:
    path = make(root)
    result = client.call(
        "edit",
        {
            "path": path,
            "base_version": version(client, path),
            "edits": [{"old_text": "def load(path):", "new_text": "def load(path:"}],
        },
    )
    assert not result.is_error and result.structured_content is not None
    assert result.structured_content["written"]
    assert result.structured_content["syntax_errors"][0]["start"]["line"] == 4
    assert "syntax errors introduced at 4:" in result.content[0].text  # type: ignore[union-attr]


def test_crlf_and_the_byte_order_mark_are_kept(client: McpClient, root: Path) -> None:
    data = b"\xef\xbb\xbfkey: caf\xc3\xa9\r\nother: 1\r\n"
    (root / "c.yaml").write_bytes(data)
    read = client.ok("read", {"path": "c.yaml"})
    assert read["parts"][0]["text"] == "key: café\r\nother: 1\r\n"
    answer = client.ok(
        "edit",
        {
            "path": "c.yaml",
            "base_version": read["version"],
            "edits": [{"old_text": "other: 1\n", "new_text": "other: 2\nmore: 3\n"}],
        },
    )
    assert answer["written"]
    assert (root / "c.yaml").read_bytes() == b"\xef\xbb\xbfkey: caf\xc3\xa9\r\nother: 2\r\nmore: 3\r\n"


def test_refusals_name_the_argument(client: McpClient, root: Path) -> None:
    path = make(root)
    base = version(client, path)

    def refused(edits: object, base_version: object = base) -> str:
        return client.refused("edit", {"path": path, "base_version": base_version, "edits": edits})

    assert refused([{"new_text": "x"}]).startswith("edits[0]: name the target with exactly one of")
    assert refused([{"new_text": "x", "old_text": "a", "node_id": 3}]).startswith("edits[0]: name the target")
    assert refused([{"old_text": "import os"}]).startswith("edits[0].new_text: missing")
    assert refused([{"old_text": "nowhere", "new_text": ""}]).startswith("edits[0].old_text: not found in version")
    assert refused([{"old_text": "", "new_text": "x"}]).startswith("edits[0].old_text: empty")
    assert refused([{"node_id": 10**9, "new_text": "x"}]).startswith("edits[0].node_id: node 1000000000 is not a node")
    assert refused(
        [{"range": {"start": {"line": 99, "column": 1}, "end": {"line": 99, "column": 1}}, "new_text": ""}]
    ).startswith("edits[0].range.start.line: line 99 is past the end")
    assert refused([{"new_text": "x", "range": {"start": {"line": 1, "column": 1}}}]).startswith("edits[0].range:")
    assert refused([{"new_text": "x", "old_text": "os", "lines": 1}]).startswith("edits[0].lines: unknown argument")
    assert refused([]).startswith("edits: expected 1 to")
    assert "overlap" in refused([{"old_text": "import os", "new_text": ""}, {"old_text": "import", "new_text": ""}])
    assert refused([{"old_text": "os", "new_text": "x"}], "0123456789ab").startswith(
        "base_version: 0123456789ab is not a version of m.py handed out by this server"
    )
    assert (root / path).read_text() == SOURCE


def test_a_base_handed_out_before_a_rename_still_places_edits(client: McpClient, root: Path) -> None:
    path = make(root)
    base = version(client, path)
    (root / path).rename(root / "renamed.py")
    (root / "renamed.py").write_text(SOURCE + "\n\ndef extra():\n    pass\n")
    answer = client.ok(
        "edit",
        {"path": "renamed.py", "base_version": base, "edits": [{"old_text": "import os", "new_text": "import io"}]},
    )
    assert answer["results"][0]["status"] == "rebased"
    assert (root / "renamed.py").read_text().startswith("import io\n")


def test_an_edit_that_changes_nothing_writes_nothing(client: McpClient, root: Path) -> None:
    path = make(root)
    base = version(client, path)
    before = (root / path).stat()
    result = client.call(
        "edit", {"path": path, "base_version": base, "edits": [{"old_text": "import os", "new_text": "import os"}]}
    )
    assert result.structured_content is not None and result.structured_content["version"] == base
    assert result.structured_content["results"][0]["status"] == "applied"
    assert "unchanged: it already reads so" in result.content[0].text  # type: ignore[union-attr]
    after = (root / path).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_written_versions_parse_is_the_whole_parse_of_its_text(client: McpClient, root: Path) -> None:
    """The version an edit wrote is parsed incrementally from the one before (and its index spliced): every
    node, id order and range is what parsing the file afresh gives."""
    from tether_lsp.mcp.context import Context
    from tether_lsp.mcp.server import build

    text = "".join(f"class C{k}:\n    def m(self):\n        return {k}\n\n\n" for k in range(30))
    (root / "w.py").write_text(text)
    version = client.ok("select", {"path": "w.py", "selectors": ["selectMethods"]})["version"]  # index built
    for k, (old, new) in enumerate([("return 3\n", "return [3,\n"), ("return 7", "x = 1\n        return 7")]):
        answer = client.ok(
            "edit", {"path": "w.py", "base_version": version, "edits": [{"old_text": old, "new_text": new}]}
        )
        version = answer["version"]
        assert bool(answer.get("syntax_errors")) == (k == 0)  # the unclosed bracket, found on the incremental parse
    chain = {"path": "w.py", "selectors": ["selectFunctions", "selectBody", "selectStatements"]}
    here = client.ok("select", chain)["matches"]
    with McpClient(build(Context([root]))) as fresh:
        there = fresh.ok("select", chain)["matches"]
        assert [(m["range"], m["text"]) for m in here] == [(m["range"], m["text"]) for m in there]
        base_here, base_there = here[0]["node_id"], there[0]["node_id"]
        assert [m["node_id"] - base_here for m in here] == [m["node_id"] - base_there for m in there]
        outline = client.ok("outline", {"path": "w.py"})["items"]
        assert [(i["name"], i["range"]) for i in outline] == [
            (i["name"], i["range"]) for i in fresh.ok("outline", {"path": "w.py"})["items"]
        ]
