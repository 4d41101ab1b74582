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
ls -d /usr/share/emacs/site-lisp/elpa/lsp-mode-* >/dev/null 2>&1 || need+=(elpa-lsp-mode)  # the Emacs lsp-mode test
command -v tmux >/dev/null 2>&1 || need+=(tmux)                        # Emacs in a terminal (emacs -nw)

if [ ${#need[@]} -eq 0 ]; then
  echo "system deps: present (postgresql, git, neovim, emacs + eglot + lsp-mode, tmux)"
  exit 0
fi

echo "system deps: installing ${need[*]}"
bash "$(dirname "$0")/apt-install.sh" "system deps" "${need[@]}"
echo "system deps: installed ${need[*]}"
