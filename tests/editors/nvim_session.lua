-- A scripted Neovim session (headless): the real client in clients/nvim against the real server. Keys are fed
-- as a user types them (feedkeys), so commands, visual mode and CursorMoved behave as they do for a user.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local select = require('tether.select')
local out = {}

local keys = start.keys

local function selected_text()
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then a, b = b, a end
  local lines = vim.api.nvim_buf_get_lines(0, a[2] - 1, b[2], false)
  lines[#lines] = lines[#lines]:sub(1, b[3])
  lines[1] = lines[1]:sub(a[3])
  return table.concat(lines, '\n')
end

start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_SHAPES'))
  out.ready = tether.wait_ready(15000)
  -- two selector commands: the second continues from the first's cursors
  keys(':TetherSelect selectMethods<CR>')
  out.methods = select.count()
  keys(':TetherSelect selectFirst<CR>')
  out.first = select.count()
  out.mode = vim.fn.mode()
  out.selected = selected_text()
  keys(']s')
  out.next = selected_text()
  keys('<Esc>gg') -- the user moves: the structural cursors are forgotten
  -- a headless Neovim fed keys with 'x' checks for CursorMoved only when it waits for input, which it never
  -- does here: say it, as the editor does when a user moves
  vim.cmd('doautocmd CursorMoved')
  out.afterMove = select.count()
  out.bad = select.apply(tether, 'selectNope', {}) == nil and 'message' or 'no error'

  -- markers: added on lines 4-8, a line typed above, the location list jumps to where the code is now
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  tether.wait_ready(15000)
  vim.cmd('4,8TetherMarkerAdd question: use sum()')
  vim.api.nvim_buf_set_lines(0, 0, 0, false, { '# a line typed in Neovim' })
  vim.cmd('TetherMarkers')
  out.loclist = #vim.fn.getloclist(0)
  vim.cmd('lclose')
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('lfirst')
  out.jumped = vim.api.nvim_win_get_cursor(0)
  out.jumpedBuffer = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t')
  vim.wait(3000, function()
    return #vim.api.nvim_buf_get_extmarks(0, vim.api.nvim_get_namespaces()['tether_markers'], 0, -1, {}) > 0
  end, 50)
  local marks = vim.api.nvim_buf_get_extmarks(0, vim.api.nvim_get_namespaces()['tether_markers'], 0, -1, { details = true })
  out.sign = marks[1] and { row = marks[1][2], note = marks[1][4].virt_text[1][1] } or vim.NIL
  vim.cmd('TetherMarkersAll')
  out.quickfix = #vim.fn.getqflist()
  vim.cmd('cclose')

  -- a longer replacement previewed as virtual lines under the struck function, accepted with <Tab> from line 1
  vim.cmd('edit ' .. os.getenv('TETHER_PREVIEW'))
  tether.wait_ready(15000)
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(0), 0 })
  vim.cmd('TetherPreview ' .. os.getenv('TETHER_LONGER'))
  local pns = vim.api.nvim_get_namespaces()['tether_preview']
  out.previewLines = {}
  out.struck = 0
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, pns, 0, -1, { details = true })) do
    if m[4].virt_lines then
      for _, chunks in ipairs(m[4].virt_lines) do table.insert(out.previewLines, chunks[1][1]) end
    elseif m[4].hl_group == 'TetherStruck' then
      out.struck = out.struck + 1
    end
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  keys('<Tab>')
  out.accepted = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  out.previewAfter = #vim.api.nvim_buf_get_extmarks(0, pns, 0, -1, {})
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))

  -- :checkhealth tether, read from the report buffer it opens
  vim.cmd('checkhealth tether')
  out.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('bwipeout!') -- back to calc.py

  vim.api.nvim_win_set_cursor(0, { 2, 20 })
  tether.active_editor()
  local state = tether.playground()
  out.prompt = state and state.prompt and state.prompt.anchor or vim.NIL
end, out)
