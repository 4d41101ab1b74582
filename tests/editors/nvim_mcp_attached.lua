-- Attached mode in Neovim: the user types a line at the top (unsaved), then an agent (tests/editors/mcp_agent.py)
-- edits the function below through the server's MCP endpoint; the edit lands in the buffer, and `u` takes back
-- the agent's edit alone.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local out = {}
local function lines()
  return vim.api.nvim_buf_get_lines(0, 0, -1, false)
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  local state = os.getenv('TETHER_STATE')
  -- the agent starts now (its imports take a while) and acts when told
  local done = false
  local agent = vim.fn.jobstart({
    os.getenv('TETHER_PY'), os.getenv('TETHER_AGENT'), state, 'calc.py',
    '        s += i', '        s += i * 2', os.getenv('TETHER_AGENT_OUT'),
  }, {
    on_exit = function(_, code)
      out.agent_exit = code
      done = true
    end,
  })
  out.ready = tether.wait_ready(15000)
  out.endpoint = vim.wait(15000, function()
    return #vim.fn.glob(state .. '/*.json', false, true) > 0
  end, 20)
  start.keys('ggOimport sys<Esc>')
  -- a request sends the pending didChange first: the server holds the typed line before the agent reads
  vim.lsp.buf_request_sync(0, 'tether/listSelectors', {}, 5000)
  vim.fn.chansend(agent, 'go\n')
  out.agent_done = vim.wait(60000, function()
    return done
  end, 20)
  out.after_edit = lines()
  out.modified = vim.bo.modified
  start.keys('u')
  out.after_undo = lines()
end, out)
