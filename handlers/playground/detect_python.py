"""Prompts in Python, on the tree-sitter-python tree: rules P1–P11 of docs/playground.md.

A prompt's value is a string expression S (:mod:`.python_values`). Rules with strong evidence (a name with
``prompt`` in it, a ``# @prompt`` mark, a keyword argument or dict key of the keyword list, a chat message) take
any S of 3 characters or more; the weaker ones (names merely ending in a keyword, attributes of a ``Prompts``
class, functions named ``…prompt…``, library constructors) take only prose (:func:`.text.is_prose`), and a
constant whose name says nothing only a multi-line template (:func:`.text.is_template`). Docstrings, log
calls, dict keys and ``role`` values are never prompts: only assignments, keyword arguments, dicts, calls
and returns are looked at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from tree_sitter import Node

from . import text as decode
from .model import DEFAULT_KEYWORDS, Prompt
from .python_nodes import Scopes, candidates
from .python_units import Adds, Context, adds_of, target, unit_keys
from .python_values import callee, source, value_of
from .units import Lookup, Memo, Unit, in_order, still_valid

PROMPT_NAME = re.compile(r"prompt", re.IGNORECASE)
#: Calls whose arguments are messages for people, not prompts (``log.info(prompt=…)`` is a log line).
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "print"})
#: LangChain's ``(role, text)`` tuples and ``{"role": …}`` values, as chat roles.
ROLES = {"system": "system", "developer": "system", "human": "user", "user": "user", "ai": "assistant"}
ROLES |= {"assistant": "assistant"}
#: Constructors whose first argument (or ``content=``) is a prompt, by the last part of the callee.
CONSTRUCTORS: dict[str, str | None] = {
    "SystemMessage": "system",
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "PromptTemplate": None,
    "Template": None,  # jinja2.Template, string.Template
}
#: Class methods whose first argument is a template: ``PromptTemplate.from_template(…)``, Jinja's ``from_string``.
TEMPLATE_METHODS = frozenset({"from_template", "from_string"})
#: The role a ``…MessagePromptTemplate.from_template`` class stands for.
TEMPLATE_CLASS_ROLES = {"SystemMessagePromptTemplate": "system", "HumanMessagePromptTemplate": "user"}
TEMPLATE_CLASS_ROLES |= {"AIMessagePromptTemplate": "assistant"}
SELF = frozenset({"self", "cls"})

_decoded: dict[tuple[str, bytes], tuple[str, tuple[str, ...]] | None] = {}
#: The kinds of node :func:`.python_values.value_of` can read as S.
S_KINDS = frozenset(
    {"string", "concatenated_string", "parenthesized_expression", "binary_operator", "call", "attribute"}
)
#: Larger nodes are decoded without the memo: its key is the node's source, and copying it out at each level of
#: a nesting (``f(prompt=f(prompt=…))``) costs the square of the nesting's size.
MEMO_BYTES = 8_192


def _decode(node: Node) -> tuple[str, tuple[str, ...]] | None:
    """Text and variables of S at ``node`` (None: not S, or under 3 non-space characters); memoised by the
    literal's source, since most prompts do not change per edit."""
    if node.type not in S_KINDS:
        return None
    if node.end_byte - node.start_byte > MEMO_BYTES:
        return _decoded_value(node)
    key = (node.type, node.text or b"")
    if key not in _decoded:
        if len(_decoded) > 20_000:
            _decoded.clear()
        _decoded[key] = _decoded_value(node)
    return _decoded[key]


def _decoded_value(node: Node) -> tuple[str, tuple[str, ...]] | None:
    content = value_of(node)
    usable = content is not None and len("".join(content.split())) >= 3
    return (content, tuple(decode.variables(content))) if usable and content is not None else None


def _role_of_name(name: str) -> str | None:
    lower = name.lower()
    if "system" in lower or "instruction" in lower:
        return "system"
    return "user" if "user" in lower or "human" in lower else None


def _keyword_name(name: str, keywords: Sequence[str]) -> bool:
    """``template``, ``SUMMARY_TEMPLATE``, ``agent_instructions``: a keyword as the name or one of its ``_`` parts
    at either end."""
    lower = name.lower()
    return any(lower == k or lower.endswith("_" + k) or lower.startswith(k + "_") for k in keywords)


def _holder(up: Scopes, assignment: Node) -> Node | None:
    """The module or class whose body holds the assignment statement directly, else None."""
    statement = up.parent(assignment)
    if statement is None or statement.type != "expression_statement":
        return None
    block = up.parent(assignment, 2)
    if block is not None and block.type == "module":
        return block
    owner = up.parent(assignment, 3) if block is not None and block.type == "block" else None
    return owner if owner is not None and owner.type == "class_definition" else None


def _parameters(function: Node) -> list[str]:
    params = function.child_by_field_name("parameters")
    names = []
    for param in params.named_children if params is not None else []:
        if param.type == "identifier":
            names.append(source(param))
        elif param.type in ("typed_parameter", "default_parameter", "typed_default_parameter"):
            name = param.child_by_field_name("name") or (param.named_children[0] if param.named_children else None)
            if name is not None and name.type == "identifier":
                names.append(source(name))
    return [n for n in names if n not in SELF]


def _dict_pairs(node: Node) -> dict[str, Node]:
    pairs = {}
    for pair in node.named_children:
        key = pair.child_by_field_name("key") if pair.type == "pair" else None
        if key is not None and key.type == "string":
            literal = decode.python_literal(source(key))
            if literal is not None:
                pairs[literal[0]] = pair
    return pairs


@dataclass
class _Module:
    """One detection run: the rules' inputs and what they found, keyed by span (the first rule wins)."""

    root: Node
    keywords: Sequence[str]
    context: Context = field(default_factory=Context)  # aliases, constants and marked names, module-wide
    found: dict[tuple[int, int], Prompt] = field(default_factory=dict)
    up: Scopes = field(init=False)

    def __post_init__(self) -> None:
        self.up = Scopes(self.root)

    def add(
        self,
        anchor: str,
        node: Node | None,
        *,
        guard: Callable[[str], bool] | None = None,
        role: str | None = None,
        chat: tuple[tuple[str, str], ...] = (),
        parameters: Sequence[str] = (),
        statement: Node | None = None,
    ) -> None:
        """``statement``: what holds the prompt (an assignment, a keyword argument, a message…): a cursor on it
        selects the prompt."""
        if node is None or (node.start_byte, node.end_byte) in self.found:
            return
        decoded = _decode(node)
        if decoded is None or (guard is not None and not guard(decoded[0])):
            return
        content, variables = decoded
        if parameters:
            variables = (*parameters, *(v for v in variables if v not in parameters))
        span = (node.start_byte, node.end_byte)
        reach = (statement.start_byte, statement.end_byte) if statement is not None else None
        self.found[span] = Prompt(anchor, content, span, variables, role, chat, reach)

    def text_of(self, node: Node | None) -> str:
        """A chat message's text: S decoded, a module constant's text, else ``{source}`` (a variable)."""
        if node is None:
            return ""
        value = value_of(node)
        if value is not None:
            return value
        constant = self.context.ask("constant", source(node)) if node.type == "identifier" else None
        return constant if constant is not None else "{" + source(node) + "}"


def detect(root: Node, keywords: Sequence[str] = DEFAULT_KEYWORDS, memo: Memo | None = None) -> list[Prompt]:
    """Every prompt of a module, in document order; with the ``memo`` of the previous version, only the top-level
    statements that changed (or whose context did) are read again (:mod:`.units`)."""
    memo = (memo if memo is not None else Memo()).for_settings(("python", tuple(keywords), root.type))
    module = _Module(root, keywords)
    units = root.children
    keys = unit_keys(units)
    known = [memo.units.get(key) for key in keys]
    nodes: dict[int, dict[str, list[Node]]] = {}
    added: list[Adds] = []
    for i, unit in enumerate(units):
        had = known[i]
        if had is None:
            nodes[i] = candidates(unit)
        added.append(had.adds if had is not None else adds_of(module.up, nodes[i]))
        module.context.add(added[-1])
    kept: dict[Hashable, Unit] = {}
    found: list[tuple[Prompt, ...]] = []
    for i, unit in enumerate(units):
        had = known[i]
        if had is not None and still_valid(had, module.context.answer):
            prompts, lookups = had.moved_to(unit.start_byte), had.lookups
        else:
            prompts, lookups = _read(module, nodes[i] if i in nodes else candidates(unit))
            memo.read += 1
        kept[keys[i]] = Unit(unit.start_byte, prompts, added[i], lookups)
        found.append(prompts)
    memo.units = kept
    return in_order(found)


def _read(module: _Module, nodes: dict[str, list[Node]]) -> tuple[tuple[Prompt, ...], tuple[Lookup, ...]]:
    """One top-level statement's prompts (every rule, the first one to find a span wins), and the questions it
    asked of the context."""
    module.found, module.context.noted = {}, []
    for node in nodes.get("a", []):
        _assignment(module, node)
    for node in nodes.get("k", []):
        _keyword(module, node)
    for node in nodes.get("d", []):
        _dictionary(module, node)
    for node in nodes.get("c", []):
        _call(module, node)
    _returns(module, nodes.get("r", []))
    lookups, module.context.noted = tuple(module.context.noted), None
    return tuple(sorted(module.found.values(), key=lambda p: p.span)), lookups


def _assignment(module: _Module, node: Node) -> None:
    """P1 (a ``prompt`` name), P2 (a marked name), P6 (a keyword name), P7 (a ``Prompts`` class attribute), P11
    (a template constant)."""
    name, right = target(node.child_by_field_name("left")), node.child_by_field_name("right")
    if not name or right is None:
        return
    strong = PROMPT_NAME.search(name) is not None
    holder = None if strong else _holder(module.up, node)
    keyword = not strong and _keyword_name(name, module.keywords)
    in_prompt_class = (
        holder is not None
        and holder.type == "class_definition"
        and PROMPT_NAME.search(source(holder.child_by_field_name("name"))) is not None
    )
    constant = holder is not None and name.isupper()
    if not (strong or keyword or in_prompt_class or constant or module.context.ask("any marked")):
        return
    scope = module.up.scope(node)
    role = _role_of_name(name)
    if strong or module.context.ask("marked", scope, name):
        module.add(scope + name, right, role=role, statement=node)
    elif keyword or in_prompt_class:
        module.add(scope + name, right, guard=decode.is_prose, role=role, statement=node)
    elif constant:
        module.add(scope + name, right, guard=decode.is_template, role=role, statement=node)


def _keyword(module: _Module, node: Node) -> None:
    """P3: a keyword argument of the keyword list; P10: ``input=`` of a call that also names a ``model=``."""
    name, value = source(node.child_by_field_name("name")), node.child_by_field_name("value")
    args, call = module.up.parent(node), module.up.parent(node, 2)
    function = callee(call) if call is not None and call.type == "call" else "call"
    if function.rsplit(".", 1)[-1] in LOG_METHODS:
        return
    if name in module.keywords:
        module.add(f"{function}({name}=)", value, role=_role_of_name(name), statement=node)
    elif name == "input" and args is not None and _has_keyword(args, "model"):
        module.add(f"{function}({name}=)", value, guard=decode.is_prose, role="user", statement=node)


def _has_keyword(args: Node, name: str) -> bool:
    return any(
        a.type == "keyword_argument" and source(a.child_by_field_name("name")) == name for a in args.named_children
    )


def _container(module: _Module, node: Node) -> str:
    """What holds a dict or list: the assigned name, the keyword argument, the called or returning function."""
    parent, grandparent = module.up.parent(node), module.up.parent(node, 2)
    if parent is not None and parent.type == "keyword_argument":
        return source(parent.child_by_field_name("name"))
    if parent is not None and parent.type == "assignment":
        return target(parent.child_by_field_name("left")) or "dict"
    if parent is not None and parent.type == "argument_list" and grandparent is not None:
        return callee(grandparent)
    if parent is not None and parent.type == "return_statement":
        return module.up.scope(parent).rstrip(".") or "return"
    return "dict"


def _message(module: _Module, node: Node) -> tuple[str, Node | None] | None:
    """``(role, content node)`` of a chat message: a ``{"role", "content"}`` dict or a LangChain tuple."""
    if node.type == "dictionary":
        pairs = _dict_pairs(node)
        if "role" in pairs and "content" in pairs:
            role_value = pairs["role"].child_by_field_name("value")
            role = (value_of(role_value) if role_value is not None else None) or ""
            return ROLES.get(role, role), pairs["content"].child_by_field_name("value")
    if node.type == "tuple" and node.named_child_count == 2:
        said = value_of(node.named_children[0])
        if said is not None and said in ROLES:
            return ROLES[said], node.named_children[1]
    return None


def _chat(module: _Module, holder: Node) -> tuple[tuple[str, str], ...]:
    messages = (_message(module, item) for item in holder.named_children)
    return tuple((role, module.text_of(content)) for m in messages if m is not None for role, content in [m])


def _dictionary(module: _Module, node: Node) -> None:
    """P4: a ``{"role", "content"}`` message (the whole list is its conversation); P5: a keyword or ``prompt`` key."""
    message = _message(module, node)
    if message is not None:
        role, value = message
        holder = module.up.parent(node)
        if holder is not None and holder.type == "list":
            index = [c.id for c in holder.named_children].index(node.id)
            anchor = f"{_container(module, holder)}[{index}].content"
            module.add(anchor, value, role=role, chat=_chat(module, holder), statement=node)
        else:
            module.add(f"{_container(module, node)}.content", value, role=role, statement=node)
        return
    for key, pair in _dict_pairs(node).items():
        if key in module.keywords or PROMPT_NAME.search(key):
            value = pair.child_by_field_name("value")
            module.add(f"{_container(module, node)}.{key}", value, role=_role_of_name(key), statement=pair)


def _call(module: _Module, node: Node) -> None:
    """P9: the prompt constructors of LangChain and Jinja (``from_messages``, ``from_template``, ``…Message``,
    ``PromptTemplate``, ``Template``, ``from_string``)."""
    function = callee(node)
    parts = function.split(".")
    last = module.context.ask("alias", parts[-1]) if len(parts) == 1 else parts[-1]
    args = node.child_by_field_name("arguments")
    if args is None or args.type != "argument_list":
        return
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
    first = positional[0] if positional else None
    if last == "from_messages" and first is not None and first.type in ("list", "tuple"):
        chat = _chat(module, first)
        for index, item in enumerate(c for c in first.named_children if c.type != "comment"):
            message = _message(module, item) if item.type == "tuple" else None
            if message is not None:
                said, content = message
                module.add(f"{function}[{index}]", content, guard=decode.is_prose, role=said, chat=chat, statement=item)
    elif last in TEMPLATE_METHODS and first is not None:
        role = TEMPLATE_CLASS_ROLES.get(parts[-2]) if len(parts) > 1 else None
        module.add(f"{function}()", first, guard=decode.is_prose, role=role, statement=_assigned(module, node))
    elif last in CONSTRUCTORS:
        content = first
        for arg in args.named_children:
            if arg.type == "keyword_argument" and source(arg.child_by_field_name("name")) in ("content", "template"):
                content = arg.child_by_field_name("value")
        module.add(
            f"{function}()", content, guard=decode.is_prose, role=CONSTRUCTORS[last], statement=_assigned(module, node)
        )


def _assigned(module: _Module, call: Node) -> Node:
    """The assignment a call is the value of (``qa = PromptTemplate.from_template(…)``), else the call."""
    parent = module.up.parent(call)
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("right") == call:
        return parent
    return call


def _returns(module: _Module, returns: list[Node]) -> None:
    """P8: each ``return S`` of a function or method named ``…prompt…``; its parameters are the variables."""
    by_function: dict[int, tuple[Node, list[tuple[Node, str]]]] = {}
    for node in returns:
        chain = module.up.chain(node)
        function = next((n for n in reversed(chain) if n.type in ("function_definition", "lambda")), None)
        if function is None or function.type != "function_definition":
            continue
        if not PROMPT_NAME.search(source(function.child_by_field_name("name"))):
            continue
        by_function.setdefault(function.id, (function, []))[1].append((node, module.up.scope(node)))
    for function, found in by_function.values():
        parameters = _parameters(function)
        for index, (node, scope) in enumerate(found):
            anchor = scope + ("return" if len(found) == 1 else f"return[{index}]")
            value = node.named_children[0] if node.named_children else None
            name = source(function.child_by_field_name("name"))
            role = _role_of_name(name)
            module.add(anchor, value, guard=decode.is_prose, role=role, parameters=parameters, statement=node)
