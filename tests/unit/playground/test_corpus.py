"""The hand-labelled corpus of prompt idioms: every expected prompt found, nothing else, except the misses
listed (with their reason) in expected.json — a new miss or a new false prompt fails here."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from benchmarks.prompt_detection import CORPUS, anchors

EXPECTED = json.loads((CORPUS / "expected.json").read_text())
MISSED: dict[str, dict[str, str]] = EXPECTED["_missed"]


@pytest.mark.parametrize("name", [k for k in EXPECTED if not k.startswith("_")])
def test_the_corpus_file_gives_exactly_its_expected_prompts(name: str) -> None:
    expected = Counter(EXPECTED[name]) - Counter(list(MISSED.get(name, {})))
    assert Counter(anchors(name)) == expected
