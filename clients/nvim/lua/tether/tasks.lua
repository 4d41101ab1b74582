-- Inline tasks in Neovim, asynchronous: `:TetherRun` on an `@run <instruction>` line sends the request and
-- returns at once; the server's progress (on the request's own workDoneToken) shows with `vim.notify`;
-- `:TetherCancel` cancels (the change being written is undone). A file the task changes that was not loaded
-- is written to disk and its buffer wiped again: nothing stays behind in :ls or in a hidden modified buffer.
local M = { running = nil, last = nil }

function M.progress(params)
  local task = M.running
  if not task or params.token ~= task.token then
    return false
  end
  local value = params.value or {}
  if value.kind == 'report' and value.message then
    vim.notify('Tether task: ' .. value.message, vim.log.levels.INFO)
  end
  return true
end

function M.run(tether, on_done)
  local c = tether.client()
  if not c then
    vim.notify('Tether is not running', vim.log.levels.WARN)
    return nil
  end
  if M.running then
    vim.notify('Tether: a task is already running (:TetherCancel stops it)', vim.log.levels.WARN)
    return nil
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local token = 'tether-task-' .. tostring(vim.loop.hrtime())
  local task = { token = token, bufnr = bufnr }
  local ok, id = tether.request_async('tether/tasks/run', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = tether.position(),
    workDoneToken = token,
  }, function(err, result)
    if M.running ~= task then
      return -- already ended (cancelled)
    end
    M.running = nil
    M.last = { err = err, result = result }
    if err then
      local cancelled = err.code == -32800
      vim.notify('Tether task ' .. (cancelled and 'cancelled: the change being written was undone' or ('failed: ' .. (err.message or ''))),
        cancelled and vim.log.levels.INFO or vim.log.levels.WARN)
    else
      local parts = {}
      for _, e in ipairs(result.edits or {}) do
        table.insert(parts, vim.fn.fnamemodify(vim.uri_to_fname(e.uri), ':.') .. ': ' .. e.status)
      end
      vim.notify('Tether task: ' .. (#parts > 0 and table.concat(parts, ', ') or 'no change') .. ' (log: ' .. vim.uri_to_fname(result.sessionUri) .. ')')
    end
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
  if not ok then
    vim.notify('Tether: the task could not be sent', vim.log.levels.WARN)
    return nil
  end
  task.id = id
  task.on_done = on_done
  M.running = task
  vim.notify('Tether task started (:TetherCancel to stop it)')
  return task
end

--- The server's answer to a cancelled request never reaches the request's callback (Neovim's RPC layer mutes
--- RequestCancelled): the task ends when the reply has arrived — the request leaves `client.requests` — which
--- is after the server undid the change being written.
local function finish_cancelled(c, task)
  local function check()
    if M.running ~= task then
      return true
    end
    if c.requests[task.id] ~= nil then
      return false
    end
    M.running = nil
    M.last = { err = { code = -32800, message = 'cancelled' } }
    vim.notify('Tether task cancelled: the change being written was undone')
    if task.on_done then
      task.on_done(M.last.err, nil)
    end
    return true
  end
  local callback = function()
    return check() -- true removes this autocommand
  end
  if vim.fn.exists('##LspRequest') == 1 then -- 0.8+: an event of its own
    vim.api.nvim_create_autocmd('LspRequest', { callback = callback })
  else -- 0.7: a User event
    vim.api.nvim_create_autocmd('User', { pattern = 'LspRequest', callback = callback })
  end
end

function M.cancel(tether)
  local c, task = tether.client(), M.running
  if not c or not task then
    vim.notify('Tether: no task is running')
    return false
  end
  finish_cancelled(c, task)
  tether.cancel_request(task.id)
  return true
end

--- Each buffer's b:changedtick right after Tether's last edit in it.
local applied_tick = {}

--- workspace/applyEdit for Tether's server (a task's or an agent's edit): apply as Neovim does, then save the
--- buffers that were not loaded before (a change to a closed file belongs on disk) and wipe those made for the
--- edit (a buffer that existed unloaded is unloaded again, as listed as it was), so nothing new stays in :ls. An edit to a buffer changed by someone
--- else since Tether's last edit in it (the user typed) starts an undo block of its own, so `u` takes back the
--- edit and not what was typed before it (successive edits of one stream stay one block).
function M.apply_edit(default)
  return function(err, params, ctx, config)
    local before, existed = {}, {} -- per uri: loaded; listed if the buffer existed (nil: it did not)
    local function note(uri)
      if vim.fn.bufexists(vim.uri_to_fname(uri)) == 1 then
        existed[uri] = vim.bo[vim.uri_to_bufnr(uri)].buflisted
      end
      before[uri] = vim.api.nvim_buf_is_loaded(vim.uri_to_bufnr(uri))
    end
    local edit = params and params.edit or {}
    for uri, _ in pairs(edit.changes or {}) do
      note(uri)
    end
    for _, change in ipairs(edit.documentChanges or {}) do
      local uri = change.textDocument and change.textDocument.uri
      if uri then
        note(uri)
      end
    end
    if vim.fn.has('nvim-0.8') == 0 and edit.documentChanges then
      -- Neovim 0.7 applies no file creation: create the files here, hand it the rest
      local rest = {}
      for _, change in ipairs(edit.documentChanges) do
        if change.kind == 'create' then
          local fname = vim.uri_to_fname(change.uri)
          local options = change.options or {}
          if not vim.loop.fs_stat(fname) or options.overwrite then
            vim.fn.mkdir(vim.fn.fnamemodify(fname, ':h'), 'p')
            local file = io.open(fname, 'w')
            if file then
              file:close()
            end
          end
        else
          table.insert(rest, change)
        end
      end
      params = vim.tbl_extend('force', params, { edit = vim.tbl_extend('force', edit, { documentChanges = rest }) })
    end
    for uri, loaded in pairs(before) do
      local bufnr = vim.uri_to_bufnr(uri)
      if loaded and applied_tick[bufnr] ~= vim.api.nvim_buf_get_changedtick(bufnr) then
        vim.api.nvim_buf_call(bufnr, function()
          vim.o.undolevels = vim.o.undolevels -- setting it, even to its value, breaks the undo sequence
        end)
      end
    end
    local result = default(err, params, ctx, config)
    for uri, loaded in pairs(before) do
      local bufnr = vim.uri_to_bufnr(uri)
      if loaded and vim.api.nvim_buf_is_loaded(bufnr) then
        applied_tick[bufnr] = vim.api.nvim_buf_get_changedtick(bufnr)
      end
    end
    if type(result) == 'table' and result.applied == false then
      vim.notify('Tether: an edit was not applied: ' .. tostring(result.failureReason), vim.log.levels.WARN)
    end
    for uri, loaded in pairs(before) do
      local bufnr = vim.uri_to_bufnr(uri)
      if not loaded and vim.api.nvim_buf_is_loaded(bufnr) then
        -- a created file may live in a folder that does not exist yet (0.8+ only makes the buffer)
        vim.fn.mkdir(vim.fn.fnamemodify(vim.uri_to_fname(uri), ':h'), 'p')
        vim.api.nvim_buf_call(bufnr, function()
          vim.cmd('silent noautocmd write')
        end)
        if existed[uri] == nil then -- made for this edit (listed by Neovim's apply): wiped, not left in :ls
          pcall(vim.api.nvim_buf_delete, bufnr, { force = true })
        else
          pcall(vim.api.nvim_buf_delete, bufnr, { unload = true })
          if vim.api.nvim_buf_is_valid(bufnr) then
            vim.bo[bufnr].buflisted = existed[uri]
          end
        end
      end
    end
    return result
  end
end

return M
