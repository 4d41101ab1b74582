"""``tether.selectors``: what a ``filterText``/``filterNotText`` regular expression may cost. A module of its own so
that every front (the LSP glue, the agents' front) reads the same setting without importing another's glue."""

from __future__ import annotations

from dataclasses import dataclass

from tether_lsp.server.settings import setting

from .vocabulary import RegexLimits


@dataclass(frozen=True)
class SelectorSettings:
    """``tether.selectors``: what a ``filterText``/``filterNotText`` regular expression may cost."""

    regexBudgetMs: int = setting(
        500,
        "Milliseconds all regex matching of one request may take; past it the request fails with -32602.",
        minimum=1,
        maximum=60_000,
    )
    maxPatternLength: int = setting(1000, "Longest regular expression accepted.", minimum=1)
    maxRepeat: int = setting(
        10_000,
        "Largest product of counted repeats along a pattern's nesting (`a{1000}` is 1,000, `(a{100}){100}` "
        "is 10,000): compiling expands them.",
        minimum=1,
    )

    def limits(self) -> RegexLimits:
        return RegexLimits(self.regexBudgetMs / 1000, self.maxPatternLength, self.maxRepeat)
