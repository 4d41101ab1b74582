-- :checkhealth tether — is the server there, does it start, is a client attached (Neovim 0.7 and 0.10+ APIs).
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  start('tether')
  local v = vim.version()
  info(string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))
  local tether = require('tether')
  local cmd = tether.config().cmd -- on 0.11+ as Neovim resolved it: vim.lsp.config('tether', …) over setup()
  if type(cmd) ~= 'table' then
    info('the server is started by a function given as `cmd`')
  elseif vim.fn.executable(cmd[1]) == 1 then
    ok('server program found: ' .. vim.fn.exepath(cmd[1]))
    local out = vim.fn.system(vim.list_extend(vim.deepcopy(cmd), { '--version' }))
    if vim.v.shell_error == 0 then
      ok('server runs: ' .. vim.trim(out):gsub('\n', '; '))
    else
      error('the server did not start: ' .. vim.trim(out), { 'check the `cmd` given to require("tether").setup()' })
    end
  else
    local where = vim.lsp.config and 'setup() or vim.lsp.config("tether", …)' or 'setup()'
    error('server program not found: ' .. tostring(cmd[1]), {
      'pip install tether-lsp, or give cmd = { "/path/to/tether-lsp" } to ' .. where,
    })
  end
  if vim.g.loaded_python3_provider ~= 0 and (vim.g.python3_host_prog or '') == '' then
    info('opening the first Python file, Neovim searches PATH for a Python with pynvim (:help provider-python), '
      .. 'which can take seconds; the server starts meanwhile, but nothing is drawn until the search ends. '
      .. 'vim.g.python3_host_prog = "/path/to/python" (one with pynvim) or, without Python plugins, '
      .. 'vim.g.loaded_python3_provider = 0 skips it')
  end
  local c = tether.client()
  if c then
    ok('client running (id ' .. c.id .. '), attached to ' .. #vim.lsp.get_buffers_by_client_id(c.id) .. ' buffer(s)')
  elseif type(cmd) == 'table' and vim.fn.executable(cmd[1]) == 0 then
    warn('no Tether client is running: the server program is not found (above)')
  else
    warn('no Tether client is running yet: open a Python or YAML file')
  end
end

return M
