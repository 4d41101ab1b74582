#!/usr/bin/env bash
# Install the Debian packages the tests need, only when missing (idempotent, quick when done).
set -euo pipefail

need=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v git >/dev/null 2>&1 || need+=(git)
command -v runuser >/dev/null 2>&1 || need+=(util-linux)
command -v nvim >/dev/null 2>&1 || need+=(neovim)                      # the Neovim client's headless test
command -v emacs >/dev/null 2>&1 || need+=(emacs-nox)                  # the Emacs client's batch test
[ -d /usr/share/emacs/site-lisp/elpa/eglot-1.9 ] || ls -d /usr/share/emacs/site-lisp/elpa/eglot-* >/dev/null 2>&1 \
  || need+=(elpa-eglot)

if [ ${#need[@]} -eq 0 ]; then
  echo "system deps: present (postgresql, git, neovim, emacs + eglot)"
  exit 0
fi

echo "system deps: installing ${need[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "system deps: not root and no sudo; install these Debian packages by hand: ${need[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "system deps: installed ${need[*]}"
