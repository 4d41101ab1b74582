-- The playground shows each prompt's own output. GREETING_PROMPT is run (its variable set with `e`); then the
-- cursor goes to ORDER_PROMPT's name (never run): nothing of the greeting's answer shows under it; `r` there
-- says which variables have no value and which key sets them; a prompt of another file shows no output either;
-- back on GREETING_PROMPT its answer is there again. With TETHER_AGAIN set (a later Neovim on the same
-- workspace) the window opened on GREETING_PROMPT shows its last stored run's answer.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local playground = require('tether.playground')
local keys = start.keys
local out = {}
local function window_text()
  return table.concat(vim.api.nvim_buf_get_lines(playground.buf, 0, -1, false), '\n')
end
local function shows(text)
  return vim.wait(10000, function() return window_text():find(text, 1, true) ~= nil end, 20)
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  local source = vim.api.nvim_get_current_win()
  out.ready = tether.wait_ready(15000)
  vim.api.nvim_win_set_cursor(0, { 1, 25 }) -- in GREETING_PROMPT's string
  vim.cmd('TetherPlayground')
  out.opened = shows('GREETING_PROMPT  [')
  if os.getenv('TETHER_AGAIN') then
    out.stored = shows('Hello, Ada!') and window_text() or window_text()
    return
  end
  keys('e1<CR>Ada<CR>')
  keys('r')
  vim.wait(15000, function() return playground.running == nil and window_text():find('Runs:', 1, true) ~= nil end, 20)
  out.greetingRun = window_text()

  vim.api.nvim_set_current_win(source) -- the user goes back to the code, to ORDER_PROMPT's name (line 2)
  vim.api.nvim_win_set_cursor(source, { 2, 0 })
  vim.cmd('doautocmd CursorMoved')
  out.orderSelected = shows('ORDER_PROMPT  [')
  out.order = window_text()
  vim.api.nvim_set_current_win(playground.win)
  keys('r')
  out.refused = vim.wait(10000, function() return playground.running == nil and window_text():find('[', 1, true) ~= nil end, 20)
  vim.wait(10000, function() return window_text():find('%[no value') ~= nil end, 20)
  out.orderRun = window_text()

  vim.api.nvim_set_current_win(source)
  vim.cmd('edit ' .. os.getenv('TETHER_OTHER')) -- a prompt of another file
  vim.api.nvim_win_set_cursor(0, { 1, 22 })
  vim.cmd('doautocmd CursorMoved')
  out.otherSelected = shows('SUMMARY_PROMPT  [')
  out.other = window_text()

  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  vim.api.nvim_win_set_cursor(0, { 1, 25 })
  vim.cmd('doautocmd CursorMoved')
  out.greetingSelected = shows('GREETING_PROMPT  [')
  shows('Hello, Ada!')
  out.greetingAgain = window_text()
end, out)
