-- Drives bf lsp from Neovim's own LSP client: open the note given in $LSP_FILE, wait for
-- its diagnostics, hover on the link at $LSP_HOVER (line:column, 0-based), then write what
-- Neovim received to $LSP_OUT, one line each, and quit (which stops the server).
local file, out = vim.env.LSP_FILE, vim.env.LSP_OUT
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local config = { name = 'bf', cmd = { vim.env.BF_LSP }, root_dir = vim.env.BRAIN }
local id
if vim.lsp.start then
  id = vim.lsp.start(config) -- Neovim 0.8 and later
else
  id = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(buf, id)
end
local lines = {}
local function add(s) table.insert(lines, (s:gsub('\n', '\\n'))) end
if not vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
  add('no diagnostics within 20 s')
end
local found = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(found, string.format('diagnostic %d:%d-%d:%d severity %d %s: %s',
    d.lnum, d.col, d.end_lnum, d.end_col, d.severity, d.source or '', d.message))
end
table.sort(found)
for _, s in ipairs(found) do add(s) end
local l, c = vim.env.LSP_HOVER:match('(%d+):(%d+)')
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = tonumber(l), character = tonumber(c) } }
for _, method in ipairs({ 'textDocument/hover', 'textDocument/definition' }) do
  local replies = vim.lsp.buf_request_sync(buf, method, params, 10000) or {}
  for _, r in pairs(replies) do
    if r.err then
      add(method .. ' error: ' .. r.err.message)
    elseif method == 'textDocument/hover' then
      add('hover: ' .. r.result.contents.value)
    else
      for _, loc in ipairs(r.result) do
        add(string.format('definition: %s %d:%d', vim.uri_to_fname(loc.uri):sub(#vim.env.BRAIN + 2), loc.range.start.line, loc.range.start.character))
      end
    end
  end
end
vim.fn.writefile(lines, out)
vim.cmd('qa!')
