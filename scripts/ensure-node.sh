#!/usr/bin/env bash
# Which Node.js the Makefile runs everything with (README, "Supported runtimes"). Prints nothing when
# the `node` on PATH is a supported major (22 or newer): the machine's own Node is used. Otherwise
# prints the bin directory of Node 24 LTS, set up inside the project from the npm registry's
# `node-linux-<arch>` package (the official Linux build, fetched with `npm pack`, so no install script
# runs) under .cache/node-24/runtime, the directory `make test-node NODE=24` uses too; the Makefile
# puts it first on PATH. One line on stderr says so. Delete .cache/node-24 for a newer 24.x.
set -euo pipefail

minimum=22
reference=24

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runtime=$root/.cache/node-$reference/runtime

current=""
if command -v node > /dev/null 2>&1; then
  current=$(node -p 'process.versions.node' 2> /dev/null || true)
fi
if [[ -n $current && ${current%%.*} -ge $minimum ]]; then
  exit 0
fi

if [[ ! -x $runtime/bin/node || ! -f $runtime/include/node/node_api.h ]]; then
  case $(uname -s)-$(uname -m) in
    Linux-x86_64) arch=x64 ;;
    Linux-aarch64) arch=arm64 ;;
    *)
      echo "shutter: Node.js ${current:-(none)} is too old (need $minimum+), and the npm registry has no node-linux package for $(uname -s) $(uname -m): install Node.js $reference" >&2
      exit 1
      ;;
  esac
  if ! command -v npm > /dev/null 2>&1; then
    echo "shutter: no npm to fetch Node.js $reference with: install Node.js $reference (22 or newer works)" >&2
    exit 1
  fi
  # Unpacked beside the final place and moved there in one step, so a second `make` running at the
  # same time never sees half a runtime.
  mkdir -p "$(dirname "$runtime")"
  work=$(mktemp -d "$(dirname "$runtime")/.fetch.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent --no-fund --no-audit "node-linux-$arch@$reference" > /dev/null)
  tarballs=("$work"/node-linux-"$arch"-*.tgz)
  mkdir "$work/runtime"
  tar -xzf "${tarballs[0]}" -C "$work/runtime" --strip-components=1
  rm -rf "$runtime"
  mv "$work/runtime" "$runtime"
fi

echo "shutter: Node.js ${current:-(none)} is older than $minimum; using Node.js $("$runtime/bin/node" -v) from the npm registry's node-linux package, in ${runtime#"$root"/}" >&2
echo "$runtime/bin"
