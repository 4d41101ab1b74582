-- In Neovim, the server's inline completion (:TetherComplete, the fake model) rewrites the last of two
-- methods, accepted with <Tab>; each buffer's text is recorded as the user leaves it. From a line opened above
-- the method (`O`, indented by Neovim), from the separator with spaces typed on it, from a line with no
-- indentation in the class body (`O`, then 0 CTRL-D); and an answer that fits at neither column: not offered,
-- a warning shown. :TetherPreview of that answer warns and writes nothing.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local keys = start.keys
local out = { warnings = {} }
local notify = vim.notify
vim.notify = function(message, level, ...) -- what the user is shown, kept for the test
  if level == vim.log.levels.WARN then table.insert(out.warnings, message) end
  return notify(message, level, ...)
end
local shown = vim.lsp.handlers['window/showMessage']
vim.lsp.handlers['window/showMessage'] = function(err, result, ctx, config)
  if result and result.type == 2 then table.insert(out.warnings, result.message) end
  return shown(err, result, ctx, config)
end
-- the completion asked for from insert mode, where the cursor is (a mapping leaves the line as it is); the line
-- and whether a preview shows are noted then (keys are fed as one sequence: insert mode ends with them)
local at = {}
vim.keymap.set('i', '<F5>', function()
  at.line = vim.api.nvim_get_current_line()
  vim.cmd('TetherComplete')
  at.pending = require('tether.preview').pending() ~= nil
end)
local dir = vim.fn.fnamemodify(os.getenv('TETHER_FILE'), ':h')
local function text()
  return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n') .. '\n'
end
local function open(name)
  vim.cmd('edit ' .. dir .. '/' .. name)
  assert(tether.wait_ready(15000), 'the server did not start')
end
start.run(function()
  open('opened.py')
  vim.api.nvim_win_set_cursor(0, { 5, 4 })
  keys('O<F5><Esc><Tab>')
  out.openedLine, out.openedPending, out.opened = at.line, at.pending, text()

  open('separator.py')
  vim.api.nvim_win_set_cursor(0, { 4, 0 })
  keys('i    <F5><Esc><Tab>')
  out.separatorPending, out.separator = at.pending, text()

  open('noindent.py')
  vim.api.nvim_win_set_cursor(0, { 5, 4 })
  keys('O0<C-d><F5><Esc><Tab>')
  out.noIndentLine, out.noIndentPending, out.noIndent = at.line, at.pending, text()

  open('broken.py')
  vim.api.nvim_win_set_cursor(0, { 5, 4 })
  keys('O0<C-d><F5><Esc><Tab>')
  out.brokenLine, out.brokenPending = at.line, at.pending
  vim.cmd('TetherPreview ' .. os.getenv('TETHER_BROKEN'))
  out.broken = text()
end, out)
