-- A scripted Neovim session (headless): the real client in clients/nvim against the real server.
vim.opt.runtimepath:prepend(os.getenv('TETHER_NVIM'))
local tether = require('tether')
tether.setup({ cmd = { os.getenv('TETHER_PY'), '-m', 'tether_lsp' } })
vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
local out = {}
out.ready = tether.wait_ready(15000)
local marker, err = tether.add_marker(4, 8, 'use sum()')
out.created = marker and marker.note or tostring(err and err.message)
vim.api.nvim_buf_set_lines(0, 0, 0, false, { '# a line typed in Neovim' })
local markers = tether.list_markers() or {}
out.markers = {}
for _, m in ipairs(markers) do table.insert(out.markers, { note = m.note, line = m.range.start.line }) end
out.quickfix = #vim.fn.getqflist()
local sel = tether.select({ 'selectFunctions', 'selectName' })
out.selected = sel and #sel.ranges or 0
out.cursor = vim.api.nvim_win_get_cursor(0)
vim.api.nvim_win_set_cursor(0, { 2, 20 })
tether.active_editor()
local state = tether.playground()
out.prompt = state and state.prompt and state.prompt.anchor or vim.NIL
local f = io.open(os.getenv('TETHER_OUT'), 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qall!')
