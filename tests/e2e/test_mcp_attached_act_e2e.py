"""``act`` in attached mode: the language server serves the agent (the SDK's streamable HTTP client) and an
editor holds the buffer (``EditorModel``, which answers ``workspace/applyEdit`` as editors do). The action is
computed on what the editor holds, unsaved text included, and lands in the buffer as one ``workspace/applyEdit``,
never on disk; an action made on a version the user has typed into since is carried through the editor's own
recorded edits."""

from __future__ import annotations

from tests.e2e.test_mcp_attached_e2e import Session, agent, session, structured, version_of, wait_for_version

__all__ = ["session"]  # the fixture

ON_DISK = "def total(items, start):\n    return sum(items, start)\n"
UNSAVED = "def total(items, start=0, *, strict=False):\n    return sum(items, start)\n"


async def test_an_action_lands_in_the_editors_buffer_not_on_disk(session: Session) -> None:
    (session.root / "calc.py").write_text(ON_DISK)
    editor = session.open("calc.py", ON_DISK)
    editor.replace(0, len(ON_DISK), UNSAVED)  # typed, not saved
    async with agent(session) as client:
        await wait_for_version(client, "calc.py", UNSAVED)
        found = structured(
            await client.call_tool("select", {"path": "calc.py", "selectors": ["selectFunctions", "selectParameters"]})
        )
        strict = next(m["node_id"] for m in found["matches"] if m["text"] == "strict=False")
        result = await client.call_tool(
            "act", {"path": "calc.py", "base_version": found["version"], "action": "remove", "targets": [strict]}
        )
        answer = structured(result)
    wanted = "def total(items, start=0):\n    return sum(items, start)\n"  # the bare * went with its only keyword
    assert editor.text == wanted
    assert answer["written"] and answer["unsaved"] is True and answer["version"] == version_of(wanted)
    assert result.content[0].text.split("\n")[0] == (  # type: ignore[union-attr]
        f"remove: calc.py: applied in the editor (unsaved), now version {version_of(wanted)}"
    )
    (request,) = editor.applied
    (change,) = request["edit"]["documentChanges"]
    assert change["textDocument"] == {"uri": editor.uri, "version": 2}
    assert (session.root / "calc.py").read_text() == ON_DISK


async def test_an_action_on_a_version_typed_into_since_is_carried_through_the_editors_history(
    session: Session,
) -> None:
    editor = session.open("calc.py", UNSAVED)
    async with agent(session) as client:
        outline = structured(await client.call_tool("outline", {"path": "calc.py"}))
        editor.replace(0, 0, "import math\n\n\n")  # the user types above while the agent thinks
        typed = "import math\n\n\n" + UNSAVED
        await wait_for_version(client, "calc.py", typed)
        answer = structured(
            await client.call_tool(
                "act",
                {
                    "path": "calc.py",
                    "base_version": outline["version"],
                    "action": "clone",
                    "targets": [outline["items"][0]["node_id"]],
                },
            )
        )
    assert [r["status"] for r in answer["results"]] == ["rebased"]
    assert editor.text == typed + "\n\n" + UNSAVED
    assert answer["produced"] == [{"start": {"line": 8, "column": 1}, "end": {"line": 9, "column": 29}}]
    assert not (session.root / "calc.py").exists()
