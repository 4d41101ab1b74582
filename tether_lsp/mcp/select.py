"""``select``: a chain of the selector engine's selectors (``handlers/selectors``), left to right from the node ids
in ``from`` (or the root), with the same semantics as ``tether/applySelector``; ``selectAt`` and ``selectRange``
take 1-based lines and columns like everything else here."""

from __future__ import annotations

import difflib
from typing import Any

from tether_lsp.handlers.selectors.engine import resolve, run, validate
from tether_lsp.handlers.selectors.vocabulary import SELECTORS
from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.positions import Encoding, Pos

from .args import Json, integer, kind_of, range_of
from .context import Answer, Context

#: Selectors whose integer arguments are positions: 1-based here, 0-based for the engine.
ONE_BASED = ("selectAt", "selectRange")
#: Most selectors in one chain.
MAX_STEPS = 100


def steps(chain: list[Any]) -> list[tuple[str, list[Any]]]:
    """``selectors`` as (name, arguments) pairs: each a name, or an array of the name and its arguments."""
    if not chain:
        raise InvalidParams("selectors", 'empty (name at least one selector, e.g. "selectFunctions")')
    if len(chain) > MAX_STEPS:
        raise InvalidParams("selectors", f"{len(chain)} selectors, more than {MAX_STEPS} in one chain")
    out = []
    for k, step in enumerate(chain):
        field = f"selectors[{k}]"
        if isinstance(step, str):
            name, args = step, []
        elif isinstance(step, list) and step and isinstance(step[0], str):
            name, args = step[0], list(step[1:])
        else:
            raise InvalidParams(field, f"expected a selector name or [name, ...arguments], got {kind_of(step)}")
        if name not in SELECTORS:
            close = difflib.get_close_matches(name, list(SELECTORS), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise InvalidParams(field, f"unknown selector {name!r}{hint}; known: {', '.join(SELECTORS)}")
        if name in ONE_BASED:
            args = [integer(a, f"{field}[{i + 1}]", 1) - 1 for i, a in enumerate(args)]
        out.append((name, args))
    return out


def select(context: Context, *, path: str, selectors: list[Any], from_: list[Any] | None = None) -> Answer:
    file = context.load(path)
    chain = steps(selectors)
    validated = []
    for k, (name, args) in enumerate(chain):
        try:
            validated.append(validate(name, args, context.regex_limits))
        except InvalidParams as exc:
            raise InvalidParams(f"selectors[{k}]", exc.message) from None
    start = [integer(v, f"from[{k}]", 0) for k, v in enumerate(from_ or [])]
    parsed = context.trees.parsed(file)
    lines = context.lines(file)
    cursors = resolve(parsed.ids, start)
    stale = len(set(start)) - len(set(cursors)) if start else 0
    for k, step in enumerate(validated):
        if not cursors:
            break
        try:
            cursors = run(
                step,
                parsed.index,
                parsed.table,
                parsed.tree,
                cursors,
                lambda line, ch: lines.offset_of(Pos(line, ch), Encoding.UTF32),
            )
        except InvalidParams as exc:
            raise InvalidParams(f"selectors[{k}]", exc.message) from None
    index = parsed.index
    matches: list[Json] = []
    for row, (s, e) in zip(cursors, index.spans(cursors), strict=True):
        matches.append({"node_id": parsed.node_id(row), "range": range_of(lines, s, e), "text": index.node_text(row)})
    context.shown(file)
    text = [f"{file.shown} (version {file.version}): {len(matches)} match{'es' if len(matches) != 1 else ''}"]
    if stale:
        text.append(
            f"{stale} node id{'s' if stale > 1 else ''} in `from` {'are' if stale > 1 else 'is'} not of this version "
            "(the file changed, or the id came from another file): ids name nodes of one version; outline or "
            "select again"
        )
    for match in matches:
        r, first = match["range"], match["text"].split("\n", 1)[0]
        more = " …" if "\n" in match["text"] else ""
        where = f"{r['start']['line']}:{r['start']['column']}-{r['end']['line']}:{r['end']['column']}"
        text.append(f"node {match['node_id']} {where}  {first[:120]}{more}")
    return Answer({"path": file.shown, "version": file.version, "matches": matches}, "\n".join(text))
