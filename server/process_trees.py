"""The trees a worker process keeps between its jobs, so that a document's next version parses incrementally.

A tree does not pickle, so work handed to a worker process (:mod:`.processes`) sends the text and the child parses
it. Parsing a 10,000-line file from nothing costs about twice what parsing it again after an edit does, so each
process keeps the last tree of the last documents it parsed (by a key its caller chooses: a document's uri) and
parses a new text from it, describing the change as the one edit between the longest common prefix and suffix of
the two texts. Whatever text was kept, the tree is the one a fresh parse gives.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from tree_sitter import Parser, Point, Tree

from .syntax import GrammarLimits, language_by_name

#: Source bytes of the documents whose trees a process keeps (a tree costs about 35 times its text: some 18 MB);
#: the default of ``tether.limits.processTreeBytes``, which each call to a worker process puts in force there
#: (:func:`keep_at_most`, from :mod:`.processes`).
KEPT_BYTES = 512 * 1024

_kept: OrderedDict[tuple[str, str], tuple[bytes, Tree]] = OrderedDict()  # (key, language) -> last text and tree
_parsers: dict[str, Parser] = {}
_lock = threading.Lock()  # a process's jobs run one at a time; in a worker thread (processes = 0) they may not
_budget = [KEPT_BYTES]  # guarded by _lock


def tree_for(key: str, language: str, text: bytes, limits: GrammarLimits) -> Tree | None:
    """The tree of ``text`` (None when ``limits`` keep it as text only, as the server would), parsed from the last
    tree kept for ``key`` when there is one."""
    if limits.check(language, text) is not None:
        with _lock:
            _kept.pop((key, language), None)
        return None
    with _lock:
        parser = _parsers.get(language)
        if parser is None:
            parser = _parsers[language] = Parser(language_by_name(language).language)
        previous = _kept.pop((key, language), None)
        if previous is None:
            tree = parser.parse(text)
        else:
            old_text, old_tree = previous
            if old_text == text:
                tree = old_tree
            else:
                base = old_tree.copy()  # the tree handed out before is never changed under its reader
                _edit(base, old_text, text)
                tree = parser.parse(text, base)
        _kept[(key, language)] = (text, tree)
        _keep_within(_budget[0])
        return tree


def keep_at_most(budget: int) -> None:
    """Keep the trees of at most ``budget`` source bytes from now on (the last tree is always kept, unless 0)."""
    with _lock:
        _budget[0] = budget
        _keep_within(budget)


def kept() -> list[str]:
    """The keys whose trees are kept, the least recently parsed first (tests, diagnostics)."""
    with _lock:
        return [key for key, _language in _kept]


def forget() -> None:
    """Drop every kept tree (tests)."""
    with _lock:
        _kept.clear()


def _keep_within(budget: int) -> None:
    total = sum(len(text) for text, _tree in _kept.values())
    while total > budget and len(_kept) > (1 if budget > 0 else 0):
        _key, (text, _tree) = _kept.popitem(last=False)
        total -= len(text)


def _edit(tree: Tree, old: bytes, new: bytes) -> None:
    """Tell ``tree`` (of ``old``) where ``new`` differs: one edit from the first differing byte to the last."""
    start = _common_prefix(old, new)
    tail = _common_suffix(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    tree.edit(start, old_end, new_end, _point(old, start), _point(old, old_end), _point(new, new_end))


def _point(text: bytes, offset: int) -> Point:
    row = text.count(b"\n", 0, offset)
    return Point(row, offset - (text.rfind(b"\n", 0, offset) + 1))


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix, by halving (each comparison is one ``memcmp``)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, at_most: int) -> int:
    """Length of the longest common suffix, no longer than ``at_most`` (so that it never overlaps the prefix)."""
    lo, hi = 0, at_most
    la, lb = len(a), len(b)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo
