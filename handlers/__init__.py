"""Tether's features: :func:`features` lists each one's method table (``FEATURE`` in its ``lsp.py``), which the
router installs (``tether_lsp.compose``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tether_lsp.server.demo import Section
    from tether_lsp.server.methods import Feature


def features() -> list[Feature[Any]]:
    """Every feature, in the order installed (nothing registers itself on import)."""
    from .actions import lsp as actions
    from .edits import lsp as edits
    from .markers import lsp as markers
    from .playground import lsp as playground
    from .replacement import lsp as replacement
    from .selectors import lsp as selectors

    return [
        selectors.FEATURE,
        markers.FEATURE,
        replacement.FEATURE,
        playground.FEATURE,
        edits.FEATURE,
        actions.FEATURE,
    ]


def commands() -> dict[str, Callable[[Sequence[str]], int]]:
    """Feature subcommands of ``tether-lsp`` (loaded only when invoked)."""

    def select(argv: Sequence[str]) -> int:
        from .selectors.cli import main

        return main(argv)

    def fake_model(argv: Sequence[str]) -> int:
        from .playground.cli import main

        return main(argv)

    return {"select": select, "fake-model": fake_model}


def demo_sections() -> list[tuple[str, Section]]:
    """Each feature's section of ``tether-lsp demo``, in order."""
    from .edits.demo import section as edits_section
    from .markers.demo import section as markers_section
    from .playground.demo import section as playground_section
    from .replacement.demo import section as replacement_section
    from .selectors.demo import section as selectors_section

    return [
        ("selectors", selectors_section),
        ("markers", markers_section),
        ("playground", playground_section),
        ("replacement", replacement_section),
        ("edits", edits_section),
    ]
