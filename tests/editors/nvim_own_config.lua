-- Neovim 0.11, the configuration written by the user (docs/editors/neovim.md): vim.lsp.config('tether', { cmd })
-- and vim.lsp.enable('tether'), then require('tether').setup() for the commands. The server starts with the
-- user's command (no `tether-lsp` is on PATH), Tether's handlers and buffer set-up are there, the commands work.
vim.opt.runtimepath:prepend(os.getenv('TETHER_NVIM'))
local cmd = { os.getenv('TETHER_PY'), '-m', 'tether_lsp' }
vim.lsp.config('tether', {
  cmd = cmd,
  filetypes = { 'python' },
  init_options = { tether = { log = { level = 'warning' } } },
})
vim.lsp.enable('tether')
local tether = require('tether')
tether.setup()
local markers = require('tether.markers')
local out = {}
local ok, err = pcall(function()
  out.onPath = vim.fn.executable('tether-lsp')
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  local c = tether.client()
  out.cmd = c and c.config.cmd or vim.NIL
  out.initOptions = c and c.config.init_options or vim.NIL
  out.stateHandler = c ~= nil and c.config.handlers['tether/playground/didChangeState'] ~= nil
  local buf = vim.api.nvim_get_current_buf()
  out.markersListed = vim.wait(10000, function() return markers.by_buf[buf] ~= nil end, 20) -- LspAttach
  out.bracketS = vim.fn.maparg(']s', 'n') ~= ''
  local result = tether.select({ 'selectFunctions' })
  out.selected = result and #result.cursorNodeIds or 0
end)
if not ok then
  out.error = tostring(err)
end
local f = io.open(os.getenv('TETHER_OUT'), 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qall!')
