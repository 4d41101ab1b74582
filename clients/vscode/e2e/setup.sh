#!/usr/bin/env bash
# Install what the VS Code end-to-end test needs, once (cached in .cache/vscode-e2e, ignored by git):
# Debian's chromium (+ what code-server builds with), code-server 4.100.3 (the newest that runs on Node 20)
# and playwright-core from npm, and the extension's own node_modules. Idempotent and quick when done.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cache="$root/.cache/vscode-e2e"
stamp="$cache/.installed-4.100.3"

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if [ ${#need[@]} -gt 0 ]; then
  echo "vscode e2e: installing ${need[*]}"
  bash "$root/scripts/apt-install.sh" "vscode e2e" "${need[@]}"
fi

if [ ! -f "$stamp" ]; then
  echo "vscode e2e: installing code-server and playwright-core into $cache (about 80 s, once)"
  mkdir -p "$cache"
  # @vscode/ripgrep downloads rg from a host this machine cannot reach: seed its cache with Debian's rg.
  rgcache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
  mkdir -p "$rgcache"
  if [ ! -f "$rgcache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" ]; then
    d=$(mktemp -d) && cp "$(command -v rg)" "$d/rg" && \
      tar czf "$rgcache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$d" rg
  fi
  (cd "$cache" && [ -f package.json ] || echo '{"name": "tether-vscode-e2e", "private": true}' > "$cache/package.json")
  (cd "$cache" && npm_config_unsafe_perm=true npm_config_yes=true \
     npm install --no-audit --no-fund --loglevel=error code-server@4.100.3 playwright-core@1.65.1 >/dev/null)
  touch "$stamp"
fi

# The extension's dependencies and build tools (TypeScript, esbuild, vsce), as the lockfile pins them.
if [ ! -x "$root/clients/vscode/node_modules/.bin/vsce" ] || [ "$root/clients/vscode/package-lock.json" -nt "$root/clients/vscode/node_modules/.package-lock.json" ]; then
  (cd "$root/clients/vscode" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
echo "vscode e2e: ready"
