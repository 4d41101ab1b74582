"""``tether-lsp select FILE SELECTOR[:ARG,...] [SELECTOR...]``: run a selector chain on a file from a shell.

Prints each resulting node as ``LINE:COL-LINE:COL`` (1-based lines, 1-based columns counted in characters)
followed by its text. Arguments follow a colon, separated by commas: ``selectRange:10,1,10,61``;
``selectAt``/``selectRange`` take the same 1-based line and column numbers. A string last argument gets
the rest (commas included): ``filterText:^a,b$``.
Exit codes: 0 with results, 1 with none, 2 on a bad selector, argument or file.
"""

from __future__ import annotations

import argparse
import re
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
INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")


def parse_step(step: str) -> tuple[str, list[Any]]:
    """``name:arg,arg,...`` as the selector declares its arguments (docs/selectors.md, "Arguments as text"):
    numbers where it takes an ``int``/``nat``, text otherwise, and a string last argument takes the rest of the
    step, commas included. ``selectAt``/``selectRange`` count from 1 here, as the output does."""
    name, colon, rest = step.partition(":")
    if not colon or not rest:
        return name, []
    selector = SELECTORS.get(name)
    specs = selector.args if selector is not None else ()
    pieces = rest.split(",", len(specs) - 1) if specs and specs[-1].type == "str" else rest.split(",")
    args: list[Any] = []
    for position, raw in enumerate(pieces):
        numeric = position < len(specs) and specs[position].type != "str"
        args.append(int(raw) if numeric and INTEGER.fullmatch(raw) else raw)
    if name in ONE_BASED and len(args) == len(specs):
        for position, (spec, value) in enumerate(zip(specs, args, strict=True)):
            if isinstance(value, int) and value < 1:
                raise InvalidParams(
                    f"args[{position}]",
                    f"{spec.name} counts from 1 here, as lines and columns are printed; got {value}",
                    kind="invalidArgs",
                    selector=name,
                )
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
