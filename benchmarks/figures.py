"""What a benchmark measured, as JSON beside the report it prints (``--json FILE``): the figures tests and
comparisons read by name, instead of the sentences written for people."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def write(figures: dict[str, Any]) -> None:
    """``figures`` written to the file ``--json`` names, when it names one (the other flags are the
    benchmark's own)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--json", type=Path, help="also write the figures to this file, as JSON")
    path = parser.parse_known_args()[0].json
    if path is not None:
        path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
