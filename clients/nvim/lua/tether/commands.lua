-- The :Tether* commands (`:help tether` describes them): each reads its arguments and calls the client's API
-- (init.lua) or a feature's module. Apart from init.lua, which starts the client and keeps it informed, so the
-- commands read as one list.
local select = require('tether.select')
local markers = require('tether.markers')
local preview = require('tether.preview')
local playground = require('tether.playground')
local actions = require('tether.actions')

local C = {}

--- Define the commands; `tether` is the client's module (init.lua).
function C.setup(tether)
  vim.api.nvim_create_user_command('TetherMarkerAdd', function(c)
    local kind, note = c.args:match('^(%a+):%s*(.*)$')
    if not (kind and ({ comment = 1, question = 1, issue = 1, bookmark = 1 })[kind]) then
      kind, note = 'comment', c.args
    end
    tether.add_marker(c.line1, c.line2, note, kind)
  end, { range = true, nargs = '+', desc = 'Pin a note to the lines ([kind:] note; kind is comment, question, issue or bookmark)' })
  vim.api.nvim_create_user_command('TetherMarkers', function()
    if tether.list_markers() then
      vim.cmd('lopen')
    end
  end, { desc = "This buffer's markers in the location list" })
  vim.api.nvim_create_user_command('TetherMarkersAll', function()
    if markers.quickfix(tether) then
      vim.cmd('copen')
    end
  end, { desc = "The workspace's markers in the quickfix list" })
  vim.api.nvim_create_user_command('TetherSelect', function(c)
    local bufnr = vim.api.nvim_get_current_buf()
    tether.select(c.fargs, select.count(bufnr) == 0 and select.visual_range(bufnr, c) or nil)
  end, {
    nargs = '+',
    range = true, -- from visual mode (:'<,'>TetherSelect …, or a <Cmd> mapping): the chain starts at the selection
    desc = 'Apply selectors to the structural cursors (a chain continues across commands)',
    complete = function(lead)
      local names = {}
      for _, s in ipairs(tether.selectors() or {}) do
        if s.name:sub(1, #lead) == lead then
          table.insert(names, s.name)
        end
      end
      return names
    end,
  })
  vim.api.nvim_create_user_command('TetherSelectReset', function()
    select.clear(vim.api.nvim_get_current_buf())
  end, { desc = 'Forget the structural cursors of this buffer' })
  -- structural actions: on the structural cursors, else the visual selection ([range]), else the cursor's code
  local function action(name, verb, opts, desc)
    vim.api.nvim_create_user_command(name, function(c)
      local o = vim.tbl_extend('force', opts or {}, { command = c })
      if c.bang then
        o.after = false
      end
      actions.run(tether, verb, o)
    end, { range = true, bang = opts ~= nil and opts.bang, desc = desc })
  end
  action('TetherRemove', 'remove', nil, 'Remove the target with its comma, lines and indentation')
  action('TetherClone', 'clone', { bang = true }, 'Copy the target after it (! before)')
  action('TetherMove', 'move', { bang = true, destination = true }, 'Move the target after the mark (! before)')
  action('TetherBring', 'bring', { bang = true, destination = true }, 'Copy the target after the mark (! before)')
  action('TetherMoveUp', 'moveUp', nil, 'Exchange the target with the previous sibling')
  action('TetherMoveDown', 'moveDown', nil, 'Exchange the target with the next sibling')
  action('TetherInsert', 'insert', { bang = true }, 'An empty element or line after the target (! before), to type in')
  action('TetherUnwrap', 'unwrap', nil, 'Keep the body, drop the if/with/try/for/while, call or parentheses around it')
  vim.api.nvim_create_user_command('TetherWrap', function(c)
    local wrapper, placeholder = c.args:match('^(%S+)%s*(.*)$')
    if not vim.tbl_contains(actions.wrappers, wrapper) then
      return vim.notify('Tether: :TetherWrap takes try, with, if or call (then, optionally, the text to put in)',
        vim.log.levels.WARN)
    end
    actions.run(tether, 'wrap', { wrapper = wrapper, placeholder = placeholder ~= '' and placeholder or nil, command = c })
  end, {
    nargs = '+',
    range = true,
    desc = 'Wrap the statements in try/with/if, the expression in a call ({wrapper} [text])',
    complete = function(lead)
      return vim.tbl_filter(function(w) return w:sub(1, #lead) == lead end, actions.wrappers)
    end,
  })
  vim.api.nvim_create_user_command('TetherSwap', function(c)
    actions.swap(tether, c)
  end, { range = true, desc = 'Exchange the two structural cursors, or the target and the mark' })
  vim.api.nvim_create_user_command('TetherMark', function(c)
    if c.bang then
      return actions.unmark()
    end
    actions.mark(c)
  end, { range = true, bang = true, desc = 'Mark the target as the destination of move, bring and swap (! forgets it)' })
  vim.api.nvim_create_user_command('TetherPreview', function(c)
    preview.analyze(tether, (c.args:gsub('\\n', '\n')))
  end, { nargs = 1, desc = 'Preview a completion ({text}, \\n for line breaks) at the cursor: replace or insert' })
  vim.api.nvim_create_user_command('TetherComplete', function()
    preview.complete(tether)
  end, { desc = "The server's inline completion at the cursor (a multi-line replacement is previewed)" })
  vim.api.nvim_create_user_command('TetherCancel', function()
    tether.cancel_task()
  end, { desc = 'Cancel the running task' })

  vim.api.nvim_create_user_command('TetherPlayground', function()
    playground.open(tether)
  end, { desc = 'The prompt playground in a floating window (e r c p q inside)' })
  vim.api.nvim_create_user_command('TetherRun', function()
    tether.run_task()
  end, {})
end

return C
