-- The :Tether* commands (`:help tether` describes them): each reads its arguments and calls the client's API
-- (init.lua) or a feature's module. Apart from init.lua, which starts the client and keeps it informed, so the
-- commands read as one list.
local select = require('tether.select')
local markers = require('tether.markers')
local preview = require('tether.preview')
local playground = require('tether.playground')

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
