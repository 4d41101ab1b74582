"""Paths confined to the roots, text that is UTF-8 or refused, outside changes noticed, atomic writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.mcpclient import McpClient
from tether_lsp.mcp.files import Files, Roots, version_of
from tether_lsp.server.errors import InvalidParams


def test_paths_outside_the_roots_are_refused_naming_the_path_and_the_roots(
    client: McpClient, root: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.py").write_text("KEY = 1\n")
    (root / "inside.py").write_text("x = 1\n")
    (root / "link.py").symlink_to(tmp_path / "secret.py")
    (root / "sub").mkdir()
    for path in ("../secret.py", str(tmp_path / "secret.py"), "link.py", "sub/../../secret.py"):
        message = client.refused("read", {"path": path})
        assert message.startswith(f"path: {path!r} resolves to {tmp_path / 'secret.py'}, outside the roots ({root})")
    assert client.refused("read", {"path": "/etc/passwd"}).startswith("path: '/etc/passwd' resolves to /etc/passwd")
    (root / "inner_link.py").symlink_to(root / "inside.py")
    assert client.ok("read", {"path": "inner_link.py"})["parts"][0]["text"] == "x = 1\n"
    assert client.ok("read", {"path": str(root / "sub" / ".." / "inside.py")})["path"] == "inside.py"


def test_a_symlinked_folder_leading_out_is_refused_for_writes_too(
    client: McpClient, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.py").write_text("x = 1\n")
    (root / "out").symlink_to(outside, target_is_directory=True)
    message = client.refused(
        "edit",
        {"path": "out/a.py", "base_version": version_of(b"x = 1\n"), "edits": [{"old_text": "x", "new_text": "y"}]},
    )
    assert "outside the roots" in message
    assert (outside / "a.py").read_text() == "x = 1\n"


def test_several_roots_relative_names_find_the_first_root_holding_them(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (b / "only_b.py").write_text("")
    (a / "both.py").write_text("")
    (b / "both.py").write_text("")
    roots = Roots([a, b])
    assert roots.resolve("only_b.py") == (b / "only_b.py", "only_b.py")
    assert roots.resolve("both.py") == (a / "both.py", "both.py")
    assert roots.resolve(str(b / "both.py")) == (b / "both.py", str(b / "both.py"))  # a relative name would find a's
    with pytest.raises(InvalidParams, match="is a root folder"):
        roots.resolve(str(a))


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"\xff\xfeh\x00i\x00", "is UTF-16 text (byte-order mark); only UTF-8 files are read"),
        (b"\x7fELF\x02\x01\x00\x00", "is a binary file (it holds NUL bytes)"),
        (b"caf\xe9 = 1\n", "is not UTF-8 text (byte 0xe9 at offset 3)"),
    ],
)
def test_text_that_is_not_utf8_is_refused_saying_why(client: McpClient, root: Path, data: bytes, why: str) -> None:
    (root / "f.py").write_bytes(data)
    assert client.refused("read", {"path": "f.py"}).startswith(f"path: f.py {why}")


def test_missing_files_folders_and_files_over_the_size_limit_are_refused(root: Path) -> None:
    from tests.unit.mcp.conftest import context_with
    from tether_lsp.mcp.server import build

    (root / "big.py").write_text("x = 1\n" * 100)
    (root / "small.py").write_text("x = 1\n")
    (root / "folder").mkdir()
    with McpClient(build(context_with(root, limits={"maxFileBytes": 100}))) as client:
        assert client.refused("read", {"path": "big.py"}) == (
            "path: big.py has 600 bytes, over tether.limits.maxFileBytes (100)"
        )
        assert client.refused("outline", {"path": "gone.py"}) == "path: gone.py: no such file (deleted or renamed?)"
        assert client.refused("read", {"path": "folder"}) == "path: folder is a folder, not a file"
        base = client.ok("read", {"path": "small.py"})["version"]
        message = client.refused(
            "edit", {"path": "small.py", "base_version": base, "edits": [{"old_text": "1", "new_text": "2" * 200}]}
        )
        assert message == "edits[0].new_text: 200 characters, over maxFileBytes (100)"


def test_an_outside_change_of_the_same_size_within_the_same_second_is_noticed(root: Path) -> None:
    path = root / "a.py"
    path.write_text("x = 1\n")
    files = Files(Roots([root]), 1000)
    first = files.load("a.py")
    stat = path.stat()
    path.write_text("x = 2\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # size and time as before
    assert files.load("a.py").version == version_of(b"x = 2\n") != first.version


def test_an_unchanged_file_is_not_read_again(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = root / "a.py"
    path.write_text("x = 1\n")
    old = path.stat().st_mtime_ns - 10**10
    os.utime(path, ns=(old, old))  # modified long ago: size and time are trusted
    files = Files(Roots([root]), 1000)
    first = files.load("a.py")
    monkeypatch.setattr("tether_lsp.mcp.files.read_bytes", lambda *a: pytest.fail("read again"))
    assert files.load("a.py") is first


def test_a_write_is_atomic_and_keeps_the_permissions(root: Path) -> None:
    path = root / "run.py"
    path.write_text("x = 1\n")
    path.chmod(0o751)
    files = Files(Roots([root]), 1000)
    written = files.write(files.load("run.py"), b"x = 2\n")
    assert path.read_bytes() == b"x = 2\n" and written.version == version_of(b"x = 2\n")
    assert path.stat().st_mode & 0o777 == 0o751
    assert sorted(p.name for p in root.iterdir()) == ["run.py"]  # no temporary file left


def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_written_through(root: Path, tmp_path: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("x = 1\n")
    files = Files(Roots([root]), 1000)
    loaded = files.load("pkg/a.py")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.py").write_text("x = 1\n")
    (root / "pkg").rename(root / "pkg_moved")
    (root / "pkg").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InvalidParams, match="moved behind a symlink"):
        files.write(loaded, b"x = 2\n")
    assert (outside / "a.py").read_text() == "x = 1\n"


def test_a_write_that_fails_is_refused_and_leaves_the_file_and_no_temporary(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.py").write_text("x = 1\n")
    files = Files(Roots([root]), 1000)
    loaded = files.load("a.py")

    def denied(*args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", denied)  # the rename fails, as on a read-only folder
    with pytest.raises(InvalidParams, match=r"a.py: cannot write \(Permission denied\); nothing was changed"):
        files.write(loaded, b"x = 2\n")
    assert (root / "a.py").read_text() == "x = 1\n"
    assert sorted(p.name for p in root.iterdir()) == ["a.py"]


@pytest.mark.parametrize("tool", ["read", "notes", "outline"])
def test_a_path_too_long_for_the_file_system_is_refused_naming_the_path(client: McpClient, tool: str) -> None:
    name = "a" * 300 + ".py"  # longer than a file name may be (255 bytes on Linux)
    message = client.refused(tool, {"path": name})
    assert message.startswith(f"path: {name[:40]!r}") or message.startswith("path: "), message
    assert "name too long" in message.lower(), message
