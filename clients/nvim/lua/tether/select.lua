-- Structural selection in Neovim: each buffer keeps its cursor node ids between commands, so
-- `:TetherSelect selectMethods` then `:TetherSelect selectFirst` selects the first method of each class. One range
-- is the visual selection (the current one), every range is highlighted, `]s` / `[s` make the next / previous
-- one current, and the next selector keeps the user there: its current range is the first one inside or around
-- the range the user was on (else the first after it). A move of the cursor that is not ours, or an edit, clears
-- the state; a selector that finds nothing and an error are a message, the cursors stay (the next selector goes on
-- from them). The cursors are node ids of one version of the buffer (`version`): an action sends them with it.
local offsets = require('tether.offsets')
local M = {}

local ns = vim.api.nvim_create_namespace('tether_selection')
local state = {} -- bufnr -> { ids = {...}, ranges = {...}, current = index, expect = {row, col}, version = n }

--- The version of the buffer the server knows (the one its ids belong to).
function M.version(bufnr)
  return vim.lsp.util.buf_versions[bufnr] or 0
end

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

--- The buffer's structural cursors: their ids, the version they were found in and their ranges, or nil.
function M.cursors(bufnr)
  local s = state[bufnr]
  if s then
    return s.ids, s.version, s.ranges
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

--- Make LSP range `r` of `bufnr` (in the current window) the visual selection; returns where the cursor ends.
function M.select_range(bufnr, r)
  local srow, scol, erow, ecol = span(bufnr, r)
  if vim.fn.mode():match('^[vV\22]') then
    vim.cmd('normal! \27') -- leave a visual selection first
  end
  vim.api.nvim_win_set_cursor(0, { srow, scol })
  vim.cmd('normal! v')
  vim.api.nvim_win_set_cursor(0, { erow, ecol })
  return { erow, ecol }
end

local function declared_args(catalogue, selector)
  for _, s in ipairs(catalogue or {}) do
    if s.name == selector then
      return s.args
    end
  end
end

--- Integers as the selector declares them (`int`/`nat`), the rest as text.
local function typed(catalogue, selector, texts)
  local declared = declared_args(catalogue, selector)
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

--- A typed step's arguments: the text after the colon split at commas, except that a text argument that comes
--- last takes the rest, commas included (`filterText:^(a|b),c$`).
function M.split_args(catalogue, selector, rest)
  if rest == nil or rest == '' then
    return {}
  end
  local declared = declared_args(catalogue, selector) or {}
  local last = declared[#declared]
  local out, from = {}, 1
  while true do
    if last and last.type == 'str' and #out == #declared - 1 then
      table.insert(out, rest:sub(from))
      return out
    end
    local comma = rest:find(',', from, true)
    if not comma then
      table.insert(out, rest:sub(from))
      return out
    end
    table.insert(out, rest:sub(from, comma - 1))
    from = comma + 1
  end
end

local function line_text(bufnr, row)
  return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
end

--- selectAt / selectRange typed as Neovim shows positions (the ruler's line and column, from 1; selectRange's end
--- column is that of its last character, included), as the LSP positions the server takes. Anything that is not
--- a whole number is left for the server to refuse.
local function positions(bufnr, selector, args)
  local function point(line, col, inclusive_end)
    if type(line) ~= 'number' or type(col) ~= 'number' or line < 1 or col < 1 then
      return line, col
    end
    local text = line_text(bufnr, line - 1)
    local byte = col - 1
    if inclusive_end and byte < #text then
      byte = byte + vim.str_utf_end(text, byte + 1) + 1 -- past the last character's last byte
    end
    return line - 1, offsets.character(text, byte)
  end
  if selector == 'selectAt' and #args == 2 then
    local line, character = point(args[1], args[2], false)
    return { line, character }
  elseif selector == 'selectRange' and #args == 4 then
    local sl, sc = point(args[1], args[2], false)
    local el, ec = point(args[3], args[4], true)
    return { sl, sc, el, ec }
  end
  return args
end

--- How a selector's arguments are typed: `selectRange:startLine,startCharacter,endLine,endCharacter`.
local function usage(catalogue, selector)
  local names = {}
  for _, a in ipairs(declared_args(catalogue, selector) or {}) do
    table.insert(names, a.name)
  end
  return #names > 0 and (selector .. ':' .. table.concat(names, ',')) or selector
end

--- The visual selection as one LSP range without the blank space at its ends (a selection of whole lines is held
--- by the code on them, not by what also holds the next line), or nil outside visual mode / without a range.
--- `command` is the user command's table: `:'<,'>TetherSelect` gives the marks' lines, a <Cmd> mapping none.
function M.visual_range(bufnr, command)
  local a, b
  local mode = vim.fn.mode()
  if mode:match('^[vV\22]') then
    a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  elseif command and command.range and command.range > 0 then
    a, b = vim.fn.getpos("'<"), vim.fn.getpos("'>")
    if a[2] ~= command.line1 or b[2] ~= command.line2 then -- a typed :4,8 range: those lines whole
      a, b = { 0, command.line1, 1, 0 }, { 0, command.line2, vim.v.maxcol or 2147483647, 0 }
    end
    mode = vim.fn.visualmode()
  else
    return nil
  end
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then
    a, b = b, a
  end
  -- 0-based rows; the start's byte, the end's byte just past the selection
  local srow, scol, erow, ecol = a[2] - 1, a[3] - 1, b[2] - 1, b[3]
  local etext = line_text(bufnr, erow)
  if mode == 'V' then
    scol, ecol = 0, #etext
  elseif ecol >= #etext then
    ecol = #etext
  else
    ecol = ecol + vim.str_utf_end(etext, ecol) -- the last character whole
  end
  while srow < erow or scol < ecol do -- the start past blank space (line ends included)
    local first = line_text(bufnr, srow):find('%S', scol + 1)
    if first and (srow < erow or first - 1 < ecol) then
      scol = first - 1
      break
    end
    if srow == erow then
      break
    end
    srow, scol = srow + 1, 0
  end
  while true do -- the end before blank space
    local kept = #(line_text(bufnr, erow):sub(1, ecol):match('^(.-)%s*$'))
    if erow <= srow then
      ecol = math.max(kept, scol)
      break
    end
    if kept > 0 then
      ecol = kept
      break
    end
    erow, ecol = erow - 1, #line_text(bufnr, erow - 1)
  end
  return {
    start = { line = srow, character = offsets.character(line_text(bufnr, srow), scol) },
    ['end'] = { line = erow, character = offsets.character(line_text(bufnr, erow), ecol) },
  }
end

--- Apply one selector (name, args as text) to the current buffer's cursors, or, when there are none, to the code
--- holding `start` (an LSP range: the visual selection) if given. Returns the result or nil, err.
function M.apply(tether, selector, args, start)
  local bufnr = vim.api.nvim_get_current_buf()
  local s = state[bufnr]
  local catalogue = tether.selectors()
  local declared = declared_args(catalogue, selector)
  if declared and #declared ~= #(args or {}) then -- said here, with how to type them (the server speaks of JSON)
    local message = string.format('Tether: %s takes %d argument%s, got %d; type %s', selector, #declared,
      #declared == 1 and '' or 's', #(args or {}), usage(catalogue, selector))
    if selector == 'selectAt' or selector == 'selectRange' then
      message = message .. " (the ruler's numbers)"
    end
    vim.notify(message, vim.log.levels.WARN)
    return nil, { message = message }
  end
  local params = {
    uri = vim.uri_from_bufnr(bufnr),
    selector = selector,
    args = positions(bufnr, selector, typed(catalogue, selector, args or {})),
    cursorNodeIds = s and s.ids or {},
  }
  if not s and start then
    params.ranges = { start }
  end
  local result, err = tether.request('tether/applySelector', params)
  if err then
    vim.notify('Tether: ' .. selector .. ': ' .. (err.message or tostring(err)), vim.log.levels.WARN)
    return nil, err
  end
  if not result or #result.cursorNodeIds == 0 then -- the cursors, their highlights and the selection stay
    if s then
      s.expect = M.select_range(bufnr, s.ranges[s.current]) -- again, if `:` from visual mode ended it
    end
    vim.notify('Tether: ' .. selector .. ': nothing matched' .. (s and ' (the cursors stay)' or ''), vim.log.levels.INFO)
    return result
  end
  highlight(bufnr, result.ranges)
  local current = related(result.ranges, s and s.ranges[s.current])
  local expect = M.select_range(bufnr, result.ranges[current])
  state[bufnr] = {
    ids = result.cursorNodeIds, ranges = result.ranges, current = current, expect = expect, version = M.version(bufnr),
  }
  return result
end

--- A chain typed at once (`selectMethods selectFirst`, `selectAt:10,9 selectName`), continuing from the current
--- cursors, or, when there are none, starting from `start` (the visual selection's range) if given.
function M.chain(tether, steps, start)
  local result
  for _, step in ipairs(steps) do
    local name, rest = step:match('^([^:]+):(.*)$')
    name = name or step
    local err
    result, err = M.apply(tether, name, M.split_args(tether.selectors(), name, rest), start)
    start = nil
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
  s.expect = M.select_range(bufnr, s.ranges[s.current])
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
