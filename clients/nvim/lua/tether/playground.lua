-- The prompt playground in a floating window: the active file's prompts (▶ the selected one, and why), the
-- prompt's text, its variables with their values, the output of a run as it streams in, and the last runs.
-- Keys in the window: `e` set a variable, `r` run, `c` cancel, `p` pin / unpin, `q` close. Variables are saved
-- with the prompt (`tether/playground/setSettings`), so they come back when the prompt is selected again.
local M = { win = nil, buf = nil, output = nil, running = nil, values = {}, runs = {} }

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
  local out = {}
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
  table.insert(out, '')
  table.insert(out, 'e set a variable · r run · c cancel · p pin/unpin · q close')
  vim.bo[M.buf].modifiable = true
  vim.api.nvim_buf_set_lines(M.buf, 0, -1, false, out)
  vim.bo[M.buf].modifiable = false
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
  local ok, id = tether.request_async('tether/playground/run', { promptId = p.promptId, variables = M.values[p.promptId] }, function(err, result)
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
  local width = math.min(90, vim.o.columns - 4)
  local height = math.min(24, vim.o.lines - 4)
  M.win = vim.api.nvim_open_win(M.buf, true, {
    relative = 'editor', width = width, height = height, row = 1, col = vim.o.columns - width - 2,
    style = 'minimal', border = 'rounded',
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
