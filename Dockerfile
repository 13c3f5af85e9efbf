# Shutter: Debian (bookworm, slim) + the current Node LTS + Debian's Chromium and fonts.
# Build:  docker build -t shutter .
# Run:    docker run --init -p 8080:8080 -e SHUTTER_BOOTSTRAP_KEY=<16+ chars> shutter
# docs/deploy.md has the details, including what was never run on our machines (no container engine there).

# ---- build: dependencies with dev tools, then tsc, then the dev tools pruned away ----
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-fund --no-audit
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY scripts/bundle.mjs ./scripts/bundle.mjs
RUN npx tsc -p tsconfig.build.json && node scripts/bundle.mjs
RUN npm prune --omit=dev --no-fund --no-audit

# ---- runtime ----
FROM node:24-bookworm-slim
WORKDIR /app

# The same script `make start` runs (Makefile, target system-deps): Debian's Chromium (headless shell
# preferred), fonts for every script in common use, and uBlock Origin's bundled filter lists for block_ads.
# `--build-arg SHUTTER_FONTS=lean` leaves out CJK and the South/Southeast Asian and African scripts,
# ~137 MB less (docs/fonts.md); the script reads the build argument as an environment variable.
ARG SHUTTER_FONTS=full
COPY scripts/install-system-deps.sh scripts/install-system-deps.sh
RUN bash scripts/install-system-deps.sh && rm -rf /var/lib/apt/lists/*

COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The dashboard's CSS and JS are read from the sources at run time (src/dashboard/static-assets.ts).
COPY src/dashboard/static ./src/dashboard/static

# MALLOC_ARENA_MAX=2: libvips' threads otherwise spread the heap over many glibc arenas, which hold freed
# memory (docs/performance.md, "Memory"); `make start` sets the same.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    SHUTTER_HOST=0.0.0.0 \
    SHUTTER_PORT=8080 \
    SHUTTER_DATA_DIR=/var/lib/shutter

# Non-root: the image's `node` user (uid 1000). Chromium then keeps its own sandbox, which needs user
# namespaces: see docs/deploy.md, "Chromium's sandbox in a container".
RUN mkdir -p /var/lib/shutter && chown node:node /var/lib/shutter
USER node
VOLUME ["/var/lib/shutter"]
EXPOSE 8080

# /healthz answers while the process serves HTTP; /readyz (browser, database, limits) is for load balancers.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SHUTTER_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM drains in-flight captures for SHUTTER_SHUTDOWN_TIMEOUT seconds; run with --init (or compose's
# `init: true`) so that an init process reaps Chromium's orphaned helpers.
STOPSIGNAL SIGTERM
CMD ["node", "dist/bundle/main.js", "serve"]
