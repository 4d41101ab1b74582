"""How alike two lines are: the one measure every match of the markers' calculator uses.

Kept apart from the line map and the calculator because it is the part that calls rapidfuzz (whose calls hold
the GIL: long searches go in slices) and the part the git view searches with on its own (the files a moved
block may have gone to).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import process
from rapidfuzz.distance import Indel

#: Minimum similarity for a changed line to count as the same line (reference: 0.5).
LINE_THRESHOLD = 0.5
#: Normalised lines shorter than this only match identically.
SHORT_LINE = 4

_SPACES = re.compile(r"\s+")


def normalise(line: str) -> str:
    """Whitespace runs as one space, ends trimmed: re-indenting or re-spacing a line keeps it the same line."""
    return _SPACES.sub(" ", line).strip()


def similarity(a: str, b: str) -> float:
    """Normalised edit similarity of two lines, whitespace-insensitive; short lines only match exactly."""
    return normalised_similarity(normalise(a), normalise(b))


def normalised_similarity(na: str, nb: str) -> float:
    if na == nb:
        return 1.0
    if len(na) < SHORT_LINE or len(nb) < SHORT_LINE:
        return 0.0
    return float(Indel.normalized_similarity(na, nb))


#: Lines compared per rapidfuzz call. One call holds the GIL throughout; in a worker thread a call over
#: thousands of lines would stall the event loop, so long searches are made in slices.
SEARCH_SLICE = 1000


def similar_lines(line: str, norms: Sequence[str], *, normalised: bool = False) -> list[int]:
    """Indexes of the normalised lines ``norms`` at least LINE_THRESHOLD similar to ``line``, in order."""
    norm = line if normalised else normalise(line)
    if len(norm) < SHORT_LINE:
        return [k for k, n in enumerate(norms) if n == norm]
    out: list[int] = []
    for first in range(0, len(norms), SEARCH_SLICE):
        piece = norms[first : first + SEARCH_SLICE]
        found = process.extract(
            norm, piece, scorer=Indel.normalized_similarity, score_cutoff=LINE_THRESHOLD, limit=None
        )
        out += (first + k for n, _, k in found if len(n) >= SHORT_LINE or n == norm)
    return sorted(out)
