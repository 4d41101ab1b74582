-- Structural selection after `]s`: the next :TetherSelect continues from the match the user moved to, and
-- `]s` / `[s` step through the matches in order (wrapping around).
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local keys = start.keys
local out = { steps = {} }
local function selected()
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then a, b = b, a end
  local lines = vim.api.nvim_buf_get_lines(0, a[2] - 1, b[2], false)
  lines[#lines] = lines[#lines]:sub(1, b[3])
  lines[1] = lines[1]:sub(a[3])
  return a[2] .. ':' .. table.concat(lines, '\n'):match('^[^\n]*')
end
local function step(typed)
  keys(typed)
  table.insert(out.steps, selected())
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  step(':TetherSelect selectMethods<CR>')
  step(']s')
  step(':TetherSelect selectName<CR>')
  step(']s')
  step('[s')
  step('[s')
  step('[s')
  -- the same through the suggested <Cmd> keymaps (:help tether-keymaps), from normal mode
  keys('<Esc>gg')
  vim.cmd('doautocmd CursorMoved') -- headless: said as the editor does when a user moves
  vim.keymap.set('n', '<Leader>sm', '<Cmd>TetherSelect selectMethods<CR>')
  vim.keymap.set({ 'n', 'x' }, '<Leader>sn', '<Cmd>TetherSelect selectName<CR>')
  step('<Leader>sm')
  step(']s')
  step('<Leader>sn')
end, out)
