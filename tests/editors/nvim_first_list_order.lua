-- What the client sends while the server starts, recorded in order at Neovim's RPC layer: the buffer is attached
-- before the server's `initialize` answer is handled (BufReadPre starts the server, FileType attaches), and nothing
-- may reach the server before `initialized`; the file's markers are asked once, after its didOpen. Then a second
-- file opened with the client running: its markers asked once too (attach and BufEnter come together).
vim.g.loaded_python3_provider = 0 -- no pynvim probe in the ftplugin: FileType follows the read at once
local sent = {}
local rpc = require('vim.lsp.rpc')
local rpc_start = rpc.start
rpc.start = function(...)
  local r = rpc_start(...)
  for _, kind in ipairs({ 'request', 'notify' }) do
    local original = r[kind]
    r[kind] = function(method, params, ...)
      local doc = type(params) == 'table' and params.textDocument or nil
      table.insert(sent, { method = method, uri = doc and doc.uri or '' })
      return original(method, params, ...)
    end
  end
  return r
end
local at_filetype = nil
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function()
    if at_filetype == nil then
      local c = require('tether').client()
      at_filetype = c ~= nil and c.initialized == true
    end
  end,
})
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local markers = require('tether.markers')
local out = {}
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.initialized_at_filetype = at_filetype
  local ns = vim.api.nvim_create_namespace('tether_markers')
  out.drawn = vim.wait(20000, function()
    return #vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {}) > 0
  end, 10)
  out.sent_to_draw = vim.deepcopy(sent)
  vim.cmd('edit ' .. os.getenv('TETHER_SHAPES'))
  local second = vim.api.nvim_get_current_buf()
  out.second_listed = vim.wait(20000, function()
    return markers.by_buf[second] ~= nil
  end, 10)
  out.sent = sent
end, out)
