#!/usr/bin/env bash
# `make test-node NODE=<major>` (e.g. 22, 26): the test suite on another Node.js major.
#
# The runtime is the npm registry's `node-linux-<arch>` package, the newest release of that major:
# the official Linux build (bin/node and include/node, the headers native modules compile against),
# which the registry's `node` package installs through an install script; fetched here with
# `npm pack`, so no install script runs. It is unpacked once under .cache/node-<major>/runtime
# (delete .cache/node-<major> for a newer release).
#
# The suite runs in a copy of the tree, .cache/node-<major>/repo, with its own node_modules
# installed by `npm ci` under that Node, so the checkout's node_modules stay as they are. Native
# modules need no compiler and nothing from GitHub: better-sqlite3 13, sharp and msgpackr-extract ship
# prebuilt Node-API binaries in their npm packages (Node-API is stable across majors), esbuild an
# executable. nodedir still points at the runtime's headers, should anything be built from source.
#
# better-sqlite3 12 (before this project moved to 13) compiled node::ObjectWrap, a header-only class,
# into its binary: built against Node >= 24.19's headers it aborted the process (SIGABRT, "Assertion
# failed: (env) != nullptr" in RemoveEnvironmentCleanupHook) when the garbage collector finalized a
# statement. 13 is written against Node-API (Napi::ObjectWrap) and has no such code (README,
# "Supported runtimes").
#
# Arguments after the major go to vitest, e.g. `make test-node NODE=24 TESTS=test/unit`.
set -euo pipefail

major=${1:?usage: scripts/test-node.sh <major> [vitest arguments...]}
shift
if [[ ! $major =~ ^[0-9]+$ ]]; then
  echo "test-node: NODE must be a Node.js major version such as 24, not '$major'" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=$root/.cache/node-$major
runtime=$cache/runtime
repo=$cache/repo
case $(uname -m) in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *)
    echo "test-node: no node-linux package for $(uname -m)" >&2
    exit 1
    ;;
esac

# Unpacks node-linux-<arch>@<version spec> from the npm registry into <dir> (only <members> of it, if given).
fetch_node() {
  local spec=$1 dir=$2 download
  shift 2
  echo "test-node: fetching node-linux-$arch@$spec from the npm registry"
  download=$(mktemp -d)
  (cd "$download" && npm pack --silent --no-fund --no-audit "node-linux-$arch@$spec" > /dev/null)
  local tarballs=("$download"/node-linux-"$arch"-*.tgz)
  rm -rf "$dir"
  mkdir -p "$dir"
  tar -xzf "${tarballs[0]}" -C "$dir" --strip-components=1 "${@/#/package/}"
  rm -rf "$download"
}

# 1. The runtime, and the headers native modules compile against.
if [[ ! -x $runtime/bin/node || ! -f $runtime/include/node/node_api.h ]]; then
  fetch_node "$major" "$runtime"
fi
export PATH=$runtime/bin:$PATH
if [[ $(node -p 'process.versions.node.split(".")[0]') != "$major" ]]; then
  echo "test-node: $runtime/bin/node is $(node -v), not Node $major" >&2
  exit 1
fi

# 2. The copy of the tree: tracked and new files as they are now; node_modules, builds and this cache left out.
mkdir -p "$repo"
rsync -a --delete --exclude=/.git --exclude=/.cache --exclude=node_modules --exclude=/dist --exclude=/data \
  --exclude=/coverage --exclude=/bench/results "$root/" "$repo/"
cd "$repo"

# 3. Its node_modules, again only when the lockfile or the Node release changed. The user's npmrc
# may point nodedir at the system Node's headers: set it to the runtime's.
stamp=node_modules/.shutter-node
want="$(node -v) $(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  echo "test-node: npm ci under Node $(node -v)"
  npm_config_nodedir=$runtime npm ci --no-fund --no-audit
  echo "$want" > "$stamp"
fi
node -e "
  const Database = require('better-sqlite3');
  new Database(':memory:').prepare('select 1').get();
  require('sharp');
  console.log('test-node: Node ' + process.version + ' (modules ABI ' + process.versions.modules + '): better-sqlite3 and sharp load');
"

# 4. Build as `make build` does (some tests start dist/bundle/main.js) and run the suite.
npx tsc -p tsconfig.build.json
node scripts/bundle.mjs
node scripts/run-tests.mjs "$@"
