-- A marker's note at the end of its line, once: after the client drew it and after a CodeLens refresh such as a
-- user's configuration runs (the server's lens carries the same note), every end-of-line text on the line.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local out = {}
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  vim.cmd('4,8TetherMarkerAdd question: use sum()')
  local ours = vim.api.nvim_get_namespaces()['tether_markers']
  out.drawn = vim.wait(5000, function()
    return #vim.api.nvim_buf_get_extmarks(0, ours, 0, -1, {}) > 0
  end, 20)
  vim.lsp.codelens.refresh()
  local c = tether.client()
  out.settled = vim.wait(5000, function()
    for _, r in pairs(c.requests) do
      if r.type == 'pending' then
        return false
      end
    end
    return true
  end, 20)
  out.texts = {}
  for _, ns in pairs(vim.api.nvim_get_namespaces()) do -- every namespace (0.7 has no -1 for all)
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, { 3, 0 }, { 3, -1 }, { details = true })) do
      for _, chunk in ipairs(m[4].virt_text or {}) do
        table.insert(out.texts, chunk[1])
      end
    end
  end
end, out)
