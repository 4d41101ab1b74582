-- Attached mode in Neovim. An agent (tests/editors/mcp_agent.py) pins a note to the function through the server's
-- MCP endpoint: it appears in the buffer as Tether's sign and virtual text, drawn on the server's
-- tether/markers/didChange alone, and in :TetherMarkers' list; the agent deletes it and it is gone. Then the user types a
-- line at the top (unsaved), the agent edits the function below; the edit lands in the buffer, and `u` takes back
-- the agent's edit alone.
local start = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_start.lua')
local tether = start.tether
local markers = require('tether.markers')
local ns = vim.api.nvim_create_namespace('tether_markers')
local NOTE = 'agent: check the cache here'
local out = {}
local function lines()
  return vim.api.nvim_buf_get_lines(0, 0, -1, false)
end
-- what the user sees of the markers: Tether's extmarks in the buffer, each with its line as the screen shows it
-- (the sign in the sign column, the line's text and the note after it)
local function shown()
  vim.cmd('redraw')
  local seen = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
    local text = {}
    for _, chunk in ipairs(m[4].virt_text or {}) do
      table.insert(text, chunk[1])
    end
    local row, screen = vim.fn.screenpos(0, m[2] + 1, 1).row, {}
    for col = 1, vim.o.columns do
      table.insert(screen, vim.fn.screenstring(row, col))
    end
    table.insert(seen, { line = m[2] + 1, text = table.concat(text), screen = (table.concat(screen):gsub('%s+$', '')) })
  end
  return seen
end
local function showing_note()
  for _, m in ipairs(shown()) do
    if m.text:find(NOTE, 1, true) then
      return true
    end
  end
  return false
end
-- the list :TetherMarkers puts in the location list (taken without opening its window: no BufEnter re-reads markers)
local function marker_list()
  tether.list_markers()
  local items = {}
  for _, item in ipairs(vim.fn.getloclist(0)) do
    table.insert(items, { lnum = item.lnum, text = item.text })
  end
  return items
end
start.run(function()
  vim.cmd('edit ' .. os.getenv('TETHER_FILE'))
  local buf = vim.api.nvim_get_current_buf()
  local state = os.getenv('TETHER_STATE')
  -- the agent starts now (its imports take a while), acts on each line it is sent and prints each step it took
  local done, said = false, ''
  local agent = vim.fn.jobstart({
    os.getenv('TETHER_PY'), os.getenv('TETHER_AGENT'), state, 'calc.py',
    '        s += i', '        s += i * 2', os.getenv('TETHER_AGENT_OUT'),
  }, {
    on_stdout = function(_, data)
      said = said .. table.concat(data, '\n')
    end,
    on_exit = function(_, code)
      out.agent_exit = code
      done = true
    end,
  })
  local function agent_does(step)
    vim.fn.chansend(agent, step .. '\n')
    return vim.wait(60000, function()
      return done or said:find(step .. '\n', 1, true) ~= nil
    end, 20) and not done
  end
  out.ready = tether.wait_ready(15000)
  out.endpoint = vim.wait(15000, function()
    return #vim.fn.glob(state .. '/*.json', false, true) > 0
  end, 20)
  -- the markers listed when the buffer attached (none): from here on, only the server's didChange redraws them
  out.listed = vim.wait(15000, function()
    return markers.by_buf[buf] ~= nil
  end, 20)
  local refreshes, in_changed = {}, false
  local changed, refresh = markers.changed, markers.refresh
  markers.changed = function(t, uris)
    in_changed = true
    local ok, err = pcall(changed, t, uris)
    in_changed = false
    assert(ok, err)
  end
  markers.refresh = function(t, b, cb)
    table.insert(refreshes, in_changed and 'didChange' or 'other')
    return refresh(t, b, cb)
  end

  out.note_added = agent_does('note')
  out.note_shown = vim.wait(15000, showing_note, 20)
  out.with_note = shown()
  out.refreshes_to_note = vim.deepcopy(refreshes)
  out.list_with_note = marker_list()

  out.note_deleted = agent_does('delete')
  out.note_gone = vim.wait(15000, function()
    return not showing_note()
  end, 20)
  out.without_note = shown()
  out.list_without_note = marker_list()
  out.refreshes = refreshes
  markers.changed, markers.refresh = changed, refresh

  start.keys('ggOimport sys<Esc>')
  -- a request sends the pending didChange first: the server holds the typed line before the agent reads
  vim.lsp.buf_request_sync(0, 'tether/listSelectors', {}, 5000)
  out.agent_edited = agent_does('edit')
  out.after_edit = lines()
  out.modified = vim.bo.modified
  start.keys('u')
  out.after_undo = lines()
  vim.fn.chanclose(agent, 'stdin')
  out.agent_done = vim.wait(30000, function()
    return done
  end, 20)
end, out)
