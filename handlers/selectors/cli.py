"""``tether-lsp select FILE SELECTOR[:ARG,...] [SELECTOR...]``: run a selector chain on a file from a shell.

Prints each resulting node as ``LINE:COL-LINE:COL`` (1-based lines, 1-based columns counted in characters)
followed by its text. ``selectAt``/``selectRange`` take the same 1-based line and column numbers. A selector
that takes one string argument gets everything after the colon (commas included): ``filterText:^a,b$``.
Exit codes: 0 with results, 1 with none, 2 on a bad selector, argument or file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tether_lsp.server.errors import InvalidParams, RequestFailed
from tether_lsp.server.positions import Encoding, LineIndex, Pos
from tether_lsp.server.syntax import language_for, parse_text

from .engine import run, validate
from .index import TreeIndex
from .kinds import table_for
from .vocabulary import SELECTORS

ONE_BASED = ("selectAt", "selectRange")


def parse_step(step: str) -> tuple[str, list[Any]]:
    name, _, rest = step.partition(":")
    selector = SELECTORS.get(name)
    if not rest:
        return name, []
    if selector is not None and len(selector.args) == 1 and selector.args[0].type == "str":
        return name, [rest]
    args: list[Any] = []
    for raw in rest.split(","):
        try:
            value: Any = int(raw)
        except ValueError:
            value = raw
        args.append(value)
    if name in ONE_BASED:
        args = [a - 1 if isinstance(a, int) else a for a in args]
    return name, args


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tether-lsp select", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("selectors", nargs="+", metavar="SELECTOR[:ARG,...]")
    options = parser.parse_args(list(argv))
    try:
        data = options.file.read_bytes()
    except OSError as exc:
        print(f"tether-lsp select: cannot read {options.file}: {exc.strerror}", file=sys.stderr)
        return 2
    spec = language_for(None, options.file.resolve().as_uri())
    if spec is None:
        print(f"tether-lsp select: {options.file}: not a Python or YAML file", file=sys.stderr)
        return 2
    try:
        tree = parse_text(spec.name, data)
    except RequestFailed as exc:
        print(f"tether-lsp select: {options.file}: {exc.message}", file=sys.stderr)
        return 2
    index, lines = TreeIndex(tree, data), LineIndex(data)
    table = table_for(spec.name, spec.language)
    cursors = [0]
    try:
        for step in options.selectors:
            name, args = parse_step(step)
            cursors = run(
                validate(name, args),
                index,
                table,
                tree,
                cursors,
                lambda line, ch: lines.offset_of(Pos(line, ch), Encoding.UTF32),
            )
    except InvalidParams as exc:
        print(f"tether-lsp select: {step}: {exc.message}", file=sys.stderr)
        if exc.data.get("kind") == "unknownSelector":
            print("available: " + ", ".join(sorted(SELECTORS)), file=sys.stderr)
        return 2
    for i in cursors:
        s, e = index.span(i)
        start, end = lines.position_of(s, Encoding.UTF32), lines.position_of(e, Encoding.UTF32)
        print(f"{start.line + 1}:{start.character + 1}-{end.line + 1}:{end.character + 1}  {index.type_name(i)}")
        for text_line in data[s:e].decode("utf-8", errors="replace").splitlines() or [""]:
            print(f"    {text_line}")
    return 0 if cursors else 1
