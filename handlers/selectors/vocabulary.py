"""The 47 selectors (docs/selectors.md, "All selectors", is generated from them): names, argument specs, descriptions
and implementations.

Every selector is a pure function over a :class:`Context` (one tree's index, its kind table, the
request's position converter and regex budget). Per-cursor selectors map one cursor (a pre-order index)
to zero or more nodes; list-level selectors (ordinals, filters, and the kind selectors, which find the matches
under all the cursors at once) see the whole cursor list. The engine
(:mod:`.engine`) validates, de-duplicates and sorts around them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from tree_sitter import Tree

from tether_lsp.server.errors import InvalidParams
from tether_lsp.server.lazy import lazy_module
from tether_lsp.server.nodes import descendant_index

from .index import TreeIndex
from .kinds import KIND_NAMES, YAML_SCALARS, KindTable
from .regex_cost import too_costly
from .text_filter import text_filter

if TYPE_CHECKING:
    import regex
else:  # loaded by the first pattern compiled: start-up does not import it
    regex = lazy_module("regex")

ArgType = Literal["int", "nat", "str"]
T = TypeVar("T")


@dataclass(frozen=True)
class RegexLimits:
    """``tether.selectors``: what a filterText/filterNotText pattern may cost (defaults = the settings')."""

    budget_s: float = 0.5  # matching time per request
    max_length: int = 1000
    max_repeat: int = 10_000


@dataclass(frozen=True)
class Arg:
    name: str
    type: ArgType


@dataclass
class Context:
    """Everything a selector may look at for one request."""

    index: TreeIndex
    table: KindTable
    tree: Tree
    to_offset: Callable[[int, int], int]  # (line, character) in the negotiated encoding -> byte offset
    selector: str = ""
    deadline: float = 0.0
    budget_s: float = 0.0
    #: Nodes this request looked through cursor by cursor (past a share of the tree, the whole tree's matches
    #: are found once instead: :func:`_matches_in`).
    scanned: int = 0

    _memo: dict[str, Any] = field(default_factory=dict)

    def positions(self, kind_ids: frozenset[int]) -> list[int]:
        return self.index.positions(kind_ids)

    def memo(self, key: str, build: Callable[[], T]) -> T:
        """Per-request memo (matchers are built once, not once per cursor)."""
        if key not in self._memo:
            self._memo[key] = build()
        return cast(T, self._memo[key])


@dataclass(frozen=True)
class Matcher:
    """Candidates by kind id (cheap) refined by a predicate (context): a kind, a type or a union. ``key`` names
    what it matches (the index keeps each key's matches over the whole tree)."""

    candidates: frozenset[int]
    test: Callable[[TreeIndex, int], bool]
    key: str

    def __or__(self, other: Matcher) -> Matcher:
        a, b = self.test, other.test
        key = f"{self.key}|{other.key}"
        return Matcher(self.candidates | other.candidates, lambda ix, i: a(ix, i) or b(ix, i), key)


def kind(ctx: Context, name: str) -> Matcher:
    return Matcher(ctx.table.candidates(name), ctx.table.predicates[name], f"kind:{name}")


def types(ctx: Context, *names: str) -> Matcher:
    ids = ctx.table.ids(*names)
    return Matcher(ids, lambda ix, i: bool(ix.named[i]) and ix.kind[i] in ids, f"types:{','.join(names)}")


# --- walking ---------------------------------------------------------------------------------------


def _between(sorted_positions: list[int], lo: int, hi: int) -> list[int]:
    """Positions p with lo <= p < hi, from a sorted list (a slice: two bisections, no Python loop, which matters
    when a selector runs once per cursor over thousands of cursors)."""
    return sorted_positions[bisect.bisect_left(sorted_positions, lo) : bisect.bisect_left(sorted_positions, hi)]


#: Once a request's cursors' subtrees hold more than this share of the tree's nodes, they are served from the
#: matches of the whole tree (found once per index); before, by testing the candidates inside each.
WHOLE_TREE_SHARE = 0.25


def _matches_in(ctx: Context, c: int, matcher: Matcher) -> list[int]:
    """The matches among ``c`` and its descendants, in pre-order."""
    ix = ctx.index
    stop = ix.subtree_end[c]
    ctx.scanned += stop - c
    if ix.has_matches(matcher.key) or ctx.scanned > WHOLE_TREE_SHARE * len(ix):
        every = ix.matches(matcher.key, lambda: [p for p in ctx.positions(matcher.candidates) if matcher.test(ix, p)])
        return _between(every, c, stop)
    return [p for p in _between(ctx.positions(matcher.candidates), c, stop) if matcher.test(ix, p)]


def deep(ctx: Context, c: int, matcher: Matcher) -> list[int]:
    """Every match among ``c`` and its descendants, nested ones included."""
    return _matches_in(ctx, c, matcher)


def deep_all(ctx: Context, cursors: Sequence[int], matcher: Matcher) -> list[int]:
    """Every match among the cursors and their descendants, in pre-order: the matches under each outermost
    cursor (the others lie inside one), so a node under many cursors is found once."""
    return [p for c in filter_outermost(ctx, sorted(set(cursors))) for p in _matches_in(ctx, c, matcher)]


def outermost(ctx: Context, c: int, matcher: Matcher) -> list[int]:
    """Matches among ``c`` and its descendants, not descending into a match (outermost owners)."""
    ix = ctx.index
    owners: list[int] = []
    skip_until = -1
    for p in _matches_in(ctx, c, matcher):
        if p >= skip_until:
            owners.append(p)
            skip_until = ix.subtree_end[p]
    return owners


def structural(ctx: Context, i: int) -> list[int]:
    """Named children except comments."""
    ix = ctx.index
    comments = ctx.table.ids("comment")
    return [j for j in ix.children(i) if ix.named[j] and ix.kind[j] not in comments]


def field_child(ctx: Context, i: int, name: str) -> int | None:
    return ctx.index.child_by_field(i, ctx.table.field_id(name))


def inner_definition(ctx: Context, i: int) -> int:
    """A decorated definition's function/class definition; any other node itself."""
    if ctx.index.kind[i] in ctx.table.ids("decorated_definition"):
        inner = field_child(ctx, i, "definition")
        if inner is not None:
            return inner
    return i


def is_type(ctx: Context, i: int, *names: str) -> bool:
    return bool(ctx.index.named[i]) and ctx.index.kind[i] in ctx.table.ids(*names)


# --- part selectors --------------------------------------------------------------------------------


def part_name(ctx: Context, owner: int) -> Iterable[int]:
    name = field_child(ctx, inner_definition(ctx, owner), "name")
    return [name] if name is not None else []


def part_decorators(ctx: Context, owner: int) -> Iterable[int]:
    if not is_type(ctx, owner, "decorated_definition"):
        return []
    return [j for j in ctx.index.children(owner) if is_type(ctx, j, "decorator")]


def part_parameters(ctx: Context, owner: int) -> Iterable[int]:
    params = field_child(ctx, inner_definition(ctx, owner), "parameters")
    if params is None:
        return []
    return [j for j in structural(ctx, params) if not is_type(ctx, j, "keyword_separator", "positional_separator")]


def part_body(ctx: Context, owner: int) -> Iterable[int]:
    node = inner_definition(ctx, owner)
    body = field_child(ctx, node, "consequence" if is_type(ctx, node, "if_statement") else "body")
    return [body] if body is not None else []


def part_arguments(ctx: Context, owner: int) -> Iterable[int]:
    args = field_child(ctx, owner, "arguments")
    if args is None:
        return []
    if is_type(ctx, args, "generator_expression"):
        return [args]
    return structural(ctx, args)


def part_key(ctx: Context, owner: int) -> Iterable[int]:
    key = field_child(ctx, owner, "key")
    return [key] if key is not None else []


def part_value(ctx: Context, owner: int) -> Iterable[int]:
    if is_type(ctx, owner, "assignment", "augmented_assignment"):
        value = field_child(ctx, owner, "right")
    elif is_type(ctx, owner, "return_statement", "block_sequence_item"):
        children = structural(ctx, owner)
        value = children[0] if children else None
    else:
        value = field_child(ctx, owner, "value")
    return [value] if value is not None else []


def part_items(ctx: Context, owner: int) -> Iterable[int]:
    return structural(ctx, owner)


def part_condition(ctx: Context, owner: int) -> Iterable[int]:
    condition = field_child(ctx, owner, "condition")
    return [condition] if condition is not None else []


OWNERS: dict[str, Callable[[Context], Matcher]] = {
    "selectName": lambda ctx: kind(ctx, "function") | kind(ctx, "class"),
    "selectDecorators": lambda ctx: kind(ctx, "function") | kind(ctx, "class"),
    "selectParameters": lambda ctx: kind(ctx, "function") | kind(ctx, "lambda"),
    "selectBody": lambda ctx: (
        kind(ctx, "function")
        | kind(ctx, "class")
        | types(ctx, "if_statement", "for_statement", "while_statement", "with_statement", "try_statement")
    ),
    "selectArguments": lambda ctx: kind(ctx, "call"),
    "selectKey": lambda ctx: kind(ctx, "pair"),
    "selectValue": lambda ctx: (
        kind(ctx, "pair")
        | types(
            ctx,
            "keyword_argument",
            "default_parameter",
            "typed_default_parameter",
            "assignment",
            "augmented_assignment",
            "return_statement",
            "block_sequence_item",
        )
    ),
    "selectItems": lambda ctx: kind(ctx, "list") | kind(ctx, "map"),
    "selectCondition": lambda ctx: types(ctx, "if_statement", "elif_clause", "while_statement"),
}
PARTS: dict[str, Callable[[Context, int], Iterable[int]]] = {
    "selectName": part_name,
    "selectDecorators": part_decorators,
    "selectParameters": part_parameters,
    "selectBody": part_body,
    "selectArguments": part_arguments,
    "selectKey": part_key,
    "selectValue": part_value,
    "selectItems": part_items,
    "selectCondition": part_condition,
}


# --- navigation ------------------------------------------------------------------------------------


def nav_parent(ctx: Context, c: int) -> list[int]:
    ix = ctx.index
    s, e = ix.span(c)
    for a in ix.ancestors(c):
        a_s, a_e = ix.span(a)
        if a_s <= s and e <= a_e and (a_s, a_e) != (s, e):
            return [a]
    return []


YAML_WRAPPERS = ("document", "block_node", "flow_node")
YAML_NOT_CONTENT = ("anchor", "tag", "yaml_directive", "tag_directive", "reserved_directive")


def unwrap(ctx: Context, i: int) -> int:
    """Step through YAML wrappers: single-content documents/nodes, a single-document stream."""
    if ctx.table.name != "yaml":
        return i
    while True:
        if is_type(ctx, i, *YAML_WRAPPERS):
            content = [j for j in structural(ctx, i) if not is_type(ctx, j, *YAML_NOT_CONTENT)]
        elif is_type(ctx, i, "stream"):
            content = [j for j in structural(ctx, i) if is_type(ctx, j, "document")]
        else:
            return i
        if len(content) != 1:
            return i
        i = content[0]


def nav_children(ctx: Context, c: int) -> list[int]:
    u = unwrap(ctx, c)
    if ctx.table.name == "yaml" and is_type(ctx, u, *YAML_SCALARS):
        return []
    return structural(ctx, u)


def nav_siblings(ctx: Context, c: int) -> list[int]:
    p = ctx.index.parent[c]
    return [] if p < 0 else sorted({*structural(ctx, p), c})


def nav_next(ctx: Context, c: int) -> list[int]:
    p = ctx.index.parent[c]
    following = [j for j in structural(ctx, p) if j > c] if p >= 0 else []
    return following[:1]


def nav_prev(ctx: Context, c: int) -> list[int]:
    p = ctx.index.parent[c]
    preceding = [j for j in structural(ctx, p) if j < c] if p >= 0 else []
    return preceding[-1:]


def nav_enclosing(ctx: Context, c: int, kind_name: str) -> list[int]:
    test = ctx.table.predicates[kind_name]
    for a in (c, *ctx.index.ancestors(c)):
        if test(ctx.index, a):
            return [a]
    return []


def nav_at(ctx: Context, c: int, line: int, character: int) -> list[int]:
    b = ctx.to_offset(line, character)
    node = ctx.tree.root_node.named_descendant_for_byte_range(b, b)
    if node is None:
        return []
    j = descendant_index(ctx.tree, node)
    return [j] if j == c or ctx.index.is_ancestor(c, j) else []


def nav_range(ctx: Context, c: int, sl: int, sc: int, el: int, ec: int) -> list[int]:
    ix = ctx.index
    start, end = sorted((ctx.to_offset(sl, sc), ctx.to_offset(el, ec)))
    comments = ctx.table.ids("comment")
    out: list[int] = []
    j, stop = c, ix.subtree_end[c]
    while j < stop:
        if ix.end[j] <= start or ix.start[j] >= end:
            j = ix.subtree_end[j]  # entirely before or after
            continue
        s, e = ix.span(j)
        if ix.named[j] and ix.kind[j] not in comments and s < e and start <= s and e <= end:
            out.append(j)  # maximal: do not descend
            j = ix.subtree_end[j]
        else:
            j += 1  # partial overlap: descend
    return out


# --- list-level ------------------------------------------------------------------------------------


def groups(ctx: Context, cursors: Sequence[int]) -> list[list[int]]:
    """Cursors grouped by immediate parent (the root alone), each group in document order."""
    by_parent: dict[int, list[int]] = {}
    for c in cursors:
        by_parent.setdefault(ctx.index.parent[c] if c != 0 else -2, []).append(c)
    return list(by_parent.values())


def ordinal(pick: Callable[[list[int]], list[int]]) -> Callable[[Context, Sequence[int]], list[int]]:
    def run(ctx: Context, cursors: Sequence[int]) -> list[int]:
        return [c for group in groups(ctx, cursors) for c in pick(group)]

    return run


def select_nth(ctx: Context, cursors: Sequence[int], n: int) -> list[int]:
    out: list[int] = []
    for group in groups(ctx, cursors):
        if -len(group) <= n < len(group):
            out.append(group[n])
    return out


def filter_kind(ctx: Context, cursors: Sequence[int], kind_name: str) -> list[int]:
    test = ctx.table.predicates[kind_name]
    return [c for c in cursors if test(ctx.index, c)]


def filter_outermost(ctx: Context, cursors: Sequence[int]) -> list[int]:
    out, current_end = [], -1
    for c in cursors:  # sorted in pre-order: a descendant follows its ancestor
        if c < current_end:
            continue
        out.append(c)
        current_end = ctx.index.subtree_end[c]
    return out


def filter_innermost(ctx: Context, cursors: Sequence[int]) -> list[int]:
    ix = ctx.index
    return [c for k, c in enumerate(cursors) if not (k + 1 < len(cursors) and ix.is_ancestor(c, cursors[k + 1]))]


def select_by_type(ctx: Context, c: int, type_name: str) -> list[int]:
    return deep(ctx, c, types(ctx, type_name))


# --- the vocabulary ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Selector:
    name: str
    args: tuple[Arg, ...]
    description: str
    run: Callable[..., Iterable[int]]
    list_level: bool = False
    #: Which str argument is a kind name / a regex (validated before any tree is looked at).
    kind_arg: bool = False
    regex_arg: bool = False


def _deep_kind(kind_name: str) -> Callable[[Context, Sequence[int]], list[int]]:
    return lambda ctx, cursors: deep_all(ctx, cursors, ctx.memo(kind_name, lambda: kind(ctx, kind_name)))


def _part(name: str) -> Callable[[Context, int], list[int]]:
    owner_of, part = OWNERS[name], PARTS[name]

    def run(ctx: Context, c: int) -> list[int]:
        matcher = ctx.memo(name, lambda: owner_of(ctx))
        return [p for owner in outermost(ctx, c, matcher) for p in part(ctx, owner)]

    return run


#: name -> (kind, what it selects as a plural noun phrase, an optional sentence that refines it)
KIND_SELECTORS = {
    "selectFunctions": ("function", "functions and async functions", "Decorated ones include their decorators."),
    "selectMethods": ("method", "methods (functions defined directly in a class body)", ""),
    "selectClasses": ("class", "classes", "Decorated ones include their decorators."),
    "selectCalls": ("call", "calls", ""),
    "selectStatements": ("statement", "simple and compound statements", ""),
    "selectIfStatements": ("if", "if statements", ""),
    "selectLoops": ("loop", "for and while loops", ""),
    "selectImports": ("import", "import statements", ""),
    "selectAssignments": ("assignment", "assignments and augmented assignments (the expressions)", ""),
    "selectReturns": ("return", "return statements", ""),
    "selectLambdas": ("lambda", "lambdas", ""),
    "selectComprehensions": ("comprehension", "list, set and dict comprehensions and generator expressions", ""),
    "selectStrings": ("string", "strings", "F-strings and docstrings count; in YAML, scalars that are not keys."),
    "selectComments": ("comment", "comments", ""),
    "selectIdentifiers": ("identifier", "identifiers", ""),
    "selectLists": ("list", "lists, tuples and sets", "In YAML, sequences."),
    "selectMaps": ("map", "dictionaries", "In YAML, mappings."),
    "selectPairs": ("pair", "dictionary entries", "In YAML, key/value pairs."),
    "selectDocuments": ("document", "YAML documents", ""),
}

PART_DESCRIPTIONS = {
    "selectName": "the name of each outermost function or class",
    "selectDecorators": "the decorators of each outermost function or class",
    "selectParameters": "the parameters of each outermost function or lambda (no bare * or /)",
    "selectBody": "the body of each outermost function, class, if (its consequence), for, while, with or try",
    "selectArguments": "the arguments of each outermost call",
    "selectKey": "the key of each outermost pair",
    "selectValue": "the value of each outermost pair, keyword argument, default, assignment, return or YAML item",
    "selectItems": "the items of each outermost list or map",
    "selectCondition": "the condition of each outermost if, elif or while",
}


def _build() -> dict[str, Selector]:
    table: list[Selector] = []
    for name, (kind_name, plural, refinement) in KIND_SELECTORS.items():
        description = " ".join(filter(None, [f"All {plural} inside each cursor, nested ones too.", refinement]))
        table.append(Selector(name, (), description, _deep_kind(kind_name), list_level=True))
    for name, description in PART_DESCRIPTIONS.items():
        table.append(Selector(name, (), f"Part: {description}.", _part(name)))
    table += [
        Selector("selectParent", (), "The lowest ancestor whose range strictly contains the cursor's.", nav_parent),
        Selector("selectChildren", (), "The structural children (YAML wrappers unwrapped).", nav_children),
        Selector("selectSiblings", (), "The structural children of the parent, the cursor included.", nav_siblings),
        Selector("selectNextSibling", (), "The next structural child of the parent.", nav_next),
        Selector("selectPrevSibling", (), "The previous structural child of the parent.", nav_prev),
        Selector(
            "selectEnclosing",
            (Arg("kind", "str"),),
            "The nearest ancestor-or-self of the given kind.",
            nav_enclosing,
            kind_arg=True,
        ),
        Selector(
            "selectAt",
            (Arg("line", "nat"), Arg("character", "nat")),
            "The smallest named node at a position, when it lies in a cursor (start a chain at the caret).",
            nav_at,
        ),
        Selector(
            "selectRange",
            (Arg("startLine", "nat"), Arg("startCharacter", "nat"), Arg("endLine", "nat"), Arg("endCharacter", "nat")),
            "The maximal named nodes inside a range (start a chain from a selection).",
            nav_range,
        ),
        Selector("selectFirst", (), "The first cursor of each group of siblings.", ordinal(lambda g: g[:1]), True),
        Selector("selectLast", (), "The last cursor of each group of siblings.", ordinal(lambda g: g[-1:]), True),
        Selector(
            "selectNth",
            (Arg("n", "int"),),
            "The n-th cursor of each group of siblings (0-based; negative from the end).",
            select_nth,
            True,
        ),
        Selector(
            "selectAllButFirst",
            (),
            "Every cursor of each group of siblings but the first.",
            ordinal(lambda g: g[1:]),
            True,
        ),
        Selector(
            "selectAllButLast",
            (),
            "Every cursor of each group of siblings but the last.",
            ordinal(lambda g: g[:-1]),
            True,
        ),
        Selector(
            "filterText",
            (Arg("regex", "str"),),
            "Keep cursors whose text matches the regex (re.search).",
            text_filter(True),
            True,
            regex_arg=True,
        ),
        Selector(
            "filterNotText",
            (Arg("regex", "str"),),
            "Keep cursors whose text does not match the regex.",
            text_filter(False),
            True,
            regex_arg=True,
        ),
        Selector(
            "filterKind", (Arg("kind", "str"),), "Keep cursors of the given kind.", filter_kind, True, kind_arg=True
        ),
        Selector("filterOutermost", (), "Drop cursors inside another cursor.", filter_outermost, True),
        Selector("filterInnermost", (), "Drop cursors that contain another cursor.", filter_innermost, True),
        Selector(
            "selectByType",
            (Arg("type", "str"),),
            "Named nodes of exactly this tree-sitter type inside each cursor.",
            select_by_type,
        ),
    ]
    return {s.name: s for s in table}


SELECTORS: dict[str, Selector] = _build()


def parse_args(selector: Selector, args: Sequence[Any], limits: RegexLimits = RegexLimits()) -> tuple[Any, ...]:
    """Validate arguments (count, JSON type, kind names, regex syntax and cost); raises InvalidParams."""

    def bad(field_name: str, reason: str, **extra: Any) -> InvalidParams:
        return InvalidParams(field_name, reason, kind="invalidArgs", selector=selector.name, **extra)

    if len(args) != len(selector.args):
        raise bad("args", _wrong_count(selector, len(args)))
    parsed: list[Any] = []
    for position, (spec, value) in enumerate(zip(selector.args, args, strict=True)):
        where = f"args[{position}]"
        if spec.type in ("int", "nat"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise bad(where, f"{spec.name} must be an integer, got {_describe(value)}")
            if isinstance(value, float) and not value.is_integer():
                raise bad(where, f"{spec.name} must be an integer, got {value!r}")
            number = int(value)
            if spec.type == "nat" and number < 0:
                raise bad(where, f"{spec.name} must be 0 or more, got {number}")
            parsed.append(number)
            continue
        if not isinstance(value, str):
            raise bad(where, f"{spec.name} must be a string, got {_describe(value)}")
        if selector.kind_arg and value not in KIND_NAMES:
            raise bad(where, f"unknown kind {value!r}", available=list(KIND_NAMES))
        if selector.regex_arg:
            if (why := too_costly(value, limits.max_length, limits.max_repeat)) is not None:
                raise bad(where, f"regular expression refused: {why} (tether.selectors settings)")
            try:
                parsed.append(regex.compile(value, flags=regex.VERSION0))
            except (regex.error, ValueError, OverflowError) as exc:
                raise bad(where, f"invalid regular expression: {exc}") from exc
            continue
        parsed.append(value)
    return tuple(parsed)


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def _wrong_count(selector: Selector, got: int) -> str:
    """The count error also says how arguments are written: clients that sent a prompt's ``9,0,9,60`` as one
    string learn both forms from it (docs/selectors.md, "Arguments as text")."""
    expected = ", ".join(f"{a.name}: {a.type}" for a in selector.args) or "none"
    reason = f"{selector.name} takes {len(selector.args)} argument(s) ({expected}), got {got}"
    if not selector.args:
        return f"{reason}; send an empty args (in the CLI and editor prompts: the name alone, without a colon)"
    typed = f"{selector.name}:{','.join(a.name for a in selector.args)}"
    how = "after the name and a colon, separated by commas"
    return f"{reason}; send them as an array in args (in the CLI and editor prompts: {how}, as in {typed})"
