-- Structural selection in Neovim: each buffer keeps its cursor node ids between commands, so
-- `:TetherSelect selectMethods` then `:TetherSelect selectFirst` selects the first method of each class. The
-- first range becomes the visual selection, every range is highlighted, `]s` / `[s` jump between them. A move of
-- the cursor that is not ours, or an edit, clears the state; an empty result clears it quietly; errors are a
-- message, the state stays.
local M = {}

local ns = vim.api.nvim_create_namespace('tether_selection')
local state = {} -- bufnr -> { ids = {...}, ranges = {...}, expect = {row, col} }

local function byte_col(bufnr, line, character)
  local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] or ''
  local ok, col = pcall(vim.str_byteindex, text, character, true)
  return ok and col or #text
end

--- The LSP range as (row 1-based, col 0-based) start and the start of its last character (inclusive end).
local function span(bufnr, r)
  local srow, scol = r.start.line + 1, byte_col(bufnr, r.start.line, r.start.character)
  local erow, ecol = r['end'].line + 1, byte_col(bufnr, r['end'].line, r['end'].character)
  if ecol > 0 then
    local text = vim.api.nvim_buf_get_lines(bufnr, erow - 1, erow, false)[1] or ''
    ecol = ecol - 1
    ecol = ecol - vim.str_utf_start(text, ecol + 1) -- back to the first byte of the last character
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
    local srow, scol = r.start.line, byte_col(bufnr, r.start.line, r.start.character)
    local erow, ecol = r['end'].line, byte_col(bufnr, r['end'].line, r['end'].character)
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
  local expect = select_range(bufnr, result.ranges[1])
  state[bufnr] = { ids = result.cursorNodeIds, ranges = result.ranges, expect = expect }
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

--- `]s` / `[s`: select the next / previous range of the current state.
function M.jump(direction)
  local bufnr = vim.api.nvim_get_current_buf()
  local s = state[bufnr]
  if not s then
    return
  end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local ranges = s.ranges
  local pick
  if direction > 0 then
    for _, r in ipairs(ranges) do
      if r.start.line > row then
        pick = r
        break
      end
    end
    pick = pick or ranges[1]
  else
    for i = #ranges, 1, -1 do
      if ranges[i].start.line < row then
        pick = ranges[i]
        break
      end
    end
    pick = pick or ranges[#ranges]
  end
  s.expect = select_range(bufnr, pick)
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
