-- :TetherSelect with selectors of several arguments, typed as a user types them (arguments after a colon,
-- separated by commas; positions as the ruler shows them), and the visual selection as a chain's start:
-- `V` on a line, `v` on part of one, then `:'<,'>TetherSelect …` or a <Cmd> mapping in visual mode.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local select = require('tether.select')
local keys = start.keys
local out = { steps = {}, notes = {} }
local notify = vim.notify
vim.notify = function(msg, level)
  table.insert(out.notes, msg)
  return notify(msg, level)
end
local function selected()
  if not vim.fn.mode():match('^[vV]') then
    return vim.NIL
  end
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then a, b = b, a end
  local lines = vim.api.nvim_buf_get_lines(0, a[2] - 1, b[2], false)
  local last = lines[#lines]
  lines[#lines] = last:sub(1, b[3] + vim.str_utf_end(last, b[3]))
  lines[1] = lines[1]:sub(a[3])
  return table.concat(lines, '\n')
end
local function step(name, typed)
  keys(typed)
  out.steps[name] = { text = selected(), count = select.count(), typed = vim.fn.histget(':', -1) }
  keys('<Esc>')
  select.clear(vim.api.nvim_get_current_buf())
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  step('at', ':TetherSelect selectAt:' .. os.getenv('TETHER_AT') .. '<CR>')
  step('range', ':TetherSelect selectRange:' .. os.getenv('TETHER_RANGE') .. '<CR>')
  step('line', '5GV:TetherSelect selectName<CR>')
  step('part', '3G0f+wv$:TetherSelect selectByType:identifier<CR>')
  step('chainOnLine', '3GV:TetherSelect selectCalls selectArguments<CR>')
  vim.keymap.set('x', '<Leader>sn', '<Cmd>TetherSelect selectName<CR>')
  step('mapping', '2GV<Leader>sn')
  step('fromCursors', ':TetherSelect selectMethods<CR>]s:TetherSelect selectName<CR>') -- '<,'> typed for us
  out.notes = {}
  step('bad', ':TetherSelect selectRange:3<CR>')
  out.badNotes = out.notes
end, out)
