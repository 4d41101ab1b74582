"""The expected result of an action, computed on CPython's ``ast`` of the original, never from the engine's text.

Each container is seen as a list of *items* in source order (``items_of``), the action edits that list
(``expected``), and the list is put back (``set_items``) with Python's own rules:

- a call's (or a class's) arguments in source order, put back as ``args`` and ``keywords``: swapping
  ``c=1`` with ``*d`` gives the same ``ast``, as it should; a positional argument after a keyword, or ``*x`` after
  ``**y``, is not Python;
- a function's or lambda's parameters in source order, with ``/`` and a bare ``*`` as items of their own, put back
  as ``ast.arguments`` (``posonlyargs``, ``args``, ``vararg``, ``kwonlyargs``, ``kwarg``, the defaults aligned):
  a parameter without a default after one with, a second ``*`` or ``/``, a bare ``*`` with no keyword-only
  parameter after it, anything after ``**kw`` is not Python;
- list, tuple and set elements, ``del`` targets, dict entries (key and value together, ``**x`` as a key of None):
  an empty set and an empty ``del`` are not Python (an empty tuple is ``()``);
- removing a parameter also removes a bare ``*`` left with no keyword-only parameter after it and a ``/`` left
  with no parameter before it, as a person would (``def f(a, *, b)`` minus ``b`` is ``def f(a)``);
- a loop's bare target (``for k, v in``) left with one element is that element, not a tuple of one: a person
  writes ``for v in``, as the engine does (in brackets, ``for (k, v) in``, it stays a tuple);
- statements of a block: a block left empty holds ``pass`` (the module may be empty). A string that becomes the
  first statement is a docstring only by convention: ``ast`` has no docstring node, so nothing else changes.

When the result is not Python (:class:`NotPython`), the engine is expected to refuse the action.
Equality is ``ast.dump`` without positions (``include_attributes=False``): comments, blank lines, parentheses,
trailing commas and quoting are free to change; nothing else is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager

ACTIONS = ("remove", "clone", "swap", "moveUp")


class NotPython(Exception):
    """The transformation has no Python text: the right answer is a refusal."""


def _position(node: object) -> tuple[int, int]:
    return (node.lineno, node.col_offset)  # type: ignore[attr-defined]


def _params(a: ast.arguments) -> list[tuple[object, ...]]:
    pos = a.posonlyargs + a.args
    defaults: list[ast.expr | None] = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    items: list[tuple[object, ...]] = [("arg", arg, defaults[k]) for k, arg in enumerate(a.posonlyargs)]
    if a.posonlyargs:
        items.append(("/",))
    items += [("arg", arg, defaults[len(a.posonlyargs) + k]) for k, arg in enumerate(a.args)]
    if a.vararg is not None:
        items.append(("*", a.vararg))
    elif a.kwonlyargs:
        items.append(("*",))
    items += [("arg", arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    if a.kwarg is not None:
        items.append(("**", a.kwarg))
    return items


def _set_params(a: ast.arguments, items: list[tuple[object, ...]]) -> None:
    args: list[ast.arg] = []
    posonly: list[ast.arg] = []
    defaults: list[ast.expr] = []
    kwonly: list[ast.arg] = []
    kw_defaults: list[ast.expr | None] = []
    vararg = kwarg = None
    star = slash = bare = False
    for item in items:
        tag = item[0]
        if kwarg is not None:
            raise NotPython("a parameter after **kwargs")
        if tag == "/":
            if slash or star or not args:
                raise NotPython("'/' misplaced")
            posonly, args, slash = args, [], True
        elif tag == "*":
            if star:
                raise NotPython("two '*' parameters")
            star, bare = True, len(item) == 1
            vararg = None if bare else item[1]
        elif tag == "**":
            kwarg = item[1]
        elif star:
            kwonly.append(item[1])  # type: ignore[arg-type]
            kw_defaults.append(item[2])  # type: ignore[arg-type]
        else:
            if item[2] is None and defaults:
                raise NotPython("non-default argument follows default argument")
            if item[2] is not None:
                defaults.append(item[2])  # type: ignore[arg-type]
            args.append(item[1])  # type: ignore[arg-type]
    if bare and not kwonly:
        raise NotPython("named arguments must follow bare *")
    a.posonlyargs, a.args, a.defaults, a.vararg = posonly, args, defaults, vararg  # type: ignore[assignment]
    a.kwonlyargs, a.kw_defaults, a.kwarg = kwonly, kw_defaults, kwarg  # type: ignore[assignment]


def items_of(family: str, owner: ast.AST, field: str) -> list[object]:
    """The container's items in source order."""
    if family == "call":
        positional = owner.bases if isinstance(owner, ast.ClassDef) else owner.args  # type: ignore[attr-defined]
        return sorted([*positional, *owner.keywords], key=_position)  # type: ignore[attr-defined]
    if family == "params":
        return list(_params(owner))  # type: ignore[arg-type]
    if family == "seq":
        return list(owner.targets if isinstance(owner, ast.Delete) else owner.elts)  # type: ignore[attr-defined]
    if family == "dict":
        return list(zip(owner.keys, owner.values, strict=True))  # type: ignore[attr-defined]
    return list(getattr(owner, field))


def set_items(family: str, owner: ast.AST, field: str, items: list[object]) -> None:
    """Put the items back, or raise :class:`NotPython`."""
    if family == "call":
        seen_keyword = seen_double = False
        for item in items:
            if isinstance(item, ast.keyword):
                seen_double, seen_keyword = seen_double or item.arg is None, seen_keyword or item.arg is not None
            elif isinstance(item, ast.Starred) and seen_double:
                raise NotPython("iterable argument unpacking follows keyword argument unpacking")
            elif not isinstance(item, ast.Starred) and (seen_keyword or seen_double):
                raise NotPython("positional argument follows keyword argument")
        positional = [i for i in items if not isinstance(i, ast.keyword)]
        setattr(owner, "bases" if isinstance(owner, ast.ClassDef) else "args", positional)
        owner.keywords = [i for i in items if isinstance(i, ast.keyword)]  # type: ignore[attr-defined]
    elif family == "params":
        _set_params(owner, items)  # type: ignore[arg-type]
    elif family == "seq":
        if not items and isinstance(owner, ast.Set | ast.Delete):
            raise NotPython("an empty set or del has no Python text")
        setattr(owner, "targets" if isinstance(owner, ast.Delete) else "elts", items)
    elif family == "dict":
        pairs: list[tuple[ast.expr | None, ast.expr]] = items  # type: ignore[assignment]
        owner.keys = [k for k, _ in pairs]  # type: ignore[attr-defined]
        owner.values = [v for _, v in pairs]  # type: ignore[attr-defined]
    else:
        setattr(owner, field, items or ([] if isinstance(owner, ast.Module) else [ast.Pass()]))


def edited(items: list[object], action: str, i: int) -> list[object]:
    """The items after ``action`` on item ``i`` (clone: after it; swap: with the next; moveUp: with the one
    before)."""
    out = list(items)
    if action == "remove":
        del out[i]
    elif action == "clone":
        out.insert(i + 1, out[i])  # the same node twice: ast.dump cannot tell
    elif action == "swap":
        out[i], out[i + 1] = out[i + 1], out[i]
    elif action == "moveUp":
        out[i - 1], out[i] = out[i], out[i - 1]
    else:
        raise ValueError(action)
    return out


def _separators_kept_only_when_needed(items: list[tuple[object, ...]]) -> list[object]:
    """A person removing the last keyword-only parameter removes the bare ``*`` before it too (``f(a, *, b)``
    minus ``b`` is ``f(a)``), and the only positional-only one takes its ``/`` (``f(a, /, b)`` minus ``a``
    is ``f(b)``)."""
    out: list[object] = list(items)
    for k, item in enumerate(items):
        after = items[k + 1] if k + 1 < len(items) else None
        if item == ("*",) and (after is None or after[0] == "**"):
            del out[k]
            break
    if out and out[0] == ("/",):
        del out[0]
    return out


@contextmanager
def expected(
    family: str, owner: ast.AST, field: str, action: str, i: int, bare_loop_target: bool = False
) -> Iterator[None]:
    """The original's ``owner`` as the action should leave it, for the time of the ``with`` (no copy: its fields
    get new lists, put back after); :class:`NotPython` when the result has no Python text. A ``bare_loop_target``
    left with one element becomes, for that time, that element (its class and fields)."""
    saved = {name: getattr(owner, name) for name in owner._fields}
    saved_class, saved_dict = owner.__class__, dict(owner.__dict__)
    try:
        items = edited(items_of(family, owner, field), action, i)
        if family == "params" and action == "remove":
            items = _separators_kept_only_when_needed(items)  # type: ignore[arg-type]
        set_items(family, owner, field, items)
        if bare_loop_target and action == "remove" and len(items) == 1 and isinstance(items[0], ast.AST):
            owner.__class__ = items[0].__class__
            owner.__dict__.clear()
            owner.__dict__.update(items[0].__dict__)
        yield
    finally:
        owner.__class__ = saved_class
        owner.__dict__.clear()
        owner.__dict__.update(saved_dict)
        for name, value in saved.items():
            setattr(owner, name, value)


def dumps(nodes: list[ast.AST]) -> list[str]:
    return [ast.dump(n, include_attributes=False) for n in nodes]
