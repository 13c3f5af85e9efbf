# The two quick-start commands: `make start` and `make test`. Both install what is missing first.
SHELL := /bin/bash
.DEFAULT_GOAL := start
.PHONY: start test deps system-deps node-deps build lint typecheck unit docs bench clean

NODE_STAMP := node_modules/.shutter-installed

start: deps build
	node dist/src/cli/main.js serve

test: deps build lint typecheck
	node scripts/run-tests.mjs

deps: system-deps node-deps

system-deps:
	@bash scripts/install-system-deps.sh

node-deps: $(NODE_STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-fund --no-audit
	@touch $@

build: node-deps
	npx tsc -p tsconfig.build.json

lint: node-deps
	npx eslint .

typecheck: node-deps
	npx tsc -p tsconfig.json --noEmit

docs: build
	node dist/src/options/write-docs.js

bench: deps build
	node dist/bench/capture-vs-playwright.js

clean:
	rm -rf dist
