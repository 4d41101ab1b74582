-- Structural actions typed as a user types them, on TETHER_FILE (non-ASCII Python) and TETHER_OTHER: each step
-- records the buffer's text after the action, what is selected (or the mode and cursor), then one `u` and the
-- text after it. Messages (vim.notify) are recorded too.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local keys = start.keys
local out = { steps = {}, messages = {} }
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(out.messages, msg)
  return notify(msg, level, opts)
end

local function text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr or 0, 0, -1, false), '\n') .. '\n'
end
local function selected()
  if not vim.fn.mode():match('^[vV]') then
    return nil
  end
  local a, b = vim.fn.getpos('v'), vim.fn.getpos('.')
  if a[2] > b[2] or (a[2] == b[2] and a[3] > b[3]) then a, b = b, a end
  local lines = vim.api.nvim_buf_get_lines(0, a[2] - 1, b[2], false)
  local last = lines[#lines]
  lines[#lines] = last:sub(1, b[3] + vim.str_utf_end(last, b[3]))
  lines[1] = lines[1]:sub(a[3])
  return table.concat(lines, '\n')
end
--- Put the cursor on the first match of `pattern` after line `line` (a user's own move: the cursors are let go).
local function at(pattern, line)
  keys('<Esc>')
  vim.fn.cursor(line or 1, 1)
  vim.fn.search(pattern, 'c')
  vim.cmd('doautocmd CursorMoved')
end
local function record(name, bufnr)
  local step = { name = name, after = text(bufnr), selected = selected(), mode = vim.fn.mode(),
    cursor = vim.api.nvim_win_get_cursor(0), messages = #out.messages }
  keys('<Esc>u')
  step.undone = text(bufnr)
  out.steps[name] = step
  return step
end

start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_OTHER'))
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  out.ready = tether.wait_ready(15000)
  local main = vim.api.nvim_get_current_buf()
  vim.wait(5000, function() return tether.attached(main) end, 20)
  out.original = text()

  at('retries')
  keys(':TetherRemove<CR>')
  record('remove')

  keys(':TetherSelect selectFunctions selectFirst<CR>')
  keys(':TetherClone<CR>')
  record('clone')

  at('devise')
  keys(':TetherClone!<CR>')
  record('cloneBefore')

  -- the two parameters of 取得 as structural cursors: exchanging them would put `url` after a default
  at('def 取得')
  keys('V:TetherSelect selectParameters<CR>')
  out.twoCursors = require('tether.select').count(main)
  keys(':TetherSwap<CR>')
  out.refused = { text = text(), message = out.messages[#out.messages], cursors = require('tether.select').count(main) }
  keys(':TetherRemove<CR>') -- both cursors at once
  record('removeBoth')

  at('prix(1')
  keys(':TetherMark<CR>')
  out.markShown = #vim.api.nvim_buf_get_extmarks(main, vim.api.nvim_create_namespace('tether_mark'), 0, -1, {})
  at('🎉")')
  keys(':TetherSwap<CR>')
  record('swapWithMark')

  at('def 取得')
  keys(':TetherMark<CR>')
  keys(':TetherSelect selectFunctions selectFirst<CR>')
  keys(':TetherMove<CR>')
  record('move')

  at('def prix')
  keys(':TetherMark<CR>')
  at('def 取得')
  keys(':TetherBring!<CR>')
  record('bringBefore')

  at('prix(1')
  keys(':TetherMoveUp<CR>')
  out.moveUpFirst = { text = text(), message = out.messages[#out.messages] }

  -- <Plug>(TetherMoveDown) from a user's mapping, then <Esc> and `.`: the argument goes on down
  vim.keymap.set('n', '<Leader>j', '<Plug>(TetherMoveDown)')
  at('prix(1')
  keys('<Leader>j')
  local once = { after = text(), selected = selected(), mode = vim.fn.mode() }
  keys('<Esc>.')
  out.dot = { once = once, twice = text(), selected = selected() }
  vim.keymap.set('x', '<Leader>k', '<Plug>(TetherMoveUp)') -- in visual mode: on the selection, what `.` produced
  keys('<Leader>k')
  out.dot.visualUp = { text = text(), selected = selected() }
  keys('<Esc>u')
  out.dot.undoneVisual = text()
  keys('u')
  out.dot.undoneOnce = text()
  keys('u')
  out.dot.undoneTwice = text()

  -- insert: the empty line made after the statement, insert mode there (typed into in the same keys)
  vim.api.nvim_create_autocmd('InsertEnter', { once = true, callback = function()
    out.insertCursor = vim.api.nvim_win_get_cursor(0)
    out.insertLine = vim.api.nvim_get_current_line()
  end })
  at('total =')
  keys(':TetherInsert<CR>x = "ü"<Esc>')
  out.inserted = text()
  keys('u')
  out.insertTypedUndone = text()
  keys('u')
  out.insertUndone = text()
  at('prix(1')
  keys(':TetherInsert!<CR>"ñ"<Esc>')
  out.insertedBefore = text()
  keys('uu')

  at('total =')
  keys(':TetherWrap try<CR>')
  local wrapped = record('wrapTry')
  at('total =')
  keys(':TetherWrap if base > 0<CR>')
  record('wrapIf')
  at('return url')
  vim.fn.search('url', 'c', vim.fn.line('.'))
  keys(':TetherWrap call<CR>')
  out.callPlaceholder = selected()
  keys('clen<Esc>')
  out.called = text()
  keys(':TetherUnwrap<CR>')
  out.unwrapped = text()
  keys('<Esc>uuu')
  out.unwrapUndone = text()

  -- into another buffer: the mark in TETHER_OTHER, a function of this one moved after it
  local other = vim.fn.bufnr(os.getenv('TETHER_OTHER'))
  vim.cmd('buffer ' .. other)
  vim.wait(5000, function() return tether.attached(other) end, 20)
  out.otherOriginal = text(other)
  at('def other')
  keys(':TetherMark<CR>')
  vim.cmd('buffer ' .. main)
  at('def 取得')
  keys(':TetherMove<CR>')
  out.across = { main = text(main), other = text(other), selected = selected(), buffer = vim.api.nvim_get_current_buf() == other }
  keys('<Esc>u')
  out.across.otherUndone = text(other)
  vim.cmd('buffer ' .. main)
  out.across.mainBeforeUndo = text(main)
  keys('u')
  out.across.mainUndone = text(main)

  -- a selection made before an edit is not acted on
  keys(':TetherSelect selectFunctions<CR>')
  vim.api.nvim_buf_set_lines(main, 0, 0, false, { '# ü' })
  require('tether.actions').run(tether, 'remove')
  out.stale = { message = out.messages[#out.messages], text = text(), cursors = require('tether.select').count(main) }
  keys('<Esc>u')

  -- a selector that finds nothing keeps the cursors
  at('def prix')
  keys(':TetherSelect selectFunctions<CR>')
  keys(':TetherSelect selectDecorators<CR>')
  out.nothing = { cursors = require('tether.select').count(main), message = out.messages[#out.messages],
    selected = selected() }
  out.final = text(main)
end, out)
