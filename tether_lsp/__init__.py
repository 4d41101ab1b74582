"""Tether, a language server that keeps things tethered to code while the code changes.

The distribution installs one import package: ``tether_lsp``. Its two halves live at the top of the
repository and are linked in here: ``tether_lsp.server`` (the feature-agnostic runtime) and
``tether_lsp.handlers`` (the features). This package itself is the composition root that puts them
together (:mod:`.compose`), the command line (:mod:`.__main__`) and the demo (:mod:`.demo`); nothing in
``server`` or ``handlers`` imports it.
"""

__version__ = "0.1.0"
