-- The server starts as a Python file is read, before FileType's work (the filetype's own plugin comes first there:
-- Python's probes the interpreters for pynvim), and FileType attaches the buffer to that one client; its markers
-- are then drawn. A FileType autocommand defined before the client's set-up notes whether the client was started.
local ran = nil
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function()
    if ran == nil then
      ran = require('tether').client() ~= nil -- uninitialized clients too (get_clients lists initialized ones)
    end
  end,
})
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local out = {}
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.running_at_filetype = ran
  local ns = vim.api.nvim_create_namespace('tether_markers')
  out.drawn = vim.wait(20000, function()
    return #vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {}) > 0
  end, 10)
  out.clients = #(vim.lsp.get_clients or vim.lsp.get_active_clients)()
  out.attached = tether.attached(0)
end, out)
