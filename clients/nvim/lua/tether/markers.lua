-- Markers in Neovim: a sign by kind and the author and note as virtual text at the end of each marker's first line
-- (drawn here only: the server's CodeLens, which carries the same note, is turned off for this client), the buffer's
-- markers in the location list and the workspace's in the quickfix list (both jumpable), re-read on attach,
-- after edits and when the server says markers moved. Reading is asynchronous: typing never waits on the server.
local offsets = require('tether.offsets')
local M = {}

local ns = vim.api.nvim_create_namespace('tether_markers')
local SIGNS = { comment = '…', question = '?', issue = '!', bookmark = '★' }
local HL = { comment = 'DiagnosticInfo', question = 'DiagnosticHint', issue = 'DiagnosticWarn', bookmark = 'DiagnosticOk' }
M.by_buf = {} -- bufnr -> markers as last listed

local function first_line(note)
  return (note or ''):match('^[^\n]*')
end

--- What a marker shows: its author (a teammate's name, or `tether.mcp.author` for an agent's note) and its note.
local function label(m)
  local author = type(m.author) == 'string' and m.author ~= '' and (m.author .. ': ') or ''
  return author .. first_line(m.note)
end

function M.draw(bufnr, markers)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local count = vim.api.nvim_buf_line_count(bufnr)
  for _, m in ipairs(markers) do
    if m.range and m.range.start.line < count then
      pcall(vim.api.nvim_buf_set_extmark, bufnr, ns, m.range.start.line, 0, {
        sign_text = SIGNS[m.kind] or '•',
        sign_hl_group = HL[m.kind] or 'DiagnosticInfo',
        virt_text = { { '  ' .. (SIGNS[m.kind] or '•') .. ' ' .. label(m), 'Comment' } },
        virt_text_pos = 'eol',
      })
    end
  end
end

local pending = {} -- bufnr -> the list request in flight (a token)

--- Ask for the buffer's markers (asynchronously); draw them, then call `done(markers)` if given.
function M.refresh(tether, bufnr, done)
  if not tether.client() or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local this = {}
  pending[bufnr] = this
  local sent = tether.request_async('tether/markers/list', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, function(err, result)
    if pending[bufnr] == this then
      pending[bufnr] = nil
    end
    if err or not result then
      return
    end
    M.by_buf[bufnr] = result.markers
    M.draw(bufnr, result.markers)
    if done then
      done(result.markers)
    end
  end, bufnr)
  if not sent and pending[bufnr] == this then
    pending[bufnr] = nil
  end
end

local function items(markers, bufnr)
  local out = {}
  for _, m in ipairs(markers) do
    local item = {
      bufnr = bufnr or vim.uri_to_bufnr(m.uri),
      lnum = m.range and m.range.start.line + 1 or 1,
      col = 1,
      text = '[' .. m.kind .. '] ' .. (m.range and '' or '(missing: ' .. tostring(m.missingReason) .. ') ') .. label(m),
      type = m.range and 'I' or 'W',
    }
    table.insert(out, item)
  end
  return out
end

--- The buffer's markers in the location list (synchronous: a command the user waits for).
function M.loclist(tether)
  local bufnr = vim.api.nvim_get_current_buf()
  local result, err = tether.request('tether/markers/list', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } })
  if not result then
    vim.notify('Tether: ' .. tostring(err and err.message or err), vim.log.levels.WARN)
    return nil
  end
  M.by_buf[bufnr] = result.markers
  M.draw(bufnr, result.markers)
  vim.fn.setloclist(0, {}, 'r', { title = 'Tether markers', items = items(result.markers, bufnr) })
  return result.markers
end

--- Every marker of the workspace in the quickfix list.
function M.quickfix(tether)
  local result, err = tether.request('tether/markers/listWorkspace', vim.empty_dict(), 30000)
  if not result then
    vim.notify('Tether: ' .. tostring(err and err.message or err), vim.log.levels.WARN)
    return nil
  end
  local all = {}
  for _, file in ipairs(result.files) do
    for _, item in ipairs(items(file.markers)) do
      table.insert(all, item)
    end
  end
  vim.fn.setqflist({}, 'r', { title = 'Tether markers (workspace)', items = all })
  return all
end

function M.add(tether, first_line_nr, last_line_nr, note, kind)
  local bufnr = vim.api.nvim_get_current_buf()
  local marker, err = tether.request('tether/markers/create', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = first_line_nr - 1, character = 0 }, ['end'] = offsets.line_end(bufnr, last_line_nr - 1) },
    note = note,
    kind = kind or 'comment',
  }, 15000) -- the first marker of a session opens (and may migrate) the database: seconds on a busy machine
  if err then
    vim.notify('Tether: the marker was not added: ' .. (err.message or tostring(err)), vim.log.levels.WARN)
  elseif marker then
    local lines = first_line_nr == last_line_nr and ('line ' .. first_line_nr) or ('lines ' .. first_line_nr .. '-' .. last_line_nr)
    vim.notify(string.format('Tether: %s marker added on %s: %s', marker.kind or kind or 'comment', lines, first_line(note)))
  end
  M.refresh(tether, bufnr)
  return marker, err
end

local timers = {}
function M.setup(tether, group)
  vim.api.nvim_create_autocmd({ 'BufEnter', 'BufWritePost' }, {
    group = group,
    callback = function(args)
      -- entering a buffer whose list is on its way (a buffer just opened: asked at attach) asks nothing more
      local asking = pending[args.buf] ~= nil and args.event == 'BufEnter'
      if tether.attached(args.buf) and not asking then
        M.refresh(tether, args.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'InsertLeave' }, { -- a moment after typing stops
    group = group,
    callback = function(args)
      if not tether.attached(args.buf) then
        return
      end
      if timers[args.buf] then
        timers[args.buf]:stop()
      end
      timers[args.buf] = vim.defer_fn(function()
        timers[args.buf] = nil
        M.refresh(tether, args.buf)
      end, 300)
    end,
  })
end

--- `tether/markers/didChange`: re-read the loaded buffers among `uris`.
function M.changed(tether, uris)
  for _, uri in ipairs(uris or {}) do
    local bufnr = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(bufnr) then
      M.refresh(tether, bufnr)
    end
  end
end

return M
