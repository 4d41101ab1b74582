"""The structural actions, written once over :class:`~.model.Member`: remove, clone, swap, move/bring, move_by
and insert_empty. Each answers one :class:`~.model.Outcome` however many targets it is given.

Why permutations for moves among siblings: a member moved inside its own container takes another member's slot
and leaves its delimiters, blank lines and comments in place, so no removal has to meet an insertion at the
same comma or line; only moves to another container remove and insert.
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import ActionRefused, Member, Outcome, Replace

#: A replacement and, inside its text, the spans (offset, length) of what it produced.
Piece = tuple[Replace, list[tuple[int, int]]]


def remove(source: bytes, members: Sequence[Member]) -> Outcome:
    """Remove every member, each container's members at once; a member inside another target goes with it."""
    if not members:
        raise ActionRefused("targets", "no target to remove")
    kept = _outermost(members)
    pieces: list[Piece] = [(r, []) for r in _removals(kept)]
    return _outcome(pieces, mark_removals=True)


def clone(source: bytes, members: Sequence[Member], after: bool) -> Outcome:
    """Copy each member next to itself (after or before), with its delimiter or its line."""
    if not members:
        raise ActionRefused("targets", "no target to clone")
    pieces = []
    for member in _outermost(members):
        if hasattr(member, "arrangement_refusal"):
            siblings = list(member.siblings())
            index = _index(member, siblings)
            _check_arrangement(member, siblings[: index + 1] + siblings[index:], "targets")
        text = member.text_for(member, source)
        replace, offset = member.insertion(text, after)
        pieces.append((replace, [(offset, len(text))]))
    return _outcome(_merged(pieces))


def swap(source: bytes, a: Member, b: Member) -> Outcome:
    """Exchange two members' own texts, each re-indented to the other's place; delimiters stay."""
    _check_apart(a, b, "targets[1]")
    _check_fits(b, a, "targets[1]")
    _check_fits(a, b, "targets[1]")
    if hasattr(a, "arrangement_refusal") or hasattr(b, "arrangement_refusal"):
        order_a = list(a.siblings())
        order_a[_index(a, order_a)] = b
        if a.container == b.container:
            order_a[_index(b, order_a[:])] = a
            _check_arrangement(a, order_a, "targets[1]")
        else:
            order_b = list(b.siblings())
            order_b[_index(b, order_b)] = a
            _check_arrangement(a, order_a, "targets[1]")
            _check_arrangement(b, order_b, "targets[1]")
    text_a, text_b = b.text_for(a, source), a.text_for(b, source)
    pieces: list[Piece] = [
        (Replace(a.span[0], a.span[1], text_b), [(0, len(text_b))]),
        (Replace(b.span[0], b.span[1], text_a), [(0, len(text_a))]),
    ]
    return _outcome(pieces)


def move(source: bytes, targets: Sequence[Member], destination: Member, after: bool, keep: bool = False) -> Outcome:
    """Move (or, with ``keep``, bring a copy of) the targets before or after ``destination``, in document order."""
    if not targets:
        raise ActionRefused("targets", "no target to move")
    chosen = sorted(_outermost(targets), key=lambda m: m.span)
    for target in chosen:
        _check_apart(target, destination, "destination")
        _check_fits(destination, target, "destination")
    siblings = destination.siblings()
    if not keep and all(t.container == destination.container for t in chosen):
        moved = [_index(t, siblings) for t in chosen]
        rest = [k for k in range(len(siblings)) if k not in moved]
        at = rest.index(_index(destination, siblings)) + (1 if after else 0)
        return _permuted(source, siblings, rest[:at] + moved + rest[at:], moved)
    at = _index(destination, siblings) + (1 if after else 0)
    if hasattr(destination, "arrangement_refusal"):
        _check_arrangement(destination, list(siblings[:at]) + chosen + list(siblings[at:]), "destination")
    pieces = []
    for target in chosen:
        text = destination.text_for(target, source)
        replace, offset = destination.insertion(text, after)
        pieces.append((replace, [(offset, len(text))]))
    if not keep:
        pieces += [(r, []) for r in _removals(chosen)]
    return _outcome(_merged(pieces))


def move_by(source: bytes, member: Member, step: int) -> Outcome:
    """Move ``member`` ``step`` places among its siblings (-1 is moveUp, +1 moveDown)."""
    siblings = member.siblings()
    index = _index(member, siblings)
    goal = index + step
    if step == 0 or not 0 <= goal < len(siblings):
        where = "first" if step < 0 else "last"
        raise ActionRefused("targets[0]", f"the {member.kind} is already the {where} of its container")
    order = [k for k in range(len(siblings)) if k != index]
    order.insert(goal, index)
    for k in range(min(index, goal), max(index, goal) + 1):
        _check_fits(siblings[k], siblings[order[k]], "targets[0]")
    return _permuted(source, siblings, order, [index])


def insert_empty(source: bytes, member: Member, after: bool) -> Outcome:
    """An empty member next to ``member`` (its delimiter or line made), the cursor's place as ``produced``."""
    replace, offset = member.insertion(b"", after)
    return _outcome([(replace, [(offset, 0)])])


def _permuted(source: bytes, siblings: Sequence[Member], order: list[int], moved: list[int]) -> Outcome:
    """Slot ``k`` gets the text of sibling ``order[k]``; the moved ones are the produced spans."""
    if hasattr(siblings[0], "arrangement_refusal"):
        field = "targets[0]" if len(moved) == 1 else "targets"
        _check_arrangement(siblings[0], [siblings[k] for k in order], field)
    pieces: list[Piece] = []
    for slot, comes in enumerate(order):
        if comes == slot:
            continue
        text = siblings[slot].text_for(siblings[comes], source)
        start, end = siblings[slot].span
        pieces.append((Replace(start, end, text), [(0, len(text))] if comes in moved else []))
    return _outcome(pieces)


def _index(member: Member, siblings: Sequence[Member]) -> int:
    """Where ``member`` sits among ``siblings``: its own ``index`` when it has one (no span computed)."""
    index = getattr(member, "index", None)
    if isinstance(index, int) and index < len(siblings) and siblings[index].span == member.span:
        return index
    return [s.span for s in siblings].index(member.span)


def _removals(members: Sequence[Member]) -> list[Replace]:
    groups: dict[tuple[int, int, str], list[Member]] = {}
    for member in members:
        groups.setdefault(member.container, []).append(member)
    replaces: list[Replace] = []
    for group in groups.values():
        together = getattr(group[0], "removal_together", None)
        if len(group) > 1 and together is not None:
            replaces += together(group[1:])
        else:
            for member in group:
                replaces += member.removal()
    return replaces


def _outermost(members: Sequence[Member]) -> list[Member]:
    """The members not inside another one's span, each once."""
    spans = {m.span: m for m in members}
    return [m for s, m in spans.items() if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans)]


def _check_apart(a: Member, b: Member, field: str) -> None:
    (a0, a1), (b0, b1) = a.span, b.span
    if a0 < b1 and b0 < a1:
        raise ActionRefused(field, f"the {b.kind} and the {a.kind} overlap")


def _check_fits(place: Member, other: Member, field: str) -> None:
    refusal = getattr(place, "refusal_for", None)
    reason = refusal(other) if refusal is not None else None
    if reason is None and refusal is None and type(place) is not type(other):
        reason = f"a {other.kind} cannot take the place of a {place.kind}"
    if reason is not None:
        raise ActionRefused(field, reason)


def _check_arrangement(place: Member, members: Sequence[Member], field: str) -> None:
    """Refuse an order ``place``'s container forbids (a positional argument after a keyword one…)."""
    check = getattr(place, "arrangement_refusal", None)
    reason = check(members) if check is not None else None
    if reason is not None:
        raise ActionRefused(field, reason)


def _merged(pieces: list[Piece]) -> list[Piece]:
    """Insertions at one offset become one replacement, their texts in the given order."""
    out: list[Piece] = []
    for replace, spans in pieces:
        same = next((k for k, (r, _) in enumerate(out) if r.start == r.end == replace.start == replace.end), None)
        if same is None:
            out.append((replace, spans))
            continue
        before, before_spans = out[same]
        shift = len(before.text)
        joined = Replace(before.start, before.end, before.text + replace.text)
        out[same] = (joined, before_spans + [(o + shift, n) for o, n in spans])
    return out


def _outcome(pieces: list[Piece], mark_removals: bool = False) -> Outcome:
    pieces = sorted(pieces, key=lambda p: (p[0].start, p[0].end))
    produced: list[tuple[int, int]] = []
    delta, at = 0, -1
    for replace, spans in pieces:
        if replace.start < at:
            raise ActionRefused("destination", "the targets' edits overlap")
        start = replace.start + delta
        produced += [(start + o, start + o + n) for o, n in spans]
        if mark_removals and not replace.text:
            produced.append((start, start))
        delta += len(replace.text) - (replace.end - replace.start)
        at = replace.end
    return Outcome(tuple(p[0] for p in pieces), tuple(produced))
