-- Neovim 0.11+: the `tether` configuration found on the runtimepath (`:help lsp-config`). It ranks below
-- `vim.lsp.config('tether', …)`, so what you configure there is kept and this fills in the rest: the command
-- and settings given to require('tether').setup() (or the defaults), the handlers and capabilities.
return require('tether').lsp_config()
