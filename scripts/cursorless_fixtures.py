"""Cursorless's own Python test fixtures as cases for Tether's structural actions, and the agreement report.

Two kinds of fixture from the Cursorless repository (MIT) are converted, both written by people who did not
write Tether:

* *recorded* tests (``resources/fixtures/recorded/**``, ``languageId: python``): an initial text, hats
  (``marks``) and selections, a command (action, targets with modifiers) and the final text. Kept when the
  action is one Tether has (remove, clone, bring, move, swap, insert = ``editNewLine``) and each target
  resolves to a syntax node Tether acts on; every other fixture is counted under the reason it is skipped.
* *scope* tests (``resources/fixtures/scopes/python/**.scope``): a text and, for each scope of one type, its
  content range and its *removal* range, which is exactly what Cursorless's ``chuck`` deletes. Each scope
  whose content range is a syntax node becomes a ``remove`` case.

A case is neutral JSON: the text, the targets (and destination) as UTF-8 byte ranges, the action and its
``after`` option, and Cursorless's final text. The runner (:func:`tether_result`) does what the LSP edge does
for ``ranges``: the smallest named node holding each range, then :func:`service.perform`.

Usage: ``python -m scripts.cursorless_fixtures [--mirror GIT_DIR]`` writes tests/data/cursorless/cases.json;
``--report`` runs the committed cases and prints the figures and every difference.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tree_sitter import Node

from tether_lsp.handlers.actions.model import ActionRefused, applied
from tether_lsp.handlers.actions.python_delimited import is_element
from tether_lsp.handlers.actions.python_lines import is_line_member
from tether_lsp.handlers.actions.service import Request, Source, perform
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.syntax import parse_text

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "cursorless"
CASES = DATA / "cases.json"
JUDGEMENTS = DATA / "judgements.json"
MIRROR = Path("/work/.mirror/cursorless-dev+cursorless/repo")
RECORDED = "resources/fixtures/recorded/"
SCOPES = "resources/fixtures/scopes/python/"

Case = dict[str, Any]


class Skip(Exception):
    """Why a fixture (or one scope of a scope file) is not converted; the message is the reason counted."""


# --- syntax: what each Cursorless scope type is in tree-sitter-python ----------------------------------------

_DELIMITED = {"argument_list", "parameters", "lambda_parameters"}
_COLLECTIONS = {"list", "tuple", "set", "dictionary", "import_statement", "import_from_statement"}
_BLOCKS = {"module", "block"}
_CLAUSES = {"elif_clause", "else_clause", "except_clause", "finally_clause", "case_clause"}


def _named_child(node: Node) -> bool:
    return node.is_named and node.type != "comment"


def _definition(kind: str) -> Callable[[Node], bool]:
    return lambda n: n.type == kind or (n.type == "decorated_definition" and _definition_of(n) == kind)


def _definition_of(node: Node) -> str | None:
    inner = node.child_by_field_name("definition")
    return inner.type if inner is not None else None


def _parent_is(types: set[str]) -> Callable[[Node], bool]:
    return lambda n: n.parent is not None and n.parent.type in types and _named_child(n)


def _is_statement(node: Node) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "decorated_definition":
        return False
    return _parent_is(_BLOCKS)(node)


SCOPE_NODES: dict[str, Callable[[Node], bool]] = {
    "argumentOrParameter": _parent_is(_DELIMITED),
    "collectionItem": lambda n: _parent_is(_COLLECTIONS)(n) and n.type not in ("import", "from"),
    "statement": _is_statement,
    "namedFunction": _definition("function_definition"),
    "class": _definition("class_definition"),
    "ifStatement": lambda n: n.type == "if_statement",
    "functionCall": lambda n: n.type == "call",
}
#: Scope types that are a part of a member, not a member: Tether acts on the whole argument, entry or statement.
PARTS = {"collectionKey", "value", "name", "type", "condition", "functionCallee", "functionName", "className"}


def climb(node: Node, scope: str) -> Node:
    """The nearest ancestor (``node`` first) that is a ``scope``; Skip when there is none."""
    test = SCOPE_NODES[scope]
    current: Node | None = node
    while current is not None:
        if test(current):
            if current.parent is not None and current.parent.type == "decorated_definition":
                return current.parent
            return current
        current = current.parent
    raise Skip(f"no {scope} holds the target")


def _enclosing_statement(node: Node) -> Node | None:
    try:
        return climb(node.parent, "statement") if node.parent is not None else None
    except Skip:
        return None


def node_at(root: Node, start: int, end: int) -> Node:
    """The smallest named node holding ``start..end``, as the LSP edge finds a range's target."""
    return root.named_descendant_for_byte_range(start, end) or root


# --- recorded fixtures ---------------------------------------------------------------------------------------

#: Cursorless action name -> (Tether action, after).
ACTIONS = {
    "remove": ("remove", True),
    "insertCopyAfter": ("clone", True),
    "insertCopyBefore": ("clone", False),
    "replaceWithTarget": ("bring", True),
    "moveToTarget": ("move", True),
    "swapTargets": ("swap", True),
    "editNewLineAfter": ("insert", True),
    "editNewLineBefore": ("insert", False),
}
SELECTING = {"setSelection", "setSelectionBefore", "setSelectionAfter", "highlight", "followLink"}


def offset(index: LineIndex, position: dict[str, int]) -> int:
    """A Cursorless position (line, UTF-16 character) as a byte offset."""
    return index.offset_of(Pos(position["line"], position["character"]), Encoding.UTF16, strict=True)


class Recorded:
    """One recorded fixture being resolved: its text, tree, hats and selections."""

    def __init__(self, data: dict[str, Any]) -> None:
        state = data["initialState"]
        self.text: str = state["documentContents"]
        self.source = self.text.encode()
        self.index = LineIndex(self.source)
        self.root = parse_text("python", self.source).root_node
        self.marks: dict[str, Any] = state.get("marks") or {}
        self.selections: list[dict[str, Any]] = state.get("selections") or []

    def span(self, where: dict[str, Any]) -> tuple[int, int]:
        a, b = offset(self.index, where["start"]), offset(self.index, where["end"])
        return min(a, b), max(a, b)

    def mark_spans(self, mark: dict[str, Any] | None) -> list[tuple[int, int]]:
        kind = (mark or {"type": "cursor"})["type"]
        if kind == "cursor":
            return [self.span({"start": s["anchor"], "end": s["active"]}) for s in self.selections]
        if kind == "decoratedSymbol":
            assert mark is not None
            key = f"{mark['symbolColor']}.{mark['character']}"
            if key not in self.marks:
                raise Skip("hat not in the recorded marks")
            return [self.span(self.marks[key])]
        raise Skip(f"mark {kind}")

    def nodes(self, target: dict[str, Any], inherited: list[dict[str, Any]] | None, for_lines: bool) -> list[Node]:
        """The nodes a primitive target stands for (its modifiers, or the previous target's when it has none)."""
        if target.get("type") != "primitive":
            raise Skip(f"{target.get('type')} target")
        modifiers = target.get("modifiers") or inherited or []
        spans = self.mark_spans(target.get("mark"))
        if len(modifiers) > 1:
            raise Skip("several modifiers")
        scope = None
        if modifiers:
            modifier = modifiers[0]
            if modifier["type"] != "containingScope":
                raise Skip(f"modifier {modifier['type']}")
            scope = modifier["scopeType"]["type"]
        return [self._resolved(start, end, scope, for_lines) for start, end in spans]

    def _resolved(self, start: int, end: int, scope: str | None, for_lines: bool) -> Node:
        node = node_at(self.root, start, end)
        if for_lines and scope in ("statement", "ifStatement", "namedFunction", "class"):
            return climb(climb(node, scope), "statement")
        if for_lines and scope in (None, "line", "token"):
            raise Skip("internal: a line target is resolved by line_target")
        if scope is None:
            raise Skip("a bare token (no scope): not a member")
        if scope in PARTS:
            raise Skip(f"scope {scope}: a part of a member")
        if scope not in SCOPE_NODES:
            raise Skip(f"scope {scope}")
        return climb(node, scope)

    def line_target(self, target: dict[str, Any], after: bool) -> tuple[Node, bool] | None:
        """A new line after (before) a *line*: the statement that starts on it, or before the first statement
        of the body a compound statement's header line opens; None when the target is not a line."""
        modifiers = target.get("modifiers") or []
        scope = modifiers[0]["scopeType"]["type"] if len(modifiers) == 1 and "scopeType" in modifiers[0] else None
        if target.get("type") != "primitive" or (modifiers and scope not in ("line", "token")):
            return None
        (start, end), *more = self.mark_spans(target.get("mark"))
        if more:
            raise Skip("several selections")
        line = self.index.line_of(start)
        statement = climb(node_at(self.root, start, end), "statement")
        outer = _enclosing_statement(statement)
        while outer is not None and outer.start_point[0] == line:  # 'if x: y' is the if's line
            statement, outer = outer, _enclosing_statement(outer)
        if statement.start_point[0] != line:
            raise Skip("a line inside a statement")
        if not after or statement.end_point[0] == line:
            return statement, after
        body = statement.child_by_field_name("body")
        first = next((c for c in (body.named_children if body else []) if _named_child(c)), None)
        if first is None or first.start_point[0] == line:
            raise Skip("the line of a compound statement's header")
        return first, False


def convert_recorded(data: dict[str, Any]) -> Case:
    """One recorded fixture as a case; Skip saying why not."""
    if data.get("languageId") != "python":
        raise Skip("not Python")
    command = data["command"]
    action = command["action"]
    name = action["name"]
    if name in SELECTING:
        raise Skip("selection only, no edit")
    if name == "clearAndSetSelection":
        raise Skip("clear (Tether has no clear action)")
    if name not in ACTIONS:
        raise Skip(f"action {name}")
    tether, after = ACTIONS[name]
    fixture = Recorded(data)
    lines = tether == "insert"
    destination: list[Node] = []
    if name in ("replaceWithTarget", "moveToTarget"):
        goal = action["destination"]
        if goal.get("type") != "primitive" or goal.get("insertionMode") not in ("before", "after"):
            raise Skip(f"{tether} replacing its destination (Tether inserts before or after)")
        after = goal["insertionMode"] == "after"
        first = action["source"]
        targets = fixture.nodes(first, None, False)
        destination = fixture.nodes(goal["target"], first.get("modifiers"), False)
    elif name == "swapTargets":
        one = action["target1"]
        targets = fixture.nodes(one, None, False) + fixture.nodes(action["target2"], one.get("modifiers"), False)
    elif lines and (found := fixture.line_target(action["target"], after)) is not None:
        targets, after = [found[0]], found[1]
    else:
        targets = fixture.nodes(action["target"], None, lines)
    return {
        "targets": [[n.start_byte, n.end_byte] for n in targets],
        "destination": [[n.start_byte, n.end_byte] for n in destination],
        "action": tether,
        "after": after,
        "text": fixture.text,
        "expected": data["finalState"]["documentContents"],
        "spoken": command.get("spokenForm", ""),
    }


# --- scope fixtures ------------------------------------------------------------------------------------------

#: Scope files converted (by their first name part); the others are parts of members or not members.
SCOPE_FILES = {"argument", "collectionItem", "statement", "namedFunction", "class", "ifStatement", "branch"}
_FACET = re.compile(r"^\[(?:#(\d+) )?([A-Za-z ]+)\] =(?: (.*))?$")
_RANGE = re.compile(r"^(\d+):(\d+)-(\d+):(\d+)$")


def scope_facets(body: str) -> dict[int, dict[str, str]]:
    """Each scope's facets (``Content``, ``Removal``…) as written: ``[#1 Content] =`` shares the next value."""
    scopes: dict[int, dict[str, str]] = {}
    pending: list[tuple[int, str]] = []
    for line in body.splitlines():
        found = _FACET.match(line)
        if found is None:
            continue
        number, facet, value = int(found[1] or 1), found[2], found[3]
        pending.append((number, facet))
        if value:
            for k, f in pending:
                scopes.setdefault(k, {})[f] = value
            pending = []
    return scopes


def convert_scope_file(path: str, text: str) -> list[tuple[str, Case | Skip]]:
    """Every scope of one ``.scope`` file as a ``remove`` case (or the reason it is skipped)."""
    document, _, body = text.partition("\n---\n")
    source = document.encode()
    index, root = LineIndex(source), parse_text("python", source).root_node
    out: list[tuple[str, Case | Skip]] = []
    for number, facets in sorted(scope_facets(body).items()):
        key = f"{path}#{number}"
        content = _RANGE.match(facets.get("Content", ""))
        removal = _RANGE.match(facets.get("Removal", facets.get("Content", "")))
        if content is None or removal is None:
            out.append((key, Skip("scope without content and removal ranges")))
            continue
        start, end = _byte_range(index, content)
        node = node_at(root, start, end)
        if (node.start_byte, node.end_byte) != (start, end):
            out.append((key, Skip("scope range is not a syntax node")))
            continue
        cut_start, cut_end = _byte_range(index, removal)
        expected = (source[:cut_start] + source[cut_end:]).decode()
        case = {"targets": [[start, end]], "destination": [], "action": "remove", "after": True, "text": document}
        out.append((key, case | {"expected": expected, "spoken": "chuck " + _scope_name(path)}))
        delimiter = facets.get("Insertion delimiter", "")
        try:
            copied = cloned(source, start, end, json.loads(delimiter) if delimiter else None)
        except Skip as why:
            out.append((key + " clone", why))
            continue
        clone = case | {"action": "clone", "expected": copied, "spoken": "clone " + _scope_name(path)}
        out.append((key + " clone", clone))
    return out


def cloned(source: bytes, start: int, end: int, delimiter: str | None) -> str:
    """The text after Cursorless's ``clone`` (insertCopyAfter) of ``start..end``, as its DestinationImpl does it:
    the copy goes *before* the target, ``indentation + text + delimiter``, at the line's start when the
    delimiter is a line break and the target starts its line (the indentation: the least of its lines')."""
    if delimiter is None:
        raise Skip("scope without an insertion delimiter")
    text = source[start:end]
    if "\n" not in delimiter:
        return (source[:start] + text + delimiter.encode() + source[start:]).decode()
    line_start = source.rfind(b"\n", 0, start) + 1
    if source[line_start:start].strip():
        raise Skip("line-delimited scope not at the start of its line")
    lines = [line for line in source[line_start:end].split(b"\n") if line.strip()]
    indentation = min((line[: len(line) - len(line.lstrip())] for line in lines), key=len)
    return (source[:line_start] + indentation + text + delimiter.encode() + source[line_start:]).decode()


def _byte_range(index: LineIndex, found: re.Match[str]) -> tuple[int, int]:
    a = index.offset_of(Pos(int(found[1]), int(found[2])), Encoding.UTF16, strict=True)
    return a, index.offset_of(Pos(int(found[3]), int(found[4])), Encoding.UTF16, strict=True)


def _scope_name(path: str) -> str:
    return Path(path).name.split(".")[0]


# --- conversion ----------------------------------------------------------------------------------------------


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), *args], check=True, capture_output=True, text=True).stdout


def convert(mirror: Path) -> tuple[list[Case], Counter[str], dict[str, int | str]]:
    """Every Python fixture of the snapshot: the cases, the skip reasons counted, and how many were found."""
    import yaml

    commit = _git(mirror, "rev-parse", "HEAD").strip()
    python = _git(mirror, "grep", "-l", "languageId: python", "HEAD", "--", RECORDED).splitlines()
    names = [name.removeprefix("HEAD:") for name in python]
    names += _git(mirror, "ls-tree", "-r", "--name-only", "HEAD", SCOPES).splitlines()
    cases: list[Case] = []
    skipped: Counter[str] = Counter()
    found = Counter[str]()
    for path in sorted(names):
        if path.startswith(RECORDED) and path.endswith(".yml"):
            text = _git(mirror, "show", f"HEAD:{path}")
            found["recorded"] += 1
            try:
                case = convert_recorded(yaml.safe_load(text))
            except Skip as why:
                skipped[f"recorded: {why}"] += 1
                continue
            cases.append({"id": path[len(RECORDED) :], "origin": "recorded", "file": path} | case)
        elif path.startswith(SCOPES) and path.endswith(".scope"):
            if _scope_name(path) not in SCOPE_FILES or ".iteration" in path:
                found["scope files"] += 1
                skipped["scope file: not a member's scope, or an iteration scope"] += 1
                continue
            found["scope files"] += 1
            for key, result in convert_scope_file(path, _git(mirror, "show", f"HEAD:{path}")):
                found["scopes"] += 1
                if isinstance(result, Skip):
                    skipped[f"scopes: {result}"] += 1
                else:
                    cases.append({"id": key[len(SCOPES) :], "origin": "scopes", "file": path} | result)
    return cases, skipped, {**found, "commit": commit}


# --- running a case through Tether ---------------------------------------------------------------------------


def tether_result(case: Case) -> str:
    """The text Tether's action gives for ``case``, or ``refused: …`` when it refuses."""
    source = case["text"].encode()
    tree = parse_text("python", source)
    root = tree.root_node
    targets = [node_at(root, s, e) for s, e in case["targets"]]
    destination = [node_at(root, s, e) for s, e in case["destination"]]
    try:
        outcome = perform(Source("python", source, tree), Request(case["action"], case["after"]), targets, destination)
    except ActionRefused as refused:
        return f"refused: {refused}"
    return applied(source, outcome.replaces).decode()


def has_member(case: Case) -> bool:
    """Whether each target and destination range is exactly one of Tether's members (an element or a
    line-based member, a definition with its decorators): when it is not, Tether acts on the larger member
    around it, and the case measures a scope Tether does not have."""
    root = parse_text("python", case["text"].encode()).root_node
    return all(_is_member_range(root, s, e) for s, e in case["targets"] + case["destination"])


def _is_member_range(root: Node, start: int, end: int) -> bool:
    node: Node | None = node_at(root, start, end)
    while node is not None and (node.start_byte, node.end_byte) == (start, end):
        parent = node.parent
        if is_element(node) or is_line_member(node):
            return True
        if parent is not None and parent.type == "decorated_definition" and is_line_member(parent):
            return True
        node = parent
    return False


def verdicts(cases: list[Case]) -> list[tuple[Case, str, str]]:
    """Each case with its verdict (``exact``, ``different`` or ``no member``) and Tether's text."""
    out = []
    for case in cases:
        got = tether_result(case)
        verdict = "exact" if got == case["expected"] else "different" if has_member(case) else "no member"
        out.append((case, verdict, got))
    return out


def load_cases() -> list[Case]:
    cases: list[Case] = json.loads(CASES.read_text())["cases"]
    return cases


def load_judgements() -> dict[str, str]:
    """Each differing case's judgement, by id: which behaviour is better and why (JUDGEMENTS' categories)."""
    data: dict[str, dict[str, str]] = json.loads(JUDGEMENTS.read_text())
    return {case: data["categories"][category] for case, category in data["cases"].items()}


def report() -> int:
    judged = load_judgements()
    results = verdicts(load_cases())
    for origin in ("recorded", "scopes", None):
        mine = [(c, v) for c, v, _ in results if origin in (None, c["origin"])]
        count = Counter(v for _, v in mine)
        measured = count["exact"] + count["different"]
        print(
            f"{origin or 'all'}: {len(mine)} cases, {count['no member']} with no Tether member; "
            f"{count['exact']}/{measured} exact ({100 * count['exact'] / max(measured, 1):.1f}%), "
            f"{count['different']} different"
        )
    for title, wanted in (("different", "different"), ("no Tether member for the target", "no member")):
        print(f"\n=== {title}\n")
        for case, verdict, got in results:
            if verdict != wanted:
                continue
            print(f"--- {case['id']} ({case['spoken']}: {case['action']}, after={case['after']})")
            print(f"initial:\n{_shown(case['text'])}\ncursorless:\n{_shown(case['expected'])}")
            judgement = judged.get(case["id"], "(none yet)") if wanted == "different" else NOT_MEASURED
            print(f"tether:\n{_shown(got)}\njudgement: {judgement}\n")
    print("=== judgements of the differences")
    tally = Counter(judged.get(c["id"], "(none yet)") for c, v, _ in results if v == "different")
    for judgement, times in tally.most_common():
        print(f"{times:3d}  {judgement}")
    return 0


NOT_MEASURED = "not measured: Tether has no member for this target, so it acts on the larger member around it"


def _shown(text: str) -> str:
    return "\n".join("  | " + line for line in text.replace("\r", "\\r").split("\n"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--mirror", type=Path, default=MIRROR, help="git directory of a cursorless snapshot")
    parser.add_argument("--report", action="store_true", help="run the committed cases and print differences")
    args = parser.parse_args(argv)
    if args.report:
        return report()
    cases, skipped, found = convert(args.mirror)
    DATA.mkdir(parents=True, exist_ok=True)
    summary = {"found": found, "converted": len(cases), "skipped": dict(sorted(skipped.items()))}
    payload = {"source": "github.com/cursorless-dev/cursorless", **summary, "cases": cases}
    CASES.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    (DATA / "LICENSE").write_text(_git(args.mirror, "show", "HEAD:LICENSE"))
    json.dump(summary, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
