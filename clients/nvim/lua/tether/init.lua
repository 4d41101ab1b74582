-- Tether for Neovim (0.7+): starts tether-lsp for Python and YAML buffers, keeps the server informed of the
-- active editor and cursor (prompt playground), and adds commands for markers, selectors and inline tasks.
--
--   require('tether').setup({ cmd = { '/path/to/tether/.venv/bin/tether-lsp' }, settings = { ... } })
--
-- Commands: :TetherMarkerAdd {note} (on a line range), :TetherMarkers (quickfix), :TetherSelect {selector...},
-- :TetherPlayground, :TetherRun (the `@run <instruction>` line under the cursor).
local M = { state = nil, client_id = nil }

local defaults = {
  cmd = { 'tether-lsp' },
  filetypes = { 'python', 'yaml', 'yaml.ansible', 'ansible' },
  settings = {}, -- the `tether` section: { database = { url = ... }, inference = { endpoint = ... }, ... }
  cursor_debounce_ms = 100,
}

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  -- Neovim applies multi-line inline completion ranges correctly: opt in (REPLACEMENT.md §5).
  caps.experimental = { tether = { multilineInlineCompletionRange = true } }
  return caps
end

local function root_dir(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local found = vim.fn.finddir('.git', vim.fn.fnamemodify(path, ':p:h') .. ';')
  if found ~= '' then
    return vim.fn.fnamemodify(found, ':p:h:h')
  end
  return vim.fn.getcwd()
end

local function client()
  return M.client_id and vim.lsp.get_client_by_id(M.client_id) or nil
end

--- A request answered synchronously (for commands and tests); returns result, err.
function M.request(method, params, timeout_ms)
  local c = client()
  if not c then
    return nil, 'tether is not running'
  end
  local response = c.request_sync(method, params, timeout_ms or 5000, vim.api.nvim_get_current_buf())
  if not response then
    return nil, 'timeout'
  end
  return response.result, response.err
end

local function notify(method, params)
  local c = client()
  if c then
    c.notify(method, params)
  end
end

local function position()
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local line = vim.api.nvim_buf_get_lines(0, row - 1, row, false)[1] or ''
  local _, utf16 = vim.str_utfindex(line, col)
  return { line = row - 1, character = utf16 }
end

local function uri()
  return vim.uri_from_bufnr(vim.api.nvim_get_current_buf())
end

function M.active_editor()
  notify('tether/editor/didChangeActiveEditor', { textDocument = { uri = uri() }, position = position() })
end

local cursor_timer = nil
function M.cursor_moved(delay)
  if cursor_timer then
    cursor_timer:stop()
  end
  cursor_timer = vim.defer_fn(function()
    cursor_timer = nil
    notify('tether/editor/didChangeCursor', { textDocument = { uri = uri() }, position = position() })
  end, delay)
end

local handlers = {
  ['tether/markers/didChange'] = function()
    pcall(vim.lsp.codelens.refresh)
  end,
  ['tether/playground/didChangeState'] = function(_, state)
    M.state = state
    vim.cmd('doautocmd <nomodeline> User TetherPlayground')
  end,
  ['tether/edits/didUpdate'] = function() end,
}

local function attach(bufnr, opts)
  if M.client_id and client() then
    vim.lsp.buf_attach_client(bufnr, M.client_id)
    return
  end
  local config = {
    name = 'tether',
    cmd = opts.cmd,
    root_dir = root_dir(bufnr),
    capabilities = capabilities(),
    init_options = { tether = opts.settings },
    settings = { tether = opts.settings },
    handlers = handlers,
  }
  if vim.lsp.start then -- 0.8+
    M.client_id = vim.lsp.start(config, { bufnr = bufnr })
  else
    M.client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, M.client_id)
  end
end

--- Wait until the server answered `initialize` (tests and scripts).
function M.wait_ready(timeout_ms)
  return vim.wait(timeout_ms or 10000, function()
    local c = client()
    return c ~= nil and c.initialized == true
  end, 50)
end

function M.add_marker(first_line, last_line, note)
  local lines = vim.api.nvim_buf_get_lines(0, last_line - 1, last_line, false)
  local _, end_char = vim.str_utfindex(lines[1] or '')
  return M.request('tether/markers/create', {
    textDocument = { uri = uri() },
    range = { start = { line = first_line - 1, character = 0 }, ['end'] = { line = last_line - 1, character = end_char } },
    note = note,
  })
end

function M.list_markers()
  local result, err = M.request('tether/markers/list', { textDocument = { uri = uri() } })
  if not result then
    return nil, err
  end
  local items = {}
  for _, m in ipairs(result.markers) do
    local line = m.range and m.range.start.line + 1 or 1
    table.insert(items, { bufnr = 0, lnum = line, text = (m.status == 'missing' and '[missing] ' or '') .. m.note })
  end
  vim.fn.setqflist(items, 'r')
  return result.markers
end

--- Run a selector chain from the root; selects the first range found. Returns the last result.
function M.select(chain)
  local ids, result = {}, nil
  for _, step in ipairs(chain) do
    local name, arg = step:match('^([%w]+):?(.*)$')
    local args = arg ~= '' and { arg } or {}
    result = M.request('tether/applySelector', {
      uri = uri(),
      cursorNodeIds = ids,
      selector = name,
      args = args,
    })
    if not result or #result.cursorNodeIds == 0 then
      return result
    end
    ids = result.cursorNodeIds
  end
  local r = result.ranges[1]
  if r then
    local row = r.start.line + 1
    local line = vim.api.nvim_buf_get_lines(0, r.start.line, r.start.line + 1, false)[1] or ''
    vim.api.nvim_win_set_cursor(0, { row, vim.str_byteindex(line, r.start.character, true) })
  end
  return result
end

function M.playground()
  return M.request('tether/playground/getState', vim.empty_dict())
end

function M.run_task()
  return M.request('tether/tasks/run', { textDocument = { uri = uri() }, position = position() }, 300000)
end

function M.setup(opts)
  opts = vim.tbl_deep_extend('force', defaults, opts or {})
  local group = vim.api.nvim_create_augroup('tether', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = opts.filetypes,
    callback = function(args)
      attach(args.buf, opts)
    end,
  })
  vim.api.nvim_create_autocmd('BufEnter', { group = group, callback = M.active_editor })
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI' }, {
    group = group,
    callback = function()
      M.cursor_moved(opts.cursor_debounce_ms)
    end,
  })
  vim.api.nvim_create_user_command('TetherMarkerAdd', function(c)
    M.add_marker(c.line1, c.line2, c.args)
  end, { range = true, nargs = 1 })
  vim.api.nvim_create_user_command('TetherMarkers', function()
    M.list_markers()
    vim.cmd('copen')
  end, {})
  vim.api.nvim_create_user_command('TetherSelect', function(c)
    M.select(c.fargs)
  end, { nargs = '+' })
  vim.api.nvim_create_user_command('TetherPlayground', function()
    local state = M.playground()
    print(state and state.prompt and state.prompt.preview or 'no prompt under the cursor')
  end, {})
  vim.api.nvim_create_user_command('TetherRun', function()
    M.run_task()
  end, {})
end

return M
