#!/usr/bin/env bash
# The MCP clients the agents' front is tested with, each once, from npm as its folder under scripts/ pins it
# (package.json + package-lock.json), into .cache/<folder> (ignored by git). Idempotent and quick when done.
#   mcp-inspector:   @modelcontextprotocol/inspector 0.15.0, its command-line mode (tests/e2e/test_mcp_inspector_e2e.py)
#   mcp-conformance: @modelcontextprotocol/conformance 0.1.13, the official conformance suite
#                    (tests/e2e/test_mcp_conformance_e2e.py)
# Both are the newest releases that run on this machine's Node 20: later ones ask for Node 22 (the conformance
# suite from 0.1.14 on imports fs.globSync, which Node 20 lacks).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v npm >/dev/null 2>&1; then
  echo "mcp tools: npm is missing (Node.js 20 or later is needed)" >&2
  exit 1
fi
for name in mcp-inspector mcp-conformance; do
  pinned="$root/scripts/$name"
  cache="$root/.cache/$name"
  if [ -d "$cache/node_modules" ] && cmp -s "$pinned/package-lock.json" "$cache/package-lock.json"; then
    echo "$name: present"
    continue
  fi
  echo "$name: installing into $cache (under a minute, once)"
  rm -rf "$cache"
  mkdir -p "$cache"
  cp "$pinned/package.json" "$pinned/package-lock.json" "$cache/"
  (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$name: installed"
done
