"""Every member of real and sample YAML texts, removed, cloned and swapped with the next one through the Member
protocol: the text parses with no error node and a YAML loader reads exactly the expected data (the item gone,
doubled or exchanged), in LF and CRLF."""

from __future__ import annotations

import pytest
import yaml

from tether_lsp.handlers.actions.model import ActionRefused

from .yaml_samples import SAMPLES, corpus_files
from .yaml_support import YamlMember, all_members, cloned, expected_after, parses_cleanly, removed, shape, swapped


def _loadable(text: bytes) -> bool:
    try:
        shape(text)
    except yaml.YAMLError:
        return False
    return True


TEXTS = {name: text.encode() for name, text in SAMPLES.items()} | {
    name: text for name, text in corpus_files().items() if _loadable(text)
}
CASES = [pytest.param(text, id=name) for name, text in TEXTS.items()] + [
    pytest.param(text.replace(b"\n", b"\r\n"), id=f"{name}-crlf") for name, text in TEXTS.items()
]


def test_the_corpus_is_broad() -> None:
    assert len(TEXTS) >= 15
    assert sum(len(all_members(t)) for t in TEXTS.values()) > 500


def _check(after: bytes, expected: object, what: str) -> None:
    assert parses_cleanly(after), f"{what} leaves an error node:\n{after.decode()}"
    assert shape(after) == expected, f"{what} reads otherwise:\n{after.decode()}"


@pytest.mark.parametrize("text", CASES)
def test_removing_any_member_leaves_the_rest(text: bytes) -> None:
    refusals = []
    for member in all_members(text):
        try:
            after = removed(text, member)
        except ActionRefused as refusal:
            refusals.append(refusal.reason)
            continue
        expected = expected_after(text, lambda lists, at: lists[0].pop(at[0]), member)
        _check(after, expected, f"removing {text[slice(*member.span)]!r}")
    assert all("anchor &" in reason for reason in refusals)
    assert len(refusals) <= 1


@pytest.mark.parametrize("after", [True, False], ids=["after", "before"])
@pytest.mark.parametrize("text", CASES)
def test_cloning_any_member_doubles_it(text: bytes, after: bool) -> None:
    for member in all_members(text):
        result = cloned(text, member, after)
        expected = expected_after(text, lambda lists, at: lists[0].insert(at[0], lists[0][at[0]]), member)
        _check(result, expected, f"cloning {text[slice(*member.span)]!r}")


@pytest.mark.parametrize("text", CASES)
def test_swapping_any_member_with_the_next_exchanges_them(text: bytes) -> None:
    def exchange(lists: list[list[object]], at: list[int]) -> None:
        lists[0][at[0]], lists[0][at[1]] = lists[0][at[1]], lists[0][at[0]]

    swaps, refusals = 0, []
    for member in all_members(text):
        siblings = member.siblings()
        index = [s.span for s in siblings].index(member.span)
        if index + 1 == len(siblings):
            continue
        following = siblings[index + 1]
        try:
            result = swapped(text, member, following)
        except ActionRefused as refusal:
            refusals.append(refusal.reason)
            continue
        _check(result, expected_after(text, exchange, member, following), f"swapping {text[slice(*member.span)]!r}")
        assert swapped(result, *_same_places(result, member, following)) == text, "swapping twice"
        swaps += 1
    assert swaps > 0
    assert all("&defaults" in reason for reason in refusals)
    assert len(refusals) <= 1


def _same_places(text: bytes, a: YamlMember, b: YamlMember) -> tuple[YamlMember, YamlMember]:
    """The members standing where ``a`` and ``b`` stood, in ``text`` after their swap (``a`` came first)."""
    first = next(m for m in all_members(text) if m.span[0] == a.span[0])
    siblings = first.siblings()
    return first, siblings[[s.span for s in siblings].index(first.span) + 1]
