-- A marker's file moved by a commit, as a Neovim user meets it (Neovim does not watch .git/HEAD on Linux): a
-- marker on calc.py, `git mv calc.py pkg/calc.py` and a commit, then :TetherMarkersAll at once lists it in
-- pkg/calc.py; after `git checkout` of the commit before, in calc.py again. Nothing else is opened in between.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local out = {}

local function git(args)
  local said = vim.fn.system(args)
  if vim.v.shell_error ~= 0 then
    error(table.concat(args, ' ') .. ' failed: ' .. said)
  end
end

local function workspace_list()
  vim.cmd('TetherMarkersAll')
  local found = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(found, vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':.') .. ':' .. item.lnum .. ': ' .. item.text)
  end
  vim.cmd('cclose')
  return found
end

start.run(function()
  git({ 'git', 'add', 'calc.py' })
  git({ 'git', 'commit', '-q', '-m', 'calc' })
  local watched = vim.lsp.protocol.make_client_capabilities().workspace.didChangeWatchedFiles
  out.watchesHead = watched ~= nil and watched.dynamicRegistration == true
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  vim.cmd('4,8TetherMarkerAdd total could be sum()')
  out.before = workspace_list()
  vim.fn.mkdir('pkg', 'p')
  git({ 'git', 'mv', 'calc.py', 'pkg/calc.py' })
  git({ 'git', 'commit', '-q', '-m', 'move calc.py into pkg/' })
  out.moved = workspace_list()
  git({ 'git', 'checkout', '-q', 'HEAD~1' })
  out.back = workspace_list()
end, out)
