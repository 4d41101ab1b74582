// The server's `tether` settings from VS Code's (pure): every `tether.*` setting is the server's, named as in the
// server's schema, except `tether.server.*`, which only tells the extension how to start it.

export function forServer(all: Record<string, unknown>): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(all ?? {})) as Record<string, unknown>;
  delete copy.server;
  return copy;
}
