-- Structural selection in Neovim: each buffer keeps its cursor node ids between commands, so
-- `:TetherSelect selectMethods` then `:TetherSelect selectFirst` selects the first method of each class. One range
-- is the visual selection (the current one), every range is highlighted, `]s` / `[s` make the next / previous
-- one current, and the next selector keeps the user there: its current range is the first one inside or around
-- the range the user was on (else the first after it). A move of the cursor that is not ours, or an edit, clears
-- the state; an empty result clears it quietly; errors are a message, the state stays.
local offsets = require('tether.offsets')
local M = {}

local ns = vim.api.nvim_create_namespace('tether_selection')
local state = {} -- bufnr -> { ids = {...}, ranges = {...}, current = index, expect = {row, col} }

--- The LSP range as (row 1-based, col 0-based) start and the start of its last character (inclusive end).
local function span(bufnr, r)
  local srow, scol = r.start.line + 1, offsets.buf_byte_col(bufnr, r.start.line, r.start.character)
  local erow, ecol = r['end'].line + 1, offsets.buf_byte_col(bufnr, r['end'].line, r['end'].character)
  if ecol > 0 then
    local text = vim.api.nvim_buf_get_lines(bufnr, erow - 1, erow, false)[1] or ''
    ecol = ecol - 1
    ecol = ecol + vim.str_utf_start(text, ecol + 1) -- back to the first byte of the last character
  elseif erow > srow then
    erow = erow - 1
    local text = vim.api.nvim_buf_get_lines(bufnr, erow - 1, erow, false)[1] or ''
    ecol = math.max(#text - 1, 0)
  end
  return srow, scol, erow, ecol
end

function M.clear(bufnr)
  state[bufnr] = nil
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  end
end

function M.count(bufnr)
  local s = state[bufnr or vim.api.nvim_get_current_buf()]
  return s and #s.ids or 0
end

--- CursorMoved: our own move (to where we put the cursor) keeps the state; any other clears it.
function M.cursor_moved(bufnr)
  local s = state[bufnr]
  if not s then
    return
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  if s.expect and pos[1] == s.expect[1] and pos[2] == s.expect[2] then
    return
  end
  M.clear(bufnr)
end

local function highlight(bufnr, ranges)
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  for _, r in ipairs(ranges) do
    local srow, scol = r.start.line, offsets.buf_byte_col(bufnr, r.start.line, r.start.character)
    local erow, ecol = r['end'].line, offsets.buf_byte_col(bufnr, r['end'].line, r['end'].character)
    pcall(vim.api.nvim_buf_set_extmark, bufnr, ns, srow, scol, { end_row = erow, end_col = ecol, hl_group = 'TetherSelection' })
  end
end

local function select_range(bufnr, r)
  local srow, scol, erow, ecol = span(bufnr, r)
  if vim.fn.mode():match('^[vV\22]') then
    vim.cmd('normal! \27') -- leave a visual selection first
  end
  vim.api.nvim_win_set_cursor(0, { srow, scol })
  vim.cmd('normal! v')
  vim.api.nvim_win_set_cursor(0, { erow, ecol })
  return { erow, ecol }
end

--- Integers as the selector declares them (`int`/`nat`), the rest as text.
local function typed(catalogue, selector, texts)
  local declared
  for _, s in ipairs(catalogue or {}) do
    if s.name == selector then
      declared = s.args
    end
  end
  local out = {}
  for k, text in ipairs(texts) do
    local kind = declared and declared[k] and declared[k].type
    if (kind == 'int' or kind == 'nat') and text:match('^%-?%d+$') then
      table.insert(out, tonumber(text))
    else
      table.insert(out, text)
    end
  end
  return out
end

local function before(a, b) -- position a before position b
  return a.line < b.line or (a.line == b.line and a.character < b.character)
end

--- The index of the range to show after a selector: the first inside or around `was` (the range the user was
--- on), else the first starting at or after it, else the first.
local function related(ranges, was)
  if not was then
    return 1
  end
  for i, r in ipairs(ranges) do
    if not before(r.start, was.start) and not before(was['end'], r['end']) then
      return i -- inside
    end
  end
  for i, r in ipairs(ranges) do
    if not before(was.start, r.start) and not before(r['end'], was['end']) then
      return i -- around
    end
  end
  for i, r in ipairs(ranges) do
    if not before(r.start, was.start) then
      return i
    end
  end
  return 1
end

--- Apply one selector (name, args as text) to the current buffer's cursors. Returns the result or nil, err.
function M.apply(tether, selector, args)
  local bufnr = vim.api.nvim_get_current_buf()
  local s = state[bufnr]
  local result, err = tether.request('tether/applySelector', {
    uri = vim.uri_from_bufnr(bufnr),
    selector = selector,
    args = typed(tether.selectors(), selector, args or {}),
    cursorNodeIds = s and s.ids or {},
  })
  if err then
    vim.notify('Tether: ' .. selector .. ': ' .. (err.message or tostring(err)), vim.log.levels.WARN)
    return nil, err
  end
  if not result or #result.cursorNodeIds == 0 then
    M.clear(bufnr)
    vim.notify('Tether: ' .. selector .. ': nothing matched', vim.log.levels.INFO)
    return result
  end
  highlight(bufnr, result.ranges)
  local current = related(result.ranges, s and s.ranges[s.current])
  local expect = select_range(bufnr, result.ranges[current])
  state[bufnr] = { ids = result.cursorNodeIds, ranges = result.ranges, current = current, expect = expect }
  return result
end

--- A chain typed at once (`selectMethods selectFirst`), continuing from the current cursors.
function M.chain(tether, steps)
  local result
  for _, step in ipairs(steps) do
    local name, arg = step:match('^([%w]+):?(.*)$')
    local err
    result, err = M.apply(tether, name, arg ~= '' and { arg } or {})
    if not result or #result.cursorNodeIds == 0 or err then
      return result, err
    end
  end
  return result
end

--- `]s` / `[s`: make the next / previous range current (a count moves further, past the end wraps around).
function M.jump(direction)
  local bufnr = vim.api.nvim_get_current_buf()
  local s = state[bufnr]
  if not s then
    return
  end
  local n = #s.ranges
  s.current = (s.current - 1 + direction * vim.v.count1) % n + 1
  s.expect = select_range(bufnr, s.ranges[s.current])
  vim.api.nvim_echo({ { string.format('Tether: %d of %d', s.current, n) } }, false, {})
end

function M.setup(group)
  vim.cmd('highlight default link TetherSelection Search')
  vim.api.nvim_create_autocmd('CursorMoved', {
    group = group,
    callback = function(args)
      M.cursor_moved(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    callback = function(args)
      M.clear(args.buf)
    end,
  })
end

return M
