"""A version's tree parsed in slices (``await slot.parse_soon()``): the loop runs other work between the slices,
every caller (and one needing the tree at once meanwhile) shares the one parse, and the tree is the one a parse in
one go gives, its nodes' text read right."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.corpus import python_file, yaml_file
from tether_lsp.server.documents import ContentChange, Document
from tether_lsp.server.positions import Encoding, Pos
from tether_lsp.server.sliced_parse import SlicedParse
from tether_lsp.server.syntax import SyntaxCache, language_by_name, parse_text

from .test_syntax import all_nodes, sexp

TEXTS = {"python": python_file(10_000), "yaml": yaml_file(10_000)}


@pytest.mark.parametrize("language", ["python", "yaml"])
def test_a_parse_cut_into_slices_gives_the_tree_a_parse_in_one_go_gives(language: str) -> None:
    text = TEXTS[language].encode()
    sliced = SlicedParse(language_by_name(language).language, text, None)
    while sliced.step(0.0005) is None:
        pass
    assert sliced.slices > 1 and sliced.tree is not None
    assert sexp(sliced.tree) == sexp(parse_text(language, text))
    nodes = all_nodes(sliced.tree.root_node)[::97]  # the tree reads its nodes' text through the parse's callback
    assert [n.text for n in nodes] == [text[n.start_byte : n.end_byte] for n in nodes]
    assert sliced.tree.root_node.text == text


async def test_the_loop_runs_between_slices_and_every_caller_shares_the_one_parse() -> None:
    cache = SyntaxCache()
    doc = Document("file:///big.py", "python", 1, TEXTS["python"])
    cache.open(doc)
    doc.apply(2, [ContentChange('PROMPT = "Summarise {text}."\n', (Pos(5000, 0), Pos(5000, 0)))], Encoding.UTF16)
    snapshot = cache.update(doc)  # never parsed before: a whole parse, some 50 ms, in slices of 2
    beats = 0
    parsing = True

    async def beat() -> None:
        nonlocal beats
        while parsing:
            beats += 1
            await asyncio.sleep(0)

    beating = asyncio.ensure_future(beat())
    first = asyncio.ensure_future(snapshot.slot.parse_soon())
    await asyncio.sleep(0)
    second = asyncio.ensure_future(snapshot.slot.parse_soon())
    await asyncio.gather(first, second)
    parsing = False
    await beating
    assert beats >= 2  # the loop ran other work while the version was parsed
    assert cache.parse_counts["file:///big.py"] == 1  # one parse of version 2, for both callers
    assert snapshot.tree is not None
    assert sexp(snapshot.tree) == sexp(parse_text("python", doc.current.text))


async def test_a_caller_needing_the_tree_at_once_finishes_the_sliced_parse() -> None:
    cache = SyntaxCache()
    doc = Document("file:///big.yaml", "yaml", 1, TEXTS["yaml"])
    snapshot = cache.open(doc)
    slicing = asyncio.ensure_future(snapshot.slot.parse_soon())
    await asyncio.sleep(0)  # one slice parsed
    assert not snapshot.slot.is_parsed
    tree = snapshot.tree  # a feature reading the tree on the loop: the parse goes on to its end, not again
    await slicing
    assert tree is not None and snapshot.tree is tree
    assert cache.parse_counts["file:///big.yaml"] == 1
    assert sexp(tree) == sexp(parse_text("yaml", doc.current.text))


async def test_however_many_wait_the_loop_gets_its_turn_after_every_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Five requests waiting for the same version (a client asking every 5 ms) do not make five slices in a row."""
    events: list[str] = []
    step = SlicedParse.step

    def noted(self: SlicedParse, budget_s: float | None = 0.002) -> object:
        if self.tree is None:  # a slice that parses (not the call that hands the finished tree over)
            events.append("slice")
        return step(self, budget_s)

    monkeypatch.setattr(SlicedParse, "step", noted)
    cache = SyntaxCache()
    snapshot = cache.open(Document("file:///big.py", "python", 1, TEXTS["python"]))
    parsing = True

    async def beat() -> None:
        while parsing:
            events.append("beat")
            await asyncio.sleep(0)

    beating = asyncio.ensure_future(beat())
    await asyncio.gather(*(snapshot.slot.parse_soon() for _ in range(5)))
    parsing = False
    await beating
    slices = "".join("s" if e == "slice" else "b" for e in events).strip("b")
    assert slices.count("s") > 1 and "ss" not in slices
    assert cache.parse_counts["file:///big.py"] == 1
