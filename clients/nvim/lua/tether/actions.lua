-- Structural actions (`tether/applyAction`): remove, clone, swap, move, bring, moveUp/moveDown, insert, wrap and
-- unwrap what the buffer's structural cursors hold, or, with none, the visual selection, else the code at the
-- cursor. The server answers an edit and what it produced; the edit is applied here as one undo step per buffer,
-- then what it produced is selected (the cursor in the new empty spot, in insert mode, for insert). Move, bring and
-- swap take their second place from the mark (`:TetherMark`). moveUp, moveDown, remove and clone repeat with `.`
-- from their <Plug> mappings: the mapping runs `g@$` with this module's operator function, so `.` runs the same
-- action again, on what it produced when the cursor is still in it (the visual selection left with <Esc>).
local select = require('tether.select')
local offsets = require('tether.offsets')
local M = {}

local mark_ns = vim.api.nvim_create_namespace('tether_mark')
local mark = nil -- { bufnr, ids, version, extmarks }: move's and bring's destination, swap's other target
local last = nil -- { bufnr, tick, ranges }: what the last action produced, for `.`
local pending = nil -- the action and options the next `g@` runs (set by a repeatable <Plug> mapping)

local function say(text, level)
  vim.notify('Tether: ' .. text, level or vim.log.levels.INFO)
end

local function before(a, b)
  return a.line < b.line or (a.line == b.line and a.character < b.character)
end

--- The code an action acts on in `bufnr`: the structural cursors (with the version their ids belong to), else the
--- visual selection (`command`: the user command's table), else what the last action produced when the cursor is
--- in it (so `.` acts on the moved code), else the code at the cursor.
local function targets(bufnr, command)
  local ids, version, ranges = select.cursors(bufnr)
  if ids then
    return { cursorNodeIds = ids }, version, ranges
  end
  local visual = select.visual_range(bufnr, command)
  if visual then
    return { ranges = { visual } }, nil, { visual }
  end
  local here = offsets.cursor(0)
  if last and last.bufnr == bufnr and last.tick == vim.api.nvim_buf_get_changedtick(bufnr) then
    for _, r in ipairs(last.ranges) do
      if not before(here, r.start) and not before(r['end'], here) then
        return { ranges = { r } }, nil, { r }
      end
    end
  end
  local at = { start = here, ['end'] = here }
  return { ranges = { at } }, nil, { at }
end

local function mark_ranges()
  local out = {}
  for _, id in ipairs(mark.extmarks) do
    local m = vim.api.nvim_buf_get_extmark_by_id(mark.bufnr, mark_ns, id, { details = true })
    if m[1] then
      local function point(row, col)
        local line = vim.api.nvim_buf_get_lines(mark.bufnr, row, row + 1, false)[1] or ''
        return { line = row, character = offsets.character(line, col) }
      end
      table.insert(out, { start = point(m[1], m[2]), ['end'] = point(m[3].end_row or m[1], m[3].end_col or m[2]) })
    end
  end
  return out
end

function M.unmark()
  if mark and vim.api.nvim_buf_is_valid(mark.bufnr) then
    vim.api.nvim_buf_clear_namespace(mark.bufnr, mark_ns, 0, -1)
  end
  mark = nil
end

--- The mark as the request's `destination`: its ids while its buffer is unchanged, else where its ranges are now.
local function destination(bufnr)
  if not mark or not vim.api.nvim_buf_is_valid(mark.bufnr) then
    return nil
  end
  local version = select.version(mark.bufnr)
  local d = {}
  if mark.ids and mark.version == version then
    d.cursorNodeIds = mark.ids
  else
    d.ranges = mark_ranges()
  end
  if mark.bufnr ~= bufnr then
    d.textDocument = { uri = vim.uri_from_bufnr(mark.bufnr), version = version }
  end
  return d
end

--- `:TetherMark`: the current target becomes the mark (highlighted, `◆ mark` after its first line); the structural
--- cursors are let go, so the next selector picks the targets.
function M.mark(command)
  local bufnr = vim.api.nvim_get_current_buf()
  M.unmark()
  local where, version, ranges = targets(bufnr, command)
  mark = { bufnr = bufnr, ids = where.cursorNodeIds, version = version, extmarks = {} }
  for i, r in ipairs(ranges) do
    local srow, erow = r.start.line, r['end'].line
    local opts = {
      end_row = erow,
      end_col = offsets.buf_byte_col(bufnr, erow, r['end'].character),
      hl_group = 'TetherMark',
      virt_text = i == 1 and { { ' ◆ mark', 'TetherMark' } } or nil,
    }
    local scol = offsets.buf_byte_col(bufnr, srow, r.start.character)
    table.insert(mark.extmarks, vim.api.nvim_buf_set_extmark(bufnr, mark_ns, srow, scol, opts))
  end
  select.clear(bufnr)
  if vim.fn.mode():match('^[vV\22]') then
    vim.cmd('normal! \27')
  end
  say(string.format('marked %d target%s (the destination of :TetherMove, :TetherBring, :TetherSwap)', #ranges,
    #ranges == 1 and '' or 's'))
end

--- An answer's error as one line: what was refused and why (the field the server names is left out), a stale
--- selection said as such.
local function refused(action, err)
  if type(err) ~= 'table' then
    return say(string.format('%s: %s', action, err == 'timeout' and 'no answer from the server' or tostring(err)),
      vim.log.levels.WARN)
  end
  local message = tostring(err.message or '')
  if err.code == -32801 then
    return say(action .. ': the buffer changed since it was selected; select again', vim.log.levels.WARN)
  end
  local field = type(err.data) == 'table' and err.data.field or nil
  if field and message:sub(1, #field + 2) == field .. ': ' then
    message = message:sub(#field + 3)
  end
  local kind = type(err.data) == 'table' and err.data.kind == 'actionRefused' and ' refused' or ''
  say(string.format('%s%s: %s', action, kind, message), vim.log.levels.WARN)
end

--- Show what the action produced: the first range in the current buffer (else in the destination's buffer, shown in
--- its window or this one) selected, an empty one as the cursor's place; for insert, insert mode there.
local function show(result, action)
  local cur = vim.api.nvim_get_current_buf()
  local by_buf = {}
  for _, loc in ipairs(result.produced or {}) do
    local b = vim.uri_to_bufnr(loc.uri)
    by_buf[b] = by_buf[b] or {}
    table.insert(by_buf[b], loc.range)
  end
  local bufnr = by_buf[cur] and cur or next(by_buf)
  if not bufnr then
    return
  end
  if bufnr ~= cur then
    local win = vim.fn.bufwinid(bufnr)
    if win ~= -1 then
      vim.api.nvim_set_current_win(win)
    elseif not pcall(vim.cmd, 'buffer ' .. bufnr) then
      return say(action .. ': done in ' .. vim.fn.bufname(bufnr))
    end
  end
  local ranges = by_buf[bufnr]
  last = { bufnr = bufnr, tick = vim.api.nvim_buf_get_changedtick(bufnr), ranges = ranges }
  local r = ranges[1]
  local row, col = r.start.line + 1, offsets.buf_byte_col(bufnr, r.start.line, r.start.character)
  if vim.fn.mode():match('^[vV\22]') then
    vim.cmd('normal! \27')
  end
  if action == 'insert' then
    local line = vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ''
    vim.api.nvim_win_set_cursor(0, { row, col })
    vim.cmd(col >= #line and 'startinsert!' or 'startinsert')
  elseif r.start.line == r['end'].line and r.start.character == r['end'].character then
    vim.api.nvim_win_set_cursor(0, { row, col })
  else
    select.select_range(bufnr, r)
  end
end

--- The edit applied (one undo step per buffer) unless a buffer moved on since the server answered.
local function apply(result, action)
  for _, change in ipairs(result.edit.documentChanges or {}) do
    local b = vim.uri_to_bufnr(change.textDocument.uri)
    if change.textDocument.version and change.textDocument.version ~= select.version(b) then
      return refused(action, { code = -32801 })
    end
  end
  for _, change in ipairs(result.edit.documentChanges or {}) do
    select.clear(vim.uri_to_bufnr(change.textDocument.uri)) -- its ids are of the version before the edit
  end
  vim.lsp.util.apply_workspace_edit(result.edit, offsets.encoding())
  show(result, action)
  return true
end

--- Run `action` on the current targets. `opts`: after (false: before), destination (true: the mark's), wrapper,
--- placeholder, targets (given instead of the current ones), command (the user command's table).
function M.run(tether, action, opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local where, version = opts.targets, nil
  if not where then
    where, version = targets(bufnr, opts.command)
  end
  if version and version ~= select.version(bufnr) then
    select.clear(bufnr)
    return refused(action, { code = -32801 })
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr), version = select.version(bufnr) },
    action = action,
    targets = where,
    after = opts.after ~= false,
    wrapper = opts.wrapper,
    placeholder = opts.placeholder,
  }
  if opts.destination then
    params.destination = destination(bufnr)
    if not params.destination then
      return say(action .. ' needs a destination: :TetherMark it first', vim.log.levels.WARN)
    end
  end
  local result, err = tether.request('tether/applyAction', params)
  if err or not result then
    if type(err) == 'table' and err.code == -32801 then
      select.clear(bufnr)
    end
    return refused(action, err or 'no answer from the server')
  end
  if opts.destination then
    M.unmark()
  end
  return apply(result, action)
end

--- `:TetherSwap`: the two structural cursors, else the current target and the mark.
function M.swap(tether, command)
  local ids = select.cursors(vim.api.nvim_get_current_buf())
  if ids and #ids == 2 then
    return M.run(tether, 'swap', { targets = { cursorNodeIds = ids } })
  end
  if not mark then
    return say('swap needs two targets: two structural cursors, or :TetherMark one first', vim.log.levels.WARN)
  end
  return M.run(tether, 'swap', { destination = true, command = command })
end

--- 'operatorfunc' of the repeatable mappings: the action the mapping chose, from where `g@` started.
function M.operator()
  if pending then
    local start = vim.api.nvim_buf_get_mark(0, '[')
    pcall(vim.api.nvim_win_set_cursor, 0, start)
    M.run(require('tether'), pending.action, pending.opts)
  end
end

--- The normal-mode side of a repeatable <Plug> mapping: `g@$` (it never fails, even on an empty line) with
--- M.operator, so `.` repeats it.
local function repeatable(action, opts)
  return function()
    pending = { action = action, opts = opts }
    vim.go.operatorfunc = "v:lua.require'tether.actions'.operator"
    return 'g@$'
  end
end

M.wrappers = { 'try', 'with', 'if', 'call' }

--- The <Plug> mappings: <Plug>(TetherRemove) … in normal and visual mode (`:help tether-actions`).
function M.setup(tether)
  vim.cmd('highlight default link TetherMark IncSearch')
  local function plug(name, fn, modes)
    vim.keymap.set(modes or { 'n', 'x' }, '<Plug>(Tether' .. name .. ')', fn, { desc = 'Tether: ' .. name })
  end
  for name, spec in pairs({
    Remove = { 'remove' }, Clone = { 'clone' }, CloneBefore = { 'clone', { after = false } },
    MoveUp = { 'moveUp' }, MoveDown = { 'moveDown' },
  }) do
    vim.keymap.set('n', '<Plug>(Tether' .. name .. ')', repeatable(spec[1], spec[2]), { expr = true, desc = 'Tether: ' .. name })
    plug(name, function() M.run(tether, spec[1], spec[2]) end, { 'x' })
  end
  for name, spec in pairs({
    Insert = { 'insert' }, InsertBefore = { 'insert', { after = false } }, Unwrap = { 'unwrap' },
    Move = { 'move', { destination = true } }, MoveBefore = { 'move', { destination = true, after = false } },
    Bring = { 'bring', { destination = true } }, BringBefore = { 'bring', { destination = true, after = false } },
  }) do
    plug(name, function() M.run(tether, spec[1], spec[2]) end)
  end
  for _, wrapper in ipairs(M.wrappers) do
    plug('Wrap' .. wrapper:sub(1, 1):upper() .. wrapper:sub(2), function() M.run(tether, 'wrap', { wrapper = wrapper }) end)
  end
  plug('Swap', function() M.swap(tether) end)
  plug('Mark', function() M.mark() end)
end

return M
