-- The replacement preview in Neovim: for an AI completion that replaces a unit, the old range is struck through
-- (extmark highlight) and the new code shows under it as virtual lines, each with its indentation; <Tab> accepts
-- wherever the cursor is, <Esc> rejects (buffer-local mappings that exist only while a preview is shown), and an
-- edit inside the struck range drops it. Fed by `:TetherComplete` (the server's inline completion) or
-- `:TetherPreview {text}`.
local offsets = require('tether.offsets')
local M = {}

local ns = vim.api.nvim_create_namespace('tether_preview')
local pending = {} -- bufnr -> { edit = TextEdit, first = row, last = row }

local function clear(bufnr)
  local p = pending[bufnr]
  pending[bufnr] = nil
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
    if p then
      pcall(vim.keymap.del, 'n', '<Tab>', { buffer = bufnr })
      pcall(vim.keymap.del, 'n', '<Esc>', { buffer = bufnr })
    end
  end
end
M.clear = clear

function M.pending(bufnr)
  return pending[bufnr or vim.api.nvim_get_current_buf()]
end

--- Show `edit` (an LSP TextEdit) replacing lines first..last (0-based, inclusive).
function M.show(bufnr, edit, first, last)
  clear(bufnr)
  local count = vim.api.nvim_buf_line_count(bufnr)
  last = math.min(last, count - 1)
  for row = first, last do
    local text = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
    vim.api.nvim_buf_set_extmark(bufnr, ns, row, 0, { end_col = #text, hl_group = 'TetherStruck' })
  end
  local lines = {}
  for line in (edit.newText:gsub('\n$', '') .. '\n'):gmatch('([^\n]*)\n') do
    table.insert(lines, { { line ~= '' and line:gsub('\t', string.rep(' ', vim.bo[bufnr].tabstop)) or ' ', 'TetherNew' } })
  end
  vim.api.nvim_buf_set_extmark(bufnr, ns, last, 0, { virt_lines = lines })
  pending[bufnr] = { edit = edit, first = first, last = last, lines = #lines }
  vim.keymap.set('n', '<Tab>', function() M.accept(bufnr) end, { buffer = bufnr, desc = 'Tether: accept the replacement' })
  vim.keymap.set('n', '<Esc>', function() clear(bufnr) end, { buffer = bufnr, desc = 'Tether: reject the replacement' })
end

function M.accept(bufnr)
  local p = pending[bufnr]
  if not p then
    return
  end
  clear(bufnr)
  vim.lsp.util.apply_text_edits({ p.edit }, bufnr, offsets.encoding())
end

--- `:TetherPreview {text}`: ask the server whether `completion` at the cursor replaces a unit, and show it.
function M.analyze(tether, completion)
  local bufnr = vim.api.nvim_get_current_buf()
  local analysis, err = tether.request('tether/analyzeReplacement', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr), version = vim.lsp.util.buf_versions[bufnr] },
    position = tether.position(),
    completion = completion,
  })
  if not analysis then
    vim.notify('Tether: ' .. tostring(err and err.message or err), vim.log.levels.WARN)
    return nil
  end
  if analysis.warning and analysis.warning ~= vim.NIL then
    -- accepting would leave the file broken: said, and nothing written
    vim.notify('Tether: completion not offered: ' .. analysis.warning, vim.log.levels.WARN)
  elseif analysis.mode == 'replace' and analysis.showVisualDiff then
    local r = analysis.replaceRange
    local last = r['end'].character == 0 and r['end'].line > r.start.line and r['end'].line - 1 or r['end'].line
    M.show(bufnr, analysis.edit, r.start.line, last)
  else
    vim.lsp.util.apply_text_edits({ analysis.edit }, bufnr, offsets.encoding()) -- an insertion: just written
  end
  return analysis
end

--- `:TetherComplete`: the server's inline completion at the cursor; a multi-line replacement is previewed.
function M.complete(tether)
  local bufnr = vim.api.nvim_get_current_buf()
  local result, err = tether.request('textDocument/inlineCompletion', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = tether.position(),
    context = { triggerKind = 1 },
  }, 30000)
  local item = result and result.items and result.items[1]
  if not item then
    vim.notify('Tether: no completion' .. (err and (': ' .. tostring(err.message)) or ''), vim.log.levels.INFO)
    return nil
  end
  local r = item.range
  if r and r['end'].line > r.start.line then
    local first = r.start.line
    local line = vim.api.nvim_buf_get_lines(bufnr, first, first + 1, false)[1] or ''
    if r.start.character == 0 and vim.trim(line) == '' then
      first = first + 1 -- the blank line the cursor is on is not struck
    end
    local last = r['end'].character == 0 and r['end'].line - 1 or r['end'].line
    M.show(bufnr, { range = r, newText = item.insertText }, first, last)
  else
    local pos = tether.position()
    vim.lsp.util.apply_text_edits({ { range = r or { start = pos, ['end'] = pos }, newText = item.insertText } }, bufnr, offsets.encoding())
  end
  return item
end

function M.setup(group)
  vim.cmd('highlight default TetherStruck gui=strikethrough cterm=strikethrough guifg=#c05050 ctermfg=red')
  vim.cmd('highlight default link TetherNew DiffAdd')
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    callback = function(args)
      local p = pending[args.buf]
      if not p then
        return
      end
      local row = vim.api.nvim_win_get_cursor(0)[1] - 1
      if row >= p.first and row <= p.last then
        clear(args.buf) -- typed inside the struck code: the preview no longer applies
      end
    end,
  })
end

return M
