"""Tether for agents: the MCP front (``tether-lsp mcp``), over the same engines and services as the LSP side.

* :mod:`.tools` — the tool table: one row per tool (name, description, argument schema, result shape, adapter);
  the generated tool list in ``docs/agents.md`` and the server's ``tools/list`` both read it.
* :mod:`.files`, :mod:`.history`, :mod:`.trees`, :mod:`.context` — files read from disk inside the roots, their
  versions (a short hash of the content), the texts handed out, parses with node ids, atomic writes.
* :mod:`.outline`, :mod:`.select`, :mod:`.read`, :mod:`.edit`, :mod:`.prompts`, :mod:`.run_prompt` — each
  tool's adapter: arguments in, engine or service calls, answer out (structured content and a short text).
* :mod:`.prompt_ids` — prompts found by the playground's detection and named by its resolver, in the playground
  map of the database the language server would use for the root, so agents and editors share prompt ids.
* :mod:`.server` — the MCP SDK glue (the only module importing ``mcp``); :mod:`.cli` — the command line.

Nothing here imports pygls or lsprotocol, and nothing in the LSP server imports this package.
"""
