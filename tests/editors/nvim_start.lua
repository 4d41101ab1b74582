-- What every headless Neovim session shares: the client on the runtime path and set up against the real server
-- (settings from TETHER_SETTINGS), keys fed as a user types them, and `run(steps, out)`, which runs the steps,
-- records an error instead of dying, writes `out` to TETHER_OUT as JSON and quits.
vim.opt.runtimepath:prepend(os.getenv('TETHER_NVIM'))
local tether = require('tether')
local settings = os.getenv('TETHER_SETTINGS')
tether.setup({
  cmd = { os.getenv('TETHER_PY'), '-m', 'tether_lsp' },
  settings = settings and vim.fn.json_decode(settings) or nil,
})

local M = { tether = tether }

function M.keys(text)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(text, true, false, true), 'tx', false)
end

function M.run(steps, out)
  local ok, err = pcall(steps)
  if not ok then
    out.error = tostring(err)
  end
  local f = io.open(os.getenv('TETHER_OUT'), 'w')
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd('qall!')
end

return M
