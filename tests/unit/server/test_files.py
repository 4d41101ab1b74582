"""File uris as clients spell them and as Python spells them: one file either way."""

from __future__ import annotations

from pathlib import Path

from tether_lsp.server.files import file_exists, file_uri_spellings, same_file


def test_a_client_spelling_and_pythons_name_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "c++ dir" / "café 東京 🚀.py"
    path.parent.mkdir()
    path.write_text("x = 1\n", encoding="utf-8")
    python = path.as_uri()
    client = python.replace("%2B%2B", "++")  # editors leave "+" unencoded; Path.as_uri encodes it
    assert client != python
    assert file_uri_spellings(client) == [client, python]
    assert file_uri_spellings(python) == [python]
    assert same_file(client, python)
    assert not same_file(client, (tmp_path / "other.py").as_uri())
    assert file_exists(client) and file_exists(python)
    assert not file_exists((tmp_path / "missing.py").as_uri())


def test_uris_that_are_not_local_files() -> None:
    assert file_uri_spellings("untitled:Untitled-1") == ["untitled:Untitled-1"]
    assert not same_file("untitled:a", "untitled:a")  # no file behind either
    assert not file_exists("https://example.org/x.py")
