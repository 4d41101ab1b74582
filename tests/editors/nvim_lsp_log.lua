-- What a short session leaves in Neovim's lsp.log: Neovim writes every line of a stdio server's stderr there as
-- [ERROR]. The session opens a file, lists its markers, adds one, runs a selector and asks for the playground,
-- then stops the server and reads the log: the server's stderr lines and the log's [ERROR] lines.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local out = {}
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  tether.list_markers()
  tether.add_marker(4, 8, 'use sum()', 'question')
  tether.select({ 'selectFunctions' })
  tether.playground()
  local c = tether.client()
  local id = c.id
  vim.lsp.stop_client(id)
  out.stopped = vim.wait(15000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
  out.log = vim.lsp.get_log_path()
  out.stderr, out.errors = {}, {}
  local lines = vim.fn.filereadable(out.log) == 1 and vim.fn.readfile(out.log) or {} -- 0.11 writes none when empty
  for _, line in ipairs(lines) do
    if line:find('stderr', 1, true) then
      table.insert(out.stderr, line)
    end
    if line:find('[ERROR]', 1, true) then
      table.insert(out.errors, line)
    end
  end
end, out)
