"""What a wrap target stands for: the statement(s) a ``try``/``with``/``if`` wraps, or the expression a call
wraps, and why a target cannot be wrapped (said in a user's words)."""

from __future__ import annotations

from tree_sitter import Node

from tether_lsp.handlers.actions.model import ActionRefused

#: Concrete expression node types (the grammar's ``expression`` and ``primary_expression`` supertypes, less
#: ``as_pattern`` and ``*x``, which are only parts of a larger construct).
EXPRESSIONS = frozenset(
    {
        "boolean_operator", "comparison_operator", "conditional_expression", "lambda", "named_expression",
        "not_operator", "attribute", "await", "binary_operator", "call", "concatenated_string", "dictionary",
        "dictionary_comprehension", "ellipsis", "false", "float", "generator_expression", "identifier", "integer",
        "list", "list_comprehension", "none", "parenthesized_expression", "set", "set_comprehension", "string",
        "subscript", "true", "tuple", "unary_operator",
    }
)  # fmt: skip

#: Parts of a statement that no statement can be put around, with the reason given.
_NOT_WRAPPABLE = {
    "parameters": "a parameter is part of its function's signature",
    "lambda_parameters": "a parameter is part of its lambda",
    "decorator": "a decorator belongs to its definition; wrap the decorated definition",
    "except_clause": "an except clause is part of its try statement; wrap the whole try",
    "except_group_clause": "an except clause is part of its try statement; wrap the whole try",
    "finally_clause": "a finally clause is part of its try statement; wrap the whole try",
    "else_clause": "an else clause is part of its statement; wrap the whole statement",
    "elif_clause": "an elif clause is part of its if statement; wrap the whole if",
    "case_clause": "a case clause is part of its match statement; wrap the whole match",
}
_STATEMENT_PARENTS = ("block", "module")

#: Containers a name can be assigned through (``a, (b, c) = …``, ``for [x, *y] in …``).
_TARGET_CONTAINERS = frozenset(
    {"pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "parenthesized_expression", "tuple",
     "list", "expression_list"}
)  # fmt: skip
_ASSIGNED_FIELDS = {
    ("assignment", "left"), ("augmented_assignment", "left"), ("for_statement", "left"),
    ("for_in_clause", "left"),
}  # fmt: skip
_NAME_FIELDS = {
    ("named_expression", "name"): "the name a walrus assigns",
    ("keyword_argument", "name"): "a keyword argument's name",
    ("attribute", "attribute"): "an attribute's name",
    ("function_definition", "name"): "a function's name",
    ("class_definition", "name"): "a class's name",
    ("default_parameter", "name"): "a parameter",
    ("typed_default_parameter", "name"): "a parameter",
}
_NAME_PARENTS = {
    "parameters": "a parameter",
    "lambda_parameters": "a parameter",
    "typed_parameter": "a parameter",
    "list_splat_pattern": "a parameter or an assigned name",
    "dictionary_splat_pattern": "a parameter",
    "dotted_name": "part of an imported or dotted name",
    "aliased_import": "an imported name",
    "as_pattern_target": "the name after `as`",
    "global_statement": "a global declaration's name",
    "nonlocal_statement": "a nonlocal declaration's name",
    "delete_statement": "what `del` deletes",
    "case_pattern": "a case pattern",
    "keyword_pattern": "a case pattern",
    "type_parameter": "a type parameter",
}


def statements_of(target: Node, field: str) -> list[Node]:
    """The statements a ``try``/``with``/``if`` around ``target`` wraps: the statement holding it, or every
    statement of a block."""
    if target.type in _STATEMENT_PARENTS:
        statements = [child for child in target.named_children if child.type not in _NOT_WRAPPABLE]
        if not any(child.type != "comment" for child in statements):
            raise ActionRefused(field, "there is no statement to wrap")
        return statements
    node = target
    while True:
        if node.type in _NOT_WRAPPABLE:
            raise ActionRefused(field, _NOT_WRAPPABLE[node.type])
        parent = node.parent
        if parent is None:
            raise ActionRefused(field, "there is no statement to wrap")
        if parent.type in _STATEMENT_PARENTS:
            return [node]
        node = parent


def expression_of(target: Node, field: str) -> Node:
    """The expression a call around ``target`` wraps (an expression statement stands for its expression)."""
    node = target
    if node.type == "expression_statement" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type not in EXPRESSIONS or not node.is_named:  # ``await`` and ``lambda`` are keywords too
        raise ActionRefused(field, f"a call wraps an expression; this is a {node.type.replace('_', ' ')}")
    parent = node.parent
    if node.type == "generator_expression" and parent is not None and parent.type == "call":
        raise ActionRefused(field, "this generator is the call's only argument and shares its parentheses")
    if parent is not None and parent.type == "concatenated_string":
        raise ActionRefused(field, "it is one part of an implicitly concatenated string; wrap the whole string")
    return node


def binding_reason(node: Node) -> str | None:
    """Why ``node`` cannot become a call's argument (it is assigned to or is a name of something), or None."""
    parent = node.parent
    if parent is None:
        return "there is nothing around it"
    named = _NAME_FIELDS.get((parent.type, _field_of(node, parent) or ""))
    if named:
        return f"it is {named}, not a value"
    if parent.type in _NAME_PARENTS and not (parent.type == "typed_parameter" and _field_of(node, parent) == "type"):
        return f"it is {_NAME_PARENTS[parent.type]}, not a value"
    ancestor: Node | None = node
    while ancestor is not None and ancestor.parent is not None:
        up = ancestor.parent
        if (up.type, _field_of(ancestor, up)) in _ASSIGNED_FIELDS:
            return "it is assigned to; a call's result cannot be"
        if up.type == "delete_statement":
            return "it is what `del` deletes; a call's result cannot be"
        if up.type not in _TARGET_CONTAINERS:
            break
        ancestor = up
    while parent is not None and parent.type not in _STATEMENT_PARENTS:
        if parent.type == "case_pattern":
            return "it is part of a case pattern"
        parent = parent.parent
    return None


def _field_of(child: Node, parent: Node) -> str | None:
    for i, candidate in enumerate(parent.children):
        if candidate == child:
            return parent.field_name_for_child(i)
    return None
