-- Sourced after docs/editors.md's Neovim snippet (the init file): watches what Neovim itself
-- displays for the buffer, in three steps, and writes what it saw as JSON to $PERFLINE_OUT.
--   1. the inlay hints Neovim shows once the perfline client attached;
--   2. after $PERFLINE_NEW_ETDUMP is written over $PERFLINE_ETDUMP: the hints Neovim shows
--      once they differ (the server's refresh, Neovim's own new request);
--   3. after perfline.toml's backend is misspelled: the diagnostics Neovim holds for it.
-- Ends with `qall!` when every step saw something, `cquit 1` on a timeout.
local out = os.getenv("PERFLINE_OUT")
local etdump = os.getenv("PERFLINE_ETDUMP")
local new_etdump = os.getenv("PERFLINE_NEW_ETDUMP")
local toml = os.getenv("PERFLINE_TOML")
local buf = vim.api.nvim_get_current_buf()
local report = { steps = {} }

local function finish(ok)
  local file = io.open(out, "w")
  file:write(vim.json.encode(report))
  file:close()
  if ok then vim.cmd("qall!") else vim.cmd("cquit 1") end
end

vim.defer_fn(function()
  report.error = "timeout"
  finish(false)
end, 90000)

local function displayed()
  local hints = {}
  for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
    local label = item.inlay_hint.label
    if type(label) == "table" then
      local parts = {}
      for _, part in ipairs(label) do table.insert(parts, part.value) end
      label = table.concat(parts)
    end
    table.insert(hints, { line = item.inlay_hint.position.line, label = label })
  end
  table.sort(hints, function(a, b) return a.line < b.line end)
  return hints
end

local function same(a, b)
  return vim.json.encode(a) == vim.json.encode(b)
end

-- Poll every 100 ms until check() returns a value, then call next(value).
local function wait(check, next)
  local value = check()
  if value ~= nil then
    next(value)
  else
    vim.defer_fn(function() wait(check, next) end, 100)
  end
end

local function copy(source, target)
  local input = assert(io.open(source, "rb"))
  local data = input:read("*a")
  input:close()
  local output = assert(io.open(target, "wb"))
  output:write(data)
  output:close()
end

local function client()
  return vim.lsp.get_clients({ bufnr = buf, name = "perfline" })[1]
end

wait(function()
  local hints = displayed()
  if client() and #hints > 0 then return hints end
end, function(first)
  local perfline = client()
  report.server = perfline.name
  report.hints_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = buf })
  report.steps.first = first
  copy(new_etdump, etdump)
  wait(function()
    local hints = displayed()
    if #hints > 0 and not same(hints, first) then return hints end
  end, function(second)
    report.steps.second = second
    local text = io.open(toml, "r"):read("*a")
    local broken = text:gsub('backend = "executorch"', 'backend = "exectorch"')
    local file = io.open(toml, "w")
    file:write(broken)
    file:close()
    local toml_buf = vim.uri_to_bufnr(vim.uri_from_fname(toml))
    wait(function()
      local found = {}
      for _, d in ipairs(vim.diagnostic.get(toml_buf)) do
        table.insert(found, { line = d.lnum, message = d.message, severity = d.severity })
      end
      if #found > 0 then return found end
    end, function(diagnostics)
      report.steps.diagnostics = diagnostics
      finish(true)
    end)
  end)
end)
