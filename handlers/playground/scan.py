"""Finding a document version's prompts: the whole-tree walk, and the same from the text alone in a worker process.

The walk (50-90 ms for a 10,000-line file) is pure, so it runs off the loop: in a worker thread on a copy of the
server's tree, or, for a large document, in a worker process (:mod:`tether_lsp.server.processes`) that parses the
text itself (a tree does not pickle) and hands back plain values. Either keeps what it found per document (a
:class:`~.units.Memo`, by the uri) and reads again only what changed since that document's last version. This
module imports only what that process needs: the parser and the detectors, not the engine, the map or the database.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence

from tree_sitter import Node, Tree

from tether_lsp.server.process_trees import tree_for
from tether_lsp.server.syntax import GrammarLimits

from . import detect_python, detect_yaml
from .model import DEFAULT_KEYWORDS, YAML_KEYS, Prompt
from .units import Memo

#: What an update needs from a whole-tree walk: the version's prompts and its first syntax error.
Detected = tuple[list[Prompt], str | None]
#: A document for a worker process: a key for the tree it keeps (the uri), the language, the text.
TextJob = tuple[str, str, bytes]

#: Documents whose units a process keeps for their next version, and the source bytes they may hold in all (a memo
#: holds its units' bytes as their keys); the memos of the least recently read go first.
KEPT_MEMOS = 32
KEPT_MEMO_BYTES = 4 * 1024 * 1024
_memos: OrderedDict[tuple[str, str], Memo] = OrderedDict()  # (key, language) -> the units of its last version
_memos_lock = threading.Lock()  # one thread uses a memo at a time: it is taken out while in use


def first_error(root: Node) -> str | None:
    """Where the first syntax error is, for ``parseError``."""
    stack = [root]
    while stack:
        node = stack.pop()
        if not (node.has_error or node.is_missing):
            continue
        if node.type == "ERROR" or node.is_missing:
            what = f"missing {node.type}" if node.is_missing else "syntax error"
            return f"{what} at line {node.start_point.row + 1}, column {node.start_point.column + 1}"
        stack.extend(reversed(node.children))
    return None


def detect(
    language: str,
    tree: Tree,
    text: bytes,
    keywords: Sequence[str] | None = None,
    yaml_keys: Sequence[str] | None = None,
    memo: Memo | None = None,
) -> list[Prompt]:
    """The prompts of ``text`` (parsed as ``tree``); ``memo``: what was found in the same document's previous version,
    updated to this one."""
    if language == "python":
        return detect_python.detect(tree.root_node, keywords or DEFAULT_KEYWORDS, memo)
    if language == "yaml":
        return detect_yaml.detect(tree.root_node, text, yaml_keys or YAML_KEYS, memo)
    return []


def scan(
    language: str,
    tree: Tree,
    text: bytes,
    keywords: Sequence[str] | None = None,
    yaml_keys: Sequence[str] | None = None,
    key: str | None = None,
) -> Detected:
    """The part of :meth:`~.engine.PlaygroundEngine.update` that walks the whole tree: pure, so a worker can run it
    on a tree of its own while the loop goes on. ``key`` (a uri): the document, whose previous version's units this
    process kept; only the units that changed are read again."""
    memo = _take_memo(key, language) if key is not None else None
    try:
        parsed = detect(language, tree, text, keywords, yaml_keys, memo)
    finally:
        if key is not None and memo is not None:  # a failed detection left the memo as it was
            _keep_memo(key, language, memo, len(text))
    return parsed, first_error(tree.root_node) if tree.root_node.has_error else None


def _take_memo(key: str, language: str) -> Memo:
    with _memos_lock:
        return _memos.pop((key, language), None) or Memo()


def _keep_memo(key: str, language: str, memo: Memo, size: int) -> None:
    memo.size = size
    with _memos_lock:
        _memos[(key, language)] = memo
        total = sum(m.size for m in _memos.values())
        while len(_memos) > 1 and (len(_memos) > KEPT_MEMOS or total > KEPT_MEMO_BYTES):
            _key, dropped = _memos.popitem(last=False)
            total -= dropped.size


def memo_of(key: str, language: str) -> Memo | None:
    """The units kept of a document (tests, benchmarks)."""
    with _memos_lock:
        return _memos.get((key, language))


def forget_memos() -> None:
    """Drop every kept memo (tests)."""
    with _memos_lock:
        _memos.clear()


def scan_texts(
    jobs: Sequence[TextJob],
    keywords: Sequence[str] | None,
    yaml_keys: Sequence[str] | None,
    limits: GrammarLimits,
) -> tuple[int, list[Detected | None]]:
    """Worker process: each document's :func:`scan`, its text parsed here (from the tree this process kept of its
    previous version); None for a text ``limits`` keep as text only. With the id of the process that did it."""
    found: list[Detected | None] = []
    for key, language, text in jobs:
        tree = tree_for(key, language, text, limits)
        found.append(None if tree is None else scan(language, tree, text, keywords, yaml_keys, key))
    return os.getpid(), found


def ready() -> None:
    """Worker process: nothing; running it imports this module and the detectors there before the first job."""
