#!/usr/bin/env bash
# The MCP Inspector's command-line mode for the agents' front's end-to-end test (tests/e2e/test_mcp_inspector_e2e.py),
# once: @modelcontextprotocol/inspector 0.15.0 from npm (the newest whose declared Node engine takes this machine's
# Node 20; later ones ask for Node 22), as scripts/mcp-inspector/package-lock.json pins it, into .cache/mcp-inspector
# (ignored by git). Idempotent and quick when done.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pinned="$root/scripts/mcp-inspector"
cache="$root/.cache/mcp-inspector"

if ! command -v npm >/dev/null 2>&1; then
  echo "mcp inspector: npm is missing (Node.js 20 or later is needed)" >&2
  exit 1
fi
if [ -x "$cache/node_modules/.bin/mcp-inspector" ] && cmp -s "$pinned/package-lock.json" "$cache/package-lock.json"; then
  echo "mcp inspector: present"
  exit 0
fi
echo "mcp inspector: installing @modelcontextprotocol/inspector into $cache (about 40 s, once)"
mkdir -p "$cache"
cp "$pinned/package.json" "$pinned/package-lock.json" "$cache/"
(cd "$cache" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "mcp inspector: installed (@modelcontextprotocol/inspector 0.15.0)"
