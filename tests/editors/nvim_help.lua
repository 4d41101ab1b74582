-- :help tether after setup() (which writes the help tags), a help tag for every command setup() defines, and
-- the suggested keymaps of the help file run as written.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local out = { untagged = {}, checked = 0 }
local function help(tag)
  local ok, err = pcall(vim.cmd, 'help ' .. tag)
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t')
  if vim.bo.buftype == 'help' then
    vim.cmd('helpclose')
  end
  return ok and name or tostring(err)
end
start.run(function()
  out.tether = help('tether')
  for name in pairs(vim.api.nvim_get_commands({})) do
    if name:match('^Tether') then
      out.checked = out.checked + 1
      if help(':' .. name) ~= 'tether.txt' then
        table.insert(out.untagged, name)
      end
    end
  end
  out.keymapsTag = help('tether-keymaps')
  -- the keymaps block: the lines after `*tether-keymaps*` from the one ending in ` >` to the line `<`
  local lines = vim.fn.readfile(os.getenv('TETHER_NVIM') .. '/doc/tether.txt')
  local code, inside, seen = {}, false, false
  for _, line in ipairs(lines) do
    if line:find('*tether-keymaps*', 1, true) then
      seen = true
    elseif seen and not inside and line:match(' >$') then
      inside = true
    elseif inside and line:match('^<') then
      break
    elseif inside then
      table.insert(code, line)
    end
  end
  local chunk, err = loadstring(table.concat(code, '\n'))
  out.keymapsRun = chunk ~= nil and pcall(chunk) or tostring(err)
  vim.g.mapleader = nil
  out.mapped = vim.fn.maparg('<Leader>ss', 'n')
end, out)
