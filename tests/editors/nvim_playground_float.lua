-- The playground's float in a 100x30 editor: sized to its content (a long prompt line wrapped, every line shown),
-- then a run of 30 lines: while it streams, the newest line is in view; at its end, the window has grown to the
-- editor's height, inside the editor, scrolled to the end (the run in the history).
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local playground = require('tether.playground')
local out = {}
local function seen()
  local win = playground.win
  local config = vim.api.nvim_win_get_config(win)
  local row = type(config.row) == 'table' and config.row[false] or config.row -- 0.7 gives {[false] = n}
  return {
    width = config.width,
    height = config.height,
    inside = row + config.height + 2 <= vim.o.lines - vim.o.cmdheight and config.width + 2 <= vim.o.columns,
    wrap = vim.wo[win].wrap,
    first = vim.fn.line('w0'),
    last = vim.fn.line('w$'),
    lines = vim.fn.line('$'),
  }
end
start.run(function()
  vim.o.columns, vim.o.lines = 100, 30
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  vim.api.nvim_win_set_cursor(0, { 1, 20 })
  tether.active_editor()
  vim.wait(5000, function() return tether.state and tether.state.prompt ~= vim.NIL and tether.state.prompt ~= nil end, 20)
  vim.cmd('TetherPlayground')
  out.opened = seen()
  start.keys('r')
  vim.wait(15000, function()
    local text = table.concat(vim.api.nvim_buf_get_lines(playground.buf, 0, -1, false), '\n')
    if playground.running and text:find('line 20', 1, true) then
      local newest = 0
      for i, l in ipairs(vim.api.nvim_buf_get_lines(playground.buf, 0, -1, false)) do
        if l:match('^line %d+$') then newest = i end
      end
      out.streaming = out.streaming or { newest = newest, first = vim.fn.line('w0'), last = vim.fn.line('w$') }
    end
    return playground.running == nil and text:find('Runs:', 1, true) ~= nil
  end, 10)
  out.finished = seen()
  out.last = vim.api.nvim_buf_get_lines(playground.buf, -2, -1, false)[1]
  out.text = vim.api.nvim_buf_get_lines(playground.buf, 0, -1, false)
end, out)
