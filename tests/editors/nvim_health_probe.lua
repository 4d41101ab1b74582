-- :checkhealth tether, read from the report buffer it opens: whether it mentions Neovim's search for pynvim.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local out = {}
start.run(function()
  vim.cmd('checkhealth tether')
  out.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
end, out)
