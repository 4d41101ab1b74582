-- Tether for Neovim (0.7+): starts tether-lsp for Python and YAML buffers, keeps the server informed of the
-- active editor and cursor (prompt playground), and adds commands for selectors, markers and inline tasks.
--
--   require('tether').setup({ cmd = { '/path/to/tether/.venv/bin/tether-lsp' }, settings = { ... } })
--
-- On 0.11+ the client is Neovim's `tether` configuration (lsp/tether.lua fills in what vim.lsp.config('tether', …)
-- leaves out). Commands (`:help tether` has them all, with the settings and suggested keymaps):
-- :[range]TetherSelect {selector[:arg,...]...} (from the visual selection; chains continue across commands; ]s / [s step),
-- :TetherSelectReset, structural actions (:TetherRemove, :TetherClone, :TetherMoveUp, :TetherMark, :TetherMove, …,
-- `:help tether-actions`), :[range]TetherMarkerAdd [kind:] {note},
-- :TetherMarkers (location list), :TetherMarkersAll (quickfix), :TetherPlayground, :TetherRun / :TetherCancel
-- (asynchronous), :TetherComplete / :TetherPreview, :checkhealth tether.
local select = require('tether.select')
local markers = require('tether.markers')
local tasks = require('tether.tasks')
local preview = require('tether.preview')
local playground = require('tether.playground')
local offsets = require('tether.offsets')
local client_config = require('tether.client_config')
local commands = require('tether.commands')
local actions = require('tether.actions')

local M = { state = nil, client_id = nil, options = nil }
local uses_lsp_enable = vim.lsp.config ~= nil and vim.lsp.enable ~= nil -- 0.11+
local defaults = client_config.defaults

--- `:help tether` without `:helptags`: the tags of doc/tether.txt, written next to it when missing or older.
local function help_tags()
  local doc = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h') .. '/doc'
  local txt, tags = doc .. '/tether.txt', doc .. '/tags'
  if vim.fn.filereadable(txt) == 1 and vim.fn.getftime(tags) < vim.fn.getftime(txt) and vim.fn.filewritable(doc) == 2 then
    pcall(vim.cmd, 'silent! helptags ' .. vim.fn.fnameescape(doc))
  end
end

local function client()
  local c = M.client_id and vim.lsp.get_client_by_id(M.client_id) or nil
  if not c and vim.lsp.get_clients then -- 0.10+: started by vim.lsp.enable, found by name
    c = vim.lsp.get_clients({ name = 'tether' })[1]
    M.client_id = c and c.id or nil
  end
  return c
end
M.client = client

--- Whether Tether's client is attached to the buffer and the server knows it: `initialized` sent (so the buffer's
--- didOpen too). A buffer attached while the server starts is attached before that (BufReadPre starts the server,
--- FileType attaches); a request then would reach the server before `initialized` and before the file's didOpen.
function M.attached(bufnr)
  local c = client()
  return c ~= nil and c.initialized == true and vim.lsp.buf_is_attached(bufnr, c.id)
end

-- A client's methods: called as `client:request(…)` on 0.11 (the `client.request(…)` form is deprecated there),
-- as `client.request(…)` before (where they take no self).
local methods_take_self = vim.fn.has('nvim-0.11') == 1
function M.call(c, name, ...)
  if methods_take_self then
    return c[name](c, ...)
  end
  return c[name](...)
end

--- An asynchronous request: `handler(err, result)` gets the answer; returns ok, request id.
function M.request_async(method, params, handler, bufnr)
  local c = client()
  if not c then
    return false
  end
  return M.call(c, 'request', method, params, handler, bufnr or vim.api.nvim_get_current_buf())
end

function M.cancel_request(id)
  local c = client()
  if c and id then
    M.call(c, 'cancel_request', id)
  end
end

--- The client once the server has answered `initialize`: a command typed while it starts (a second or two
--- after opening a file) waits for it rather than failing.
local function ready(timeout_ms)
  local c = client()
  if c and c.initialized then
    return c
  end
  if M.options and vim.tbl_contains(M.config().filetypes or {}, vim.bo.filetype) then
    vim.wait(timeout_ms, function()
      c = client()
      return c ~= nil and c.initialized == true
    end, 20)
  end
  return c
end
M.ready = ready

--- A request answered synchronously (for commands and tests); returns result, err.
function M.request(method, params, timeout_ms)
  local c = ready(timeout_ms or 5000)
  if not c then
    return nil, 'tether is not running'
  end
  local response = M.call(c, 'request_sync', method, params, timeout_ms or 5000, vim.api.nvim_get_current_buf())
  if not response then
    return nil, 'timeout'
  end
  return response.result, response.err
end

local function notify(method, params)
  local c = client()
  if c then
    M.call(c, 'notify', method, params)
  end
end

--- The cursor as an LSP position, in the encoding negotiated with the server.
function M.position()
  return offsets.cursor(0)
end

local function uri()
  return vim.uri_from_bufnr(vim.api.nvim_get_current_buf())
end

function M.active_editor()
  notify('tether/editor/didChangeActiveEditor', { textDocument = { uri = uri() }, position = M.position() })
end

local cursor_timer = nil
function M.cursor_moved(delay)
  if cursor_timer then
    cursor_timer:stop()
  end
  cursor_timer = vim.defer_fn(function()
    cursor_timer = nil
    notify('tether/editor/didChangeCursor', { textDocument = { uri = uri() }, position = M.position() })
  end, delay)
end

--- A buffer the client attached to: its markers, and ]s / [s in Tether's buffers only (elsewhere they still
--- jump between misspelled words).
function M.attached_to(b)
  if b == vim.api.nvim_get_current_buf() then -- the playground follows it from the start (BufEnter came first)
    M.active_editor()
  end
  markers.refresh(M, b)
  vim.keymap.set({ 'n', 'x' }, ']s', function() select.jump(1) end, { buffer = b, desc = 'Tether: next structural cursor' })
  vim.keymap.set({ 'n', 'x' }, '[s', function() select.jump(-1) end, { buffer = b, desc = 'Tether: previous structural cursor' })
end

--- Neovim 0.11+ reads lsp/tether.lua (on the runtimepath with this client), which returns this: setup()'s
--- options (or the defaults) at the lowest precedence, so what the user gives `vim.lsp.config('tether', …)`
--- (a `cmd`, settings, …) is kept and only what it leaves out is filled in.
function M.lsp_config()
  local config = client_config.build(M, M.options or vim.tbl_deep_extend('force', defaults, {}))
  config.root_markers = { '.git' }
  return config
end

--- The configuration the client starts with: Neovim's resolved one on 0.11+, else setup()'s.
function M.config()
  if uses_lsp_enable then
    local ok, config = pcall(function() return vim.lsp.config.tether end)
    if ok and config then
      return config
    end
  end
  return client_config.build(M, M.options or defaults)
end

local refused = {}
--- Whether the server's command can run; when it cannot, the user is told on screen (once per command), not
--- only in lsp.log, where Neovim 0.11 notes a configuration it will not start.
function M.runnable(cmd)
  if type(cmd) ~= 'table' then
    return true -- a function (0.10+: a transport of the user's own)
  end
  if cmd[1] and vim.fn.executable(cmd[1]) == 1 then
    return true
  end
  local key = table.concat(cmd, ' ')
  if not refused[key] then
    refused[key] = true
    local message = string.format('Tether: cannot start the server: %s is not executable (:checkhealth tether)',
      tostring(cmd[1])) -- short enough for one line: no ENTER prompt; the health check says where to set it
    vim.schedule(function() -- once the autocommand that found it is over (else it reads as its failure)
      vim.notify(message, vim.log.levels.ERROR)
    end)
  end
  return false
end

local function attach(bufnr, opts)
  if M.client_id and client() then
    vim.lsp.buf_attach_client(bufnr, M.client_id)
    return
  end
  if not M.runnable(opts.cmd) then
    return
  end
  local config = client_config.build(M, opts)
  config.root_dir = client_config.root_dir(bufnr)
  if vim.lsp.start then -- 0.8+
    M.client_id = vim.lsp.start(config, { bufnr = bufnr })
  else
    M.client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, M.client_id)
  end
end

--- The filetype a file's name gives (no buffer contents read), when it is one of `filetypes`.
local function filetype_of(name, filetypes)
  local ft = nil
  if vim.fn.has('nvim-0.8') == 1 then
    ft = vim.filetype.match({ filename = name })
  else -- 0.7's vim.filetype.match sets the buffer's filetype: the extensions it gives these filetypes
    ft = name:match('%.pyi?$') and 'python' or name:match('%.ya?ml$') and 'yaml' or nil
  end
  return ft and vim.tbl_contains(filetypes or {}, ft) and ft or nil
end

--- BufReadPre: the server starts as the file is read, before FileType, whose first autocommand is the filetype's
--- own plugin (Python's asks `has('python3')`, which probes the interpreters on PATH for pynvim: seconds on a busy
--- machine). The server boots meanwhile; FileType attaches the buffer to this client (reused, not a second one).
local function start_early(bufnr, opts)
  if vim.bo[bufnr].buftype ~= '' or client() then
    return
  end
  local config = uses_lsp_enable and M.config() or opts
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or not filetype_of(name, config.filetypes) or not M.runnable(config.cmd) then
    return
  end
  if uses_lsp_enable then -- the root vim.lsp.enable finds, so that its start reuses this client
    local root = vim.fs.root(bufnr, config.root_markers or { '.git' })
    if root then
      M.client_id = vim.lsp.start(vim.tbl_extend('force', config, { root_dir = root }), { bufnr = bufnr, attach = false })
    end
    return
  end
  config = client_config.build(M, opts)
  config.root_dir = client_config.root_dir(bufnr)
  M.client_id = vim.lsp.start_client(config)
end

--- Wait until the server answered `initialize` (tests and scripts).
function M.wait_ready(timeout_ms)
  return vim.wait(timeout_ms or 10000, function()
    local c = client()
    return c ~= nil and c.initialized == true
  end, 50)
end

function M.add_marker(first_line, last_line, note, kind)
  return markers.add(M, first_line, last_line, note, kind)
end

function M.list_markers()
  return markers.loclist(M)
end

--- The server's selectors (asked once), for argument types and command-line completion.
local catalogue = nil
function M.selectors()
  if not catalogue then
    local result = M.request('tether/listSelectors', vim.empty_dict())
    catalogue = result and result.selectors or nil
  end
  return catalogue
end

--- Apply a chain of selectors from the buffer's current structural cursors, or, when it has none, from the code
--- holding `start` (an LSP range, e.g. the visual selection) if given, else the whole buffer (see tether.select).
function M.select(chain, start)
  return select.chain(M, chain, start)
end

function M.playground()
  return M.request('tether/playground/getState', vim.empty_dict())
end

function M.run_task(on_done)
  return tasks.run(M, on_done)
end

function M.cancel_task()
  return tasks.cancel(M)
end

function M.setup(opts)
  opts = vim.tbl_deep_extend('force', defaults, opts or {})
  M.options = opts
  playground.max_width = opts.playground.max_width
  help_tags()
  local group = vim.api.nvim_create_augroup('tether', { clear = true })
  select.setup(group)
  markers.setup(M, group)
  preview.setup(group)
  if client_config.has_lsp_attach then
    vim.api.nvim_create_autocmd('LspAttach', {
      group = group,
      callback = function(args)
        local c = vim.lsp.get_client_by_id(args.data.client_id)
        if c and c.name == 'tether' then
          M.attached_to(args.buf)
        end
      end,
    })
  end
  if uses_lsp_enable then -- 0.11+: Neovim's own configuration (lsp/tether.lua under the user's), per filetype
    vim.lsp.config('tether', {}) -- resolved again with these options; keeps whatever the user configured
    vim.lsp.enable('tether')
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      callback = function(args)
        local config = M.config()
        if vim.bo[args.buf].buftype == '' and vim.tbl_contains(config.filetypes or {}, args.match) then
          M.runnable(config.cmd)
        end
      end,
    })
  else
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = opts.filetypes,
      callback = function(args)
        attach(args.buf, opts)
      end,
    })
  end
  vim.api.nvim_create_autocmd('BufEnter', {
    group = group,
    callback = function(args)
      if M.attached(args.buf) then -- the playground's window or a help buffer is not an editor the server knows
        M.active_editor()
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI' }, {
    group = group,
    callback = function(args)
      if M.attached(args.buf) then
        M.cursor_moved(opts.cursor_debounce_ms)
      end
    end,
  })
  vim.api.nvim_create_autocmd('BufReadPre', {
    group = group,
    callback = function(args)
      start_early(args.buf, opts)
    end,
  })
  commands.setup(M)
  actions.setup(M)
end

return M
