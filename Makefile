# Tether: the two commands are `make demo` and `make test` (see README.md). Both set up what they need.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTHON ?= python3

.PHONY: demo test lint unit e2e bench venv system-deps docs dist vsix mutation clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	set -o pipefail; $(PY) -m pip install -q --disable-pip-version-check -e ".[dev,postgres,ws,mcp]" 2>&1 \
	  | { grep -v -e "^  " -e "^$$" -e "!!" -e "Warning" || true; }
	@touch $@

venv: $(STAMP)

system-deps:
	@bash scripts/ensure-system-deps.sh
	@bash scripts/ensure-nvim-0.11.sh
	@bash clients/vscode/e2e/setup.sh
	@bash scripts/ensure-mcp-tools.sh

demo: venv
	$(VENV)/bin/tether-lsp demo examples

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

test: venv system-deps
	@bash scripts/run-tests.sh

# Regenerate what is generated from the code (settings schema and table, protocol method list, selector
# table, VS Code settings); the tests fail when one is out of date.
docs: venv
	$(PY) -m scripts.docgen

# Mutation testing of the engine modules (cosmic-ray; minutes per module, outside `make test`):
# `make mutation` for all, `make mutation MODULES="handlers/edits/merge.py"` for some.
mutation: venv
	$(PY) -m pip install -q --disable-pip-version-check "cosmic-ray==8.7.0"
	$(PY) -m scripts.mutation $(MODULES)

# The VS Code extension as clients/vscode/tether.vsix (TypeScript bundled by esbuild, packaged by vsce), with
# this checkout's wheel inside (the extension offers to install it when it finds no server).
vsix: venv
	rm -rf clients/vscode/server && $(PY) -m build --wheel --outdir clients/vscode/server .
	cd clients/vscode && { test -x node_modules/.bin/vsce || npm ci --no-audit --no-fund --loglevel=error; } \
	  && npm run package

# The wheel and the sdist, into dist/.
dist: venv
	rm -rf dist
	$(PY) -m build --outdir dist .

# The history benchmarks replay the click project's commits from its git bundle beside the checkout
# (TETHER_BENCH_BUNDLE names another; see benchmarks/history.py); without one they replay this checkout's own
# git history, and say so.
bench: venv
	$(PY) -m benchmarks.syntax
	$(PY) -m benchmarks.selectors
	$(PY) -m benchmarks.actions
	$(PY) -m benchmarks.markers
	$(PY) -m benchmarks.replacement
	$(PY) -m benchmarks.replacement_history
	$(PY) -m benchmarks.edits_history
	$(PY) -m benchmarks.markers_history
	$(PY) -m benchmarks.typing
	$(PY) -m benchmarks.loop_stall
	$(PY) -m benchmarks.startup
	$(PY) -m benchmarks.playground
	$(PY) -m benchmarks.prompt_detection
	$(PY) -m benchmarks.edits
	$(PY) -m benchmarks.agent_edits

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis dist build
