"""The node kinds selectors filter on (docs/selectors.md, "The model") as data, compiled once per language into
predicates over a TreeIndex.

Kind names are global; a kind a language does not have matches nothing. Most kinds are a set of named
node types; the few that depend on context (``function``/``class`` around decorators, ``method``,
``statement``, YAML ``string`` excluding keys) are small functions of the index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tree_sitter import Language

from .index import TreeIndex

KIND_NAMES: tuple[str, ...] = (
    "function",
    "method",
    "class",
    "decorator",
    "call",
    "statement",
    "if",
    "loop",
    "import",
    "assignment",
    "return",
    "lambda",
    "comprehension",
    "string",
    "comment",
    "identifier",
    "list",
    "map",
    "pair",
    "document",
)

#: Kinds that are plain sets of named node types, per grammar.
SIMPLE_KINDS: dict[str, dict[str, tuple[str, ...]]] = {
    "python": {
        "decorator": ("decorator",),
        "call": ("call",),
        "if": ("if_statement",),
        "loop": ("for_statement", "while_statement"),
        "import": ("import_statement", "import_from_statement", "future_import_statement"),
        "assignment": ("assignment", "augmented_assignment"),
        "return": ("return_statement",),
        "lambda": ("lambda",),
        "comprehension": (
            "list_comprehension",
            "set_comprehension",
            "dictionary_comprehension",
            "generator_expression",
        ),
        "string": ("string",),
        "comment": ("comment",),
        "identifier": ("identifier",),
        "list": ("list", "tuple", "set"),
        "map": ("dictionary",),
        "pair": ("pair",),
    },
    "yaml": {
        "comment": ("comment",),
        "list": ("block_sequence", "flow_sequence"),
        "map": ("block_mapping", "flow_mapping"),
        "pair": ("block_mapping_pair", "flow_pair"),
        "document": ("document",),
    },
}

PY_COMPOUND = (
    "class_definition",
    "decorated_definition",
    "for_statement",
    "function_definition",
    "if_statement",
    "match_statement",
    "try_statement",
    "while_statement",
    "with_statement",
)
PY_SIMPLE = (
    "assert_statement",
    "break_statement",
    "continue_statement",
    "delete_statement",
    "exec_statement",
    "expression_statement",
    "future_import_statement",
    "global_statement",
    "import_from_statement",
    "import_statement",
    "nonlocal_statement",
    "pass_statement",
    "print_statement",
    "raise_statement",
    "return_statement",
    "type_alias_statement",
)
YAML_SCALARS = ("plain_scalar", "double_quote_scalar", "single_quote_scalar", "block_scalar")

Predicate = Callable[[TreeIndex, int], bool]


@dataclass
class KindTable:
    """Compiled kinds for one grammar: node-type ids, field ids and kind predicates."""

    language: Language
    name: str
    _types: dict[str, frozenset[int]] = field(default_factory=dict)
    predicates: dict[str, Predicate] = field(default_factory=dict)
    #: Kind ids a node must have to possibly be of the kind (the predicate then decides).
    _candidates: dict[str, frozenset[int]] = field(default_factory=dict)
    _ids_memo: dict[tuple[str, ...], frozenset[int]] = field(default_factory=dict)

    def candidates(self, kind: str) -> frozenset[int]:
        return self._candidates.get(kind, frozenset())

    def ids(self, *type_names: str) -> frozenset[int]:
        """All named kind ids of these node types (a type the grammar lacks contributes nothing)."""
        found = self._ids_memo.get(type_names)
        if found is None:
            out: set[int] = set()
            for type_name in type_names:
                out |= self._types.get(type_name, frozenset())
            found = self._ids_memo[type_names] = frozenset(out)
        return found

    def has_type(self, type_name: str) -> bool:
        return type_name in self._types

    def field_id(self, name: str) -> int:
        return self.language.field_id_for_name(name) or -1

    def matches(self, kind: str, index: TreeIndex, i: int) -> bool:
        return self.predicates[kind](index, i)


def _named_type_ids(language: Language) -> dict[str, frozenset[int]]:
    types: dict[str, set[int]] = {}
    for kind_id in range(language.node_kind_count):
        if language.node_kind_is_named(kind_id) and language.node_kind_is_visible(kind_id):
            name = language.node_kind_for_id(kind_id)
            if name:
                types.setdefault(name, set()).add(kind_id)
    return {name: frozenset(ids) for name, ids in types.items()}


def _in(ids: frozenset[int]) -> Predicate:
    def predicate(index: TreeIndex, i: int) -> bool:
        return index.named[i] == 1 and index.kind[i] in ids

    return predicate


def _nothing(index: TreeIndex, i: int) -> bool:
    return False


def compile_table(name: str, language: Language) -> KindTable:
    table = KindTable(language, name, _named_type_ids(language))
    for kind in KIND_NAMES:
        table.predicates[kind] = _nothing
    for kind, type_names in SIMPLE_KINDS.get(name, {}).items():
        table.predicates[kind] = _in(table.ids(*type_names))
        table._candidates[kind] = table.ids(*type_names)
    if name == "python":
        _python_kinds(table)
    elif name == "yaml":
        _yaml_kinds(table)
    return table


def _python_kinds(table: KindTable) -> None:
    decorated = table.ids("decorated_definition")
    function_def = table.ids("function_definition")
    class_def = table.ids("class_definition")
    block = table.ids("block")
    definition_field = table.field_id("definition")
    statements = table.ids(*PY_COMPOUND, *PY_SIMPLE)

    def definition_of(index: TreeIndex, i: int) -> int | None:
        """The definition a decorated_definition decorates."""
        return index.child_by_field(i, definition_field)

    def definition_kind(def_ids: frozenset[int]) -> Predicate:
        def predicate(index: TreeIndex, i: int) -> bool:
            k = index.kind[i]
            if k in decorated:
                inner = definition_of(index, i)
                return inner is not None and index.kind[inner] in def_ids
            if k in def_ids:
                p = index.parent[i]
                return p < 0 or index.kind[p] not in decorated
            return False

        return predicate

    is_function = definition_kind(function_def)

    def is_method(index: TreeIndex, i: int) -> bool:
        if not is_function(index, i):
            return False
        p = index.parent[i]
        if p < 0 or index.kind[p] not in block:
            return False
        g = index.parent[p]
        return g >= 0 and index.kind[g] in class_def

    def is_statement(index: TreeIndex, i: int) -> bool:
        if not index.named[i] or index.kind[i] not in statements:
            return False
        if index.kind[i] in function_def or index.kind[i] in class_def:
            p = index.parent[i]
            return p < 0 or index.kind[p] not in decorated
        return True

    table.predicates.update(function=is_function, method=is_method, statement=is_statement)
    table.predicates["class"] = definition_kind(class_def)
    table._candidates.update(function=decorated | function_def, method=decorated | function_def, statement=statements)
    table._candidates["class"] = decorated | class_def


def _yaml_kinds(table: KindTable) -> None:
    plain = table.ids("plain_scalar")
    string_scalar = table.ids("string_scalar")
    other_strings = table.ids("double_quote_scalar", "single_quote_scalar", "block_scalar")
    key_field = table.field_id("key")

    def is_string(index: TreeIndex, i: int) -> bool:
        if not index.named[i]:
            return False
        k = index.kind[i]
        if k in plain:
            if not any(index.kind[c] in string_scalar for c in index.children(i)):
                return False
        elif k not in other_strings:
            return False
        p = index.parent[i]  # the scalar's flow_node / block_node: a key when it is the pair's `key`
        return p < 0 or index.field[p] != key_field

    table.predicates["string"] = is_string
    table._candidates["string"] = plain | other_strings


_TABLES: dict[str, KindTable] = {}


def table_for(name: str, language: Language) -> KindTable:
    """The compiled kind table of a grammar (compiled once per process)."""
    table = _TABLES.get(name)
    if table is None:
        table = _TABLES[name] = compile_table(name, language)
    return table
