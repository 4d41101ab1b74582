"""Prompts in YAML, on the tree-sitter-yaml tree: rules Y1–Y6 of docs/playground.md.

A prompt is a string scalar (plain — not a number, boolean or null —, quoted, or a block scalar) that is the
value of a key matching ``/prompt/i`` (Y1), of a key in the keyword list (Y2), the ``content`` of a mapping
that also has ``role`` (Y3: GitHub's ``.prompt.yml`` ``messages``), of any key under a ``# @prompt`` comment
(Y5), or an item of a list under a ``prompt`` key (Y6: promptfoo's ``prompts:``, strings or ``raw:``/
``content:`` mappings; prose only, so ``file://…`` references are not prompts), or the value of a key ending in
``_template``/``_instructions``/``_message`` or of any key of a ``templates:``/``prompts:`` mapping (Y7: agent
configs' ``system_template: |``). An alias is not a prompt, nor Ansible's questions to the person running a
playbook (``vars_prompt:`` items' and ``pause:`` tasks' ``prompt:``).

Y2 and Y7 keys only suggest a prompt (``user: admin`` in a Kubernetes ConfigMap is a login), so their values
must read as text (:func:`.text.is_text`); a ``_message`` also needs a variable, several lines or a role in its
key, since one-line messages in configs are mostly commit or error messages.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import replace

from tree_sitter import Node

from . import text as decode
from .model import YAML_KEYS, Prompt
from .units import Memo, Unit, in_order

PROMPT_KEY = re.compile(r"prompt", re.IGNORECASE)
PAIRS = ("block_mapping_pair", "flow_pair")
MARK = "@prompt"
#: Y7: key endings that suggest a prompt (``system_template``, ``agent_instructions``, ``retry_message``) ...
SUGGESTIVE_ENDINGS = ("_template", "_instructions", "_message")
#: ... and mappings whose every key names a prompt (``templates: {system_template: …}``, ``prompts: {triage: …}``).
PROMPT_MAPPINGS = frozenset({"templates", "prompts"})
ROLE_WORDS = {"system": "system", "developer": "system", "user": "user", "human": "user", "assistant": "assistant"}
ROLE_WORDS |= {"ai": "assistant"}
#: Ansible's questions to the person running a playbook, not prompts for a model: the ``prompt:`` of a
#: ``vars_prompt:`` item, and of a ``pause:`` task.
ANSIBLE_QUESTION_LISTS = frozenset({"vars_prompt"})
ANSIBLE_PAUSE = frozenset({"pause", "ansible.builtin.pause", "ansible.legacy.pause"})


def _text(node: Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", errors="replace")


def scalar_of(node: Node | None) -> Node | None:
    """The scalar inside a value node (past block/flow wrappers and an ``&anchor``), if it is a string."""
    while node is not None and node.type in ("block_node", "flow_node"):
        node = next((c for c in node.named_children if c.type not in ("anchor", "tag")), None)
    if node is None:
        return None
    if node.type == "plain_scalar":
        inner = node.named_children[0] if node.named_children else None
        return node if inner is not None and inner.type == "string_scalar" else None
    return node if node.type in ("double_quote_scalar", "single_quote_scalar", "block_scalar") else None


def decoded(scalar: Node) -> str:
    raw = _text(scalar)
    if scalar.type == "double_quote_scalar":
        return decode.yaml_double_quoted(raw)
    if scalar.type == "single_quote_scalar":
        return decode.yaml_single_quoted(raw)
    if scalar.type == "block_scalar":
        return decode.yaml_block(raw)
    return " ".join(line.strip() for line in raw.split("\n"))  # a multi-line plain scalar folds


def key_of(pair: Node) -> str:
    key = scalar_of(pair.child_by_field_name("key"))
    return decoded(key).strip() if key is not None else _text(pair.child_by_field_name("key")).strip()


class _Walk:
    """A document's nodes in document order, each one's parent noted on the way: the rules ask for parents and
    ancestors, and ``node.parent`` walks down from the root each time (O(depth): seconds on a 5,000-deep
    nesting)."""

    def __init__(self, document: Node) -> None:
        self.document = document
        self._parents: dict[int, Node] = {}

    def __iter__(self) -> Iterator[Node]:
        stack = [self.document]
        while stack:
            node = stack.pop()
            yield node
            children = node.named_children
            for child in children:
                self._parents[child.id] = node
            stack.extend(reversed(children))

    def parent(self, node: Node) -> Node | None:
        """The parent of a node walked so far or of one of their children (None for the document)."""
        return self._parents.get(node.id)

    def lineage(self, node: Node) -> list[Node]:
        """``node`` and its ancestors up to the document, innermost first."""
        chain = [node]
        while (parent := self.parent(chain[-1])) is not None:
            chain.append(parent)
        return chain


def _siblings(walk: _Walk, pair: Node) -> list[Node]:
    parent = walk.parent(pair)
    return [c for c in parent.named_children if c.type in PAIRS] if parent is not None else []


def _marked(pair: Node, text: bytes) -> bool:
    """``# @prompt`` on the lines right above the pair (blank lines allowed) or trailing on its key's line."""
    start = text.rfind(b"\n", 0, pair.start_byte) + 1
    line_end = text.find(b"\n", pair.start_byte)
    key = pair.child_by_field_name("key")
    if key is not None:
        after_key = text[key.end_byte : line_end if line_end >= 0 else len(text)]
        if b"#" in after_key and MARK.encode() in after_key.split(b"#", 1)[1]:
            return True
    while start > 0:
        prev_start = text.rfind(b"\n", 0, start - 1) + 1
        line = text[prev_start : start - 1].strip()
        if line.startswith(b"#"):
            return MARK.encode() in line
        if line:
            return False
        start = prev_start
    return False


def _path(chain: list[Node]) -> str:
    """The key path of a node whose ancestors (innermost first, up to its document) are ``chain``:
    ``summarize.system``, ``messages[1].content``."""
    parts: list[str] = []
    for node, parent in zip(chain, [*chain[1:], None], strict=True):
        if node.type in PAIRS:
            parts.append("." + key_of(node))
        elif node.type == "block_sequence_item" and parent is not None:
            items = [c.id for c in parent.named_children if c.type == "block_sequence_item"]
            parts.append(f"[{items.index(node.id)}]")
        elif node.type == "flow_node" and parent is not None and parent.type == "flow_sequence":
            items = [c.id for c in parent.named_children]
            parts.append(f"[{items.index(node.id)}]")
    return "".join(reversed(parts)).lstrip(".")


def _items(value: Node | None) -> list[tuple[Node, Node]]:
    """The items of a block or flow sequence value, else nothing: each one's value node and what holds it (the
    ``- `` item of a block sequence, else the value itself)."""
    while value is not None and value.type in ("block_node", "flow_node"):
        value = next((c for c in value.named_children if c.type not in ("anchor", "tag")), None)
    if value is None:
        return []
    if value.type == "block_sequence":
        items = [c for c in value.named_children if c.type == "block_sequence_item"]
        return [(i.named_children[0], i) for i in items if i.named_children]
    if value.type == "flow_sequence":
        return [(c, c) for c in value.named_children if c.type == "flow_node"]
    return []


def _pairs_of(node: Node | None) -> dict[str, Node]:
    """A mapping value's pairs by key."""
    while node is not None and node.type in ("block_node", "flow_node"):
        node = next((c for c in node.named_children if c.type not in ("anchor", "tag")), None)
    if node is None or node.type not in ("block_mapping", "flow_mapping"):
        return {}
    return {key_of(c): c for c in node.named_children if c.type in PAIRS}


def _chat(chain: list[Node]) -> tuple[tuple[str, str], ...]:
    """The conversation a ``{role, content}`` mapping (ancestors ``chain``) belongs to: every such item of the
    innermost list holding it."""
    sequence = next((n for n in chain if n.type in ("block_sequence", "flow_sequence")), None)
    if sequence is None:
        return ()
    out = []
    for item in sequence.named_children:
        value = item.named_children[0] if item.type == "block_sequence_item" and item.named_children else item
        pairs = _pairs_of(value)
        role = scalar_of(pairs["role"].child_by_field_name("value")) if "role" in pairs else None
        content = scalar_of(pairs["content"].child_by_field_name("value")) if "content" in pairs else None
        if role is not None and content is not None:
            out.append((decoded(role).strip(), decoded(content)))
    return tuple(out)


def _owner_key(walk: _Walk, pair: Node) -> str | None:
    """The key whose value is the mapping holding ``pair`` (``templates`` for ``templates: {system: …}``)."""
    mapping = walk.parent(pair)
    holder = walk.parent(mapping) if mapping is not None else None
    owner = walk.parent(holder) if holder is not None and holder.type in ("block_node", "flow_node") else None
    return key_of(owner) if owner is not None and owner.type in PAIRS else None


def _asks_the_operator(walk: _Walk, pair: Node) -> bool:
    """An Ansible ``prompt:`` (of a ``vars_prompt:`` item or a ``pause:`` task): asked of whoever runs the playbook."""
    through_list = False
    node = walk.parent(pair)
    while node is not None and node.type not in PAIRS:
        through_list = through_list or node.type in ("block_sequence", "flow_sequence")
        node = walk.parent(node)
    if node is None:
        return False
    owner = key_of(node)
    return owner in ANSIBLE_QUESTION_LISTS if through_list else owner in ANSIBLE_PAUSE


def _suggestive(walk: _Walk, key: str, pair: Node) -> bool:
    """Y7: a key ending in one of SUGGESTIVE_ENDINGS, or any key of a ``templates:``/``prompts:`` mapping."""
    return key.lower().endswith(SUGGESTIVE_ENDINGS) or (_owner_key(walk, pair) or "").lower() in PROMPT_MAPPINGS


def _reads_as_prompt(key: str, content: str) -> bool:
    """The value of a key that only suggests a prompt: text, and for a ``_message`` a variable, several lines or
    a role in the key (``system_message``)."""
    if not decode.is_text(content):
        return False
    if not key.lower().endswith("_message") or _role_of_key(key) is not None:
        return True
    return bool(decode.variables(content)) or "\n" in content.strip()


def _role_of_key(key: str) -> str | None:
    """``system``, ``user``, ``assistant`` and keys starting with a role (``system_template``, ``user_message``)."""
    lower = key.lower()
    if lower in ("system", "user", "assistant"):
        return lower
    first = lower.split("_", 1)[0]
    return ROLE_WORDS.get(first) if lower.endswith(SUGGESTIVE_ENDINGS) else None


def _prompt(
    anchor: str, scalar: Node, role: str | None, holder: Node, chat: tuple[tuple[str, str], ...] = ()
) -> Prompt | None:
    """``holder``: the pair, message or list item holding the scalar (a cursor on its key selects the prompt)."""
    content = decoded(scalar)
    if len("".join(content.split())) < 3:
        return None
    span = (scalar.start_byte, scalar.end_byte)
    reach = (holder.start_byte, holder.end_byte)
    return Prompt(anchor, content, span, tuple(decode.variables(content)), role, chat, reach)


def detect(root: Node, text: bytes, keywords: Sequence[str] = YAML_KEYS, memo: Memo | None = None) -> list[Prompt]:
    """Every prompt of a YAML stream, in document order; with the ``memo`` of the previous version, only the
    documents that changed are read again (:mod:`.units`)."""
    memo = (memo if memo is not None else Memo()).for_settings(("yaml", tuple(keywords), root.type))
    documents = [c for c in root.named_children if c.type == "document"]
    many = len(documents) > 1
    kept: dict[Hashable, Unit] = {}
    found: list[tuple[Prompt, ...]] = []
    for index, document in enumerate(documents):
        key = _document_key(document, text)
        had = memo.units.get(key)
        if had is not None:
            prompts = had.moved_to(document.start_byte)
        else:
            prompts = _document(document, text, keywords)
            memo.read += 1
        kept[key] = Unit(document.start_byte, prompts)
        prefix = f"{index}:" if many else ""
        found.append(tuple(replace(p, anchor=prefix + p.anchor) for p in prompts) if prefix else prompts)
    memo.units = kept
    return in_order(found)


def _document_key(document: Node, text: bytes) -> Hashable:
    """A document's bytes and shape, with what :func:`_marked` may read around them: the lines above it up to the
    first one that is not blank, the rest of its last line."""
    start = text.rfind(b"\n", 0, document.start_byte) + 1
    while start > 0:
        above = text.rfind(b"\n", 0, start - 1) + 1
        blank = not text[above : start - 1].strip()
        start = above
        if not blank:
            break
    end = text.find(b"\n", document.end_byte)
    shape = (document.descendant_count, document.has_error, document.start_byte - start, document.end_byte - start)
    return shape, text[start : len(text) if end < 0 else end]


def _document(document: Node, text: bytes, keywords: Sequence[str]) -> tuple[Prompt, ...]:
    """One document's prompts, their anchors without the document's index."""
    found: dict[tuple[int, int], Prompt] = {}
    walk = _Walk(document)
    for node in walk:
        if node.type not in PAIRS:
            continue
        key = key_of(node)
        value = node.child_by_field_name("value")
        scalar = scalar_of(value)
        if scalar is None:
            if PROMPT_KEY.search(key) or key in keywords:
                _listed(walk, node, value, "", found)
            continue
        if key == "prompt" and _asks_the_operator(walk, node):
            continue
        role_sibling = key == "content" and any(key_of(s) == "role" for s in _siblings(walk, node))
        strong = bool(PROMPT_KEY.search(key)) or role_sibling or _marked(node, text)
        suggested = not strong and (key in keywords or _suggestive(walk, key, node))
        if not (strong or suggested):
            continue
        if suggested and not _reads_as_prompt(key, decoded(scalar)):
            continue
        chain = walk.lineage(node)
        if role_sibling:
            role_pair = next(s for s in _siblings(walk, node) if key_of(s) == "role")
            role_scalar = scalar_of(role_pair.child_by_field_name("value"))
            role = decoded(role_scalar).strip() if role_scalar is not None else None
            message = chain[1] if len(chain) > 1 else node
            prompt = _prompt(_path(chain), scalar, role, message, _chat(chain))
        else:
            prompt = _prompt(_path(chain), scalar, _role_of_key(key), node)
        if prompt is not None and prompt.span not in found:
            found[prompt.span] = prompt
    return tuple(sorted(found.values(), key=lambda p: p.span))


def _listed(walk: _Walk, pair: Node, value: Node | None, prefix: str, found: dict[tuple[int, int], Prompt]) -> None:
    """Y6: the items of a list under a ``prompt`` key: strings, or the ``raw``/``content``/``template`` of a
    mapping item."""
    base = ""  # the pair's key path: made for the first prompt found (a list of lists of lists has none to name)
    for index, (item, holder) in enumerate(_items(value)):
        scalar = scalar_of(item)
        field = ""
        if scalar is None:
            pairs = _pairs_of(item)
            key = next((k for k in ("raw", "content", "template") if k in pairs), None)
            scalar = scalar_of(pairs[key].child_by_field_name("value")) if key is not None else None
            field = f".{key}"
        if scalar is None:
            continue
        base = base or prefix + _path(walk.lineage(pair))
        prompt = _prompt(f"{base}[{index}]{field}", scalar, None, holder)
        if prompt is not None and decode.is_prose(prompt.content) and prompt.span not in found:
            found[prompt.span] = prompt
