-- The playground's floating window in headless Neovim: the prompt under the cursor, a variable set with `e`
-- (typed at the prompts as a user would), a run with `r` streaming into the window, the run in the history, and
-- the variable still there after the window is closed and opened again.
vim.opt.runtimepath:prepend(os.getenv('TETHER_NVIM'))
local tether = require('tether')
local playground = require('tether.playground')
tether.setup({
  cmd = { os.getenv('TETHER_PY'), '-m', 'tether_lsp' },
  settings = vim.fn.json_decode(os.getenv('TETHER_SETTINGS')),
})
local out = {}
local function keys(text)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(text, true, false, true), 'tx', false)
end
local function window_text()
  return table.concat(vim.api.nvim_buf_get_lines(playground.buf, 0, -1, false), '\n')
end
local ok, err = pcall(function()
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
end)
if not ok then out.error = tostring(err) end
local f = io.open(os.getenv('TETHER_OUT'), 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qall!')
