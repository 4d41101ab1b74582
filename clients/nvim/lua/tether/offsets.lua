-- LSP positions in the encoding the client negotiated with the server (`client.offset_encoding`: UTF-8 on
-- Neovim 0.11, which offers it first and Tether prefers it; UTF-16 on 0.7), and Neovim's byte columns. Every
-- conversion of the client goes through here. On 0.11 the `vim.str_utfindex(s, encoding, index, strict)` forms
-- are used (the 0.7 forms are deprecated there); on 0.7 the old ones.
local M = {}

local new_api = vim.fn.has('nvim-0.11') == 1

--- The negotiated encoding ('utf-8', 'utf-16' or 'utf-32'); UTF-16 (LSP's default) before the server answered.
function M.encoding()
  local c = require('tether').client()
  return c and c.offset_encoding or 'utf-16'
end

--- The LSP character of byte column `col` (0-based) of `line`; a column past the end is the line's length.
function M.character(line, col, encoding)
  encoding = encoding or M.encoding()
  col = math.max(0, math.min(col or #line, #line))
  if encoding == 'utf-8' then
    return col
  end
  if new_api then
    return vim.str_utfindex(line, encoding, col, false)
  end
  local ok, utf32, utf16 = pcall(vim.str_utfindex, line, col)
  if not ok then
    utf32, utf16 = vim.str_utfindex(line)
  end
  return encoding == 'utf-16' and utf16 or utf32
end

--- The length of `line` in LSP characters.
function M.length(line, encoding)
  return M.character(line, #line, encoding)
end

--- The byte column (0-based) of LSP character `character` of `line`; past the end is the line's length.
function M.byte_col(line, character, encoding)
  encoding = encoding or M.encoding()
  if character <= 0 then
    return 0
  end
  if encoding == 'utf-8' then
    return math.min(character, #line)
  end
  if new_api then
    return vim.str_byteindex(line, encoding, character, false)
  end
  local ok, col = pcall(vim.str_byteindex, line, character, encoding == 'utf-16')
  return ok and col or #line
end

local function buf_line(bufnr, row)
  return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
end

--- The byte column of an LSP position in buffer `bufnr` (row 0-based).
function M.buf_byte_col(bufnr, row, character, encoding)
  return M.byte_col(buf_line(bufnr, row), character, encoding)
end

--- The LSP position of the cursor of window `win` (the current one if nil).
function M.cursor(win, encoding)
  win = win or 0
  local row, col = unpack(vim.api.nvim_win_get_cursor(win))
  local line = buf_line(vim.api.nvim_win_get_buf(win), row - 1)
  return { line = row - 1, character = M.character(line, col, encoding) }
end

--- The LSP position of the end of line `row` (0-based) of `bufnr`.
function M.line_end(bufnr, row, encoding)
  return { line = row, character = M.length(buf_line(bufnr, row), encoding) }
end

return M
