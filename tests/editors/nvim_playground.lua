-- The playground's floating window in headless Neovim: the prompt under the cursor, a variable set with `e`
-- (typed at the prompts as a user would), a run with `r` streaming into the window, the run in the history, and
-- the variable still there after the window is closed and opened again.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local playground = require('tether.playground')
local out = {}
local keys = start.keys
local function window_text()
  return table.concat(vim.api.nvim_buf_get_lines(playground.buf, 0, -1, false), '\n')
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  vim.api.nvim_win_set_cursor(0, { 1, 25 })
  tether.active_editor()
  vim.wait(5000, function() return tether.state and tether.state.prompt ~= vim.NIL and tether.state.prompt ~= nil end, 20)
  vim.cmd('TetherPlayground')
  out.opened = window_text()
  keys('e1<CR>Un café ☕<CR>') -- pick the first variable, type its value
  out.afterSet = window_text()
  keys('r')
  local partial = nil
  vim.wait(15000, function()
    local text = window_text()
    if playground.running and text:find('Traduction', 1, true) then partial = partial or text end
    return playground.running == nil and text:find('Runs:', 1, true) ~= nil
  end, 10)
  out.sawStreaming = partial ~= nil
  out.finished = window_text()
  keys('q')
  vim.cmd('TetherPlayground')
  out.reopened = window_text()
end, out)
