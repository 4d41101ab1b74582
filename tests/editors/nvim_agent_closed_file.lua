-- Attached mode: an agent (tests/editors/mcp_agent.py) edits a file the user does not have open. The edit is
-- written to disk and the buffer Neovim made for it goes away again: nothing new in :ls, no hidden buffer.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local out = {}
local function listed()
  local names = {}
  for _, line in ipairs(vim.split(vim.fn.execute('ls'), '\n')) do
    local name = line:match('"(.-)"')
    if name then
      table.insert(names, vim.fn.fnamemodify(name, ':t'))
    end
  end
  return names
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  local state = os.getenv('TETHER_STATE')
  local done, said = false, ''
  local agent = vim.fn.jobstart({
    os.getenv('TETHER_PY'), os.getenv('TETHER_AGENT'), state, os.getenv('TETHER_CLOSED'),
    os.getenv('TETHER_OLD'), os.getenv('TETHER_NEW'), os.getenv('TETHER_AGENT_OUT'),
  }, {
    on_stdout = function(_, data) said = said .. table.concat(data, '\n') end,
    on_exit = function(_, code) out.agentExit = code; done = true end,
  })
  out.ready = tether.wait_ready(15000)
  out.endpoint = vim.wait(15000, function() return #vim.fn.glob(state .. '/*.json', false, true) > 0 end, 20)
  out.before = listed()
  out.buffersBefore = #vim.api.nvim_list_bufs()
  vim.fn.chansend(agent, 'edit\n')
  out.agentEdited = vim.wait(60000, function() return done or said:find('edit\n', 1, true) ~= nil end, 20) and not done
  vim.cmd('redraw')
  out.after = listed()
  out.lsBang = vim.fn.execute('ls!')
  out.afterAll = {} -- unlisted ones too (:ls!)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    table.insert(out.afterAll, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':t'))
  end
  out.current = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t')
  vim.fn.chanclose(agent, 'stdin')
  out.agentDone = vim.wait(30000, function() return done end, 20)
end, out)
