"""How alike two lines are: the one measure every match of the markers' calculator uses.

Kept apart from the line map and the calculator because it is the part that calls rapidfuzz (whose calls hold
the GIL: long searches go in slices) and the part the git view searches with on its own (the files a moved
block may have gone to).
"""

from __future__ import annotations

from collections.abc import Sequence

from .columns import common_ends
from .settings import compared_product

#: Minimum similarity for a changed line to count as the same line (reference: 0.5).
LINE_THRESHOLD = 0.5
#: Normalised lines shorter than this only match identically.
SHORT_LINE = 4

#: Pairs of lines whose product of lengths is above this are compared one pair at a time, on their changed
#: middles: rapidfuzz's batch calls compare the whole of both lines (a second for two 110 KB lines differing in
#: one character).
BATCH_PRODUCT = 1_000_000


def normalise(line: str) -> str:
    """Whitespace runs as one space, ends trimmed: re-indenting or re-spacing a line keeps it the same line.

    ``str.split`` splits on the characters ``\\s`` matches, twenty times faster than a regular expression."""
    return " ".join(line.split())


def similarity(a: str, b: str) -> float:
    """Normalised edit similarity of two lines, whitespace-insensitive; short lines only match exactly."""
    return normalised_similarity(normalise(a), normalise(b))


def normalised_similarity(na: str, nb: str) -> float:
    if na == nb:
        return 1.0
    if len(na) < SHORT_LINE or len(nb) < SHORT_LINE:
        return 0.0
    if len(na) * len(nb) > BATCH_PRODUCT:
        return long_similarity(na, nb)
    import rapidfuzz.distance.Indel as Indel  # rapidfuzz loads on first use (~50 ms): start-up does not need it

    return float(Indel.normalized_similarity(na, nb))


def long_similarity(na: str, nb: str) -> float:
    """The same measure for two long lines, its cost bounded by ``tether.markers.maxComparedProduct``.

    The common start and end count as kept; the middles between them are compared when small enough, else
    counted as rewritten (a lower bound of the similarity: long lines edited in two distant places may fall below
    the threshold).
    """
    head, tail = common_ends(na, nb)
    middle_a, middle_b = na[head : len(na) - tail], nb[head : len(nb) - tail]
    kept = head + tail
    if len(middle_a) * len(middle_b) <= compared_product():
        import rapidfuzz.distance.LCSseq as LCSseq

        kept += LCSseq.similarity(middle_a, middle_b)
    total = len(na) + len(nb)
    return 1.0 - (total - 2 * kept) / total


#: Lines compared per rapidfuzz call. One call holds the GIL throughout; in a worker thread a call over
#: thousands of lines would stall the event loop, so long searches are made in slices.
SEARCH_SLICE = 1000


def similar_lines(line: str, norms: Sequence[str], *, normalised: bool = False) -> list[int]:
    """Indexes of the normalised lines ``norms`` at least LINE_THRESHOLD similar to ``line``, in order."""
    import rapidfuzz.distance.Indel as Indel
    import rapidfuzz.process as process

    norm = line if normalised else normalise(line)
    if len(norm) < SHORT_LINE:
        return [k for k, n in enumerate(norms) if n == norm]
    out: list[int] = []
    for first in range(0, len(norms), SEARCH_SLICE):
        piece = norms[first : first + SEARCH_SLICE]
        batch, long = batchable(norm, piece)
        found = process.extract(
            norm, batch, scorer=Indel.normalized_similarity, score_cutoff=LINE_THRESHOLD, limit=None
        )
        out += (first + k for n, _, k in found if len(n) >= SHORT_LINE or n == norm)
        out += (first + k for k in long if normalised_similarity(norm, piece[k]) >= LINE_THRESHOLD)
    return sorted(out)


def batchable(norm: str, others: Sequence[str]) -> tuple[Sequence[str | None], list[int]]:
    """``others`` as one batch call compares them (None in place of a line too long to compare with ``norm`` that
    way, which the call skips), and the indexes of those long lines. Lines are seldom long: then the batch is
    ``others`` itself, found by one C pass over their lengths instead of a Python one over the lines."""
    if max(map(len, others), default=0) * len(norm) <= BATCH_PRODUCT:
        return others, []
    batch = [n if len(n) * len(norm) <= BATCH_PRODUCT else None for n in others]
    return batch, [k for k, n in enumerate(batch) if n is None]
