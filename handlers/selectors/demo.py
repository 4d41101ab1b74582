"""The selectors section of ``tether-lsp demo``: a few chains per example file, threaded through ids."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tether_lsp.server.demo import say, short, slice_range, to_range
from tether_lsp.server.lspclient import raw_request

if TYPE_CHECKING:
    from pygls.lsp.client import LanguageClient

    from tether_lsp.server.demo import OpenFile

PYTHON_CHAINS: list[list[Any]] = [
    ["selectFunctions", "selectName"],
    ["selectClasses", "selectMethods", "selectFirst"],
    ["selectCalls", "filterOutermost", "selectArguments", "selectFirst"],
    ["selectStrings", ["filterText", "[^\\x00-\\x7f]"]],
]
YAML_CHAINS: list[list[Any]] = [
    ["selectDocuments", "selectPairs", ["filterText", "^(image|name):"], "selectValue"],
    ["selectPairs", ["filterText", "^(steps|tasks):"], "selectItems", "selectLast", "selectValue"],
    ["selectChildren", "selectKey"],
]


def _label(step: Any) -> str:
    return step if isinstance(step, str) else f"{step[0]}({', '.join(repr(a) for a in step[1:])})"


async def section(client: LanguageClient, files: list[OpenFile]) -> None:
    say("== Structural selectors (tether/applySelector; the client threads cursorNodeIds) ==")
    for f in files:
        chains = PYTHON_CHAINS if f.language_id == "python" else YAML_CHAINS
        say(f.path.name)
        for chain in chains:
            ids: list[int] = []
            result: Any = None
            for step in chain:
                name, args = (step, []) if isinstance(step, str) else (step[0], list(step[1:]))
                result = await raw_request(
                    client,
                    "tether/applySelector",
                    {"uri": f.uri, "selector": name, "args": args, "cursorNodeIds": ids},
                )
                ids = result["cursorNodeIds"]
                if not ids:  # [] would mean "the root" to the next step: an empty selection ends the chain
                    break
            texts = [short(slice_range(f.text, to_range(r)), 40) for r in result["ranges"]] if ids else []
            shown = ", ".join(texts[:6]) + (f", … ({len(texts)} in all)" if len(texts) > 6 else "")
            say(f"  {' → '.join(_label(s) for s in chain)}: {shown or '(nothing)'}")
    say()
