"""Tether for agents: the MCP front (``tether-lsp mcp``), over the same engines and services as the LSP side.

* :mod:`.tools` — the tool table: one row per tool (name, description, argument schema, result shape, adapter);
  the generated tool list in ``docs/agents.md`` and the server's ``tools/list`` both read it.
* :mod:`.files`, :mod:`.history`, :mod:`.trees`, :mod:`.context` — files read from disk inside the roots, their
  versions (a short hash of the content), the texts handed out, parses with node ids, atomic writes.
* :mod:`.outline`, :mod:`.select`, :mod:`.read`, :mod:`.edit`, :mod:`.prompts`, :mod:`.run_prompt` — each
  tool's adapter: arguments in, engine or service calls, answer out (structured content and a short text).
* :mod:`.prompt_ids` — prompts found by the playground's detection and named by its resolver, in the playground
  map of the database the language server would use for the root, so agents and editors share prompt ids.
* :mod:`.server` — the MCP SDK glue; :mod:`.cli` — the command line; :mod:`.handshake` — the client's first
  request and its tool list answered over stdio before the SDK and the engines load.
* Attached mode (``tether.mcp.http.enabled``): :mod:`.attached_lsp` — its glue in the language server (what
  loads at start-up: settings, the switch; and the link to the editor's buffers and ``workspace/applyEdit``);
  :mod:`.http` — the endpoint (streamable HTTP on 127.0.0.1, its own thread and loop); :mod:`.attached_source`
  — the editor's workspace as a :mod:`.source`, through the link; :mod:`.discovery` — the session files;
  :mod:`.bridge` — ``tether-lsp mcp --attach``.

Only :mod:`.server`, :mod:`.http` and :mod:`.bridge` import the MCP SDK; only attached mode's glue in the language
server (:mod:`.attached_lsp`) imports lsprotocol or the language server, and no other module of the front imports
it. The language server imports :mod:`.settings` and :mod:`.attached_lsp.attachment` at start-up, and the rest
only when the endpoint is enabled.
"""
