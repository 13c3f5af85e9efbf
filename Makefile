# The two quick-start commands: `make start` and `make test`. Both install what is missing first.
SHELL := /bin/bash
.DEFAULT_GOAL := start
.PHONY: start test test-node deps system-deps node-deps build lint format format-check imports typecheck unit docs bench bench-smoke bench-smoke-ci bench-deps clean

# Every recipe runs on a supported Node.js: the machine's own when it is 22 or newer, else Node 24 set
# up inside the project from the npm registry (scripts/ensure-node.sh, which prints one line saying so).
NODE_BIN := $(shell bash scripts/ensure-node.sh)
ifneq ($(.SHELLSTATUS),0)
$(error scripts/ensure-node.sh could not set up a supported Node.js (above))
endif
ifneq ($(NODE_BIN),)
export PATH := $(NODE_BIN):$(PATH)
# The user's npmrc may point nodedir at the older Node's headers: native modules build against this one's.
export npm_config_nodedir := $(abspath $(NODE_BIN)/..)
endif

# node_modules hold native modules built for one Node.js release: another release installs them again.
NODE_VERSION := $(shell PATH='$(PATH)' node -v)
NODE_STAMP := node_modules/.shutter-installed-$(NODE_VERSION)

# MALLOC_ARENA_MAX: libvips' threads otherwise spread the heap over many glibc arenas, which hold
# freed memory (docs/performance.md, "Memory").
start: deps build
	MALLOC_ARENA_MAX=$${MALLOC_ARENA_MAX:-2} node dist/bundle/main.js serve

test: deps build format-check lint imports typecheck
	node scripts/run-tests.mjs
	python3 -m unittest discover -s clients/python/tests
	@$(MAKE) --no-print-directory bench-smoke-ci

# The suite on another Node.js major, e.g. `make test-node NODE=24` (README, "Supported runtimes"): the
# runtime from the npm registry, a copy of the tree with its own node_modules under .cache/node-<major>/.
# TESTS narrows it (vitest paths or filters), e.g. TESTS=test/unit.
NODE ?= 24
test-node:
	bash scripts/test-node.sh $(NODE) $(TESTS)

deps: system-deps node-deps

system-deps:
	@bash scripts/install-system-deps.sh

node-deps: $(NODE_STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-fund --no-audit
	@touch $@

# tsc, then the service bundled for a faster start (scripts/bundle.mjs): dist/bundle/main.js.
build: node-deps
	npx tsc -p tsconfig.build.json
	node scripts/bundle.mjs

lint: node-deps
	npx eslint .

# Prettier decides layout (.prettierrc.json); `make format` rewrites, `make test` only checks.
format: node-deps
	npx prettier --write --log-level warn .

format-check: node-deps
	npx prettier --check --log-level warn .

# Which way imports may point: .dependency-cruiser.cjs (docs/architecture.md, "Layers").
imports: node-deps
	npx depcruise src --config .dependency-cruiser.cjs --output-type err

typecheck: node-deps
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p clients/typescript/tsconfig.json --noEmit

docs: build
	node dist/src/options/write-docs.js

# The benchmark suite (docs/performance.md, "How to run the benchmark"): Shutter against a warm
# Playwright floor, a bare-CDP bound, a launch-per-request service and capture-website, the engines
# taking turns round by round within each scenario. Options: BENCH_* variables, e.g. `BENCH_LONG=1 make bench`.
# Writes bench/results/bench-latest.md (the report) and .svg (its chart), plus dated copies. Takes
# ~45 min on 2 cores with the real-page scenarios (+~12 with BENCH_LONG=1); bench-smoke ~1–2 min.
bench: deps build bench-deps
	node dist/bench/run.js

# Part of `make test` (~1 min): every scenario once on Shutter, the floor, the bare-CDP bound and launch-per-request, so the
# suite keeps working; capture-website is left out to need no extra install. Exits 1 on any error.
bench-smoke-ci: build
	@mkdir -p bench/results
	BENCH_SMOKE=1 BENCH_ENGINES=shutter,floor,bare,launch node dist/bench/run.js > bench/results/smoke-ci.log 2>&1 || \
		(cat bench/results/smoke-ci.log; exit 1)
	@echo "bench smoke: $$(grep -c '  ok ' bench/results/smoke-ci.log) scenario runs without errors (log: bench/results/smoke-ci.log)"

bench-smoke: deps build bench-deps
	BENCH_SMOKE=1 node dist/bench/run.js

# capture-website (Puppeteer) lives in bench/ only, with no browser download: it uses Debian's Chromium.
bench-deps:
	@test -f bench/node_modules/capture-website/package.json || \
		(cd bench && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-fund --no-audit)

clean:
	rm -rf dist
