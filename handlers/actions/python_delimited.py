"""Python's comma-delimited members: arguments, parameters, list/tuple/set elements (bare tuples too), dict
entries, imported names, subscript elements and ``with`` items.

Why the geometry is computed per container (elements, the comma after each, where the inside opens and closes):
removing several members of one container at once must take each comma exactly once, and a tuple left with one
element must keep its comma (``(a,)``), so removal is decided over a run of adjacent elements, not one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from tree_sitter import Node

from .lines import indentation, line_start, newline_of, next_line, rest_is_blank, starts_line
from .model import ActionRefused, Member, Replace
from .siblings import Siblings

#: container type -> (member kind, family). Members of one family may take each other's places.
CONTAINERS: dict[str, tuple[str, str]] = {
    "argument_list": ("argument", "values"),
    "parameters": ("parameter", "parameters"),
    "lambda_parameters": ("parameter", "lambda parameters"),
    "list": ("element", "values"),
    "set": ("element", "values"),
    "tuple": ("element", "values"),
    "expression_list": ("element", "values"),
    "dictionary": ("entry", "entries"),
    "pattern_list": ("element", "targets"),
    "tuple_pattern": ("element", "targets"),
    "list_pattern": ("element", "targets"),
    "subscript": ("element", "subscripts"),
    "import_from_statement": ("import", "from-imports"),
    "import_statement": ("import", "imports"),
    "with_clause": ("with item", "with items"),
    "global_statement": ("name", "global names"),
    "nonlocal_statement": ("name", "nonlocal names"),
}
#: containers whose elements are named by a field (the others: every named child but comments).
FIELDS = {"subscript": "subscript", "import_from_statement": "name", "import_statement": "name"}
#: a single element keeps its comma, or the container stops being a tuple.
TUPLE_LIKE = frozenset({"tuple", "expression_list", "pattern_list", "tuple_pattern"})
#: containers that cannot be left empty, with the reason.
NOT_EMPTY = {
    "expression_list": "a bare tuple cannot be left empty",
    "set": "a set cannot be left empty: {} is a dict",
    "pattern_list": "an assignment target cannot be left empty",
    "subscript": "a subscript needs an index",
    "import_from_statement": "the only imported name: remove the import statement instead",
    "import_statement": "the only imported module: remove the import statement instead",
    "with_clause": "a with statement needs an item: remove or unwrap the with statement instead",
    "global_statement": "the only global name: remove the statement instead",
    "nonlocal_statement": "the only nonlocal name: remove the statement instead",
}
#: argument kinds that only an argument list holds.
CALL_ONLY = frozenset({"keyword_argument", "dictionary_splat"})
PAIRS = frozenset({"pair", "dictionary_splat"})
OPENERS = frozenset({"(", "[", "{"})
CLOSERS = frozenset({")", "]", "}"})


def elements_of(container: Node) -> list[Node]:
    """The container's members in order (comments and the module of ``from x import`` left out)."""
    field = FIELDS.get(container.type)
    if field is not None:
        return list(container.children_by_field_name(field))
    return [c for c in container.named_children if c.type != "comment"]


def is_element(node: Node) -> bool:
    """``node`` is a member of its parent, which is a delimited container."""
    parent = node.parent
    if parent is None or parent.type not in CONTAINERS:
        return False
    return any(e.id == node.id for e in elements_of(parent))


@dataclass(frozen=True, eq=False)
class Delimited:
    """One container's geometry in ``source``."""

    source: bytes
    node: Node

    @cached_property
    def elements(self) -> list[Node]:
        return elements_of(self.node)

    @cached_property
    def commas(self) -> list[int | None]:
        """For each element, the offset of the comma right after it (None for a last one without)."""
        found: list[int | None] = [None] * len(self.elements)
        index, starts = -1, {e.start_byte: k for k, e in enumerate(self.elements)}
        for child in self.node.children:
            if child.start_byte in starts and child.is_named:
                index = starts[child.start_byte]
            elif child.type == "," and index >= 0 and found[index] is None:
                found[index] = child.start_byte
        return found

    @cached_property
    def inside(self) -> tuple[int, int]:
        """Where the inside opens and closes: after ``(`` and before ``)``, or the elements' own extent."""
        children = self.node.children
        first = self.elements[0].start_byte
        opens = [c.end_byte for c in children if c.type in OPENERS and c.end_byte <= first]
        closes = [c.start_byte for c in children if c.type in CLOSERS and c.start_byte >= self.elements[-1].end_byte]
        last_comma = self.commas[-1]
        tail = self.elements[-1].end_byte if last_comma is None else last_comma + 1
        return (opens[-1] if opens else first, closes[0] if closes else tail)

    def after(self, index: int) -> int:
        """The end of an element with its comma and a comment on the same line."""
        comma = self.commas[index]
        end = self.elements[index].end_byte if comma is None else comma + 1
        for child in self.node.children:
            if child.type == "comment" and child.start_byte >= end:
                if self.source[end : child.start_byte].strip(b" \t") == b"":
                    return child.start_byte + len(self.source[child.start_byte : child.end_byte].rstrip())
                break
        return end

    def own_lines(self, first: int, last: int) -> bool:
        """Elements ``first``..``last`` fill whole lines of their own."""
        start = self.elements[first].start_byte
        return starts_line(self.source, start) and rest_is_blank(self.source, self.after(last))

    def separator(self) -> bytes:
        """``", "`` or ``","``, as the container writes it."""
        for index, comma in enumerate(self.commas[:-1]):
            if comma is not None and self.elements[index + 1].start_byte == comma + 1:
                return b","
        return b", "

    def next_start(self, at: int) -> int:
        """The first byte after ``at`` that is not whitespace."""
        rest = self.source[at:]
        return at + len(rest) - len(rest.lstrip())

    def removal(self, indices: Sequence[int]) -> list[Replace]:
        """Remove the elements at ``indices`` (sorted, unique) with their commas and lines."""
        chosen = self._with_orphans(set(indices))
        count = len(self.elements)
        if len(chosen) == count:
            reason = NOT_EMPTY.get(self.node.type)
            if reason is not None:
                raise ActionRefused("targets", reason)
            return [self._emptied()]
        if self.node.type in {"parameters", "lambda_parameters"}:
            reason = parameters_refusal([e.type for k, e in enumerate(self.elements) if k not in chosen])
            if reason is not None:
                raise ActionRefused("targets", f"what is left would break: {reason}")
        keep_comma = (
            self.node.type in TUPLE_LIKE and count - len(chosen) == 1 and not self._names_targets() and not self._loop()
        )
        replaces: list[Replace] = []
        for first, last in _runs(sorted(chosen)):
            replaces += self._run_removal(first, last, keep_comma)
        if keep_comma:
            kept = next(k for k in range(count) if k not in chosen)
            if self.commas[kept] is None:
                end = self.elements[kept].end_byte
                replaces.append(Replace(end, end, b","))
        return replaces

    def _names_targets(self) -> bool:
        """``del a, b`` deletes names, not a tuple: ``del a`` is what is left."""
        parent = self.node.parent
        return self.node.type == "expression_list" and parent is not None and parent.type == "delete_statement"

    def _loop(self) -> bool:
        """``for k, v in`` minus ``v`` is ``for k in``: a person writes a loop's bare target without a comma."""
        parent = self.node.parent
        return (
            self.node.type == "pattern_list"
            and parent is not None
            and parent.type in {"for_statement", "for_in_clause"}
            and parent.child_by_field_name("left") == self.node
        )

    def _with_orphans(self, chosen: set[int]) -> set[int]:
        """A bare ``*`` with no keyword parameter after it, or a ``/`` with none before, goes too."""
        types = [e.type for e in self.elements]
        for k, kind in enumerate(types):
            if kind == "keyword_separator" and k not in chosen:
                later = [j for j in range(k + 1, len(types)) if j not in chosen]
                if all(types[j] == "dictionary_splat_pattern" for j in later):
                    chosen.add(k)
            if kind == "positional_separator" and k not in chosen and all(j in chosen for j in range(k)):
                chosen.add(k)
        return chosen

    def _emptied(self) -> Replace:
        if self.node.type == "lambda_parameters":
            keyword = self.node.prev_sibling
            start = keyword.end_byte if keyword is not None else self.node.start_byte
            return Replace(start, self.node.end_byte, b"")
        start, end = self.inside
        return Replace(start, end, b"")

    def _run_removal(self, first: int, last: int, keep_comma: bool) -> list[Replace]:
        elements, commas, source = self.elements, self.commas, self.source
        start = elements[first].start_byte
        is_last = last == len(elements) - 1
        before = commas[first - 1] if first > 0 else None
        if self.own_lines(first, last):
            whole = Replace(line_start(source, start), next_line(source, self.after(last)), b"")
            if is_last and commas[last] is None and before is not None and not keep_comma:
                return [Replace(before, before + 1, b""), whole]
            return [whole]
        if not is_last:
            comma = commas[last]
            assert comma is not None
            if before is not None and rest_is_blank(source, comma + 1) and not starts_line(source, start):
                return [Replace(before + 1, comma + 1, b"")]
            return [Replace(start, self.next_start(comma + 1), b"")]
        assert before is not None
        if commas[last] is not None:
            return [Replace(before + 1, commas[last] + 1, b"")]  # type: ignore[operator]
        return [Replace(before + (1 if keep_comma else 0), elements[last].end_byte, b"")]


def _runs(indices: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for k in indices:
        if runs and runs[-1][1] == k - 1:
            runs[-1] = (runs[-1][0], k)
        else:
            runs.append((k, k))
    return runs


@dataclass(frozen=True, eq=False)
class DelimitedMember:
    """One element of a delimited container (see :class:`~.model.Member`)."""

    box: Delimited
    index: int

    @property
    def node(self) -> Node:
        return self.box.elements[self.index]

    @property
    def kind(self) -> str:
        return CONTAINERS[self.box.node.type][0]

    @property
    def family(self) -> str:
        return CONTAINERS[self.box.node.type][1]

    @property
    def span(self) -> tuple[int, int]:
        return (self.node.start_byte, self.node.end_byte)

    @property
    def container(self) -> tuple[int, int, str]:
        node = self.box.node
        return (node.start_byte, node.end_byte, node.type)

    def siblings(self) -> Sequence[Member]:
        return Siblings(self.box, len(self.box.elements), DelimitedMember)

    def removal(self) -> list[Replace]:
        return self.box.removal([self.index])

    def removal_together(self, members: Sequence[Member]) -> list[Replace]:
        """Remove this member and ``members`` (its siblings) at once."""
        indices = {self.index} | {m.index for m in members if isinstance(m, DelimitedMember)}
        return self.box.removal(sorted(indices))

    def insertion(self, text: bytes, after: bool) -> tuple[Replace, int]:
        box, source = self.box, self.box.source
        start, end = self.span
        if box.own_lines(self.index, self.index):
            indent = indentation(source, start)
            newline = newline_of(source)
            if not after:
                at = line_start(source, start)
                return Replace(at, at, indent + text + b"," + newline), len(indent)
            if box.commas[self.index] is None:
                lead = b"," + newline + indent
                return Replace(end, end, lead + text), len(lead)
            at = next_line(source, box.after(self.index))
            return Replace(at, at, indent + text + b"," + newline), len(indent)
        separator = box.separator()
        following = self.index + 1 < len(box.elements) and box.elements[self.index + 1]
        if after and following and line_start(source, following.start_byte) <= end:
            at = following.start_byte  # before the next one: the spacing after this comma stays where it is
            return Replace(at, at, text + separator), 0
        if after:
            return Replace(end, end, separator + text), len(separator)
        return Replace(start, start, text + separator), 0

    def text_for(self, other: Member, source: bytes) -> bytes:
        start, end = other.span
        return source[start:end]

    def arrangement_refusal(self, members: Sequence[Member]) -> str | None:
        """Why this member's container cannot hold ``members`` in this order (None when it can)."""
        types = [m.node.type for m in members if isinstance(m, DelimitedMember)]
        if self.box.node.type == "argument_list":
            return arguments_refusal(types)
        if self.box.node.type in {"parameters", "lambda_parameters"}:
            return parameters_refusal(types)
        return None

    def refusal_for(self, other: Member) -> str | None:
        """Why ``other`` cannot take this member's place (None when it can)."""
        if not isinstance(other, DelimitedMember):
            return f"a {other.kind} cannot take the place of {_a(self.kind)}"
        if other.node.type in CALL_ONLY and self.box.node.type != "argument_list" and self.family != "entries":
            return f"{_a(other.node.type.replace('_', ' '))} only fits in a call's arguments"
        if other.family == self.family:
            return None
        mine, theirs = self.family, other.family
        if {mine, theirs} <= {"values", "subscripts"} and other.node.type not in CALL_ONLY | {"slice"}:
            return None
        return f"{_a(other.kind)} of {theirs} cannot take the place of {_a(self.kind)} of {mine}"


def arguments_refusal(types: Sequence[str]) -> str | None:
    """Python's order of arguments: positional, then keywords and ``*`` unpacking, then ``**`` unpacking."""
    keyword = mapping = False
    for kind in types:
        if kind == "keyword_argument":
            keyword = True
        elif kind == "dictionary_splat":
            mapping = True
        elif kind == "list_splat":
            if mapping:
                return "*iterable unpacking cannot follow **mapping unpacking"
        elif keyword or mapping:
            return "a positional argument cannot follow a keyword argument"
    return None


def parameters_refusal(types: Sequence[str]) -> str | None:
    """Python's order of parameters: ``/`` once, after some; ``*`` once; no default-less positional parameter
    after a default; ``**`` last; a bare ``*`` followed by a keyword parameter."""
    star = slash = default = mapping = False
    for index, kind in enumerate(types):
        if mapping:
            return "no parameter can follow **kwargs"
        if kind == "positional_separator":
            if slash or star or index == 0:
                return "/ may appear once, after a parameter and before *"
            slash = True
        elif kind in {"keyword_separator", "list_splat_pattern"}:
            if star:
                return "* may appear only once"
            star = True
            if kind == "keyword_separator" and all(t == "dictionary_splat_pattern" for t in types[index + 1 :]):
                return "a bare * needs a keyword parameter after it"
        elif kind == "dictionary_splat_pattern":
            mapping = True
        elif kind in {"default_parameter", "typed_default_parameter"}:
            default = True
        elif default and not star:
            return "a parameter without a default cannot follow one with a default"
    return None


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word
