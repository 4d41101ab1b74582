-- A task in headless Neovim: :TetherRun returns at once, a timer keeps ticking while the model streams, the
-- open file changes in its buffer and the closed one on disk; :TetherCancel on a second run undoes its change.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local tasks = require('tether.tasks')
local out = { notes = {} }
local notify = vim.notify
vim.notify = function(msg, level)
  table.insert(out.notes, msg)
  return notify(msg, level)
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  local ticks = 0
  local timer = vim.loop.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function() ticks = ticks + 1 end))
  vim.api.nvim_win_set_cursor(0, { tonumber(os.getenv('TETHER_TASK_LINE')) + 1, 0 })
  local done = false
  vim.cmd('TetherRun')
  out.returnedAtOnce = tasks.running ~= nil
  local ticksAtStart = ticks
  vim.wait(30000, function() return tasks.running == nil end, 20)
  out.ticks = ticks - ticksAtStart
  out.status = {}
  for _, e in ipairs(tasks.last.result and tasks.last.result.edits or {}) do
    table.insert(out.status, vim.fn.fnamemodify(vim.uri_to_fname(e.uri), ':t') .. ':' .. e.status)
  end
  out.buffer = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  out.hiddenModified = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified and b ~= vim.api.nvim_get_current_buf() then
      table.insert(out.hiddenModified, vim.api.nvim_buf_get_name(b))
    end
  end
  vim.cmd('write')
  -- a second run, cancelled while its change is being written
  vim.cmd('TetherRun')
  vim.wait(10000, function()
    return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'):find('CANCELLED_RUN', 1, true) ~= nil
  end, 20)
  out.writingSeen = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'):find('CANCELLED_RUN', 1, true) ~= nil
  vim.cmd('TetherCancel')
  vim.wait(10000, function() return tasks.running == nil end, 20)
  out.cancelCode = tasks.last.err and tasks.last.err.code or vim.NIL
  out.afterCancel = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  timer:stop()
end, out)
