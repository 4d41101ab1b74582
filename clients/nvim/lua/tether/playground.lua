-- The prompt playground in a floating window: the active file's prompts (▶ the selected one, and why), the
-- prompt's text, its variables with their values, its own output (its run as it streams in, else its last stored
-- run's answer: never another prompt's), and its last runs.
-- Keys in the window: `e` set a variable, `r` run, `c` cancel, `p` pin / unpin, `q` close. Variables are saved
-- with the prompt (`tether/playground/setSettings`), so they come back when the prompt is selected again.
-- The float is sized to its content inside the editor (as wide as its longest line up to `max_width`, long
-- lines wrapped, as tall as its lines up to the editor's height) and scrolls like any window; while a run streams
-- it follows the newest line, unless the user moved the cursor away.
local M = {
  win = nil, buf = nil,
  running = nil, -- the request id of the run under way (one at a time), and its prompt:
  running_prompt = nil, -- { promptId = …, anchor = … }
  outputs = {}, -- promptId -> { text = …, lastRun = createdAt of the stored run it comes from, or nil }
  values = {}, runs = {}, fetching = {}, follow = false, max_width = 100,
}
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

local fetch -- below: a prompt's settings and runs, read without waiting

function M.render(tether)
  if not (M.buf and vim.api.nvim_buf_is_valid(M.buf)) then
    return
  end
  local s = state(tether) or {}
  local out, output_end = {}, nil
  local p = s.prompt ~= vim.NIL and s.prompt or nil
  if p and not M.values[p.promptId] then
    fetch(tether, p)
  end
  table.insert(out, 'Prompts' .. (s.file and (' of ' .. vim.fn.fnamemodify(vim.uri_to_fname(s.file.uri), ':t')) or ''))
  for _, item in ipairs(s.prompts or {}) do
    local mark = (p and p.promptId == item.promptId) and '▶ ' or '  '
    table.insert(out, mark .. item.anchor .. '  ' .. item.preview)
  end
  table.insert(out, '')
  if not p then
    table.insert(out, 'Put the cursor on a prompt (its name or its text) to select it.')
  else
    local pinned = s.pin and s.pin.promptId == p.promptId
    table.insert(out, p.anchor .. '  [' .. p.reason .. (pinned and ', pinned' or '') .. (p.role ~= vim.NIL and p.role and (', ' .. p.role) or '') .. ']')
    vim.list_extend(out, lines_of(p.content))
    local values = M.values[p.promptId] or {}
    for _, name in ipairs(p.variables or {}) do
      table.insert(out, '  ' .. name .. ' = ' .. (values[name] or '(not set: e)'))
    end
    local running_here = M.running and M.running_prompt and M.running_prompt.promptId == p.promptId
    local output = M.outputs[p.promptId]
    if output then
      table.insert(out, '')
      if running_here then
        table.insert(out, 'Output (running, c cancels):')
      else
        table.insert(out, output.lastRun and ('Output (last run, ' .. output.lastRun .. '):') or 'Output:')
      end
      vim.list_extend(out, lines_of(output.text))
      output_end = #out
    end
    if M.running and not running_here then
      table.insert(out, '')
      table.insert(out, 'Running: ' .. M.running_prompt.anchor .. ' (c cancels it)')
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
    if M.follow and output_end then -- the newest output line while running, the end once the run is over
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

local function saved_values(saved)
  local values = {}
  if type(saved) == 'table' and type(saved.variables) == 'table' then
    for k, v in pairs(saved.variables) do
      if type(v) == 'string' then
        values[k] = v
      end
    end
  end
  return values
end

--- The prompt's stored runs; with no output of this session, its last run's answer is its output.
local function got_runs(p, runs)
  M.runs[p.promptId] = type(runs) == 'table' and runs or {}
  local last = M.runs[p.promptId][1]
  if not M.outputs[p.promptId] and last then
    M.outputs[p.promptId] = { text = last.output, lastRun = last.createdAt }
  end
end

--- A prompt's saved variables and its runs, read before it is first shown or run (synchronous: a key waits).
local function load(tether, p)
  if M.values[p.promptId] then
    return
  end
  M.values[p.promptId] = saved_values(tether.request('tether/playground/getSettings', { promptId = p.promptId }))
  got_runs(p, tether.request('tether/playground/runs', { promptId = p.promptId, limit = 3 }))
end

--- The same without waiting, for a prompt the cursor moved to while the window is open: drawn again once read.
fetch = function(tether, p)
  if M.values[p.promptId] or M.fetching[p.promptId] then
    return
  end
  M.fetching[p.promptId] = true
  tether.request_async('tether/playground/getSettings', { promptId = p.promptId }, function(_, saved)
    tether.request_async('tether/playground/runs', { promptId = p.promptId, limit = 3 }, function(_, runs)
      M.fetching[p.promptId] = nil
      if not M.values[p.promptId] then
        M.values[p.promptId] = saved_values(saved)
        got_runs(p, runs)
      end
      M.render(tether)
    end)
  end)
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

--- Why a run was refused or failed, as the window shows it: a missing variable says which key sets it.
local function failure(err)
  if err.code == -32800 then
    return 'cancelled'
  end
  local data = type(err.data) == 'table' and err.data or {}
  if data.kind == 'missingVariable' and type(data.missing) == 'table' then
    local n = #data.missing
    return string.format('no value for %s %s: press e to set %s, then r to run', n == 1 and 'the variable' or 'the variables',
      table.concat(data.missing, ', '), n == 1 and 'it' or 'them')
  end
  return err.message or 'failed'
end

function M.run(tether)
  local c, p = tether.client(), selected(tether)
  if not c or not p or M.running then
    return
  end
  load(tether, p)
  local output = { text = '' }
  M.outputs[p.promptId] = output
  M.follow = true
  local variables = M.values[p.promptId]
  if vim.tbl_isempty(variables) then
    variables = vim.empty_dict() -- an object, not the array an empty table encodes as
  end
  local ok, id = tether.request_async('tether/playground/run', { promptId = p.promptId, variables = variables }, function(err, result)
    M.running, M.running_prompt = nil, nil
    if err then
      output.text = (output.text ~= '' and (output.text .. '\n') or '') .. '[' .. failure(err) .. ']'
    else
      output.text = result.output
      got_runs(p, tether.request('tether/playground/runs', { promptId = p.promptId, limit = 3 }))
    end
    M.render(tether)
  end)
  M.running = ok and id or nil
  M.running_prompt = ok and { promptId = p.promptId, anchor = p.anchor } or nil
  M.render(tether)
end

function M.cancel(tether)
  local c = tether.client()
  if c and M.running then
    tether.cancel_request(M.running)
    local output = M.outputs[M.running_prompt.promptId]
    M.running, M.running_prompt = nil, nil
    if output then
      output.text = output.text .. '\n[cancelled]'
    end
    M.render(tether)
  end
end

--- A piece of the running answer: it belongs to the prompt being run, whichever prompt is shown.
function M.on_output(tether, delta)
  local output = M.running and M.outputs[M.running_prompt.promptId]
  if output then
    output.text = output.text .. delta
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
  tether.ready(5000) -- opened as the file opens: the server first, so it hears where the cursor is
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
