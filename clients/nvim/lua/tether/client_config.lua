-- What Tether's client starts with: the default options, the capabilities it announces, the handlers of what the
-- server sends, and the workspace root of a buffer. Apart from init.lua because two callers build a
-- configuration from it: setup() on 0.7-0.10 and Neovim 0.11's lsp/tether.lua (through init.lua's lsp_config).
local markers = require('tether.markers')
local tasks = require('tether.tasks')
local playground = require('tether.playground')

local C = {}

C.has_lsp_attach = vim.fn.exists('##LspAttach') == 1 -- 0.8+

C.defaults = {
  cmd = { 'tether-lsp' },
  filetypes = { 'python', 'yaml', 'yaml.ansible', 'ansible' },
  settings = {}, -- the `tether` section: { database = { url = ... }, inference = { endpoint = ... }, ... }
  cursor_debounce_ms = 100,
  playground = { max_width = 100 }, -- the widest the playground's float grows (never wider than the editor)
}

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  -- Neovim applies multi-line inline completion ranges correctly: opt in.
  caps.experimental = { tether = { multilineInlineCompletionRange = true } }
  return caps
end

--- The folder holding the buffer's git repository, else the current directory.
function C.root_dir(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local found = vim.fn.finddir('.git', vim.fn.fnamemodify(path, ':p:h') .. ';')
  if found ~= '' then
    return vim.fn.fnamemodify(found, ':p:h:h')
  end
  return vim.fn.getcwd()
end

local handlers = nil
--- The handlers of the server's notifications and requests (made once; `tether` is init.lua's module).
local function handlers_for(tether)
  handlers = handlers or {
    ['tether/markers/didChange'] = function(_, params)
      markers.changed(tether, params and params.uris)
    end,
    ['$/progress'] = function(err, params, ctx, config)
      if not tasks.progress(params) then
        return vim.lsp.handlers['$/progress'](err, params, ctx, config)
      end
    end,
    ['workspace/applyEdit'] = tasks.apply_edit(function(...)
      return vim.lsp.handlers['workspace/applyEdit'](...)
    end),
    ['tether/playground/didChangeState'] = function(_, state)
      tether.state = state
      playground.render(tether)
      vim.cmd('doautocmd <nomodeline> User TetherPlayground')
    end,
    ['tether/playground/didRunOutput'] = function(_, params)
      playground.on_output(tether, params.delta)
    end,
    ['tether/edits/didUpdate'] = function() end,
  }
  return handlers
end

--- The client configuration for setup()'s options `opts` (also what `vim.lsp.config('tether', …)` gets on 0.11+).
function C.build(tether, opts)
  local settings = next(opts.settings) and opts.settings or vim.empty_dict() -- an object, never `[]`
  return {
    name = 'tether',
    cmd = opts.cmd,
    filetypes = opts.filetypes,
    capabilities = capabilities(),
    init_options = { tether = settings },
    settings = { tether = settings },
    handlers = handlers_for(tether),
    on_init = function(c)
      -- Each marker's note is drawn by tether.markers (a sign and the note, coloured by kind); the server's
      -- CodeLens carries the same note: turned off, so no refresh (ours or the user's) draws it a second time.
      c.server_capabilities.codeLensProvider = nil
      if c.resolved_capabilities then -- 0.7 asks these before sending a request
        c.resolved_capabilities.code_lens = false
        c.resolved_capabilities.code_lens_resolve = false
      end
    end,
    -- 0.8+: LspAttach (set up by setup()) does it, so an `on_attach` of the user's own does not replace it
    on_attach = not C.has_lsp_attach and function(_, b) tether.attached_to(b) end or nil,
  }
end

return C
