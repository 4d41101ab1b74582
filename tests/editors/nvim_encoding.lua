-- Positions in the encoding the client negotiated (UTF-8 on 0.11, UTF-16 on 0.7), with accents, CJK and emoji
-- earlier on the line: the strings a selector highlights, a text inserted at the cursor by :TetherPreview, a
-- marker's range over a line ending in an emoji, the prompt under the cursor. Every vim.deprecate call is recorded (none is expected).
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local out = { deprecated = {}, notes = {} }
local notify = vim.notify
vim.notify = function(msg, ...)
  table.insert(out.notes, msg)
  return notify(msg, ...)
end
local deprecate = vim.deprecate
vim.deprecate = function(name, ...)
  table.insert(out.deprecated, name)
  return deprecate(name, ...)
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  out.encoding = tether.client().offset_encoding
  -- the strings a selector finds, as highlighted in the buffer
  vim.cmd('TetherSelect selectStrings')
  local ns = vim.api.nvim_get_namespaces()['tether_selection']
  out.highlighted = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
    local text = vim.api.nvim_buf_get_text(0, m[2], m[3], m[4].end_row, m[4].end_col, {})
    table.insert(out.highlighted, table.concat(text, '\n'))
  end
  vim.cmd('TetherSelectReset')
  vim.cmd('normal! \27')
  -- on each line, `!!` previewed (an insertion) with the cursor on the last quote
  out.inserted = {}
  for row = 1, vim.api.nvim_buf_line_count(0) do
    local line = vim.api.nvim_buf_get_lines(0, row - 1, row, false)[1]
    vim.api.nvim_win_set_cursor(0, { row, #line - 1 })
    vim.cmd('TetherPreview !!')
    table.insert(out.inserted, vim.api.nvim_buf_get_lines(0, row - 1, row, false)[1])
  end
  vim.cmd('silent! undo 0')
  -- a marker over lines 2-3: its range ends at the end of line 3 (an emoji)
  local marker = tether.add_marker(2, 3, 'accents and emoji')
  out.marker = marker and marker.range or vim.NIL
  -- two prompts on a line: the cursor in the second selects it
  vim.cmd('edit ' .. os.getenv('TETHER_PROMPTS'))
  local line = vim.api.nvim_get_current_line()
  vim.api.nvim_win_set_cursor(0, { 1, line:find('{b}', 1, true) - 1 })
  tether.active_editor()
  local state = tether.playground()
  out.prompt = state and state.prompt and state.prompt ~= vim.NIL and state.prompt.anchor or vim.NIL
end, out)
