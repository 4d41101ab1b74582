-- The prompt playground in a floating window: the active file's prompts (▶ the selected one, and why), the
-- prompt's text, its variables with their values, the output of a run as it streams in, and the last runs.
-- Keys in the window: `e` set a variable, `r` run, `c` cancel, `p` pin / unpin, `q` close. Variables are saved
-- with the prompt (`tether/playground/setSettings`), so they come back when the prompt is selected again.
-- The float is sized to its content inside the editor (as wide as its longest line up to `max_width`, long
-- lines wrapped, as tall as its lines up to the editor's height) and scrolls like any window; while a run streams
-- it follows the newest line, unless the user moved the cursor away.
local M = { win = nil, buf = nil, output = nil, running = nil, values = {}, runs = {}, follow = false, max_width = 100 }
local KEYS = 'e set a variable · r run · c cancel · p pin/unpin · q close'
local has_footer = vim.fn.has('nvim-0.10') == 1 -- a float's title and footer (0.9 has the title only)

local function state(tether)
  return tether.state or tether.request('tether/playground/getState', vim.empty_dict())
end

local function lines_of(text)
  local out = {}
  for line in ((text or '') .. '\n'):gmatch('([^\n]*)\n') do
    table.insert(out, line)
  end
  return out
end

function M.render(tether)
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    return
  end
  local s = state(tether) or {}
  local out, output_end = {}, nil
  local p = s.prompt
  table.insert(out, 'Prompts' .. (s.file and (' of ' .. vim.fn.fnamemodify(vim.uri_to_fname(s.file.uri), ':t')) or ''))
  for _, item in ipairs(s.prompts or {}) do
    local mark = (p and p.promptId == item.promptId) and '▶ ' or '  '
    table.insert(out, mark .. item.anchor .. '  ' .. item.preview)
  end
  table.insert(out, '')
  if not p then
    table.insert(out, 'Put the cursor in a prompt to select it.')
  else
    local pinned = s.pin and s.pin.promptId == p.promptId
    table.insert(out, p.anchor .. '  [' .. p.reason .. (pinned and ', pinned' or '') .. (p.role ~= vim.NIL and p.role and (', ' .. p.role) or '') .. ']')
    vim.list_extend(out, lines_of(p.content))
    local values = M.values[p.promptId] or {}
    for _, name in ipairs(p.variables or {}) do
      table.insert(out, '  ' .. name .. ' = ' .. (values[name] or '(not set: e)'))
    end
    if M.output then
      table.insert(out, '')
      table.insert(out, M.running and 'Output (running, c cancels):' or 'Output:')
      vim.list_extend(out, lines_of(M.output))
      output_end = #out
    end
    local runs = M.runs[p.promptId] or {}
    if #runs > 0 then
      table.insert(out, '')
      table.insert(out, 'Runs:')
      for k = 1, math.min(#runs, 3) do
        table.insert(out, '  ' .. runs[k].createdAt .. ' ' .. runs[k].model .. ': ' .. (lines_of(runs[k].output)[1] or ''))
      end
    end
  end
  if not has_footer then -- 0.7-0.9: the keys as the last line (0.10+: in the border, always in view)
    table.insert(out, '')
    table.insert(out, KEYS)
  end
  local win = M.win and vim.api.nvim_win_is_valid(M.win) and M.win or nil
  local cursor = win and vim.api.nvim_win_get_cursor(win)
  vim.bo[M.buf].modifiable = true
  vim.api.nvim_buf_set_lines(M.buf, 0, -1, false, out)
  vim.bo[M.buf].modifiable = false
  if win then
    M.layout()
    local target = cursor[1]
    if M.follow and M.output then -- the newest output line while running, the end once the run is over
      target = M.running and output_end or #out
    end
    M.moved = { math.min(math.max(target, 1), #out), 0 }
    vim.api.nvim_win_set_cursor(win, M.moved)
  end
end

--- The float's size and place for its content: inside the editor, right-aligned under the tabline.
local function geometry()
  local columns = vim.o.columns
  local max_height = math.max(vim.o.lines - vim.o.cmdheight - 4, 3) -- the tabline row, the border, a status line
  local widest = 0
  local lines = M.buf and vim.api.nvim_buf_get_lines(M.buf, 0, -1, false) or {}
  for _, line in ipairs(lines) do
    widest = math.max(widest, vim.fn.strdisplaywidth(line))
  end
  if has_footer then
    widest = math.max(widest, vim.fn.strdisplaywidth(KEYS) + 2)
  end
  local width = math.max(math.min(widest + 1, M.max_width, columns - 4), 1)
  local height = 0
  for _, line in ipairs(lines) do
    height = height + math.max(1, math.ceil(vim.fn.strdisplaywidth(line) / width))
  end
  return { width = width, height = math.max(math.min(height, max_height), 1), max_height = max_height }
end

function M.layout()
  if not (M.win and vim.api.nvim_win_is_valid(M.win)) then
    return
  end
  local g = geometry()
  vim.api.nvim_win_set_config(M.win, {
    relative = 'editor', row = 1, col = vim.o.columns - g.width - 2, width = g.width, height = g.height,
  })
  if vim.api.nvim_win_text_height then -- 0.10+: the height as drawn, word wrapping included
    local drawn = vim.api.nvim_win_text_height(M.win, {}).all
    if drawn ~= g.height then
      vim.api.nvim_win_set_height(M.win, math.max(math.min(drawn, g.max_height), 1))
    end
  end
end

local function selected(tether)
  local s = state(tether)
  return s and s.prompt ~= vim.NIL and s.prompt or nil
end

local function load(tether, p)
  if M.values[p.promptId] then
    return
  end
  local saved = tether.request('tether/playground/getSettings', { promptId = p.promptId })
  local values = {}
  if type(saved) == 'table' and type(saved.variables) == 'table' then
    for k, v in pairs(saved.variables) do
      if type(v) == 'string' then
        values[k] = v
      end
    end
  end
  M.values[p.promptId] = values
  local runs = tether.request('tether/playground/runs', { promptId = p.promptId, limit = 3 })
  M.runs[p.promptId] = type(runs) == 'table' and runs or {}
end

function M.set_variable(tether, name, value)
  local p = selected(tether)
  if not p then
    return
  end
  load(tether, p)
  M.values[p.promptId][name] = value
  local saved = tether.request('tether/playground/getSettings', { promptId = p.promptId })
  saved = type(saved) == 'table' and saved or {}
  saved.variables = M.values[p.promptId]
  tether.request('tether/playground/setSettings', { promptId = p.promptId, settings = saved })
  M.render(tether)
end

function M.run(tether)
  local c, p = tether.client(), selected(tether)
  if not c or not p or M.running then
    return
  end
  load(tether, p)
  M.output = ''
  M.follow = true
  local variables = M.values[p.promptId]
  if vim.tbl_isempty(variables) then
    variables = vim.empty_dict() -- an object, not the array an empty table encodes as
  end
  local ok, id = tether.request_async('tether/playground/run', { promptId = p.promptId, variables = variables }, function(err, result)
    M.running = nil
    if err then
      M.output = (M.output or '') .. '\n[' .. (err.code == -32800 and 'cancelled' or (err.message or 'failed')) .. ']'
    else
      M.output = result.output
      local runs = tether.request('tether/playground/runs', { promptId = p.promptId, limit = 3 })
      M.runs[p.promptId] = type(runs) == 'table' and runs or {}
    end
    M.render(tether)
  end)
  M.running = ok and id or nil
  M.render(tether)
end

function M.cancel(tether)
  local c = tether.client()
  if c and M.running then
    tether.cancel_request(M.running)
    M.running = nil
    M.output = (M.output or '') .. '\n[cancelled]'
    M.render(tether)
  end
end

--- A piece of the running answer.
function M.on_output(tether, delta)
  if M.running and M.output then
    M.output = M.output .. delta
    M.render(tether)
  end
end

function M.toggle_pin(tether)
  local s = state(tether)
  local p = s and s.prompt ~= vim.NIL and s.prompt or nil
  if s and s.pin and s.pin ~= vim.NIL then
    tether.state = tether.request('tether/playground/unpin', vim.empty_dict())
  elseif p then
    tether.state = tether.request('tether/playground/pin', { fileId = p.fileId, promptId = p.promptId })
  end
  M.render(tether)
end

function M.open(tether)
  if tether.attached(vim.api.nvim_get_current_buf()) then -- the cursor now, not as of the last debounced move
    tether.active_editor()
    tether.state = tether.request('tether/playground/getState', vim.empty_dict()) or tether.state
  end
  local p = selected(tether)
  if p then
    load(tether, p)
  end
  if M.win and vim.api.nvim_win_is_valid(M.win) then
    vim.api.nvim_set_current_win(M.win)
    M.render(tether)
    return M.win
  end
  M.buf = vim.api.nvim_create_buf(false, true)
  vim.bo[M.buf].bufhidden = 'wipe'
  local config = {
    relative = 'editor', width = math.min(60, vim.o.columns - 4), height = 1, row = 1, col = 1,
    style = 'minimal', border = 'rounded',
  }
  if has_footer then
    config.title, config.title_pos = ' Tether playground ', 'center'
    config.footer, config.footer_pos = ' ' .. KEYS .. ' ', 'center'
  end
  M.win = vim.api.nvim_open_win(M.buf, true, config)
  vim.wo[M.win].wrap = true
  if vim.api.nvim_win_text_height then -- 0.10+ measures the wrapped height; before, wrapping stays countable
    vim.wo[M.win].linebreak = true -- wrap at a space
    vim.wo[M.win].breakindent = true
  end
  M.follow = false
  local group = vim.api.nvim_create_augroup('tether_playground', { clear = true })
  vim.api.nvim_create_autocmd('CursorMoved', { -- the user's own move stops following the output
    group = group,
    buffer = M.buf,
    callback = function()
      local at = vim.api.nvim_win_get_cursor(0)
      if not (M.moved and at[1] == M.moved[1]) then
        M.follow = false
      end
    end,
  })
  vim.api.nvim_create_autocmd('VimResized', { group = group, callback = M.layout })
  vim.api.nvim_create_autocmd('WinClosed', {
    group = group,
    pattern = tostring(M.win),
    callback = function()
      pcall(vim.api.nvim_del_augroup_by_id, group)
    end,
  })
  local map = function(key, fn) vim.keymap.set('n', key, fn, { buffer = M.buf, nowait = true }) end
  map('q', function() vim.api.nvim_win_close(M.win, true) end)
  map('r', function() M.run(tether) end)
  map('c', function() M.cancel(tether) end)
  map('p', function() M.toggle_pin(tether) end)
  map('e', function()
    local q = selected(tether)
    if not q or not q.variables or #q.variables == 0 then
      return
    end
    vim.ui.select(q.variables, { prompt = 'Variable' }, function(name)
      if name then
        vim.ui.input({ prompt = name .. ' = ', default = (M.values[q.promptId] or {})[name] }, function(value)
          if value then M.set_variable(tether, name, value) end
        end)
      end
    end)
  end)
  M.render(tether)
  return M.win
end

return M
