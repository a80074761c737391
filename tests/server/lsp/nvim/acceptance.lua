-- Headless Neovim 0.11 as a real client of `perfline serve --stdio`.
-- Opens the file given on the command line, waits for the daemon's inlay hints, then writes
-- what Neovim received (hints from the request, hints Neovim displays, hover, code lenses,
-- a custom request) as JSON to $PERFLINE_OUT and quits; `cquit 1` on failure or timeout.
local python = os.getenv("PERFLINE_PYTHON")
local root = os.getenv("PERFLINE_ROOT")
local out = os.getenv("PERFLINE_OUT")

local function finish(report, ok)
  local file = io.open(out, "w")
  file:write(vim.json.encode(report))
  file:close()
  if ok then vim.cmd("qall!") else vim.cmd("cquit 1") end
end

vim.defer_fn(function() finish({ error = "timeout" }, false) end, 60000)

vim.lsp.config("perfline", {
  cmd = { python, "-m", "perfline", "serve", "--stdio" },
  cmd_cwd = root,
  filetypes = { "python" },
  root_markers = { "perfline.toml" },
})
vim.lsp.enable("perfline")

vim.api.nvim_create_autocmd("LspAttach", {
  callback = function(ev)
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    local buf = ev.buf
    vim.lsp.inlay_hint.enable(true, { bufnr = buf })
    local report = { encoding = client.offset_encoding, server = client.name }
    local params = {
      textDocument = vim.lsp.util.make_text_document_params(buf),
      range = { start = { line = 0, character = 0 }, ["end"] = { line = vim.api.nvim_buf_line_count(buf), character = 0 } },
    }
    local attempts = 0
    local function poll()
      attempts = attempts + 1
      local response = client:request_sync("textDocument/inlayHint", params, 10000, buf)
      local hints = response and response.result or {}
      if #hints == 0 and attempts < 200 then
        vim.defer_fn(poll, 100)
        return
      end
      report.hints = {}
      for _, hint in ipairs(hints) do
        table.insert(report.hints, { line = hint.position.line, character = hint.position.character, label = hint.label })
      end
      -- What Neovim itself decided to show, after its own inlay-hint request.
      vim.defer_fn(function()
        report.displayed = {}
        for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
          table.insert(report.displayed, { line = item.inlay_hint.position.line, label = item.inlay_hint.label })
        end
        local hover = client:request_sync("textDocument/hover", {
          textDocument = params.textDocument, position = { line = 25, character = 8 } }, 10000, buf)
        report.hover = hover and hover.result and hover.result.contents.value or vim.NIL
        local lenses = client:request_sync("textDocument/codeLens", { textDocument = params.textDocument }, 10000, buf)
        report.lenses = {}
        for _, lens in ipairs(lenses and lenses.result or {}) do
          table.insert(report.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title })
        end
        local jobs = client:request_sync("perfline/jobs", vim.empty_dict(), 10000, buf)
        report.jobs = jobs and jobs.result or vim.NIL
        finish(report, #report.hints > 0)
      end, 1500)
    end
    poll()
  end,
})
