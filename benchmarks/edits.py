"""Inline edits benchmarks against their targets. Prints figures, asserts nothing.

1. Resolve on a 10,000-line document with 64 versions of history (the user typed 63 times since the model's
   version, above and below the target): in-process p50 (target <= 5 ms), and over stdio.
2. Streaming a 200-line replacement in 500 cumulative updates over stdio, with a client that applies each
   ``workspace/applyEdit``: total server time, time per update, and how many applyEdits it took.
3. The three-way merge (the user also edited the target) on repeated lines, in-process: thousands of equal
   lines with an edit at each end, and alternating lines with a change every other line on each side.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import python_file
from benchmarks.syntax import row
from tether_lsp.handlers.edits.merge import merge3
from tether_lsp.handlers.edits.resolve import EditRequest, Options, resolve_all
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.lspclient import make_client, raw_request
from tether_lsp.server.positions import Encoding, Pos


def history_document(lines: list[str], versions: int) -> tuple[Document, str]:
    """A document with ``versions`` versions: the user typed lines above and below a target in the middle."""
    doc = Document("file:///bench/big.py", "python", 1, "\n".join(lines))
    rnd = random.Random(4)
    target_line = len(lines) // 2
    old = "\n".join(lines[target_line : target_line + 12]) + "\n"
    for v in range(2, versions + 1):
        at = rnd.choice([rnd.randrange(0, target_line - 20), rnd.randrange(target_line + 40, len(lines) - 1)])
        doc.apply(v, [ContentChange(f"# typed {v}\n", (Pos(at, 0), Pos(at, 0)))], Encoding.UTF16)
    return doc, old


def bench_resolve_in_process() -> None:
    lines = python_file().split("\n")
    doc, old = history_document(lines, 64)
    new = old.replace("def ", "async def ", 1)
    times = []
    kept = len(doc.versions())
    for _ in range(30):
        t = time.perf_counter()
        base = doc.versions()[0]
        edits = list(doc.edits_since(base.version) or [])
        (result,) = resolve_all(base.text, doc.current.text, edits, [EditRequest("e", old, new)], Options())
        times.append((time.perf_counter() - t) * 1000)
    assert result.status == "resolved", result
    print(f"Resolve: {len(lines):,}-line document, {kept} versions kept ({doc.history_bytes():,} bytes of history)")
    row("resolve one edit from the oldest version, in-process", times)


class Editor:
    def __init__(self, client: Any, uri: str, text: str) -> None:
        self.client, self.uri, self.text, self.version, self.applies = client, uri, text, 1, 0

    def offset(self, line: int, character: int) -> int:
        lines = self.text.split("\n")
        return sum(len(x) + 1 for x in lines[:line]) + character

    def apply(self, params: Any) -> types.ApplyWorkspaceEditResult:
        self.applies += 1
        data = get_converter().unstructure(params)
        for change in data["edit"]["documentChanges"]:
            for edit in change["edits"]:
                r = edit["range"]
                start = self.offset(r["start"]["line"], r["start"]["character"])
                end = self.offset(r["end"]["line"], r["end"]["character"])
                self.text = self.text[:start] + edit["newText"] + self.text[end:]
                self.version += 1
                self.client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        types.VersionedTextDocumentIdentifier(version=self.version, uri=self.uri),
                        [
                            types.TextDocumentContentChangePartial(
                                range=types.Range(
                                    types.Position(r["start"]["line"], r["start"]["character"]),
                                    types.Position(r["end"]["line"], r["end"]["character"]),
                                ),
                                text=edit["newText"],
                            )
                        ],
                    )
                )
        return types.ApplyWorkspaceEditResult(applied=True)


async def bench_over_stdio() -> None:
    lines = python_file().split("\n")
    text = "\n".join(lines)
    client = make_client("bench")
    editor: Editor | None = None

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: Any) -> types.ApplyWorkspaceEditResult:
        assert editor is not None
        return editor.apply(params)

    with tempfile.TemporaryDirectory() as tmp:
        await client.start_io(sys.executable, "-m", "tether_lsp")
        await raw_request(client, "initialize", {"processId": None, "rootUri": Path(tmp).as_uri(), "capabilities": {}})
        client.initialized(types.InitializedParams())
        uri = (Path(tmp) / "big.py").as_uri()
        editor = Editor(client, uri, text)
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        target = len(lines) // 2
        old = "\n".join(lines[target : target + 200]) + "\n"
        for v in range(2, 65):  # the user types while the model thinks
            at = target - 30 if v % 2 else target + 260
            editor.version = v
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version=v, uri=uri),
                    [
                        types.TextDocumentContentChangePartial(
                            range=types.Range(types.Position(at, 0), types.Position(at, 0)), text=f"# {v}\n"
                        )
                    ],
                )
            )
            editor.text = editor.text[: editor.offset(at, 0)] + f"# {v}\n" + editor.text[editor.offset(at, 0) :]
        params = {"textDocument": {"uri": uri}, "baseVersion": 1, "edits": [{"oldText": old, "newText": "pass\n"}]}
        times = []
        for _ in range(20):
            t = time.perf_counter()
            result = await raw_request(client, "tether/edits/resolve", params)
            times.append((time.perf_counter() - t) * 1000)
        assert result["edits"][0]["status"] == "resolved", result
        row("resolve over stdio (64 versions, a 200-line target)", times)
        new = "\n".join(f"    rewritten_{k} = compute({k}, 'é')" for k in range(200)) + "\n"
        begun = await raw_request(client, "tether/edits/begin", {"textDocument": {"uri": uri}, "baseVersion": 1})
        step = max(1, len(new) // 500)
        parts = [*[new[:k] for k in range(step, len(new), step)][:499], new]
        t = time.perf_counter()
        for part in parts:
            update = {
                "editId": begun["editId"],
                "oldText": old,
                "oldTextFinal": True,
                "newText": part,
                "newTextFinal": part == new,
            }
            await raw_request(client, "tether/edits/update", update)
        total = time.perf_counter() - t
        await raw_request(client, "tether/edits/end", {"editId": begun["editId"], "action": "keep"})
        assert new in editor.text
        print(f"Streaming a 200-line replacement in {len(parts)} cumulative updates over stdio:")
        print(
            f"  total {total * 1000:.0f} ms ({total * 1000 / len(parts):.2f} ms per update round trip),"
            f" {editor.applies} workspace/applyEdit (one per completed line, appended)"
        )
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()  # type: ignore[no-untyped-call]


def merge_cases(lines: int) -> dict[str, tuple[str, str, str]]:
    """name -> (base, the user's version, the model's version)."""
    same = ["    pass"] * lines
    alternating = ["a", "b"] * (lines // 2)
    user, model = alternating[:], alternating[:]
    for k in range(0, len(alternating) - 2, 4):
        user[k], model[k + 2] = f"user {k}", f"model {k}"
    return {
        "equal lines, an edit at each end": (
            "\n".join(same),
            "\n".join(["# the user's", *same]),
            "\n".join([*same[:-1], "    return 1"]),
        ),
        "alternating lines, changes interleaved": ("\n".join(alternating), "\n".join(user), "\n".join(model)),
    }


def bench_merge_repeated(sizes: tuple[int, ...] = (1_000, 2_000, 4_000)) -> None:
    print("Three-way merge on repeated lines, in-process (best of 3)")
    print(f"  {'':42}" + "".join(f"{f'{n:,} lines':>14}" for n in sizes))
    for name in merge_cases(sizes[0]):
        times = []
        for n in sizes:
            base, user, model = merge_cases(n)[name]
            best = float("inf")
            for _ in range(3):
                t = time.perf_counter()
                merged = merge3(base, user, model)
                best = min(best, time.perf_counter() - t)
            assert merged is not None, name
            times.append(best * 1000)
        print(f"  {name:42}" + "".join(f"{t:11.1f} ms" for t in times))


def main() -> None:
    bench_resolve_in_process()
    asyncio.run(bench_over_stdio())
    bench_merge_repeated()


if __name__ == "__main__":
    main()
