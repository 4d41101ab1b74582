"""Peer language servers for comparison, installed on demand into an ignored venv (.cache/peers)."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS_VENV = ROOT / ".cache" / "peers"
PACKAGES = ["python-lsp-server==1.15.0", "jedi-language-server==0.47.0"]


def ensure_peers() -> Path:
    """The peers' venv bin dir, created and filled the first time (a few seconds from PyPI)."""
    bin_dir = PEERS_VENV / "bin"
    stamp = PEERS_VENV / ".installed"
    if not stamp.exists() or stamp.read_text() != "\n".join(PACKAGES):
        print(f"(installing peers into {PEERS_VENV}: {', '.join(PACKAGES)})", file=sys.stderr)
        venv.EnvBuilder(with_pip=True, clear=True).create(PEERS_VENV)
        subprocess.run(
            [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", *PACKAGES],
            check=True,
        )
        stamp.write_text("\n".join(PACKAGES))
    return bin_dir
